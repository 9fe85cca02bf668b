import { NotFoundError } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { deleteFleet, fleetDeletionCounts } from '../src/store/fleet-deletion.ts';
import { authenticateIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { expectDayCountsMatchTrips } from './fixtures/store-checks.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { buildWorld, sandboxApiApp, type World } from './fixtures/world.ts';

/** Every table with a fleet_id column. */
const FLEET_TABLES = [
  'trips',
  'trip_uploads',
  'vehicles',
  'drivers',
  'ingest_keys',
  'api_token_fleets',
  'vehicle_stats',
  'fleet_stats',
  'driver_stats',
  'trip_day_counts',
  'fleets',
] as const;

describe.each(testDialects())('deleting a fleet on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    const nowMs = Date.now();
    const get = (url: string, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });
    /** What a fleet's own token reads. */
    const reads = async (token: string) => ({
      trips: (await get('/v1/trips?limit=100', token)).json(),
      vehicles: (await get('/v1/vehicles?window=90', token)).json(),
      drivers: (await get('/v1/drivers?window=90', token)).json(),
      fleets: (await get('/v1/fleets?window=90', token)).json(),
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

    it('deletes every row of the fleet, closes its tokens and keys, and leaves the other fleets as they were', async () => {
      const [alpha, bravo, charlie] = world.fleets as [
        (typeof world.fleets)[0],
        (typeof world.fleets)[0],
        (typeof world.fleets)[0],
      ];
      // An upload of bravo's not scored yet.
      await acceptUpload(
        database.db,
        { fleetId: 'fleet_bravo', vehicleId: null, keyId: null, source: 'test' },
        'delete-queued-0001',
        gpsTrip({ startMs: nowMs - 3_600_000, vehicle: bravo.plates[0]!, driverId: bravo.drivers[0]!, points: 30 }),
        nowMs,
      );
      const alphaBefore = await reads(alpha.token);
      const charlieBefore = await reads(charlie.token);
      expect((await get('/v1/trips', bravo.token)).json().pagination.total).toBe(24);

      const expected = {
        trips: 24,
        uploads: 25,
        vehicles: 3,
        drivers: 2,
        ingestKeys: 1,
        // Bravo's own token, the admin token and the multi-fleet token over alpha and bravo.
        tokensNarrowed: 3,
        tokensRevoked: 1,
      };
      expect(await fleetDeletionCounts(database.db, 'fleet_bravo')).toEqual(expected);
      // Small batches: the day counts must come out exact across several transactions.
      expect(await deleteFleet(database.db, 'fleet_bravo', { nowMs, batchSize: 7 })).toEqual(expected);

      for (const table of FLEET_TABLES) {
        const left = await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('fleet_id', '=', 'fleet_bravo')
          .executeTakeFirstOrThrow();
        expect(Number(left.n), table).toBe(0);
      }
      for (const tripId of bravo.tripIds) {
        const row = await database.db
          .selectFrom('trip_summaries')
          .select('trip_id')
          .where('trip_id', '=', tripId)
          .executeTakeFirst();
        expect(row).toBeUndefined();
      }
      // The per-day counts (and store-wide totals) still count exactly the trips left.
      await expectDayCountsMatchTrips(database.db);

      const own = await get('/v1/trips', bravo.token);
      expect(own.statusCode).toBe(401);
      expect(own.json().error).toBe('access token has been revoked');
      expect((await get('/v1/trips', world.adminToken, { 'x-fleet-id': 'fleet_bravo' })).statusCode).toBe(404);
      const adminFleets = (await get('/v1/fleets', world.adminToken)).json().fleets as Array<{ fleetId: string }>;
      expect(adminFleets.map((f) => f.fleetId)).toEqual(['fleet_alpha']);
      // The multi-fleet token now reaches alpha alone, so it no longer needs x-fleet-id.
      expect((await get('/v1/trips?limit=100', world.multiToken)).json()).toEqual(alphaBefore.trips);
      await expect(authenticateIngestKey(database.db, 'sandbox', bravo.ingestKey)).rejects.toThrow();

      expect(await reads(alpha.token)).toEqual(alphaBefore);
      expect(await reads(charlie.token)).toEqual(charlieBefore);
      await expect(deleteFleet(database.db, 'fleet_bravo', { nowMs })).rejects.toThrow(NotFoundError);
    });
  });
});
