import { testDialects } from '@svc/platform/testing';
import { generateCity, type RoadGraph } from '@svc/roads';
import type { GpsSample, Sample, TelemetryBatch } from '@svc/scoring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { findBreakdownBody, findTrip } from '../src/store/trip-reads.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { inProcessScorer } from './fixtures/in-process-scorer.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { quietLogger } from './fixtures/world.ts';

/**
 * Devices send GPS fixes twice (a buffer flushed again, two location providers) and out of order. Such an
 * upload is taken (rejecting a trip for one repeated fix would lose it) and scored as the trip without the
 * repeats: no speed from a zero time step, the same distance, and the same score whatever order the repeats
 * came in, including a stray repeat at another position.
 */
describe.each(testDialects())('GPS fixes repeated or out of order, with the real engine, on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let graph: RoadGraph;
    const nowMs = Date.UTC(2026, 10, 21, 12);

    beforeAll(async () => {
      graph = generateCity({ seed: 7 });
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'Repeats', fleetId: 'fleet_rep' });
      await createVehicle(database.db, { fleetId: 'fleet_rep', plate: 'RP-1' });
    });
    afterAll(async () => {
      await database?.close();
    });

    it('scores an upload with repeated and reordered fixes as the clean trip, whatever the order of the repeats', async () => {
      const clean = scorableTrip({ startMs: Date.UTC(2026, 10, 20, 9), vehicle: 'RP-1', seed: 3, minutes: 4 });
      const metresNorth = (s: GpsSample, m: number): GpsSample => ({ ...s, lat: s.lat + m / 111_320 });
      /** Every 10th fix sent twice: once as is, once with `stray` (a copy, or 300 m off), `strayFirst` or after. */
      const repeated = (stray: (s: GpsSample) => GpsSample, strayFirst: boolean): Sample[] => {
        let gps = 0;
        return clean.samples.flatMap((s) => {
          if (s.type !== 'gps' || gps++ % 10 !== 5) return [s];
          return strayFirst ? [stray(s), s] : [s, stray(s)];
        });
      };
      // A few neighbouring fixes swapped as well: a buffer flushed slightly out of order.
      const swapped = (samples: Sample[]) => {
        const out = [...samples];
        for (let i = 0; i + 1 < out.length; i += 97) [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
        return out;
      };
      const uploads: Array<[string, TelemetryBatch]> = [
        ['clean-trip-0001', clean],
        ['copies-0001', { ...clean, samples: swapped(repeated((s) => ({ ...s }), false)) }],
        ['stray-after-0001', { ...clean, samples: repeated((s) => metresNorth(s, 300), false) }],
        ['stray-first-0001', { ...clean, samples: swapped(repeated((s) => metresNorth(s, 300), true)) }],
      ];
      const sender = { fleetId: 'fleet_rep', vehicleId: null, keyId: null, source: 'test' };
      const tripIds: string[] = [];
      for (const [key, batch] of uploads) {
        const accepted = await acceptUpload(database.db, sender, key, batch, nowMs);
        expect(accepted.status, key).toBe('queued');
        tripIds.push(accepted.tripId);
      }
      const scorer = inProcessScorer(graph);
      await new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock: () => nowMs }).drain();

      const results = [];
      for (const tripId of tripIds) {
        const trip = await findTrip(database.db, ['fleet_rep'], tripId);
        expect(trip, tripId).toBeDefined();
        const breakdown = JSON.parse((await findBreakdownBody(database.db, ['fleet_rep'], tripId))!.toString('utf8'));
        const summary = JSON.parse(trip!.summary_json) as { maxSpeedKmh: number; distanceKm: number };
        results.push({ tripId, summary, breakdown: { ...breakdown, tripId: 'same' } });
      }
      const [base, ...others] = results;
      expect(base!.summary.maxSpeedKmh).toBeLessThan(70);
      for (const [i, other] of others.entries()) {
        const key = uploads[i + 1]![0];
        expect(other.summary, key).toEqual(base!.summary);
        expect(other.breakdown, key).toEqual(base!.breakdown);
      }
    });
  });
});
