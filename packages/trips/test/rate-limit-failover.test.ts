import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectRedis, createLogger, type Redis } from '@svc/platform';
import { TcpRelay, testRedis } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import {
  REDIS_DOWN,
  REDIS_NOT_BACK_YET,
  REDIS_RETRY_AFTER_MS,
  rateLimitCircuitOf,
} from '../src/rate-limit/failover-store.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, type World } from './fixtures/world.ts';

const redis = testRedis();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A node of the service as far as the limits go: its own Redis client (through the relay), API and ingest. */
interface Node {
  client: Redis;
  api: FastifyInstance;
  ingest: FastifyInstance;
  /** What it logged about the rate limits (the request lines left out). */
  notices: { level: string; msg: string; reason?: string }[];
}

/**
 * Two API nodes share their per-token limit through Redis. When Redis stops answering (a frozen server, a
 * network partition: the relay passes nothing on), each node counts on its own with the same limits instead
 * of serving unlimited, asks Redis again only once per pause (so requests do not each wait for the command
 * timeout), and shares the count through Redis again once a probe finds it back.
 */
describe.skipIf(redis.skip)(`rate limits when Redis fails (${redis.label})`, () => {
  const relay = TcpRelay.forUrl(redis.url || 'redis://127.0.0.1:6379', 6379);
  let database: TripsDatabase;
  let world: World;
  // The nodes' clock, moved by the test: the pause before Redis is tried again is decided on it, not on time.
  let nowMs = Date.now();
  const clock = () => nowMs;
  const nodes: Node[] = [];

  const startNode = async (): Promise<Node> => {
    const notices: Node['notices'] = [];
    const logger = createLogger({
      level: 'info',
      destination: {
        write(line: string) {
          const entry = JSON.parse(line) as Node['notices'][number];
          if (entry.msg?.startsWith('rate limits:')) notices.push(entry);
        },
      },
    });
    const client = await connectRedis(relay.urlThrough(redis.url), { keyPrefix: redis.keyPrefix });
    const api = await buildApiApp({
      environment: 'sandbox',
      database,
      logger,
      clock,
      rateLimit: { perMinute: 6, redis: client },
    });
    const ingest = await buildIngestApp({
      environment: 'sandbox',
      database,
      logger,
      clock,
      rateLimit: { perMinute: 6, redis: client },
    });
    const node = { client, api, ingest, notices };
    nodes.push(node);
    return node;
  };

  beforeAll(async () => {
    await relay.up();
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-rate-failover-'));
    database = await openTripsDatabase({ environment: 'sandbox', sqliteFile: path.join(dir, 't.db') });
    world = await buildWorld(database, { tripsPerFleet: 1 });
  });
  afterAll(async () => {
    for (const node of nodes) {
      await node.api.close();
      await node.ingest.close();
      node.client.disconnect();
    }
    await relay.down();
    await database?.close();
    await redis.cleanup();
  });

  const call = async (node: Node) => {
    const res = await node.api.inject({
      url: '/v1/trips',
      headers: { authorization: `Bearer ${world.fleets[0]!.token}` },
    });
    return { status: res.statusCode, remaining: Number(res.headers['x-ratelimit-remaining']), res };
  };
  const statuses = async (node: Node, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await call(node)).status);
    return out;
  };
  const readiness = async (node: Node) => (await node.api.inject({ url: '/readyz' })).json();

  it('counts on each node with the same limits while Redis does not answer, then shares the count again', async () => {
    const a = await startNode();
    const b = await startNode();
    const circuitA = rateLimitCircuitOf(a.client);
    const circuitB = rateLimitCircuitOf(b.client);

    // Shared: the second node goes on from the first node's count.
    expect([(await call(a)).remaining, (await call(a)).remaining, (await call(b)).remaining]).toEqual([5, 4, 3]);

    relay.freeze();
    // Node A last saw a count of 2: it goes on from there on its own, to the same limit of 6, then refuses.
    // Only the first request asked Redis and waited for its timeout; the others were counted at once.
    const outage = [];
    for (let i = 0; i < 5; i++) outage.push(await call(a));
    expect(outage.map((r) => r.status)).toEqual([200, 200, 200, 200, 429]);
    expect(outage.map((r) => r.remaining)).toEqual([3, 2, 1, 0, 0]);
    expect(circuitA.failures).toBe(1);
    expect(circuitA.mode).toBe('local');
    // The 429 is the same as with Redis: the API's error body and the plugin's headers.
    const refused = outage[4]!.res;
    expect(refused.json()).toEqual({
      ok: false,
      error: expect.stringMatching(/^rate limit exceeded: 6 requests per minute for this token; retry in \d+ s$/),
    });
    expect(refused.headers['x-ratelimit-limit']).toBe('6');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(0);

    // Node B, which last saw 3, has a budget of its own during the outage (per node, not shared).
    expect(await statuses(b, 4)).toEqual([200, 200, 200, 429]);
    expect(circuitB.failures).toBe(1);

    // The ingest endpoint of node A uses the same circuit: it is limited too, without asking Redis again.
    const ingestStatus = await a.ingest.inject({
      url: `/ingest/v1/trips/${world.fleets[0]!.tripIds[0]}`,
      headers: { authorization: `Bearer ${world.fleets[0]!.ingestKey}` },
    });
    expect(ingestStatus.statusCode).toBe(200);
    expect(ingestStatus.headers['x-ratelimit-limit']).toBe('6');
    expect(circuitA.failures).toBe(1);

    // Once the pause is over one request tries Redis again (and waits for the timeout), the next ones do not.
    nowMs += REDIS_RETRY_AFTER_MS;
    expect(await statuses(a, 3)).toEqual([429, 429, 429]);
    expect(circuitA.failures).toBe(2);
    expect(await readiness(a)).toEqual({ ok: true, status: 'degraded', degraded: [REDIS_DOWN] });

    // One warning per node for the whole outage, naming the reason, not one per request.
    expect(a.notices).toEqual([expect.objectContaining({ level: 'warn', reason: 'Command timed out' })]);
    expect(b.notices).toHaveLength(1);

    // Redis back (the relay cuts the frozen connections; the clients reconnect by themselves).
    await relay.down();
    await relay.up();
    // Waits for both to answer on a new connection (a PING on a cut one fails), not for any length of time.
    for (;;) {
      const back = await Promise.all([a.client.ping(), b.client.ping()]).then(
        () => true,
        () => false,
      );
      if (back) break;
      await sleep(20);
    }
    expect(await readiness(a)).toEqual({ ok: true, status: 'degraded', degraded: [REDIS_NOT_BACK_YET] });
    // The ingest endpoint's readiness says the same (its limits share the circuit).
    expect((await a.ingest.inject({ url: '/readyz' })).json()).toEqual({
      ok: true,
      status: 'degraded',
      degraded: [REDIS_NOT_BACK_YET],
    });
    nowMs += REDIS_RETRY_AFTER_MS;

    // Both nodes count in Redis again: requests alternating between them take one shared budget, each
    // answer one less than the one before, whichever node gave it, down to 0 and then a 429.
    const remaining: number[] = [];
    let last = 0;
    for (let i = 0; i < 12; i++) {
      const r = await call(i % 2 === 0 ? a : b);
      last = r.status;
      if (r.status === 429) break;
      remaining.push(r.remaining);
    }
    expect(last).toBe(429);
    expect(remaining.length).toBeGreaterThan(1);
    expect(remaining).toEqual(remaining.map((_, i) => remaining.length - 1 - i));
    expect([circuitA.mode, circuitB.mode]).toEqual(['redis', 'redis']);
    expect([circuitA.failures, circuitB.failures]).toEqual([2, 1]);
    expect(await readiness(a)).toEqual({ ok: true, status: 'ready' });
    expect(a.notices.map((n) => n.level)).toEqual(['warn', 'info']);
    expect(b.notices.map((n) => n.level)).toEqual(['warn', 'info']);
  });
});
