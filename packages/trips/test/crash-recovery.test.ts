import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { type ServiceNode, startServiceNode, stopServiceNode } from './fixtures/service-node.ts';

/** At least this many trips, and uploads go on until the process was killed at least MIN_KILLS times. */
const MIN_TRIPS = 40;
const MIN_KILLS = 5;
const MAX_TRIPS = 600;
const CLIENTS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The ingest process is killed with SIGKILL at random moments while several clients stream uploads
 * (retrying, as the edge SDK does, until they get an acknowledgement). Afterwards every acknowledged trip
 * must be stored exactly once, its telemetry whole, and be scored with breakdown and route.
 */
describe.each(testDialects())('ingest killed mid-stream on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'trips-crash-'));
    const schema = `crash_${process.pid}_${randomBytes(3).toString('hex')}`;
    const pgUrl = process.env.TEST_DATABASE_URL ?? '';
    const nodeEnv: Record<string, string> = {
      DATA_DIR: dataDir,
      TRIPS_SCORING_LEASE_MS: '3000',
      TRIPS_SCORING_THREADS: '1',
      ...(dialect.name === 'postgres'
        ? { TRIPS_DATABASE_URL: `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}` }
        : {}),
    };
    let database: TripsDatabase;
    let key: string;
    let cleanup: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      database =
        dialect.name === 'postgres'
          ? await openTripsDatabase({ environment: 'production', url: pgUrl, pgSchema: schema })
          : await openTripsDatabase({
              environment: 'production',
              sqliteFile: path.join(dataDir, 'trips-production.db'),
            });
      await createFleet(database.db, { name: 'Crash', fleetId: 'fleet_crash' });
      for (let v = 0; v < 4; v++) await createVehicle(database.db, { fleetId: 'fleet_crash', plate: `CR-${v}` });
      key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_crash' })).secret;
    });
    afterAll(async () => {
      await cleanup?.();
      if (dialect.name === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
      await database?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('stores every acknowledged trip once and whole, and scores it, despite repeated SIGKILLs', async () => {
      const makeTrip = (i: number) => {
        const batch = scorableTrip({
          startMs: Date.UTC(2026, 10, 1) + i * 3_600_000,
          vehicle: `CR-${i % 4}`,
          seed: i,
          minutes: 2.5 + (i % 5),
        });
        return {
          clientTripId: `crash-trip-${String(i).padStart(4, '0')}`,
          body: JSON.stringify(batch),
          samples: batch.samples.length,
        };
      };
      const trips: Array<ReturnType<typeof makeTrip>> = [];
      let node: ServiceNode = await startServiceNode(nodeEnv);
      // Whatever happens below, no service process outlives the test.
      cleanup = () => stopServiceNode(node);
      let restarting: Promise<void> | null = null;
      const acked = new Map<string, string>();
      let done = false;
      let kills = 0;

      const client = async () => {
        while (trips.length < MIN_TRIPS || (kills < MIN_KILLS && trips.length < MAX_TRIPS)) {
          const trip = makeTrip(trips.length);
          trips.push(trip);
          for (;;) {
            if (restarting) await restarting;
            try {
              const res = await fetch(`${node.ingestUrl}/ingest/v1/trips`, {
                method: 'POST',
                headers: {
                  authorization: `Bearer ${key}`,
                  'content-type': 'application/json',
                  'idempotency-key': trip.clientTripId,
                },
                body: trip.body,
              });
              const body = (await res.json()) as { ok: boolean; tripId?: string };
              if (res.status === 200 || res.status === 202) {
                const previous = acked.get(trip.clientTripId);
                expect(
                  previous === undefined || previous === body.tripId,
                  `${trip.clientTripId} acked twice as different trips`,
                ).toBe(true);
                acked.set(trip.clientTripId, body.tripId!);
                break;
              }
              expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(500);
            } catch {
              // The connection died with the process: retry, as a device would.
            }
            await sleep(50);
          }
        }
      };
      const killer = async () => {
        while (!done) {
          await sleep(150 + Math.random() * 450);
          if (done) break;
          let release!: () => void;
          restarting = new Promise((r) => {
            release = r;
          });
          node.child.kill('SIGKILL');
          await node.exited;
          kills++;
          node = await startServiceNode(nodeEnv);
          restarting = null;
          release();
        }
      };
      const killing = killer();
      await Promise.all(Array.from({ length: CLIENTS }, () => client()));
      done = true;
      await killing;
      expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);
      const TRIPS = trips.length;
      expect(acked.size).toBe(TRIPS);

      // Let the surviving node finish the queue (jobs of killed nodes come back when their lease expires). It
      // fails only when the queue stops moving for two minutes, not after a fixed time: a loaded machine (CI
      // with other test files) scores slower, which is not what this test is about.
      let lastPending = Number.POSITIVE_INFINITY;
      let stuckSince = Date.now();
      for (;;) {
        const pending = await database.db
          .selectFrom('trip_uploads')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', 'in', ['queued', 'scoring'])
          .executeTakeFirstOrThrow();
        const n = Number(pending.n);
        if (n === 0) break;
        if (n < lastPending) {
          lastPending = n;
          stuckSince = Date.now();
        }
        if (Date.now() - stuckSince > 120_000) {
          throw new Error(`queue not draining (${n} left):\n${node.output().slice(-3000)}`);
        }
        await sleep(500);
      }
      await stopServiceNode(node);

      const uploads = await database.db.selectFrom('trip_uploads').selectAll().execute();
      expect(uploads).toHaveLength(TRIPS);
      for (const trip of trips) {
        const rows = uploads.filter((u) => u.idempotency_key === trip.clientTripId);
        expect(rows, trip.clientTripId).toHaveLength(1);
        const row = rows[0]!;
        expect(row.trip_id).toBe(acked.get(trip.clientTripId));
        const json = gunzipSync(row.telemetry_gz).toString('utf8');
        expect(createHash('sha256').update(json).digest('hex')).toBe(row.telemetry_sha256);
        expect((JSON.parse(json) as { samples: unknown[] }).samples).toHaveLength(trip.samples);
        expect(row.status, `${row.trip_id}: ${row.last_error}`).toBe('scored');
      }
      const scored = await database.db.selectFrom('trips').select('trip_id').execute();
      expect(scored).toHaveLength(TRIPS);
      const breakdowns = await database.db.selectFrom('trip_breakdowns').select('trip_id').execute();
      const routes = await database.db.selectFrom('trip_routes').select('trip_id').execute();
      expect(breakdowns).toHaveLength(TRIPS);
      expect(routes).toHaveLength(TRIPS);
      const counted = await database.db
        .selectFrom('trip_day_counts')
        .select((eb) => eb.fn.sum<number>('trip_count').as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(counted.n)).toBe(TRIPS);
      if (dialect.name === 'sqlite') {
        const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(database.db);
        expect(check.rows[0]!.integrity_check).toBe('ok');
      }
    }, 900_000);
  });
});
