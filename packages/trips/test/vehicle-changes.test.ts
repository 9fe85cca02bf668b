import { NotFoundError } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlreadyExistsError, ForbiddenError, InvalidInputError, UnauthenticatedError } from '../src/errors.ts';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { inlineUploadPreparer, type UploadPreparer } from '../src/ingest/upload-preparer.ts';
import type { TripScorer } from '../src/scoring/trip-scorer.ts';
import { authenticateIngestKey, createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { removeScoredTrip } from '../src/store/scored-trips.ts';
import { LIST_COLUMNS, type TripListRow, tripItemJson } from '../src/store/trip-item.ts';
import { deleteVehicle, renameVehicle, vehicleDeletionCounts } from '../src/store/vehicle-changes.ts';
import { weekStartDay } from '../src/store/vehicle-stat-terms.ts';
import { createVehicle, listVehicles } from '../src/store/vehicles.ts';
import { expectDayCountsMatchTrips } from './fixtures/store-checks.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { buildWorld, quietLogger, sandboxApiApp, type World } from './fixtures/world.ts';

const HOUR = 3_600_000;

describe.each(testDialects())('renaming and deleting a vehicle on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    const nowMs = Date.now();
    const get = (url: string, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });
    const connector = (fleetId: string) => ({ fleetId, vehicleId: null, keyId: null, source: 'test' });
    const score = (scorer: TripScorer = world.scorer) =>
      new ScoringWorker({ db: database, scorer, logger: quietLogger(), concurrency: 2 }).drain();
    /** Rows of `table` under a plate in a fleet. */
    const rowsUnder = async (table: 'trips' | 'trip_uploads' | 'vehicle_stats', fleetId: string, plate: string) =>
      Number(
        (
          await database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('fleet_id', '=', fleetId)
            .where('plate', '=', plate)
            .executeTakeFirstOrThrow()
        ).n,
      );
    /** What a fleet's token reads beside one vehicle: the fleet, its drivers and its vehicles. */
    const fleetReads = async (token: string) => ({
      fleets: (await get('/v1/fleets?window=90', token)).json(),
      drivers: (await get('/v1/drivers?window=90', token)).json(),
      vehicles: (await get('/v1/vehicles?window=90&limit=100', token)).json(),
    });

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

    it('renames a vehicle: its trips, profile and sums follow the new plate, the old one names nothing', async () => {
      const alpha = world.fleets[0]!;
      const from = alpha.plates[0]!;
      const to = `${from}R`;
      // An upload of the vehicle not scored yet, and a device key bound to it.
      await acceptUpload(
        database.db,
        connector(alpha.fleetId),
        'rename-queued-0001',
        gpsTrip({ startMs: nowMs - 2 * HOUR, vehicle: from, driverId: alpha.drivers[0]!, points: 30 }),
        nowMs,
      );
      const device = await createIngestKey(database.db, {
        environment: 'sandbox',
        fleetId: alpha.fleetId,
        plate: from,
      });

      const profile = (await get(`/v1/vehicles/${from}?window=90`, alpha.token)).json();
      const listed = (await get(`/v1/trips?vehicle=${from}&limit=100`, alpha.token)).json();
      expect(listed.pagination.total).toBe(8);
      const tripId = listed.trips[0].tripId as string;
      const detail = await get(`/v1/trips/${tripId}`, alpha.token);
      const othersBefore = await fleetReads(alpha.token);

      const renamed = await renameVehicle(database.db, { plate: from.toLowerCase(), to: to.toLowerCase() });
      expect(renamed).toMatchObject({ previousPlate: from, trips: 8, uploads: 9 });
      expect(renamed.vehicle).toMatchObject({ plate: to, fleetId: alpha.fleetId });

      // The same profile and trips, under the new plate; the old plate answers as a plate never registered.
      const json = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(from, to));
      expect((await get(`/v1/vehicles/${to}?window=90`, alpha.token)).json()).toEqual(json(profile));
      expect((await get(`/v1/trips?vehicle=${to}&limit=100`, alpha.token)).json()).toEqual(json(listed));
      expect((await get(`/v1/vehicles/${from}?window=90`, alpha.token)).statusCode).toBe(404);
      expect((await get(`/v1/trips?vehicle=${from}`, alpha.token)).json().pagination.total).toBe(0);
      const after = await get(`/v1/trips/${tripId}`, alpha.token);
      expect(after.json()).toEqual(json(detail.json()));
      expect(after.json().trip.links.vehicle).toBe(`/v1/vehicles/${encodeURIComponent(to)}`);
      // A client holding the trip under the old plate gets the new body, not 304.
      const revalidated = await get(`/v1/trips/${tripId}`, alpha.token, {
        'if-none-match': detail.headers.etag as string,
      });
      expect(revalidated.statusCode).toBe(200);
      // The fleet's and its drivers' sums are unchanged; the vehicle list names the new plate.
      expect(await fleetReads(alpha.token)).toEqual(json(othersBefore));
      expect(await rowsUnder('vehicle_stats', alpha.fleetId, from)).toBe(0);
      expect(await rowsUnder('trip_uploads', alpha.fleetId, from)).toBe(0);
      // Each stored list item is what the trip's columns make of it, byte for byte.
      const stored = await database.db
        .selectFrom('trips')
        .select([...LIST_COLUMNS, 'item_json'])
        .where('fleet_id', '=', alpha.fleetId)
        .where('plate', '=', to)
        .execute();
      expect(stored).toHaveLength(8);
      for (const row of stored) expect(row.item_json).toBe(tripItemJson(row as TripListRow));

      // The upload queued before the rename is scored under the new plate.
      await score();
      expect((await get(`/v1/trips?vehicle=${to}&limit=100`, alpha.token)).json().pagination.total).toBe(9);
      // The device key goes on working (its uploads name no plate); a connector naming the old plate is refused.
      const principal = await authenticateIngestKey(database.db, 'sandbox', device.secret);
      const fromDevice = await acceptUpload(
        database.db,
        { ...principal, source: 'ingest' },
        'rename-device-0001',
        gpsTrip({ startMs: nowMs - 3 * HOUR, driverId: alpha.drivers[1]!, points: 30 }),
        nowMs,
      );
      await score();
      const deviceTrip = (await get(`/v1/trips/${fromDevice.tripId}`, alpha.token)).json();
      expect(deviceTrip.trip.vehicle).toBe(to);
      await expect(
        acceptUpload(
          database.db,
          connector(alpha.fleetId),
          'rename-old-plate-0001',
          gpsTrip({ startMs: nowMs - 4 * HOUR, vehicle: from, points: 30 }),
          nowMs,
        ),
      ).rejects.toThrow(ForbiddenError);

      // The old plate is free: another fleet registers it and starts from nothing.
      const bravo = world.fleets[1]!;
      await createVehicle(database.db, { fleetId: bravo.fleetId, plate: from });
      const fresh = (await get(`/v1/vehicles/${from}?window=90`, bravo.token)).json();
      expect(fresh.vehicle.trips).toBe(0);
      expect((await get(`/v1/vehicles/${to}?window=90`, bravo.token)).statusCode).toBe(404);
    });

    it('refuses a rename to a plate taken, to the same plate, of an unknown vehicle or to a malformed plate', async () => {
      const [alpha, bravo] = world.fleets as [World['fleets'][0], World['fleets'][0]];
      const plate = alpha.plates[1]!;
      await expect(renameVehicle(database.db, { plate, to: bravo.plates[0]! })).rejects.toThrow(
        new AlreadyExistsError(
          `a vehicle with plate ${bravo.plates[0]} already exists in fleet ${bravo.fleetId}: a plate is unique across the fleets of an environment`,
        ),
      );
      await expect(renameVehicle(database.db, { plate, to: alpha.plates[2]! })).rejects.toThrow(
        `a vehicle with plate ${alpha.plates[2]} already exists in fleet ${alpha.fleetId}`,
      );
      await expect(renameVehicle(database.db, { plate, to: ` ${plate.toLowerCase()}` })).rejects.toThrow(
        InvalidInputError,
      );
      await expect(renameVehicle(database.db, { plate: 'NO-SUCH-1', to: 'NO-SUCH-2' })).rejects.toThrow(NotFoundError);
      await expect(renameVehicle(database.db, { plate, to: 'А-1' })).rejects.toThrow(/U\+0410/);
      // Nothing moved.
      expect(await rowsUnder('trips', alpha.fleetId, plate)).toBe(8);
    });

    it('takes the new plate for a trip scored, and an upload stored, while the vehicle was renamed', async () => {
      const charlie = world.fleets[2]!;
      const first = charlie.plates[0]!;
      const second = `${first}X`;
      const third = `${first}Y`;
      await acceptUpload(
        database.db,
        connector(charlie.fleetId),
        'rename-race-0001',
        gpsTrip({ startMs: nowMs - 5 * HOUR, vehicle: first, driverId: charlie.drivers[0]!, points: 30 }),
        nowMs,
      );
      // The worker read the upload (plate `first`) before the rename and writes its result after it.
      let renamed = false;
      const renamingScorer: TripScorer = {
        modelVersion: world.scorer.modelVersion,
        score: async (input) => {
          if (!renamed) await renameVehicle(database.db, { plate: first, to: second });
          renamed = true;
          return world.scorer.score(input);
        },
        close: async () => {},
      };
      await score(renamingScorer);
      expect(await rowsUnder('trips', charlie.fleetId, first)).toBe(0);
      expect(await rowsUnder('vehicle_stats', charlie.fleetId, first)).toBe(0);
      expect(await rowsUnder('trips', charlie.fleetId, second)).toBe(9);

      // An upload of a device key whose vehicle was looked up before the rename and stored after it.
      const device = await createIngestKey(database.db, {
        environment: 'sandbox',
        fleetId: charlie.fleetId,
        plate: second,
      });
      const sender = { ...(await authenticateIngestKey(database.db, 'sandbox', device.secret)), source: 'ingest' };
      const renamingPreparer: UploadPreparer = {
        ...inlineUploadPreparer,
        prepare: async (request) => {
          const prepared = await inlineUploadPreparer.prepare(request);
          await renameVehicle(database.db, { plate: second, to: third });
          return prepared;
        },
      };
      await acceptUpload(
        database.db,
        sender,
        'rename-race-0002',
        gpsTrip({ startMs: nowMs - 6 * HOUR, points: 30 }),
        nowMs,
        renamingPreparer,
      );
      await score();
      expect(await rowsUnder('trip_uploads', charlie.fleetId, second)).toBe(0);
      expect(await rowsUnder('trips', charlie.fleetId, third)).toBe(10);
      expect((await get(`/v1/vehicles/${third}?window=90`, charlie.token)).json().vehicle.trips).toBe(10);

      // And one whose vehicle was deleted meanwhile is refused (its key went with it), leaving nothing behind.
      const deletingPreparer: UploadPreparer = {
        ...inlineUploadPreparer,
        prepare: async (request) => {
          const prepared = await inlineUploadPreparer.prepare(request);
          await deleteVehicle(database.db, third, { nowMs });
          return prepared;
        },
      };
      await expect(
        acceptUpload(
          database.db,
          sender,
          'rename-race-0003',
          gpsTrip({ startMs: nowMs - 7 * HOUR, points: 30 }),
          nowMs,
          deletingPreparer,
        ),
      ).rejects.toThrow(UnauthenticatedError);
      expect(await rowsUnder('trip_uploads', charlie.fleetId, third)).toBe(0);
    });

    it.skipIf(dialect.name !== 'postgres')(
      'renames a vehicle while a trip of another vehicle of the fleet, in the same week, is being written',
      async () => {
        const alpha = world.fleets[0]!;
        const [, plate, other] = alpha.plates as [string, string, string];
        const trips = await database.db
          .selectFrom('trips')
          .select(['trip_id', 'plate', 'start_day'])
          .where('fleet_id', '=', alpha.fleetId)
          .where('plate', 'in', [plate, other])
          .execute();
        const weeks = new Set(trips.filter((t) => t.plate === plate).map((t) => weekStartDay(Number(t.start_day))));
        const written = trips.find((t) => t.plate === other && weeks.has(weekStartDay(Number(t.start_day))));
        expect(written).toBeDefined();
        // A scoring worker (or a rescore) rewriting that trip holds its transaction open; the rename must not wait
        // for it: it changes nothing of the fleet's or drivers' sums. Before, it waited for the fleet's week row,
        // and a worker waiting in turn for a row the rename held (a day of the same week) deadlocked with it.
        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let locked = () => {};
        const writing = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const worker = database.db.transaction().execute(async (trx) => {
          await removeScoredTrip(trx, written!.trip_id);
          locked();
          await held;
          throw new Error('rolled back');
        });
        await writing;
        const outcome = await Promise.race([
          renameVehicle(database.db, { plate, to: `${plate}W` }).then((r) => `renamed ${r.trips} trips`),
          new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000)),
        ]);
        release();
        await expect(worker).rejects.toThrow('rolled back');
        expect(outcome).toBe('renamed 8 trips');
        expect((await get(`/v1/trips?vehicle=${plate}W&limit=100`, alpha.token)).json().pagination.total).toBe(8);
      },
    );

    it.skipIf(dialect.name !== 'postgres')(
      'acknowledges an upload of a vehicle being renamed without waiting for its history to move',
      async () => {
        const charlie = world.fleets[2]!;
        const plate = charlie.plates[1]!;
        const to = `${plate}N`;
        // A vehicle with a long history: 3,000 more trips, copies of one of its own on earlier days.
        const model = await database.db
          .selectFrom('trips')
          .selectAll()
          .where('fleet_id', '=', charlie.fleetId)
          .where('plate', '=', plate)
          .executeTakeFirstOrThrow();
        for (let page = 0; page < 6; page++) {
          const copies = Array.from({ length: 500 }, (_, k) => {
            const i = page * 500 + k + 1;
            const startMs = Number(model.start_ms) - i * 3 * HOUR;
            return {
              ...model,
              trip_id: `${model.trip_id}c${i}`,
              start_ms: startMs,
              end_ms: startMs + HOUR,
              start_day: Math.floor(startMs / (24 * HOUR)),
            };
          });
          await database.db.insertInto('trips').values(copies).execute();
        }
        // Counted in the per-day counts, as the scoring path counts every trip it writes.
        const { version } = await database.db
          .updateTable('trips_version')
          .set((eb) => ({ version: eb('version', '+', 1) }))
          .where('id', '=', 1)
          .returning('version')
          .executeTakeFirstOrThrow();
        await sql`insert into trip_day_counts (fleet_id, day, tier, trip_count, version)
          select fleet_id, start_day, tier, count(*), ${Number(version)} from trips where trip_id like ${`${model.trip_id}c%`}
          group by fleet_id, start_day, tier
          on conflict (fleet_id, day, tier)
          do update set trip_count = trip_day_counts.trip_count + excluded.trip_count, version = excluded.version`.execute(
          database.db,
        );
        const order: string[] = [];
        const renaming = renameVehicle(database.db, { plate, to }).then((r) => {
          order.push('renamed');
          return r;
        });
        // Sent while the trips move (seconds): stored and acknowledged at once, under the plate that is moving.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const stored = await acceptUpload(
          database.db,
          connector(charlie.fleetId),
          'rename-during-0001',
          gpsTrip({ startMs: nowMs - 9 * HOUR, vehicle: plate, driverId: charlie.drivers[0]!, points: 30 }),
          nowMs,
        ).then((r) => {
          order.push('acknowledged');
          return r;
        });
        const renamed = await renaming;
        expect(order).toEqual(['acknowledged', 'renamed']);
        // Moved with the rest by the rename, and scored under the new plate.
        expect(renamed.trips).toBe(3008);
        expect(await rowsUnder('trip_uploads', charlie.fleetId, plate)).toBe(0);
        await score();
        const listed = (await get(`/v1/trips?vehicle=${to}&limit=100`, charlie.token)).json();
        expect(listed.pagination.total).toBe(3009);
        expect(listed.trips.map((t: { tripId: string }) => t.tripId)).toContain(stored.tripId);
      },
    );

    it.skipIf(dialect.name !== 'postgres')(
      'deletes a vehicle while a scoring worker holds one of its uploads and writes a trip of the same week',
      async () => {
        const alpha = world.fleets[0]!;
        const plate = alpha.plates[2]!;
        const trips = await database.db
          .selectFrom('trips')
          .select(['trip_id', 'plate', 'start_day'])
          .where('fleet_id', '=', alpha.fleetId)
          .execute();
        const deleted = trips.filter((t) => t.plate === plate);
        const weeks = new Set(deleted.map((t) => weekStartDay(Number(t.start_day))));
        const written = trips.find((t) => t.plate !== plate && weeks.has(weekStartDay(Number(t.start_day))));
        expect(written).toBeDefined();
        // The worker holds an upload of the vehicle (one it puts back in the queue), then writes a trip of another
        // vehicle in a week the deletion takes out of the fleet's sums. It looks for deadlocks first (after 100 ms,
        // the deletion after PostgreSQL's 1 s), so a deadlock would stop the worker.
        let locked = () => {};
        const holding = new Promise<void>((resolve) => {
          locked = resolve;
        });
        let proceed = () => {};
        const deleting = new Promise<void>((resolve) => {
          proceed = resolve;
        });
        const worker = database.db.transaction().execute(async (trx) => {
          await sql`set local deadlock_timeout = '100ms'`.execute(trx);
          await trx
            .updateTable('trip_uploads')
            .set({ next_attempt_at_ms: nowMs })
            .where('trip_id', '=', deleted[0]!.trip_id)
            .execute();
          locked();
          await deleting;
          await removeScoredTrip(trx, written!.trip_id);
          throw new Error('rolled back');
        });
        await holding;
        const deletion = deleteVehicle(database.db, plate, { nowMs });
        await new Promise((resolve) => setTimeout(resolve, 500));
        proceed();
        await expect(worker).rejects.toThrow('rolled back');
        expect(await deletion).toMatchObject({ trips: deleted.length });
        expect((await get(`/v1/vehicles/${plate}`, alpha.token)).statusCode).toBe(404);
      },
    );

    it('counts what it deleted, an upload a connector stored for the vehicle during the deletion included', async () => {
      const bravo = world.fleets[1]!;
      const plate = bravo.plates[0]!;
      const before = await vehicleDeletionCounts(database.db, plate);
      const deletion = deleteVehicle(database.db, plate, { nowMs, batchSize: 1 });
      // The connector is not stopped by the revoked device keys: its upload is stored until the vehicle goes.
      const stored = await acceptUpload(
        database.db,
        connector(bravo.fleetId),
        'delete-during-0001',
        gpsTrip({ startMs: nowMs - 4 * HOUR, vehicle: plate, driverId: bravo.drivers[0]!, points: 30 }),
        nowMs,
      );
      expect(stored.status).toBe('queued');
      expect(await deletion).toMatchObject({
        trips: before.trips,
        uploads: before.uploads + 1,
        deviceKeys: before.deviceKeys,
      });
      expect(await rowsUnder('trip_uploads', bravo.fleetId, plate)).toBe(0);
    });

    it('deletes a vehicle with its trips, uploads, sums and device keys, and leaves the rest as it was', async () => {
      const bravo = world.fleets[1]!;
      const plate = bravo.plates[1]!;
      const keep = bravo.plates[2]!;
      await acceptUpload(
        database.db,
        connector(bravo.fleetId),
        'delete-vehicle-queued-1',
        gpsTrip({ startMs: nowMs - 2 * HOUR, vehicle: plate, driverId: bravo.drivers[0]!, points: 30 }),
        nowMs,
      );
      const device = await createIngestKey(database.db, { environment: 'sandbox', fleetId: bravo.fleetId, plate });
      const kept = (await get(`/v1/vehicles/${keep}?window=90`, bravo.token)).json();
      const alphaBefore = await fleetReads(world.fleets[0]!.token);
      const fleetBefore = (await get('/v1/fleets?window=90', bravo.token)).json().fleets[0];
      const vehicleBefore = (await get(`/v1/vehicles/${plate}?window=90`, bravo.token)).json().vehicle;
      const totalBefore = (await get('/v1/trips', bravo.token)).json().pagination.total as number;

      const expected = { trips: 8, uploads: 9, deviceKeys: 1 };
      expect(await vehicleDeletionCounts(database.db, plate)).toMatchObject(expected);
      // Small batches: the counts must come out exact across several transactions.
      expect(await deleteVehicle(database.db, plate, { nowMs, batchSize: 3 })).toMatchObject({
        ...expected,
        vehicle: { plate, fleetId: bravo.fleetId },
      });

      for (const table of ['trips', 'trip_uploads', 'vehicle_stats'] as const) {
        expect(await rowsUnder(table, bravo.fleetId, plate), table).toBe(0);
      }
      expect((await listVehicles(database.db, { fleetId: bravo.fleetId })).map((v) => v.plate)).not.toContain(plate);
      await expect(authenticateIngestKey(database.db, 'sandbox', device.secret)).rejects.toThrow(UnauthenticatedError);
      expect((await get(`/v1/vehicles/${plate}?window=90`, bravo.token)).statusCode).toBe(404);
      expect((await get('/v1/trips', bravo.token)).json().pagination.total).toBe(totalBefore - 8);
      const fleetAfter = (await get('/v1/fleets?window=90', bravo.token)).json().fleets[0];
      expect(fleetAfter.trips).toBe(fleetBefore.trips - vehicleBefore.trips);
      expect(fleetAfter.distanceKm).toBeCloseTo(fleetBefore.distanceKm - vehicleBefore.distanceKm, 1);
      // Its drivers stay registered; the other vehicle and the other fleets are as they were.
      const drivers = (await get('/v1/drivers?window=90', bravo.token)).json().drivers as Array<{ driverId: string }>;
      expect(drivers.map((d) => d.driverId).sort()).toEqual([...bravo.drivers].sort());
      expect((await get(`/v1/vehicles/${keep}?window=90`, bravo.token)).json()).toEqual(kept);
      expect(await fleetReads(world.fleets[0]!.token)).toEqual(alphaBefore);
      // The per-day counts (and store-wide totals) still count exactly the trips left.
      await expectDayCountsMatchTrips(database.db);

      await expect(deleteVehicle(database.db, plate, { nowMs })).rejects.toThrow(NotFoundError);
      // The plate can be registered again, with nothing of the deleted vehicle's.
      await createVehicle(database.db, { fleetId: bravo.fleetId, plate });
      expect((await get(`/v1/vehicles/${plate}?window=90`, bravo.token)).json().vehicle.trips).toBe(0);
    });
  });
});
