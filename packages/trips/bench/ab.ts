// Interleaved A/B runs of the read API: `npx tsx bench/ab.ts <label>=<repo dir> [<label>=<repo dir> ...]`
// starts each variant's bench/api-server.ts on the same bench store (run `npm run bench` once first), one after
// the other and round after round (the order turns each round), loads each endpoint as the bench does (50
// connections) and prints, per variant and endpoint, the median and range of the server's CPU per request.
// On a shared machine req/s moves with the neighbours; CPU per request much less. Figures only.
// AB_ROUNDS (default 4), AB_DURATION_S (default 8), AB_ONLY=list1,list5000,breakdown,trip, AB_CPU_PROF=<dir>,
// AB_NODE_FLAGS_<label>="--flag ..." (Node flags for that variant's server only).
// BENCH_READ_STORE=postgres: on the PostgreSQL bench store (BENCH_DATABASE_URL or TEST_DATABASE_URL), each
// variant's server reading it as `api-pg`, and the CPU of PostgreSQL's processes per request printed beside.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { readBenchDatabase } from './bench-data.ts';

const DATA = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'trips-bench');
const TOTAL = Number(process.env.BENCH_TRIPS ?? 1_000_000);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4);
const DURATION_S = Number(process.env.AB_DURATION_S ?? 8);
const only = process.env.AB_ONLY?.split(',');
const variants = process.argv.slice(2).map((a) => {
  const [label, dir] = a.split('=');
  return { label: label!, dir: path.resolve(dir!) };
});
if (variants.length === 0) throw new Error('usage: ab.ts <label>=<repo dir> ...');

const pgUrl =
  process.env.BENCH_READ_STORE === 'postgres'
    ? (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
    : undefined;
const data = await readBenchDatabase(DATA, TOTAL, () => {}, pgUrl);
const { store, token, tripIds } = data;
await data.database.close();
const serverArgs = store.kind === 'sqlite' ? ['api', store.file] : ['api-pg', store.url, store.schema];

/** CPU ticks of PostgreSQL's processes (its backends serve the server under test), or 0 on SQLite. */
function databaseTicks(): number {
  if (store.kind === 'sqlite') return 0;
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres')) continue;
      ticks += cpuTicks(Number(pid));
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks;
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function start(dir: string, label: string, round: number): Promise<{ child: ChildProcess; port: number }> {
  const log = openSync(path.join(DATA, `ab-${label}.log`), 'w');
  const prof = process.env.AB_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', path.join(process.env.AB_CPU_PROF, `${label}-${round}`)]
    : [];
  // AB_NODE_FLAGS_<label>: extra Node flags for one variant (e.g. a heap setting), the same checkout otherwise.
  const flags = (process.env[`AB_NODE_FLAGS_${label}`] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, ...prof, '--import', 'tsx', 'bench/api-server.ts', ...serverArgs], {
    cwd: path.join(dir, 'packages/trips'),
    stdio: ['ignore', log, 'pipe'],
  });
  closeSync(log);
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (c: Buffer) => {
      seen += c.toString();
      const m = /listening (\d+)/.exec(seen);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${label} exited with ${code}: ${seen.slice(-500)}`)));
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const endpoints: Array<{ name: string; path: () => string }> = [
  { name: 'list1', path: () => '/v1/trips?limit=100' },
  { name: 'list5000', path: () => '/v1/trips?limit=100&page=5000' },
  { name: 'breakdown', path: () => `/v1/trips/${tripIds[Math.floor(Math.random() * tripIds.length)]}/score-breakdown` },
  // The single trip, random ids (only when AB_ONLY names it).
  { name: 'trip', path: () => `/v1/trips/${tripIds[Math.floor(Math.random() * tripIds.length)]}` },
  // A fixed body from a /v1 route: the request stack alone (only in a build that has such a route).
  { name: 'fixed', path: () => '/v1/fixed' },
].filter((e) => (only ? only.includes(e.name) : e.name !== 'fixed' && e.name !== 'trip'));

const results = new Map<string, Array<{ cpu: number; dbCpu: number; rps: number; p99: number }>>();
// AB_ACCEPT_ENCODING: sent with every request (e.g. "gzip, deflate, br", as browsers ask), to measure compression.
const headers: Record<string, string> = {
  authorization: `Bearer ${token}`,
  ...(process.env.AB_ACCEPT_ENCODING ? { 'accept-encoding': process.env.AB_ACCEPT_ENCODING } : {}),
};

for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? variants : [...variants].reverse();
  for (const v of order) {
    const { child, port } = await start(v.dir, v.label, round);
    try {
      const url = `http://127.0.0.1:${port}`;
      for (const e of endpoints) {
        await autocannon({ url: `${url}${e.path()}`, connections: 10, duration: 2, headers });
        const before = cpuTicks(child.pid!);
        const dbBefore = databaseTicks();
        const r = await autocannon({
          url: `${url}${e.path()}`,
          connections: 50,
          duration: DURATION_S,
          headers,
          requests: [{ setupRequest: (req) => ({ ...req, path: e.path() }) }],
        });
        const cpu = ((cpuTicks(child.pid!) - before) * 10_000) / Math.max(1, r.requests.total);
        const dbCpu = ((databaseTicks() - dbBefore) * 10_000) / Math.max(1, r.requests.total);
        if (r.non2xx || r.errors) throw new Error(`${v.label} ${e.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        const key = `${v.label} ${e.name}`;
        results.set(key, [...(results.get(key) ?? []), { cpu, dbCpu, rps: r.requests.average, p99: r.latency.p99 }]);
        process.stdout.write(
          `round ${round} ${key.padEnd(24)} ${Math.round(r.requests.average)} req/s p99 ${r.latency.p99} ms  server ${cpu.toFixed(0)} µs/req${store.kind === 'sqlite' ? '' : `, PostgreSQL ${dbCpu.toFixed(0)} µs/req`}\n`,
        );
      }
    } finally {
      await stop(child);
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
process.stdout.write('\nserver CPU µs/request: median [min-max]; req/s median\n');
for (const e of endpoints) {
  for (const v of variants) {
    const rs = results.get(`${v.label} ${e.name}`) ?? [];
    const cpus = rs.map((r) => r.cpu);
    const db = store.kind === 'sqlite' ? '' : `  PostgreSQL ${median(rs.map((r) => r.dbCpu)).toFixed(0)} µs/req`;
    process.stdout.write(
      `  ${e.name.padEnd(10)} ${v.label.padEnd(12)} ${median(cpus).toFixed(0).padStart(4)} [${Math.min(...cpus).toFixed(0)}-${Math.max(...cpus).toFixed(0)}]  ${Math.round(median(rs.map((r) => r.rps)))} req/s  p99 ${median(rs.map((r) => r.p99))} ms${db}\n`,
    );
  }
}
