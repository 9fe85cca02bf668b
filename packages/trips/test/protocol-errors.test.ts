import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

/**
 * Requests refused by Node's HTTP parser never reach a route: the API still answers `{ ok: false, error }` with a
 * status of the specification (400), and the ingest endpoint in its own shape with the parser's status.
 */
describe('requests the HTTP parser refuses', () => {
  let database: TripsDatabase;
  let world: World;
  let api: FastifyInstance;
  let ingest: FastifyInstance;
  let apiUrl: string;
  let ingestUrl: string;

  beforeAll(async () => {
    database = await openTripsDatabase({
      environment: 'sandbox',
      sqliteFile: path.join(mkdtempSync(path.join(tmpdir(), 'trips-parser-')), 'p.db'),
    });
    world = await buildWorld(database, { tripsPerFleet: 2 });
    api = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger() });
    ingest = await buildIngestApp({ environment: 'sandbox', database, logger: quietLogger() });
    apiUrl = await api.listen({ host: '127.0.0.1', port: 0 });
    ingestUrl = await ingest.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await api?.close();
    await ingest?.close();
    await database?.close();
  });

  const tooLong = 'x'.repeat(20_000);
  const message = 'the request line and headers exceed the 16 KB the server reads: send a shorter URL or fewer headers';

  it('API: a URL or headers over 16 KB get 400 with { ok: false, error }', async () => {
    const token = world.fleets[0]!.token;
    for (const [url, headers] of [
      [`${apiUrl}/v1/trips?vehicle=${tooLong}`, { authorization: `Bearer ${token}` }],
      [`${apiUrl}/v1/trips`, { authorization: `Bearer ${token}`, 'x-padding': tooLong }],
    ] as const) {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.json()).toEqual({ ok: false, error: message });
    }
    // The API still serves the next request.
    expect((await fetch(`${apiUrl}/v1/trips`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('ingest: headers over 16 KB get 431 with { ok: false, error }', async () => {
    const res = await fetch(`${ingestUrl}/ingest/v1/trips`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tooLong}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ ok: false, error: message });
  });
});
