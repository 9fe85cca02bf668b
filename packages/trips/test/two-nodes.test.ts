import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { servicesRequired } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { seriesValue } from './fixtures/prometheus.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { type ServiceNode, startServiceNode, stopServiceNode } from './fixtures/service-node.ts';

const pgUrl = process.env.TEST_DATABASE_URL?.trim() ?? '';
const redisUrl = process.env.TEST_REDIS_URL?.trim() ?? '';
const skip = !pgUrl || !redisUrl ? 'TEST_DATABASE_URL and TEST_REDIS_URL are needed' : false;
if (skip && servicesRequired()) throw new Error(`REQUIRE_TEST_SERVICES is set but ${skip}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two real service processes share one PostgreSQL database and one Redis, as behind a load balancer:
 * uploads sent to either node are stored once, scored once by whichever worker claims them, readable
 * from both nodes with the same fleet isolation, and the per-token rate limit is one budget for both.
 */
describe.skipIf(skip)(`two service nodes on PostgreSQL and Redis${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const schema = `nodes_${process.pid}_${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'trips-nodes-'));
  let database: TripsDatabase;
  let nodes: ServiceNode[] = [];
  const fleets = ['fleet_one', 'fleet_two', 'fleet_three'];
  const tokens = new Map<string, string>();
  const keys = new Map<string, string>();
  let limitedToken: string;

  beforeAll(async () => {
    database = await openTripsDatabase({ environment: 'production', url: pgUrl, pgSchema: schema });
    for (const [i, fleetId] of fleets.entries()) {
      await createFleet(database.db, { name: fleetId, fleetId });
      for (let v = 0; v < 2; v++) await createVehicle(database.db, { fleetId, plate: `N${i}-${v}` });
      tokens.set(fleetId, (await createApiToken(database.db, { environment: 'production', fleets: [fleetId] })).secret);
      keys.set(fleetId, (await createIngestKey(database.db, { environment: 'production', fleetId })).secret);
    }
    limitedToken = (
      await createApiToken(database.db, { environment: 'production', fleets: ['fleet_one'], rateLimitPerMin: 10 })
    ).secret;
    const env = {
      DATA_DIR: dataDir,
      TRIPS_DATABASE_URL: `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`,
      REDIS_URL: redisUrl,
      TRIPS_SCORING_THREADS: '1',
    };
    nodes = await Promise.all([startServiceNode(env), startServiceNode(env)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => stopServiceNode(n)));
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores uploads sent to either node once and scores each once', async () => {
    const sent: Array<{ fleetId: string; clientTripId: string; tripId?: string }> = [];
    for (let i = 0; i < 18; i++) {
      const fleetId = fleets[i % 3]!;
      const batch = scorableTrip({
        startMs: Date.UTC(2026, 10, 2) + i * 3_600_000,
        vehicle: `N${i % 3}-${i % 2}`,
        seed: i,
      });
      const clientTripId = `two-nodes-${i}`;
      // Every trip goes to both nodes: the second answer must be the same trip.
      const answers = [];
      for (const node of nodes) {
        const res = await fetch(`${node.ingestUrl}/ingest/v1/trips`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${keys.get(fleetId)}`,
            'content-type': 'application/json',
            'idempotency-key': clientTripId,
          },
          body: JSON.stringify(batch),
        });
        answers.push({ status: res.status, body: (await res.json()) as { tripId: string } });
      }
      expect(answers.map((a) => a.status)).toEqual([202, 200]);
      expect(answers[1]!.body.tripId).toBe(answers[0]!.body.tripId);
      sent.push({ fleetId, clientTripId, tripId: answers[0]!.body.tripId });
    }
    const deadline = Date.now() + 90_000;
    for (;;) {
      const rows = await database.db.selectFrom('trip_uploads').select(['status', 'attempts']).execute();
      if (rows.every((r) => r.status === 'scored')) {
        expect(rows).toHaveLength(18);
        expect(rows.every((r) => r.attempts === 1)).toBe(true);
        break;
      }
      if (Date.now() > deadline) throw new Error(`not scored in time: ${JSON.stringify(rows)}`);
      await sleep(500);
    }
    const owners = await database.db.selectFrom('trips').select('trip_id').execute();
    expect(owners).toHaveLength(18);

    // Each node's ingest /metrics counts what it did; both read the same queue from the shared store.
    const scrapes = await Promise.all(nodes.map(async (node) => (await fetch(`${node.ingestUrl}/metrics`)).text()));
    const total = (name: string, labels?: Record<string, string>) =>
      scrapes.reduce((sum, text) => sum + (seriesValue(text, name, labels) ?? Number.NaN), 0);
    expect(total('trips_ingest_uploads_total', { result: 'stored' })).toBe(18);
    expect(total('trips_ingest_uploads_total', { result: 'duplicate' })).toBe(18);
    expect(total('trips_scoring_attempts_total', { result: 'scored' })).toBe(18);
    expect(total('trips_scoring_delay_seconds_count')).toBe(18);
    for (const text of scrapes) {
      expect(seriesValue(text, 'trips_store_up')).toBe(1);
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'queued' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'failed' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_backlog_seconds')).toBe(0);
    }
  }, 150_000);

  it('keeps fleets apart on both nodes (600 randomized requests)', async () => {
    const byFleet = new Map<string, string[]>();
    for (const r of await database.db.selectFrom('trips').select(['trip_id', 'fleet_id']).execute()) {
      byFleet.set(r.fleet_id, [...(byFleet.get(r.fleet_id) ?? []), r.trip_id]);
    }
    let seed = 99;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
    for (let i = 0; i < 600; i++) {
      const me = pick(fleets);
      const target = pick(fleets);
      const header = rnd() < 0.3 ? pick(fleets) : undefined;
      const tripId = pick(byFleet.get(target)!);
      const url = pick([
        `/v1/trips/${tripId}`,
        `/v1/trips/${tripId}/score-breakdown`,
        '/v1/trips?limit=100',
        `/v1/vehicles/N${fleets.indexOf(target)}-0`,
      ]);
      const res = await fetch(`${pick(nodes).apiUrl}${url}`, {
        headers: { authorization: `Bearer ${tokens.get(me)}`, ...(header ? { 'x-fleet-id': header } : {}) },
      });
      const text = await res.text();
      const where = `${url} as ${me} x-fleet-id=${header}`;
      if (header && header !== me) {
        expect(res.status, where).toBe(404);
        continue;
      }
      for (const other of fleets.filter((f) => f !== me)) {
        for (const id of byFleet.get(other)!)
          if (!url.includes(id)) expect(text.includes(id), `${where} leaked ${id}`).toBe(false);
      }
      if (url.startsWith('/v1/trips?')) {
        expect(res.status).toBe(200);
        expect((JSON.parse(text) as { pagination: { total: number } }).pagination.total).toBe(byFleet.get(me)!.length);
      } else expect(res.status, where).toBe(target === me ? 200 : 404);
    }
  }, 120_000);

  it('shares one rate-limit budget per token across the nodes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const res = await fetch(`${nodes[i % 2]!.apiUrl}/v1/trips`, {
        headers: { authorization: `Bearer ${limitedToken}` },
      });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
  });
});
