/**
 * In-process timing of the posts scenarios: the app built as `serve` builds it, the bench's 1,000 posts
 * created through the API, then each scenario called with `app.inject()` (no sockets, no autocannon) in a
 * loop, printing the mean time per request. For profiling (`node --cpu-prof --import tsx bench/inject.ts`)
 * and quick A/B comparisons (the CPU time per request varies less with the machine's load than the wall
 * time); `npm run bench` stays the figure of record.
 * INJECT_DATA_DIR keeps the prepared database between runs (created when missing); INJECT_ITERATIONS
 * (default 2000; creates at most 500 unless INJECT_POST_ITERATIONS says otherwise) and BENCH_ONLY narrow a
 * run. INJECT_PROFILE=dir writes a CPU profile of each scenario's measured loop only (no start-up, no
 * preparation, no warm-up) to dir/{scenario}.cpuprofile, sampled every 50 µs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/platform';
import SQLite from 'better-sqlite3';
import { buildApp } from '../src/app.ts';
import { installIfNeeded } from '../src/bootstrap.ts';
import { loadCmsConfig, resolveSecret } from '../src/config.ts';
import { indexQueuedPosts } from '../src/content/search-indexer.ts';
import { openCmsDatabase } from '../src/db/connection.ts';
import { prepare, type Scenario, scenarioPath, scenarios } from './scenarios.ts';
import type { BenchTarget } from './target.ts';

/** INJECT_TRACE=1: time every SQL statement and print them per scenario (the count per request and cost). */
const trace = new Map<string, { calls: number; ms: number; samples: number[] }>();
if (process.env.INJECT_TRACE) {
  const prepare = SQLite.prototype.prepare;
  SQLite.prototype.prepare = function (this: SQLite.Database, source: string) {
    const stmt = prepare.call(this, source);
    for (const method of ['all', 'run', 'get'] as const) {
      const inner = stmt[method].bind(stmt) as (...args: unknown[]) => unknown;
      (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        const started = performance.now();
        try {
          return inner(...args);
        } finally {
          const ms = performance.now() - started;
          const key = this.inTransaction ? `[in transaction] ${source}` : source;
          const entry = trace.get(key) ?? { calls: 0, ms: 0, samples: [] };
          entry.calls++;
          entry.ms += ms;
          entry.samples.push(ms);
          trace.set(key, entry);
        }
      };
    }
    return stmt;
  } as typeof prepare;
}

const iterations = Number(process.env.INJECT_ITERATIONS ?? 2000);
const postIterations = Number(process.env.INJECT_POST_ITERATIONS ?? Math.min(iterations, 500));
const profileDir = process.env.INJECT_PROFILE;
let profiler: Session | undefined;
if (profileDir) {
  mkdirSync(profileDir, { recursive: true });
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 50 });
}
const only = process.env.BENCH_ONLY ?? 'posts';
const dataDir = process.env.INJECT_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'cms-inject-'));
const stateFile = path.join(dataDir, 'inject-state.json');
const fresh = !existsSync(stateFile);

const config = loadCmsConfig({
  env: { DATA_DIR: dataDir, CMS_SITE_URL: 'http://127.0.0.1:8080', CMS_LOG_LEVEL: 'warn' },
});
const logger = createLogger({ level: 'warn', name: 'cms' });
const database = await openCmsDatabase(config);
const cms = await buildApp({ config, database, logger, secret: resolveSecret(config) });
cms.ctx.options.setDefault('siteurl', 'http://127.0.0.1:8080');
cms.ctx.options.setDefault('home', 'http://127.0.0.1:8080');

let authorization: string;
if (fresh) {
  const first = await installIfNeeded(cms, config);
  if (!first) throw new Error(`${dataDir} holds a site without ${stateFile}`);
  authorization = `Basic ${Buffer.from(`${first.login}:${first.applicationPassword}`).toString('base64')}`;
} else {
  authorization = (JSON.parse(readFileSync(stateFile, 'utf8')) as { authorization: string }).authorization;
}

