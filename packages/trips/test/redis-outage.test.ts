import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectRedis, type Redis } from '@svc/platform';
import { TcpRelay, testRedis } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger } from './fixtures/world.ts';

const redis = testRedis();

describe.skipIf(redis.skip)(`the API while Redis is away (${redis.label})`, () => {
  // In front of the test Redis: taken away, frozen and brought back without touching the shared server.
  const relay = TcpRelay.forUrl(redis.url || 'redis://127.0.0.1:6379', 6379);
  let database: TripsDatabase;
  let client: Redis;
  let app: FastifyInstance;
  let headers: Record<string, string>;

  beforeAll(async () => {
    await relay.up();
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-redis-outage-'));
    database = await openTripsDatabase({ environment: 'sandbox', sqliteFile: path.join(dir, 't.db') });
    const world = await buildWorld(database, { tripsPerFleet: 1 });
    headers = { authorization: `Bearer ${world.fleets[0]!.token}` };
    client = await connectRedis(relay.urlThrough(redis.url), { keyPrefix: redis.keyPrefix });
    app = await buildApiApp({
      environment: 'sandbox',
      database,
      logger: quietLogger(),
      rateLimit: { perMinute: 3, redis: client },
    });
  });
  afterAll(async () => {
    await app?.close();
    client?.disconnect();
    await relay.down();
    await database?.close();
    await redis.cleanup();
  });

  const statuses = async (n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await app.inject({ url: '/v1/trips', headers })).statusCode);
    return out;
  };

  it('answers at once, unlimited, while Redis refuses connections, and limits again once it is back', async () => {
    expect(await statuses(4)).toEqual([200, 200, 200, 429]);

    await relay.down();
    // Before, each request waited for the client's reconnection attempts (5-15 s on a real node) before
    // being served: a Redis restart made the whole API crawl.
    expect(await statuses(5)).toEqual([200, 200, 200, 200, 200]);
    const ready = (await app.inject({ url: '/readyz' })).json();
    expect(ready.status).toBe('degraded');

    await relay.up();
    while ((await app.inject({ url: '/readyz' })).json().status !== 'ready') {
      await new Promise((r) => setTimeout(r, 100));
    }
    // The same minute's counter (or a fresh one if the minute turned): limited again either way.
    expect(await statuses(4)).toContain(429);
  });

  it('answers, unlimited, while Redis holds a connection open and does not answer', async () => {
    relay.freeze();
    expect(await statuses(2)).toEqual([200, 200]);
  });
});
