import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testRedis } from '@svc/platform/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { REDIS_DOWN } from '../src/rate-limit/failover-store.ts';
import { openTripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger } from './fixtures/world.ts';

const redis = testRedis();

/**
 * The API keeps serving while Redis is down (each node counting the limits on its own), so a node must stay in
 * its load balancer's pool then: `/readyz` reports Redis as missing with a 200, and fails only for the database.
 */
describe.skipIf(redis.skip)(`readiness with the rate limits in Redis (${redis.label})`, () => {
  afterAll(() => redis.cleanup());

  it('stays ready while Redis is down, says so, and keeps serving', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-ready-'));
    const database = await openTripsDatabase({ environment: 'sandbox', sqliteFile: path.join(dir, 't.db') });
    const client = await redis.connect();
    const app = await buildApiApp({
      environment: 'sandbox',
      database,
      logger: quietLogger(),
      rateLimit: { perMinute: 100, redis: client },
    });
    try {
      const world = await buildWorld(database, { tripsPerFleet: 1 });
      const headers = { authorization: `Bearer ${world.fleets[0]!.token}` };
      expect((await app.inject({ url: '/readyz' })).json()).toEqual({ ok: true, status: 'ready' });

      client.disconnect();
      const ready = await app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({
        ok: true,
        status: 'degraded',
        degraded: [REDIS_DOWN],
      });
      const trips = await app.inject({ url: '/v1/trips', headers });
      expect(trips.statusCode).toBe(200);

      await database.close();
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
    } finally {
      await app.close();
      client.disconnect();
    }
  });
});
