import { testDialects } from '@svc/platform/testing';
import { generateCity, type RoadGraph } from '@svc/roads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { rescore } from '../src/scoring/rescore.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle, updateVehicle } from '../src/store/vehicles.ts';
import { inProcessScorer } from './fixtures/in-process-scorer.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { quietLogger } from './fixtures/world.ts';

describe.each(testDialects())('machine type of scored trips on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let graph: RoadGraph;
    const now = Date.UTC(2026, 10, 20, 12);
    const clock = () => now;

    beforeAll(async () => {
      graph = generateCity({ seed: 7 });
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'Haulage', fleetId: 'fleet_haul' });
      await createVehicle(database.db, { fleetId: 'fleet_haul', plate: 'TR-1', machineType: 'truck' });
    });
    afterAll(async () => {
      await database?.close();
    });

    const machineTypeOf = async (tripId: string) =>
      (
        await database.db
          .selectFrom('trips')
          .select('machine_type')
          .where('trip_id', '=', tripId)
          .executeTakeFirstOrThrow()
      ).machine_type;

    it('scores a trip as the machine type its vehicle is registered with, whatever the upload says, and rescore follows an update', async () => {
      const sender = { fleetId: 'fleet_haul', vehicleId: null, keyId: null, source: 'test' };
      const silent = scorableTrip({ startMs: now - 86_400_000, vehicle: 'TR-1', seed: 1 });
      const saysCar = {
        ...scorableTrip({ startMs: now - 2 * 86_400_000, vehicle: 'TR-1', seed: 2 }),
        machineType: 'car',
      };
      const a = await acceptUpload(database.db, sender, 'machine-type-0001', silent, now);
      const b = await acceptUpload(database.db, sender, 'machine-type-0002', saysCar, now);
      const scorer = inProcessScorer(graph);
      await new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock }).drain();
      expect(await machineTypeOf(a.tripId)).toBe('truck');
      expect(await machineTypeOf(b.tripId)).toBe('truck');

      await updateVehicle(database.db, { plate: 'TR-1', machineType: 'bus' });
      // Trips already scored keep theirs until they are scored again.
      expect(await machineTypeOf(a.tripId)).toBe('truck');
      await rescore(database, scorer, { all: true, clock });
      expect(await machineTypeOf(a.tripId)).toBe('bus');
      expect(await machineTypeOf(b.tripId)).toBe('bus');
    }, 60_000);
  });
});
