/**
 * Conditional GETs of a trip's stored resources: ETag and Cache-Control on every answer, 304 without a
 * body for a matching If-None-Match, a new tag once the trip is scored again, and no 304 where the
 * token would get a 404.
 */
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { rescore } from '../src/scoring/rescore.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

describe.each(testDialects())('conditional requests on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    const get = (url: string, token: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
      app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers } });
    const resources = (tripId: string) => [
      `/v1/trips/${tripId}`,
      `/v1/trips/${tripId}/score-breakdown`,
      `/v1/trips/${tripId}/route`,
    ];

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 4 });
      app = await buildApiApp({
        environment: 'sandbox',
        database,
        logger: quietLogger(),
        rateLimit: { perMinute: 1e6 },
      });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it('tags each resource and answers 304 without a body when the client holds the current one', async () => {
      const alpha = world.fleets[0]!;
      const tags = new Set<string>();
      for (const url of resources(alpha.tripIds[0]!)) {
        const first = await get(url, alpha.token);
        expect(first.statusCode, url).toBe(200);
        const etag = first.headers.etag as string;
        expect(etag, url).toMatch(/^W\/"[!#-~]+"$/);
        expect(first.headers['cache-control'], url).toBe('private, no-cache');
        tags.add(etag);
        // The same representation gets the same tag, whichever token in scope asks.
        expect((await get(url, world.adminToken)).headers.etag, url).toBe(etag);

        for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
          const again = await get(url, alpha.token, { 'if-none-match': ifNoneMatch });
          expect(again.statusCode, `${url} If-None-Match: ${ifNoneMatch}`).toBe(304);
          expect(again.body, url).toBe('');
          expect(again.headers.etag, url).toBe(etag);
          expect(again.headers['x-ratelimit-remaining'], url).toBeDefined();
        }
        const head = await get(url, alpha.token, { 'if-none-match': etag }, 'HEAD');
        expect(head.statusCode, `HEAD ${url}`).toBe(304);

        const stale = await get(url, alpha.token, { 'if-none-match': 'W/"trip-0"' });
        expect(stale.statusCode, url).toBe(200);
        expect(stale.json().ok, url).toBe(true);
        expect(stale.body, url).toBe(first.body);
      }
      // Three resources, three tags; another trip, other tags.
      expect(tags.size).toBe(3);
      const other = await get(resources(alpha.tripIds[1]!)[1]!, alpha.token);
      expect(tags.has(other.headers.etag as string)).toBe(false);
    });

    it('never answers 304 where the answer is a 404: out of scope, or no such trip', async () => {
      const alpha = world.fleets[0]!;
      for (const url of resources(alpha.tripIds[0]!)) {
        const { etag } = (await get(url, alpha.token)).headers;
        for (const headers of [{ 'if-none-match': etag as string }, { 'if-none-match': '*' }]) {
          const foreign = await get(url, world.fleets[1]!.token, headers);
          expect(foreign.statusCode, url).toBe(404);
          expect(foreign.json().ok, url).toBe(false);
          expect(foreign.headers.etag, url).toBeUndefined();
        }
      }
      const absent = await get('/v1/trips/trip_nosuchtrip/score-breakdown', alpha.token, { 'if-none-match': '*' });
      expect(absent.statusCode).toBe(404);
    });

    it('changes every tag once the trip is scored again', async () => {
      const bravo = world.fleets[1]!;
      const tripId = bravo.tripIds[0]!;
      const before = new Map<string, string>();
      for (const url of resources(tripId)) before.set(url, (await get(url, bravo.token)).headers.etag as string);
      // A new scoring model rewrites every trip (a later scoring time, new values).
      let now = Date.now() + 60_000;
      const result = await rescore(database, fakeScorer('fake-2'), { clock: () => now++ });
      expect(result.rescored).toBeGreaterThan(0);
      for (const url of resources(tripId)) {
        const res = await get(url, bravo.token, { 'if-none-match': before.get(url)! });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers.etag, url).not.toBe(before.get(url));
        const current = await get(url, bravo.token, { 'if-none-match': res.headers.etag as string });
        expect(current.statusCode, url).toBe(304);
      }
    });
  });
});
