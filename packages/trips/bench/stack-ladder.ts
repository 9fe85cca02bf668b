// What each layer of the read API's request stack costs: `npx tsx bench/stack-ladder.ts` starts one server
// process per rung, each answering GET /v1/fixed with the same fixed JSON body (the size of a 100-trip page),
// loads it as the read bench does (50 connections) and prints the server's CPU per request. Rungs, each adding
// to the one before: bare Fastify (the bench's ceiling), createHttpApp of @svc/platform (request id, one log
// line per request, metrics), the compression plugin, the token (cached, as the optimistic routes take it), the
// rate limit, hooked as buildApiApp hooks them. Rounds interleave the rungs;
// STACK_ROUNDS (default 3), STACK_DURATION_S (default 6), STACK_BYTES (default 26000), STACK_CPU_PROF=<dir> (a CPU
// profile of each server). Figures only.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const RUNGS = ['bare', 'platform', 'compress', 'token', 'rate-limit'] as const;
type Rung = (typeof RUNGS)[number];

const [mode, rungArg, file] = process.argv.slice(2);
const BYTES = Number(process.env.STACK_BYTES ?? 26_000);

if (mode === 'serve') await serve(rungArg as Rung, file!);
else await main();

async function serve(rung: Rung, sqliteFile: string) {
  const { default: Fastify } = await import('fastify');
  const { createHttpApp, createLogger } = await import('@svc/platform');
  const { openTripsDatabase } = await import('../src/store/open-trips-database.ts');
  const { createApiToken } = await import('../src/store/api-tokens.ts');
  const { resolveScope } = await import('../src/api/auth.ts');
  const body = JSON.stringify({ ok: true, pad: 'x'.repeat(Math.max(0, BYTES - 22)) });
  const route = async (_req: unknown, reply: import('fastify').FastifyReply) =>
    reply.type('application/json; charset=utf-8').send(body);
  const database = await openTripsDatabase({ environment: 'production', sqliteFile });
  const { createFleet } = await import('../src/store/fleets.ts');
  const fleet = await database.db
    .selectFrom('fleets')
    .select('fleet_id')
    .where('fleet_id', '=', 'fleet_ladder')
    .executeTakeFirst();
  if (!fleet) await createFleet(database.db, { name: 'ladder', fleetId: 'fleet_ladder' });
  const token = (
    await createApiToken(database.db, {
      environment: 'production',
      fleets: ['fleet_ladder'],
      admin: true,
      owner: 'bench',
      rateLimitPerMin: 1_000_000,
    })
  ).secret;
  let app: import('fastify').FastifyInstance;
  if (rung === 'bare') {
    app = Fastify();
    app.get('/v1/fixed', route);
  } else {
    const logger = createLogger({ level: 'info', name: 'trips' });
    app = createHttpApp({ logger });
    if (rung !== 'platform') {
      const { default: compress } = await import('@fastify/compress');
      await app.register(compress, { global: true, globalDecompression: false, threshold: 1024 });
    }
    app.decorateRequest('scope', null);
    await app.register(
      async (v1) => {
        if (rung === 'token' || rung === 'rate-limit') {
          v1.addHook('onRequest', async (req) => {
            req.scope = await resolveScope(req, database.db, 'production', Date.now(), true);
          });
        }
        if (rung === 'rate-limit') {
          const { default: rateLimit } = await import('@fastify/rate-limit');
          await v1.register(rateLimit, {
            global: true,
            hook: 'preHandler',
            timeWindow: 60_000,
            max: (req) => req.scope?.rateLimitPerMin ?? 1200,
            keyGenerator: (req) => req.scope?.tokenId ?? `ip:${req.ip}`,
          });
        }
        v1.get('/fixed', route);
      },
      { prefix: '/v1' },
    );
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stderr.write(`listening ${port} ${token}\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function start(rung: Rung, dir: string): Promise<{ child: ChildProcess; port: number; token: string }> {
  const log = openSync(path.join(dir, `${rung}.log`), 'w');
  const child = spawn(
    process.execPath,
    [
      ...(process.env.STACK_CPU_PROF
        ? ['--cpu-prof', '--cpu-prof-dir', path.join(process.env.STACK_CPU_PROF, rung)]
        : []),
      '--import',
      'tsx',
      'bench/stack-ladder.ts',
      'serve',
      rung,
      path.join(dir, 'ladder.db'),
    ],
    { cwd: path.join(import.meta.dirname, '..'), stdio: ['ignore', log, 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (c: Buffer) => {
      seen += c.toString();
      const m = /listening (\d+) (\S+)/.exec(seen);
      if (m) resolve({ child, port: Number(m[1]), token: m[2]! });
    });
    child.on('exit', (code) => reject(new Error(`${rung} exited with ${code}: ${seen.slice(-500)}`)));
  });
}

async function main() {
  const rounds = Number(process.env.STACK_ROUNDS ?? 3);
  const duration = Number(process.env.STACK_DURATION_S ?? 6);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stack-ladder-'));
  const cpu = new Map<Rung, number[]>();
  const rps = new Map<Rung, number[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? RUNGS : [...RUNGS].reverse();
    for (const rung of order) {
      const { child, port, token } = await start(rung, dir);
      try {
        const url = `http://127.0.0.1:${port}${'/v1/fixed'}`;
        const headers = { authorization: `Bearer ${token}` };
        await autocannon({ url, connections: 10, duration: 2, headers });
        const before = cpuTicks(child.pid!);
        const r = await autocannon({ url, connections: 50, duration, headers });
        if (r.non2xx || r.errors) throw new Error(`${rung}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        const perRequest = ((cpuTicks(child.pid!) - before) * 10_000) / Math.max(1, r.requests.total);
        cpu.set(rung, [...(cpu.get(rung) ?? []), perRequest]);
        rps.set(rung, [...(rps.get(rung) ?? []), r.requests.average]);
        process.stdout.write(
          `round ${round} ${rung.padEnd(11)} ${Math.round(r.requests.average)} req/s  server ${perRequest.toFixed(0)} µs/req\n`,
        );
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  process.stdout.write(`\nserver CPU per request, median of ${rounds} rounds (a ${BYTES}-byte body):\n`);
  for (const rung of RUNGS) {
    const xs = cpu.get(rung)!;
    process.stdout.write(
      `  ${rung.padEnd(11)} ${median(xs).toFixed(0).padStart(4)} µs [${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}]  ${Math.round(median(rps.get(rung)!))} req/s\n`,
    );
  }
}
