// `npm run bench` (packages/trips): read API under load on a million stored trips against a bare
// Fastify ceiling, deep pages against page 1, and ingest throughput into SQLite and PostgreSQL.
// Figures are printed, never asserted.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { writeGraph } from '@svc/roads';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { openTripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { benchCity, readBenchDatabase, twentyMinuteTrips } from './bench-data.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOTAL = Number(process.env.BENCH_TRIPS ?? 1_000_000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 50;
const INGEST_TRIPS = Number(process.env.BENCH_INGEST_TRIPS ?? 200);
const DATA = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'trips-bench');
// Processes serving the API and the ceiling (bench/api-server.ts): 1, or n cluster workers for both.
const API_WORKERS = Number(process.env.BENCH_API_WORKERS ?? 1);
const log = (s: string) => process.stdout.write(`${s}\n`);

function startProcess(
  args: string[],
  options: { logFile?: string; env?: Record<string, string> } = {},
): Promise<{ child: ChildProcess; port: number }> {
  // A server's log (one line per request) goes to a file, as in production, not through a pipe that this
  // process, which also generates the load, would have to read.
  const stdout = options.logFile ? openSync(options.logFile, 'w') : 'pipe';
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: path.join(here, '..'),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', stdout, 'pipe'],
  });
  if (typeof stdout === 'number') closeSync(stdout);
  return new Promise((resolve, reject) => {
    let seen: string | null = '';
    const onData = (chunk: Buffer) => {
      if (seen === null) return;
      seen += chunk.toString();
      const m = /listening (\d+)/.exec(seen);
      if (m) {
        // From here on the server's output (a log line per request) is drained and dropped: keeping it
        // would cost this process, which also runs the load generator, time and memory.
        seen = null;
        resolve({ child, port: Number(m[1]) });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${seen?.slice(-1000) ?? ''}`)));
  });
}

/**
 * Reads the store once, so the runs find it in the OS page cache. This machine's memory reclaim evicts
 * file pages that were not read for a while: a store left cold since the last run gave the breakdown (random
 * trips) 711 req/s with a p99 of 589 ms, the same store read first 4,530 req/s and 24 ms.
 */
function readIntoPageCache(file: string): string {
  const started = performance.now();
  const buffer = Buffer.allocUnsafe(8 * 1024 * 1024);
  const fd = openSync(file, 'r');
  let total = 0;
  try {
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) total += n;
  } finally {
    closeSync(fd);
  }
  return `read the store into the page cache first (${Math.round(total / 1e6)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s)`;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  bytes: number;
  errors: number;
  /** CPU time (user + system) of the server's processes per request, µs; null where /proc is not readable. */
  serverCpuUs: number | null;
  /** CPU time of this process (the load generator) per request, µs. */
  loadCpuUs: number;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU fields: 100 on every Linux platform Node runs on. */
const CLOCK_TICKS = 100;

/**
 * CPU ticks (user + system) used so far by `pid` and its direct children (the cluster workers), from
 * /proc; null off Linux. A process that exits during the run would drop out of the sum: none does here.
 */
function cpuTicksOfTree(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const ticks = (stat: string) => {
    // Fields after the command name, which is in parentheses and may hold spaces.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), cpu: Number(f[11]) + Number(f[12]) };
  };
  try {
    let total = ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpu;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || Number(entry) === pid) continue;
      try {
        const t = ticks(readFileSync(`/proc/${entry}/stat`, 'utf8'));
        if (t.ppid === pid) total += t.cpu;
      } catch {
        // The process ended while the list was read.
      }
    }
    return total;
  } catch {
    return null;
  }
}

async function load(
  url: string,
  headers: Record<string, string>,
  server: ChildProcess,
  paths?: () => string,
): Promise<Load> {
  // A short warm-up, then the measured run.
  await autocannon({ url, connections: 10, duration: 2, headers });
  const serverBefore = cpuTicksOfTree(server.pid);
  const loadBefore = process.cpuUsage();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers,
    ...(paths ? { requests: [{ setupRequest: (req) => ({ ...req, path: paths() }) }] } : {}),
  });
  const loadCpu = process.cpuUsage(loadBefore);
  const serverAfter = cpuTicksOfTree(server.pid);
  const requests = Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytes: result.throughput.average / Math.max(1, result.requests.average),
    errors: result.errors + result.non2xx,
    serverCpuUs:
      serverBefore === null || serverAfter === null
        ? null
        : ((serverAfter - serverBefore) * (1e6 / CLOCK_TICKS)) / requests,
    loadCpuUs: (loadCpu.user + loadCpu.system) / requests,
  };
}

const fmt = (l: Load) =>
  `${Math.round(l.rps).toLocaleString('en').padStart(7)} req/s  p50 ${String(l.p50).padStart(3)} ms  p99 ${String(l.p99).padStart(3)} ms  CPU/req: server ${l.serverCpuUs === null ? '  n/a' : `${Math.round(l.serverCpuUs)}`.padStart(5)} µs, load ${`${Math.round(l.loadCpuUs)}`.padStart(4)} µs${l.errors ? `  (${l.errors} errors)` : ''}`;

async function readBenchmarks() {
  // BENCH_READ_STORE=postgres: the same runs against PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL), the
  // store several nodes share.
  const pgUrl =
    process.env.BENCH_READ_STORE === 'postgres'
      ? (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
      : undefined;
  log(
    `\n== Read API: ${TOTAL.toLocaleString('en')} stored trips in ${pgUrl ? 'PostgreSQL' : 'SQLite'}, ${CONNECTIONS} connections, ${DURATION_S} s per run ==`,
  );
  log(
    API_WORKERS === 1
      ? '  API and ceiling: one process each (BENCH_API_WORKERS=1)'
      : `  API and ceiling: ${API_WORKERS} worker processes each (node:cluster, BENCH_API_WORKERS=${API_WORKERS}), on the same ${os.cpus().length} CPUs as the load generator`,
  );
  const data = await readBenchDatabase(DATA, TOTAL, log, pgUrl);
  const store = data.store;
  // The runs should read a store the OS (and PostgreSQL) hold in memory, as a serving node's would be.
  const warm = async () => {
    if (store.kind === 'sqlite') return readIntoPageCache(store.file);
    const started = performance.now();
    const db = data.database.db;
    const { rows } = await sql<{
      bytes: string;
    }>`select pg_total_relation_size('trips') + pg_total_relation_size('trip_breakdowns') as bytes`.execute(db);
    // Every page of the tables and of the indexes the reads use, through PostgreSQL's buffers into the OS cache.
    await sql`select count(*) from (select item_json from trips) t`.execute(db);
    await sql`select sum(length(values_json)) from trip_breakdowns`.execute(db);
    await sql`select count(*) from (select trip_id from trips order by start_ms desc, trip_id desc) t`.execute(db);
    return `read the store's tables once first (${Math.round(Number(rows[0]?.bytes ?? 0) / 1e6)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s)`;
  };
  if (store.kind === 'sqlite') log(`  store: ${store.file} (${Math.round(statSync(store.file).size / 1e6)} MB)`);
  else log(`  store: schema ${store.schema} of ${store.url.replace(/\/\/[^@/]*@/, '//')}`);
  log(`  ${await warm()}`);
  const token = data.token;
  // SQLite: this process keeps no connection while the server reads (PostgreSQL: it is needed to warm again).
  if (store.kind === 'sqlite') await data.database.close();
  const api = await startProcess(
    store.kind === 'sqlite'
      ? ['bench/api-server.ts', 'api', store.file]
      : ['bench/api-server.ts', 'api-pg', store.url, store.schema],
    { logFile: path.join(DATA, 'api-server.log') },
  );
  const base = `http://127.0.0.1:${api.port}`;
  const auth = { authorization: `Bearer ${token}` };
  try {
    const sizeOf = async (p: string) => (await (await fetch(`${base}${p}`, { headers: auth })).text()).length;
    const listBytes = await sizeOf('/v1/trips?limit=100');
    const breakdownBytes = await sizeOf(`/v1/trips/${data.tripIds[0]}/score-breakdown`);
    const ids = data.tripIds;
    let k = 0;
    const results: Array<[string, Load, number]> = [];
    results.push([
      'GET /v1/trips?limit=100 (page 1)',
      await load(`${base}/v1/trips?limit=100`, auth, api.child),
      listBytes,
    ]);
    results.push([
      'GET /v1/trips?limit=100&page=5000',
      await load(`${base}/v1/trips?limit=100&page=5000`, auth, api.child),
      listBytes,
    ]);
    // Again just before the random reads: this machine's reclaim evicts pages within minutes, and the list
    // runs above touch only the newest and the 5,000th page (without it the breakdown's p99 was 45-52 ms).
    log(`  ${await warm()} (again, before the breakdown)`);
    results.push([
      'GET /v1/trips/{id}/score-breakdown (random ids)',
      await load(
        `${base}/v1/trips/${ids[0]}/score-breakdown`,
        auth,
        api.child,
        () => `/v1/trips/${ids[k++ % ids.length]}/score-breakdown`,
      ),
      breakdownBytes,
    ]);
    // The same reads as a browser (or most HTTP libraries) asks for them, compressed: not against a ceiling,
    // which compresses nothing, but what a dashboard's requests cost the server.
    const browser = { ...auth, 'accept-encoding': 'gzip, deflate, br' };
    const compressed: Array<[string, Load]> = [
      [
        'GET /v1/trips?limit=100 (page 1), Accept-Encoding: gzip, deflate, br',
        await load(`${base}/v1/trips?limit=100`, browser, api.child),
      ],
      [
        'GET /v1/trips/{id}/score-breakdown (random ids), the same',
        await load(
          `${base}/v1/trips/${ids[0]}/score-breakdown`,
          browser,
          api.child,
          () => `/v1/trips/${ids[k++ % ids.length]}/score-breakdown`,
        ),
      ],
    ];
    await stop(api.child);
    for (const [name, , bytes] of [...results]) {
      const ceiling = await startProcess(['bench/api-server.ts', 'ceiling', String(bytes)]);
      results.push([
        `ceiling for ${name.split(' (')[0]} (bare Fastify, ${bytes} B body)`,
        await load(`http://127.0.0.1:${ceiling.port}/ceiling`, {}, ceiling.child),
        bytes,
      ]);
      await stop(ceiling.child);
    }
    for (const [name, l] of results) log(`  ${name.padEnd(78)} ${fmt(l)}`);
    for (const [name, l] of compressed) {
      log(`  ${name.padEnd(78)} ${fmt(l)}, ${Math.round(l.bytes).toLocaleString('en')} B a response with headers`);
    }
    const [page1, page5000, breakdown, c1, c2, c3] = results.map((r) => r[1]) as Load[];
    log(
      `  list page 1 / ceiling: ${(page1!.rps / c1!.rps).toFixed(2)}   breakdown / ceiling: ${(breakdown!.rps / c3!.rps).toFixed(2)}   page 5000 / ceiling: ${(page5000!.rps / c2!.rps).toFixed(2)}`,
    );
    if (page1!.serverCpuUs !== null && c1!.serverCpuUs !== null) {
      // What the ratios come down to on a machine whose CPUs the load generator shares.
      const times = (a: Load, b: Load) => `${(a.serverCpuUs! / Math.max(1, b.serverCpuUs!)).toFixed(1)}x`;
      log(
        `  server CPU per request against the ceiling's: list page 1 ${times(page1!, c1!)}   breakdown ${times(breakdown!, c3!)}   page 5000 ${times(page5000!, c2!)}`,
      );
    }
    log(
      `  page 5,000 vs page 1: p50 ${page5000!.p50} vs ${page1!.p50} ms (${(page5000!.p50 / Math.max(1, page1!.p50)).toFixed(2)}x), req/s ${Math.round(page5000!.rps)} vs ${Math.round(page1!.rps)} (page 1 is ${(page1!.rps / page5000!.rps).toFixed(2)}x page 5,000)`,
    );
  } finally {
    await stop(api.child);
    await data.database.close();
  }
}

async function ingestBenchmark(kind: 'sqlite' | 'postgres', pgUrl?: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'trips-ingest-bench-'));
  const schema = `bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const graph = benchCity();
  const graphFile = path.join(dir, 'bench-city.graph');
  writeGraph(graph, graphFile);
  const trips = twentyMinuteTrips(graph, 40);
  const database =
    kind === 'sqlite'
      ? await openTripsDatabase({ environment: 'production', sqliteFile: path.join(dir, 'trips-production.db') })
      : await openTripsDatabase({ environment: 'production', url: pgUrl!, pgSchema: schema });
  await createFleet(database.db, { name: 'Bench', fleetId: 'fleet_ingest' });
  for (let v = 0; v < 6; v++) await createVehicle(database.db, { fleetId: 'fleet_ingest', plate: `IN-${v}` });
  const key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_ingest' })).secret;
  // Each pass over the pool is moved four weeks back (trips in the future are refused), so that no driver
  // drives two trips at once: a copy at the same times would be an earlier trip arriving late for the pool's
  // later trips, and put them back in the scoring queue (their fatigue context changes,
  // store/fatigue-followers.ts).
  const bodies = Array.from({ length: INGEST_TRIPS }, (_, i) => {
    const trip = trips[i % trips.length]!;
    const shiftMs = -Math.floor(i / trips.length) * 28 * 86_400_000;
    const samples = trip.samples.map((s) => ({ ...s, t: s.t + shiftMs }));
    return gzipSync(JSON.stringify({ ...trip, samples, vehicle: `IN-${i % 6}`, clientTripId: `bench-trip-${i}` }));
  });
  const env: Record<string, string> = {
    DATA_DIR: dir,
    TRIPS_PORT: '0',
    TRIPS_INGEST_PORT: '0',
    TRIPS_ROAD_GRAPH: graphFile,
    TRIPS_SCORING_THREADS: '1',
    LOG_LEVEL: 'info',
    ...(kind === 'postgres'
      ? { TRIPS_DATABASE_URL: `${pgUrl}${pgUrl!.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}` }
      : {}),
  };
  const child = spawn(process.execPath, [path.join(here, '../bin/trips.js'), 'serve', '--env', 'production'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ingestUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"ingest":"(http:[^"]+)\/ingest\/v1"/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`trips serve exited with ${code}: ${out.slice(-1000)}`)));
  });
  try {
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const i = next++;
        const res = await fetch(`${ingestUrl}/ingest/v1/trips`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'idempotency-key': `bench-trip-${i}`,
          },
          body: bodies[i],
        });
        if (res.status !== 202) throw new Error(`upload ${i}: HTTP ${res.status} ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const accepted = performance.now() - t0;
    for (;;) {
      const row = await database.db
        .selectFrom('trip_uploads')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['scored', 'failed'])
        .executeTakeFirstOrThrow();
      if (Number(row.n) >= bodies.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const scored = performance.now() - t0;
    const failed = await database.db
      .selectFrom('trip_uploads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow();
    const kb = Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length / 1024);
    log(
      `  ${kind.padEnd(8)} ${bodies.length} uploads (${kb} KB gzip each), 8 clients: accepted ${(bodies.length / (accepted / 1000)).toFixed(1)} trips/s; end to end (stored, map-matched, scored, written) ${(bodies.length / (scored / 1000)).toFixed(1)} trips/s${Number(failed.n) ? ` (${failed.n} not scorable)` : ''}`,
    );
  } finally {
    await stop(child);
    if (kind === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What a window read (the driver and vehicle lists over the bench store's four fleets and 1,000 vehicles) does to
 * the requests beside it: the breakdown of random trips from 10 connections while 2 clients ask for the lists back
 * to back, with the lists read on the event loop (BENCH_READ_THREADS=0) and on a reader thread (1), as `trips
 * serve` reads them with TRIPS_READ_THREADS. SQLite only: on PostgreSQL the reads wait without holding the loop.
 */
async function windowReadsBenchmark() {
  log(
    `\n== Window reads beside trip reads: ${TOTAL.toLocaleString('en')} trips in SQLite; breakdowns from 10 connections, driver and vehicle lists (four fleets, 1,000 vehicles) from 2 clients, ${DURATION_S} s per run ==`,
  );
  const data = await readBenchDatabase(DATA, TOTAL, log);
  if (data.store.kind !== 'sqlite') return;
  const file = data.store.file;
  log(`  ${readIntoPageCache(file)}`);
  const auth = { authorization: `Bearer ${data.token}` };
  const ids = data.tripIds;
  await data.database.close();
  for (const threads of [0, 1]) {
    const api = await startProcess(['bench/api-server.ts', 'api', file], {
      logFile: path.join(DATA, 'api-server.log'),
      env: { BENCH_READ_THREADS: String(threads) },
    });
    const base = `http://127.0.0.1:${api.port}`;
    try {
      const lists = ['/v1/drivers?limit=100', '/v1/vehicles?limit=100&sort=-score'];
      let running = true;
      const listMs: number[] = [];
      let listErrors = 0;
      const client = async (offset: number) => {
        for (let i = offset; running; i++) {
          const started = performance.now();
          const res = await fetch(`${base}${lists[i % lists.length]}`, { headers: auth });
          await res.arrayBuffer();
          if (res.status !== 200) listErrors++;
          listMs.push(performance.now() - started);
        }
      };
      let k = 0;
      const clients = [client(0), client(1)];
      const result = await autocannon({
        url: `${base}/v1/trips/${ids[0]}/score-breakdown`,
        connections: 10,
        duration: DURATION_S,
        headers: auth,
        requests: [{ setupRequest: (req) => ({ ...req, path: `/v1/trips/${ids[k++ % ids.length]}/score-breakdown` }) }],
      });
      running = false;
      await Promise.all(clients);
      listMs.sort((a, b) => a - b);
      const at = (q: number) => Math.round(listMs[Math.min(listMs.length - 1, Math.floor(q * listMs.length))] ?? 0);
      log(
        `  lists ${threads === 0 ? 'on the event loop ' : 'on a reader thread'}: breakdown ${Math.round(result.requests.average).toLocaleString('en').padStart(6)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms${result.non2xx + result.errors ? ` (${result.non2xx + result.errors} errors)` : ''}; lists ${(listMs.length / DURATION_S).toFixed(1)}/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms${listErrors ? ` (${listErrors} errors)` : ''}`,
      );
    } finally {
      await stop(api.child);
    }
  }
}

log(
  `trips benchmarks on ${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, Node ${process.version}, ${os.platform()} ${os.release()}`,
);
if (process.env.BENCH_ONLY === 'window-reads') {
  await windowReadsBenchmark();
  process.exit(0);
}
if (process.env.BENCH_ONLY !== 'ingest') {
  await readBenchmarks();
  if (process.env.BENCH_READ_STORE !== 'postgres') await windowReadsBenchmark();
}
if (process.env.BENCH_ONLY === 'read') process.exit(0);
log(
  `\n== Ingest: 20-minute 1 Hz trips (1,200 GPS fixes), through HTTP into a real \`trips serve\` with 1 scoring thread ==`,
);
await ingestBenchmark('sqlite');
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (pgUrl) await ingestBenchmark('postgres', pgUrl);
else log('  postgres skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL URL');
