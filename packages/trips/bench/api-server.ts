// A benchmark server process: `api <sqlite file>` serves the real /v1 app on that store (`api-pg <url>
// <schema>`: on that PostgreSQL schema); `ceiling
// <bytes>` serves a bare Fastify route answering a fixed JSON body of that size (the ceiling). With
// BENCH_API_WORKERS=n above 1, n worker processes (node:cluster) serve it on one port, as `trips serve`
// does with TRIPS_API_WORKERS=n (the ceiling too, so that the two are compared like for like).
// BENCH_READ_THREADS=n (SQLite): the vehicle, driver and fleet reads on n reader threads, as `trips serve` runs
// them with TRIPS_READ_THREADS=n (default 0 here: on the event loop).
import cluster from 'node:cluster';
import { createLogger } from '@svc/platform';
import Fastify from 'fastify';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { openTripsDatabase } from '../src/store/open-trips-database.ts';
import { threadWindowReads } from '../src/store/window-reads.ts';

const [mode, arg, schema] = process.argv.slice(2);
const workers = Number(process.env.BENCH_API_WORKERS ?? 1);
const readThreads = Number(process.env.BENCH_READ_THREADS ?? 0);

const openStore = () =>
  mode === 'api-pg'
    ? openTripsDatabase({ environment: 'production', url: arg!, pgSchema: schema! })
    : openTripsDatabase({ environment: 'production', sqliteFile: arg! });

async function start(): Promise<number> {
  if (mode === 'ceiling') {
    const size = Number(arg);
    const body = JSON.stringify({ ok: true, pad: 'x'.repeat(Math.max(0, size - 22)) });
    const app = Fastify();
    app.get('/ceiling', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }
  const database = await openStore();
  // Production settings: one JSON log line per request (to this process's stdout, a file in the bench).
  const logger = createLogger({ level: 'info', name: 'trips' });
  const windowReads =
    readThreads > 0 && database.sqliteFile
      ? await threadWindowReads({ file: database.sqliteFile, threads: readThreads, fallback: database.db, logger })
      : undefined;
  const app = await buildApiApp({
    environment: 'production',
    database,
    logger,
    ...(windowReads ? { windowReads } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

if (workers > 1 && cluster.isPrimary) {
  // The store is opened (and migrated) once before the workers start, as `trips serve` does.
  if (mode !== 'ceiling') await (await openStore()).close();
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) process.stderr.write(`listening ${address.port}\n`);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
      setTimeout(() => process.exit(0), 500).unref();
    });
  }
} else {
  const port = await start();
  if (!cluster.isWorker) process.stderr.write(`listening ${port}\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
}
