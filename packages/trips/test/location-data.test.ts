import { NotFoundError } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { rescore } from '../src/scoring/rescore.ts';
import type { ScoringInput, TripScorer } from '../src/scoring/trip-scorer.ts';
import { startLocationRetention } from '../src/service/location-retention.ts';
import { requeue } from '../src/store/job-queue.ts';
import { deleteLocationData, driverDataCounts, eraseDriver } from '../src/store/location-data.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { buildWorld, quietLogger, sandboxApiApp, type World } from './fixtures/world.ts';

const DAY_MS = 86_400_000;

interface Item {
  tripId: string;
  startDate: string;
  driverId: string | null;
  vehicle: string;
  [field: string]: unknown;
}

describe.each(testDialects())('location data retention and driver erasure on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    const nowMs = Date.now();
    const get = (url: string, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });
    const items = async (token: string, query = '') =>
      (await get(`/v1/trips?limit=100${query}`, token)).json().trips as Item[];
    const upload = (tripId: string) =>
      database.db
        .selectFrom('trip_uploads')
        .select(['status', 'driver_id', 'telemetry_gz', 'telemetry_deleted_at_ms', 'last_error'])
        .where('trip_id', '=', tripId)
        .executeTakeFirstOrThrow();
    /** What a fleet's users read that does not depend on location data: lists, breakdowns, profiles. */
    const scoresSeen = async (token: string, plates: string[]) => {
      const seen: Record<string, unknown> = {};
      const trips = await items(token);
      seen.trips = trips;
      for (const t of trips) seen[t.tripId] = (await get(`/v1/trips/${t.tripId}/score-breakdown`, token)).json();
      for (const plate of plates) seen[plate] = (await get(`/v1/vehicles/${plate}?window=90`, token)).json();
      seen.vehicles = (await get('/v1/vehicles?window=90', token)).json();
      seen.fleets = (await get('/v1/fleets?window=90', token)).json();
      return seen;
    };

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 24, nowMs });
      app = await sandboxApiApp(database, nowMs);
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it('retention deletes the telemetry and routes of older trips and keeps every score, once', async () => {
      const alpha = world.fleets[0]!;
      const cutoffMs = nowMs - 20 * DAY_MS;
      const before = await scoresSeen(alpha.token, alpha.plates);
      const trips = before.trips as Item[];
      const old = trips.filter((t) => Date.parse(t.startDate) < cutoffMs).map((t) => t.tripId);
      const recent = trips.filter((t) => Date.parse(t.startDate) >= cutoffMs).map((t) => t.tripId);
      expect(old.length).toBeGreaterThan(3);
      expect(recent.length).toBeGreaterThan(3);
      const tagBefore = (await get(`/v1/trips/${old[0]}`, alpha.token)).headers.etag;

      const dry = await deleteLocationData(database.db, {
        beforeMs: cutoffMs,
        nowMs,
        fleetId: 'fleet_alpha',
        dryRun: true,
      });
      expect(dry).toEqual({ uploads: old.length, trips: old.length });
      expect((await upload(old[0]!)).telemetry_gz.length).toBeGreaterThan(0);
      expect((await get(`/v1/trips/${old[0]}/route`, alpha.token)).statusCode).toBe(200);

      const deletedAtMs = nowMs + 1000;
      // Small batches: the keyset walk must not skip or repeat a trip between batches.
      const done = await deleteLocationData(database.db, {
        beforeMs: cutoffMs,
        nowMs: deletedAtMs,
        fleetId: 'fleet_alpha',
        batchSize: 4,
      });
      expect(done).toEqual({ uploads: old.length, trips: old.length });

      for (const tripId of old) {
        const route = await get(`/v1/trips/${tripId}/route`, alpha.token);
        expect(route.statusCode).toBe(404);
        expect(route.json()).toEqual({
          ok: false,
          error: `the route of trip ${tripId} was deleted on ${new Date(deletedAtMs).toISOString()} under the location data retention period; its scores are kept`,
        });
        const { trip } = (await get(`/v1/trips/${tripId}`, alpha.token)).json();
        expect(trip.links.gps).toBeNull();
        expect(trip.locationDataDeletedAt).toBe(new Date(deletedAtMs).toISOString());
        const stored = await upload(tripId);
        expect(stored.telemetry_gz.length).toBe(0);
        expect(Number(stored.telemetry_deleted_at_ms)).toBe(deletedAtMs);
      }
      for (const tripId of recent) {
        expect((await get(`/v1/trips/${tripId}/route`, alpha.token)).statusCode).toBe(200);
        const { trip } = (await get(`/v1/trips/${tripId}`, alpha.token)).json();
        expect(trip.links.gps).toBe(`/v1/trips/${tripId}/route`);
        expect(trip.locationDataDeletedAt).toBeNull();
        expect((await upload(tripId)).telemetry_gz.length).toBeGreaterThan(0);
      }
      // Scores, breakdowns and every sum read the same; the trip's validator moved with its body.
      expect(await scoresSeen(alpha.token, alpha.plates)).toEqual(before);
      expect((await get(`/v1/trips/${old[0]}`, alpha.token)).headers.etag).not.toBe(tagBefore);
      // Other fleets were not touched.
      const bravo = world.fleets[1]!;
      for (const tripId of bravo.tripIds) expect((await upload(tripId)).telemetry_deleted_at_ms).toBeNull();

      expect(await deleteLocationData(database.db, { beforeMs: cutoffMs, nowMs, fleetId: 'fleet_alpha' })).toEqual({
        uploads: 0,
        trips: 0,
      });
      // Nothing to score them from: requeue leaves them, rescore keeps their scores and says so.
      expect(await requeue(database.db, { tripIds: old, failedOnly: false }, nowMs)).toBe(0);
      const result = await rescore(database, fakeScorer('fake-2'), { clock: () => nowMs + 2000 });
      expect(result.keptWithoutTelemetry).toBe(old.length);
      expect(result.failed).toBe(0);
      const { trip: kept } = (await get(`/v1/trips/${old[0]}`, alpha.token)).json();
      expect(kept.modelVersion).toBe('fake-1');
      expect(kept.links.gps).toBeNull();
      const { trip: rescored } = (await get(`/v1/trips/${recent[0]}`, alpha.token)).json();
      expect(rescored.modelVersion).toBe('fake-2');
    });

    it('erasing a driver unlinks their trips, deletes their location data and registration, and keeps the vehicle and fleet sums', async () => {
      const bravo = world.fleets[1]!;
      const [erased, other] = bravo.drivers as [string, string];
      const before = await items(bravo.token);
      const theirs = before.filter((t) => t.driverId === erased);
      expect(theirs.length).toBeGreaterThan(3);
      const otherProfile = (await get(`/v1/drivers/${other}?window=90`, bravo.token)).json();
      const vehicles = (await get('/v1/vehicles?window=90', bravo.token)).json();
      const fleet = (await get('/v1/fleets/fleet_bravo?window=90', bravo.token)).json();
      // One more upload of theirs, not scored yet.
      const queued = await acceptUpload(
        database.db,
        { fleetId: 'fleet_bravo', vehicleId: null, keyId: null, source: 'test' },
        'erase-queued-0001',
        gpsTrip({ startMs: nowMs - 3_600_000, vehicle: bravo.plates[0]!, driverId: erased, points: 30 }),
        nowMs,
      );
      expect(queued.status).toBe('queued');

      expect(await driverDataCounts(database.db, { fleetId: 'fleet_bravo', driverId: erased })).toEqual({
        trips: theirs.length + 1,
        unscored: 1,
        registered: true,
      });
      const result = await eraseDriver(database.db, {
        fleetId: 'fleet_bravo',
        driverId: erased,
        nowMs: nowMs + 5000,
        batchSize: 5,
      });
      expect(result).toEqual({ trips: theirs.length + 1, unscored: 1, registrationDeleted: true });

      expect((await get(`/v1/drivers/${erased}`, bravo.token)).statusCode).toBe(404);
      expect((await get(`/v1/trips?driver=${erased}`, bravo.token)).json().pagination.total).toBe(0);
      const drivers = (await get('/v1/drivers', bravo.token)).json().drivers as Array<{ driverId: string }>;
      expect(drivers.map((d) => d.driverId)).toEqual([other]);
      // Their trips are still listed, in place, without a driver; everything else in the list is as it was.
      const after = await items(bravo.token);
      expect(after).toEqual(before.map((t) => (t.driverId === erased ? { ...t, driverId: null } : t)));
      for (const t of theirs) {
        const { trip } = (await get(`/v1/trips/${t.tripId}`, bravo.token)).json();
        expect(trip.driverId).toBeNull();
        expect(trip.links.gps).toBeNull();
        const route = await get(`/v1/trips/${t.tripId}/route`, bravo.token);
        expect(route.statusCode).toBe(404);
        expect(route.json().error).toContain('deleted on 20');
        expect(route.json().error).toContain("with its driver's personal data");
        const stored = await upload(t.tripId);
        expect(stored.driver_id).toBeNull();
        expect(stored.telemetry_gz.length).toBe(0);
      }
      const dropped = await upload(queued.tripId);
      expect(dropped).toMatchObject({ status: 'failed', driver_id: null });
      expect(dropped.last_error).toContain('driver was erased');
      expect(dropped.telemetry_gz.length).toBe(0);
      // No trace of the id in any stored row of the fleet.
      const named = await database.db.selectFrom('trips').select('trip_id').where('driver_id', '=', erased).execute();
      expect(named).toEqual([]);
      const stats = await database.db
        .selectFrom('driver_stats')
        .select('driver_id')
        .where('driver_id', '=', erased)
        .where('trip_count', '<>', 0)
        .execute();
      expect(stats).toEqual([]);

      // The vehicles and the fleet sum the same trips; the other driver is untouched.
      expect((await get('/v1/vehicles?window=90', bravo.token)).json()).toEqual(vehicles);
      // The fleet has one registered driver fewer.
      expect((await get('/v1/fleets/fleet_bravo?window=90', bravo.token)).json()).toEqual({
        ...fleet,
        fleet: { ...fleet.fleet, drivers: { total: fleet.fleet.drivers.total - 1 } },
      });
      expect((await get(`/v1/drivers/${other}?window=90`, bravo.token)).json()).toEqual(otherProfile);
      // A vehicle's roster counts the trips under "no identified driver" now.
      const plate = theirs[0]!.vehicle;
      const { vehicle } = (await get(`/v1/vehicles/${plate}?window=90`, bravo.token)).json();
      const rosterIds = (vehicle.drivers as Array<{ driverId: string | null }>).map((d) => d.driverId);
      expect(rosterIds).toContain(null);
      expect(rosterIds).not.toContain(erased);

      // Scoring and rescoring afterwards bring nothing back.
      const worker = new ScoringWorker({ db: database, scorer: world.scorer, logger: quietLogger(), concurrency: 2 });
      await worker.drain();
      expect((await upload(queued.tripId)).status).toBe('failed');
      await rescore(database, fakeScorer('fake-3'), { all: true, clock: () => nowMs + 6000 });
      expect((await get(`/v1/trips?driver=${erased}`, bravo.token)).json().pagination.total).toBe(0);
      await expect(eraseDriver(database.db, { fleetId: 'fleet_bravo', driverId: erased, nowMs })).rejects.toThrow(
        NotFoundError,
      );
      await expect(eraseDriver(database.db, { fleetId: 'fleet_bravo', driverId: 'bad id!', nowMs })).rejects.toThrow(
        /driver id "bad id!" is invalid/,
      );
    });

    it('drops the result of a trip being scored when its driver is erased meanwhile', async () => {
      const charlie = world.fleets[2]!;
      const driverId = charlie.drivers[0]!;
      const accepted = await acceptUpload(
        database.db,
        { fleetId: 'fleet_charlie', vehicleId: null, keyId: null, source: 'test' },
        'erase-race-0001',
        gpsTrip({ startMs: nowMs - 7_200_000, vehicle: charlie.plates[1]!, driverId, points: 30 }),
        nowMs,
      );
      // A scorer that erases the driver while it scores: the worker holds the job's lease at that point.
      const inner = fakeScorer();
      let erasedDuringScoring = false;
      const scorer: TripScorer = {
        modelVersion: inner.modelVersion,
        async score(input: ScoringInput) {
          const scored = await inner.score(input);
          const r = await eraseDriver(database.db, { fleetId: 'fleet_charlie', driverId, nowMs });
          erasedDuringScoring = r.unscored === 1;
          return scored;
        },
        close: () => inner.close(),
      };
      const worker = new ScoringWorker({ db: database, scorer, logger: quietLogger(), concurrency: 1 });
      await worker.drain();
      expect(erasedDuringScoring).toBe(true);
      expect(await upload(accepted.tripId)).toMatchObject({ status: 'failed', driver_id: null });
      expect((await get(`/v1/trips/${accepted.tripId}`, charlie.token)).statusCode).toBe(404);
      const routes = await database.db
        .selectFrom('trip_routes')
        .select('trip_id')
        .where('trip_id', '=', accepted.tripId)
        .execute();
      expect(routes).toEqual([]);
    });

    it('the retention pass of a serving node deletes what is past the period, once, and stops cleanly', async () => {
      const cutoffMs = nowMs - 30 * DAY_MS;
      const due = await database.db
        .selectFrom('trip_uploads')
        .select('trip_id')
        .where('first_sample_ms', '<', cutoffMs)
        .where('telemetry_deleted_at_ms', 'is', null)
        .where('status', 'in', ['scored', 'failed'])
        .execute();
      expect(due.length).toBeGreaterThan(0);
      const lines: Array<Record<string, unknown>> = [];
      const logger = quietLogger();
      logger.info = ((obj: Record<string, unknown>) => void lines.push(obj)) as typeof logger.info;
      const task = startLocationRetention({ database, days: 30, logger, clock: () => nowMs, intervalMs: 3_600_000 });
      // The pass started with the task; runOnce joins it rather than starting a second one.
      expect(await task.runOnce()).toBe(due.length);
      expect(await task.runOnce()).toBe(0);
      await task.stop();
      expect(lines).toEqual([{ uploads: due.length, trips: due.length, retentionDays: 30 }]);
      for (const { trip_id } of due) expect((await upload(trip_id)).telemetry_gz.length).toBe(0);
    });
  });
});
