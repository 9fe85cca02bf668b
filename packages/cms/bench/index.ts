/**
 * `npm run bench -w packages/cms`: autocannon against the CMS (a child process on a fresh database) and,
 * when it runs here, the WordPress oracle, scenario by scenario at 1 and 16 connections, interleaved so
 * both see the same machine state. Prints req/s and p50/p99 latency; asserts nothing.
 * BENCH_DURATION (seconds, default 10), BENCH_ONLY (substring of scenario names) and BENCH_CONNECTIONS
 * (comma-separated, default 1,16) narrow a run; BENCH_WARMUP (seconds, default 5) is each scenario's first
 * warm-up. The load generator is pinned to one CPU (BENCH_CLIENT_CPU, see pinLoadGenerator).
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import autocannon from 'autocannon';
import { prepare, type Scenario, scenarioPath, scenarioRoot, scenarios } from './scenarios.ts';
import { type BenchTarget, findOracle, startCms } from './target.ts';

const durationS = Number(process.env.BENCH_DURATION ?? 10);
const warmupS = Number(process.env.BENCH_WARMUP ?? 5);
const only = process.env.BENCH_ONLY;
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,16').split(',').map(Number);

interface Row {
  scenario: string;
  target: string;
  connections: number;
  reqPerS: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
}

/** Numbers the bodies of every run (warm-up and measured), so creates stay unique across runs. */
let bodyNumber = 0;

/**
 * Keeps this process (autocannon, the load generator) on one CPU, BENCH_CLIENT_CPU (default the last),
 * once the CMS has been started unpinned. On a two-core machine an unpinned load generator is woken on
 * the core of the worker that just answered and preempts it before it has finished with the request: at
 * one connection that cost 10-15 % of the requests per second (measured), a cost no remote client
 * imposes. The servers may still use every CPU; WordPress's processes are not touched.
 */
function pinLoadGenerator(): string {
  const cpus = os.cpus().length;
  if (cpus < 2) return 'not pinned (one CPU)';
  if (process.env.BENCH_CLIENT_CPU === 'none') return 'not pinned (BENCH_CLIENT_CPU=none)';
  const cpu = Number(process.env.BENCH_CLIENT_CPU ?? cpus - 1);
  try {
    execFileSync('taskset', ['-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' });
    return `pinned to CPU ${cpu} of ${cpus}`;
  } catch (err) {
    return `not pinned (taskset: ${(err as Error).message.split('\n')[0]})`;
  }
}

/**
 * Runs a scenario's own request (method, headers, body) against a target for `seconds`: the measured
 * runs, and the warm-up before them, so a create is warmed up with creates, not with a GET of its URL.
 */
async function run(
  target: BenchTarget,
  scenario: Scenario,
  connections: number,
  seconds: number,
): Promise<autocannon.Result> {
  const path = scenarioPath(scenario, target);
  const url = `${scenarioRoot(scenario, target)}${scenario.site ? path : target.mapPath(path)}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(scenario.headers ?? {}) };
  if (scenario.auth) headers.authorization = target.authorization;
  return autocannon({
    url,
    method: scenario.method,
    connections,
    duration: seconds,
    headers,
    timeout: 10,
    ...(scenario.rawBody ? { body: scenario.rawBody() } : {}),
    ...(scenario.body
      ? {
          requests: [
            {
              method: scenario.method,
              setupRequest: (req: autocannon.Request) => ({
                ...req,
                body: JSON.stringify(scenario.body!(++bodyNumber)),
              }),
            },
          ],
        }
      : {}),
  });
}

async function measure(target: BenchTarget, scenario: Scenario, connections: number): Promise<Row> {
  const result = await run(target, scenario, connections, durationS);
  return {
    scenario: scenario.name,
    target: target.label,
    connections,
    reqPerS: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx + result.errors,
  };
}

function table(rows: Row[]): string {
  const lines = [
    '| scenario | conns | target | req/s | p50 ms | p99 ms | requests | non-2xx |',
    '|---|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${r.connections} | ${r.target} | ${r.reqPerS.toFixed(1)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.requests} | ${r.non2xx} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  process.stdout.write(
    `machine: ${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}, ${os.platform()} ${os.release()}, node ${process.version}\n`,
  );
  process.stdout.write(`duration per run: ${durationS} s; connections: ${CONNECTIONS.join(', ')}\n`);
  const cms = await startCms();
  process.stdout.write(`load generator: ${pinLoadGenerator()}\n`);
  const oracle = await findOracle();
  if (typeof oracle === 'string') process.stdout.write(`WordPress oracle: skipped (${oracle})\n`);
  else process.stdout.write(`WordPress oracle: ${oracle.apiRoot}\n`);
  const rows: Row[] = [];
  try {
    await prepare(cms);
    for (const scenario of scenarios) {
      if (only && !scenario.name.includes(only)) continue;
      for (const [i, connections] of CONNECTIONS.entries()) {
        // Warm up (JIT, caches) with the scenario's own request, without recording, on both workers (two
        // connections: the cluster hands them one each). A worker's creates take about 5,000 requests to
        // reach their steady cost (~800 against ~630 µs of CPU each, measured), so the first warm-up of a
        // scenario lasts BENCH_WARMUP seconds (default 5); the later ones top it up for a second.
        await run(cms, scenario, 2, i === 0 ? warmupS : 1);
        rows.push(await measure(cms, scenario, connections));
        if (typeof oracle !== 'string' && scenario.oracle) rows.push(await measure(oracle, scenario, connections));
        process.stdout.write(`${table(rows.slice(-2))}\n`);
      }
    }
  } finally {
    await cms.close();
  }
  process.stdout.write(`\n${table(rows)}\n`);
  const pairs = rows.filter((r) => r.target === 'wordpress');
  for (const wp of pairs) {
    const ours = rows.find((r) => r.target === 'cms' && r.scenario === wp.scenario && r.connections === wp.connections);
    if (ours && wp.reqPerS > 0) {
      process.stdout.write(`${wp.scenario} @${wp.connections}: ${(ours.reqPerS / wp.reqPerS).toFixed(1)}x WordPress\n`);
    }
  }
}

await main();
