import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectRedis, type Redis } from '@svc/platform';
import { TcpRelay, testRedis } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { REDIS_RETRY_AFTER_MS, rateLimitCircuitOf } from '../src/rate-limit/failover-store.ts';
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
  // The pause before a failed Redis is tried again is decided on the app's clock, which the test moves.
  let nowMs = Date.now();

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
      clock: () => nowMs,
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

  it('answers at once, limited by this node, while Redis refuses connections, and counts in Redis once it is back', async () => {
    expect(await statuses(2)).toEqual([200, 200]);

    await relay.down();
    // Before, each request waited for the client's reconnection attempts (5-15 s on a real node) before
    // being served, and then it was served without any limit: the node now goes on from the count it last
    // saw in Redis, with the same limit.
    expect(await statuses(3)).toEqual([200, 429, 429]);
    const ready = (await app.inject({ url: '/readyz' })).json();
    expect(ready.status).toBe('degraded');

    await relay.up();
    // Waits for the client to answer again on a new connection, then past the pause before Redis is tried.
    const answers = () =>
      client.ping().then(
        () => true,
        () => false,
      );
    while (!(await answers())) await new Promise((r) => setTimeout(r, 50));
    nowMs += REDIS_RETRY_AFTER_MS;
    // The same minute's counter (or a fresh one if it expired): limited again either way, and in Redis.
    expect(await statuses(4)).toContain(429);
    expect(rateLimitCircuitOf(client).mode).toBe('redis');
    expect((await app.inject({ url: '/readyz' })).json().status).toBe('ready');
  });

  it('answers, limited by this node, while Redis holds a connection open and does not answer', async () => {
    const failuresBefore = rateLimitCircuitOf(client).failures;
    relay.freeze();
    // The budget of this minute is spent: refused, in Redis's absence, by the node's own count; and only the
    // first request waited for Redis.
    expect(await statuses(3)).toEqual([429, 429, 429]);
    expect(rateLimitCircuitOf(client).failures - failuresBefore).toBe(1);
  });
});
