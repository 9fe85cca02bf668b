import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

/** Responses are compressed for clients that ask for it, and only for them. */
describe('response compression', () => {
  let database: TripsDatabase;
  let world: World;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await openTripsDatabase({
      environment: 'sandbox',
      sqliteFile: path.join(mkdtempSync(path.join(tmpdir(), 'trips-gzip-')), 'c.db'),
    });
    world = await buildWorld(database, { tripsPerFleet: 30 });
    app = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger() });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ url, headers: { authorization: `Bearer ${world.fleets[0]!.token}`, ...headers } });

  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
    ['deflate', inflateSync],
  ] as const)('%s: the body decodes to exactly the uncompressed answer', async (encoding, decode) => {
    const tripId = world.fleets[0]!.tripIds[0]!;
    const compressed: string[] = [];
    for (const url of [
      '/v1/trips?limit=30',
      `/v1/trips/${tripId}`,
      `/v1/trips/${tripId}/score-breakdown`,
      `/v1/trips/${tripId}/route`,
      '/openapi.json',
    ]) {
      const plain = await get(url);
      expect(plain.statusCode, url).toBe(200);
      expect(plain.headers['content-encoding'], url).toBeUndefined();

      const packed = await get(url, { 'accept-encoding': encoding });
      expect(packed.statusCode, url).toBe(200);
      expect(packed.headers['content-type'], url).toBe(plain.headers['content-type']);
      if (plain.rawPayload.length < 1024) {
        // Under the threshold: sent as it is, whatever the client accepts.
        expect(packed.headers['content-encoding'], url).toBeUndefined();
        expect(packed.payload, url).toBe(plain.payload);
        continue;
      }
      compressed.push(url.split('/').at(-1)!.split('?')[0]!);
      expect(packed.headers['content-encoding'], url).toBe(encoding);
      expect(String(packed.headers.vary), url).toMatch(/accept-encoding/i);
      // JSON of a few KB or more packs to under half; a body just over the threshold (a single trip, ~1 KB)
      // has less to gain.
      const ratio = plain.rawPayload.length > 4096 ? 0.5 : 0.75;
      expect(packed.rawPayload.length, url).toBeLessThan(plain.rawPayload.length * ratio);
      expect(decode(packed.rawPayload).toString('utf8'), url).toBe(plain.payload);
    }
    // The large bodies of this world: a page of 30 trips, the breakdown, the route, the OpenAPI document (and
    // the single trip, whose ~1 KB is on either side of the threshold depending on its summary).
    expect(compressed.filter((name) => name !== tripId)).toEqual(['trips', 'score-breakdown', 'route', 'openapi.json']);
  });

  it('sends a compressed page or breakdown in one piece, with its length', async () => {
    // Bodies up to 64 KiB are compressed in one call (build-api-app.ts, COMPRESSION): the client learns the
    // length up front instead of reading chunks, and the body is complete.
    const tripId = world.fleets[0]!.tripIds[0]!;
    for (const url of ['/v1/trips?limit=30', `/v1/trips/${tripId}/score-breakdown`]) {
      for (const encoding of ['br', 'gzip', 'deflate']) {
        const packed = await get(url, { 'accept-encoding': encoding });
        expect(packed.headers['content-encoding'], `${url} ${encoding}`).toBe(encoding);
        expect(packed.headers['transfer-encoding'], `${url} ${encoding}`).toBeUndefined();
        expect(Number(packed.headers['content-length']), `${url} ${encoding}`).toBe(packed.rawPayload.length);
      }
    }
  });

  it('answers HEAD with the headers of the GET, compressed or not, and no body', async () => {
    const tripId = world.fleets[0]!.tripIds[0]!;
    const compared = ['content-type', 'content-encoding', 'content-length', 'vary', 'etag', 'cache-control'];
    for (const url of ['/v1/trips?limit=30', `/v1/trips/${tripId}/score-breakdown`, `/v1/trips/${tripId}/route`]) {
      for (const encoding of [undefined, 'gzip', 'br', 'deflate']) {
        const headers: Record<string, string> = encoding ? { 'accept-encoding': encoding } : {};
        const full = await get(url, headers);
        const head = await app.inject({
          method: 'HEAD',
          url,
          headers: { authorization: `Bearer ${world.fleets[0]!.token}`, ...headers },
        });
        expect(head.statusCode, `${url} ${encoding}`).toBe(200);
        expect(head.rawPayload.length, `${url} ${encoding}`).toBe(0);
        for (const name of compared) expect(head.headers[name], `${url} ${encoding} ${name}`).toBe(full.headers[name]);
        if (encoding && full.rawPayload.length > 0 && url.includes('limit')) {
          // The length a HEAD announces is the one the GET sends: the compressed one.
          expect(full.headers['content-encoding']).toBe(encoding);
          expect(Number(head.headers['content-length'])).toBe(full.rawPayload.length);
        }
      }
    }
  });

  it('takes the encoding the client prefers, and sends identity when it refuses the others', async () => {
    const url = '/v1/trips?limit=30';
    expect((await get(url, { 'accept-encoding': 'gzip;q=0.5, br;q=1' })).headers['content-encoding']).toBe('br');
    expect((await get(url, { 'accept-encoding': 'br;q=0.1, gzip' })).headers['content-encoding']).toBe('gzip');
    const identity = await get(url, { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(identity.payload).ok).toBe(true);
  });

  it('leaves small bodies, errors included, uncompressed', async () => {
    const missing = await get('/v1/trips/trip_doesnotexist', { 'accept-encoding': 'gzip' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(missing.payload)).toEqual({ ok: false, error: 'trip trip_doesnotexist not found' });

    const unauthorised = await app.inject({ url: '/v1/trips', headers: { 'accept-encoding': 'gzip' } });
    expect(unauthorised.statusCode).toBe(401);
    expect(unauthorised.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(unauthorised.payload).ok).toBe(false);
  });
});
