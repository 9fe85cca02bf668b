// A benchmark server process: `api <sqlite file>` serves the real /v1 app on that store; `ceiling
// <bytes>` serves a bare Fastify route answering a fixed JSON body of that size (the ceiling).
import { createLogger } from '@svc/platform';
import Fastify from 'fastify';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { openTripsDatabase } from '../src/store/open-trips-database.ts';

const [mode, arg] = process.argv.slice(2);
if (mode === 'ceiling') {
  const size = Number(arg);
  const body = JSON.stringify({ ok: true, pad: 'x'.repeat(Math.max(0, size - 22)) });
  const app = Fastify();
  app.get('/ceiling', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
} else {
  const database = await openTripsDatabase({ environment: 'production', sqliteFile: arg! });
  // Production settings: one JSON log line per request (to this process's stdout, discarded by the bench).
  const app = await buildApiApp({
    environment: 'production',
    database,
    logger: createLogger({ level: 'info', name: 'trips' }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.stderr.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