const target: BenchTarget = {
  label: 'cms',
  apiRoot: '/cms-json',
  authorization,
  mapPath: (p) => p,
  async post(p, body) {
    const res = await cms.app.inject({
      method: 'POST',
      url: `/cms-json${p}`,
      headers: { authorization, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    if (res.statusCode >= 300) throw new Error(`POST ${p} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
    return res.json() as { id: number };
  },
  async close() {},
};
if (fresh) {
  const started = performance.now();
  await prepare(target);
  // As `serve`'s indexer would have by now: the prepared posts in the search index, not queued for it.
  if (database.dialect === 'sqlite') await indexQueuedPosts(database.db);
  writeFileSync(stateFile, JSON.stringify({ authorization }));
  process.stdout.write(`prepared ${dataDir} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
} else {
  // The scenarios' ids (the anchor post, the create's terms) come from the preparation; find them again.
  await prepareIds(target);
}

async function prepareIds(_t: BenchTarget): Promise<void> {
  const { setPreparedIds } = await import('./scenarios.ts');
  const list = await cms.app.inject({ url: '/cms-json/cms/v2/posts?slug=oracle-anchor-post&_fields=id,link' });
  const anchor = (list.json() as { id: number; link: string }[])[0];
  const cat = await cms.app.inject({ url: '/cms-json/cms/v2/categories?slug=technology&_fields=id' });
  const tags = await cms.app.inject({ url: '/cms-json/cms/v2/tags?slug=rest,json&_fields=id,slug' });
  const tagIds = tags.json() as { id: number; slug: string }[];
  setPreparedIds({
    anchor: anchor?.id ?? 0,
    anchorPath: anchor ? new URL(anchor.link).pathname : '/',
    category: (cat.json() as { id: number }[])[0]?.id ?? 1,
    tags: ['rest', 'json'].map((s) => tagIds.find((t) => t.slug === s)?.id ?? 0),
  });
}

let n = 0;
// INJECT_PATHS: extra GET paths (comma-separated, under the API root) timed the same way.
const extra = (process.env.INJECT_PATHS ?? '')
  .split(',')
  .filter((p) => p !== '')
  .map((p): Scenario => ({ name: `GET ${p}`, method: 'GET', path: p, auth: process.env.INJECT_AUTH === '1' }));
for (const scenario of [...scenarios, ...extra]) {
  const isExtra = extra.includes(scenario);
  if (!isExtra && (!scenario.name.includes(only) || scenario.site || scenario.rawBody)) continue;
  const url = `/cms-json${scenarioPath(scenario, target)}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (scenario.auth) headers.authorization = authorization;
  const once = async () => {
    const res = await cms.app.inject({
      method: scenario.method,
      url,
      headers,
      ...(scenario.body ? { payload: JSON.stringify(scenario.body(++n)) } : {}),
    });
    if (res.statusCode >= 300)
      throw new Error(`${scenario.name} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  };
  const count = scenario.method === 'POST' ? postIterations : iterations;
  for (let i = 0; i < Math.min(200, count); i++) await once();
  if (profiler) await profiler.post('Profiler.start');
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) await once();
  const perMs = (performance.now() - started) / count;
  const used = process.cpuUsage(cpu);
  if (profiler && profileDir) {
    const { profile } = await profiler.post('Profiler.stop');
    const file = `${scenario.name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}.cpuprofile`;
    writeFileSync(path.join(profileDir, file), JSON.stringify(profile));
  }
  const cpuUs = (used.user + used.system) / count;
  process.stdout.write(
    `${scenario.name.padEnd(36)} ${(perMs * 1000).toFixed(0).padStart(6)} µs/request, CPU ${cpuUs.toFixed(0).padStart(6)} µs (${count})\n`,
  );
  if (process.env.INJECT_TRACE) {
    const rows = [...trace].sort((a, b) => b[1].ms - a[1].ms);
    for (const [source, { calls, ms, samples }] of rows) {
      const per = (calls / (count + Math.min(200, count))).toFixed(2);
      const us = ((ms * 1000) / calls).toFixed(0);
      const median = ((samples.sort((a, b) => a - b)[samples.length >> 1] ?? 0) * 1000).toFixed(0);
      process.stdout.write(
        `  ${per.padStart(6)}/req ${us.padStart(6)} µs (median ${median.padStart(5)})  ${source.slice(0, 300)}\n`,
      );
    }
    trace.clear();
  }
}
await cms.app.close();
await database.close();
