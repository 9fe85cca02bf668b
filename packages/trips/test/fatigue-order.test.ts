import { testDialects } from '@svc/platform/testing';
import { generateCity, type RoadGraph } from '@svc/roads';
import type { TelemetryBatch } from '@svc/scoring';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { rescore } from '../src/scoring/rescore.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { findBreakdownBody } from '../src/store/trip-reads.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { inProcessScorer } from './fixtures/in-process-scorer.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { quietLogger } from './fixtures/world.ts';

const MINUTE_MS = 60_000;

interface Factor {
  key: string;
  value: number | null;
}
interface Breakdown {
  overallScore: number;
  themes: Array<{ id: string; themeScore: number | null; factors: Factor[] }>;
}

/**
 * A trip's fatigue factors read the driver's trips of the 24 hours before it. Trips do not arrive in the order
 * they were driven (a device's backlog, an import, two scoring threads), and the score must not depend on
 * the order of arrival.
 */
describe.each(testDialects())('fatigue context independent of arrival order on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let graph: RoadGraph;
    const t0 = Date.UTC(2026, 10, 18, 7);
    // Plates are unique across fleets.
    const PLATE = {
      fleet_in_order: 'IO-1',
      fleet_late: 'LT-1',
      fleet_race: 'RC-1',
      fleet_other: 'OT-1',
      fleet_api: 'AP-1',
    };
    const now = Date.UTC(2026, 10, 20, 12);
    const clock = () => now;
    // A 12-minute drive, a 3-minute stop, a 4-minute drive: one stint (breaks are 15 minutes or more).
    const first = (vehicle: string, driverId?: string) => ({
      ...scorableTrip({ startMs: t0, vehicle, seed: 1, minutes: 12, ...(driverId ? { driverId } : {}) }),
      clientTripId: 'trip-first',
    });
    const second = (vehicle: string, driverId?: string) => ({
      ...scorableTrip({
        startMs: t0 + 15 * MINUTE_MS,
        vehicle,
        seed: 2,
        minutes: 4,
        ...(driverId ? { driverId } : {}),
      }),
      clientTripId: 'trip-second',
    });

    beforeAll(async () => {
      graph = generateCity({ seed: 7 });
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      for (const [fleetId, plate] of Object.entries(PLATE)) {
        await createFleet(database.db, { name: fleetId, fleetId });
        await createVehicle(database.db, { fleetId, plate });
      }
    });
    afterAll(async () => {
      await database?.close();
    });

    const sender = (fleetId: string) => ({ fleetId, vehicleId: null, keyId: null, source: 'test' });
    const upload = async (fleetId: string, batch: TelemetryBatch) =>
      (await acceptUpload(database.db, sender(fleetId), String(batch.clientTripId), batch, now)).tripId;
    const breakdown = async (fleetId: string, tripId: string): Promise<Breakdown> => {
      const body = await findBreakdownBody(database.db, [fleetId], tripId);
      expect(body).not.toBeNull();
      return JSON.parse(body!.toString('utf8')) as Breakdown;
    };
    const factor = (b: Breakdown, key: string) =>
      b.themes.flatMap((t) => t.factors).find((f) => f.key === key)?.value ?? null;
    const statusOf = async (tripId: string) =>
      (
        await database.db
          .selectFrom('trip_uploads')
          .select('status')
          .where('trip_id', '=', tripId)
          .executeTakeFirstOrThrow()
      ).status;

    let inOrder: Breakdown;

    it('a later trip scored before the earlier one arrived is scored again, to the result of arrival in order', async () => {
      const ordered = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      await upload('fleet_in_order', first(PLATE.fleet_in_order, 'drv-1'));
      await ordered.drain();
      const secondInOrder = await upload('fleet_in_order', second(PLATE.fleet_in_order, 'drv-1'));
      await ordered.drain();
      inOrder = await breakdown('fleet_in_order', secondInOrder);
      // 12 minutes before it, 4 of its own: the engine counts whole-trip minutes from the grid.
      expect(factor(inOrder, 'continuousDrivingMinutes')).toBeCloseTo(16, 0);

      const scorer = inProcessScorer(graph);
      const worker = new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock });
      const late = await upload('fleet_late', second(PLATE.fleet_late, 'drv-1'));
      await worker.drain();
      const alone = await breakdown('fleet_late', late);
      expect(factor(alone, 'continuousDrivingMinutes')).toBeCloseTo(4, 0);

      await upload('fleet_late', first(PLATE.fleet_late, 'drv-1'));
      await worker.drain();
      expect(scorer.scored).toEqual(['trip-second', 'trip-first', 'trip-second']);
      expect(await statusOf(late)).toBe('scored');
      expect(await breakdown('fleet_late', late)).toEqual({ ...inOrder, tripId: late });
    });

    it('a result computed while the earlier trip was being stored is dropped, and the trip scored again', async () => {
      // Two scoring slots take both trips at once; the later one reads its context before the earlier one is
      // stored, and is held until then.
      let firstStored: Promise<void> | undefined;
      const scorer = inProcessScorer(graph, async (batch) => {
        if (batch.clientTripId !== 'trip-second' || firstStored) return;
        firstStored = vi.waitFor(
          async () => {
            const n = await database.db
              .selectFrom('trips')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('fleet_id', '=', 'fleet_race')
              .executeTakeFirstOrThrow();
            expect(Number(n.n)).toBe(1);
          },
          { timeout: 30_000, interval: 20 },
        );
        await firstStored;
      });
      const worker = new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock, concurrency: 2 });
      await upload('fleet_race', first(PLATE.fleet_race, 'drv-1'));
      const later = await upload('fleet_race', second(PLATE.fleet_race, 'drv-1'));
      await worker.drain();
      expect(scorer.scored.filter((id) => id === 'trip-second')).toHaveLength(2);
      expect(await breakdown('fleet_race', later)).toEqual({ ...inOrder, tripId: later });
    });

    it('a trip queued again and claimed by another worker while it was scored is dropped quietly, not reported as a lost lease', async () => {
      // The later trip is held until the earlier one is stored (which puts it back in the queue) and another
      // worker (another node) has claimed and scored it again. Its lease never ran out: before, the first worker
      // still warned "scoring took longer than the lease".
      const logger = quietLogger();
      const warnings = vi.spyOn(logger, 'warn');
      const other = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      let later = '';
      let held = false;
      const scorer = inProcessScorer(graph, async (batch) => {
        if (batch.clientTripId !== 'trip-second' || held) return;
        held = true;
        await vi.waitFor(
          async () => {
            expect(await statusOf(later)).toBe('queued');
          },
          { timeout: 30_000, interval: 20 },
        );
        expect(await other.runOnce({ tripIds: [later] })).toBe(1);
      });
      const worker = new ScoringWorker({ db: database, scorer, logger, clock, concurrency: 2 });
      await createFleet(database.db, { name: 'fleet_reclaim', fleetId: 'fleet_reclaim' });
      await createVehicle(database.db, { fleetId: 'fleet_reclaim', plate: 'RE-1' });
      await upload('fleet_reclaim', first('RE-1', 'drv-1'));
      later = await upload('fleet_reclaim', second('RE-1', 'drv-1'));
      await worker.drain();
      expect(held).toBe(true);
      expect(await statusOf(later)).toBe('scored');
      expect(await breakdown('fleet_reclaim', later)).toEqual({ ...inOrder, tripId: later });
      expect(warnings).not.toHaveBeenCalled();
    });

    it('a trip queued again whose stored telemetry can no longer be read keeps its score; one never scored fails at once', async () => {
      // Damaged storage under a scored trip: before, the worker retried it with back-off and then failed it, which
      // took a good score out of /v1 because an earlier trip of its driver arrived.
      await createFleet(database.db, { name: 'fleet_damaged', fleetId: 'fleet_damaged' });
      await createVehicle(database.db, { fleetId: 'fleet_damaged', plate: 'DM-1' });
      const worker = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      const later = await upload('fleet_damaged', second('DM-1', 'drv-1'));
      await worker.drain();
      const scoredBefore = await breakdown('fleet_damaged', later);
      const damage = (tripId: string) =>
        database.db
          .updateTable('trip_uploads')
          .set({ telemetry_gz: Buffer.from('not gzip at all') })
          .where('trip_id', '=', tripId)
          .execute();
      await damage(later);
      await upload('fleet_damaged', first('DM-1', 'drv-1'));
      await worker.drain();
      const row = await database.db
        .selectFrom('trip_uploads')
        .select(['status', 'attempts', 'last_error'])
        .where('trip_id', '=', later)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('scored');
      expect(row.last_error).toMatch(/^the stored telemetry cannot be read/);
      expect(await breakdown('fleet_damaged', later)).toEqual(scoredBefore);

      // Never scored: no attempt can read it, so it fails at once, as no verdict of the model.
      const fresh = await upload('fleet_damaged', {
        ...second('DM-1', 'drv-9'),
        clientTripId: 'trip-damaged-new',
      });
      await damage(fresh);
      await worker.drain();
      expect(
        await database.db
          .selectFrom('trip_uploads')
          .select(['status', 'attempts', 'model_version'])
          .where('trip_id', '=', fresh)
          .executeTakeFirstOrThrow(),
      ).toEqual({ status: 'failed', attempts: 1, model_version: null });
    });

    it("another driver's trip, or one of another vehicle without a driver, is not queued again", async () => {
      await createVehicle(database.db, { fleetId: 'fleet_other', plate: 'OT-2' });
      const scorer = inProcessScorer(graph);
      const worker = new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock });
      const ofOtherDriver = await upload('fleet_other', {
        ...second(PLATE.fleet_other, 'drv-2'),
        clientTripId: 'trip-second-drv-2',
      });
      const ofOtherVehicle = await upload('fleet_other', { ...second('OT-2'), clientTripId: 'trip-second-ot-2' });
      const ofSameVehicle = await upload('fleet_other', {
        ...second(PLATE.fleet_other),
        clientTripId: 'trip-second-no-driver',
      });
      await worker.drain();
      await upload('fleet_other', first(PLATE.fleet_other, 'drv-1'));
      await worker.drain();
      // A trip without a driver reads the vehicle's trips, whoever drove them.
      expect(scorer.scored.slice(3)).toEqual(['trip-first', 'trip-second-no-driver']);
      expect(factor(await breakdown('fleet_other', ofOtherDriver), 'continuousDrivingMinutes')).toBeCloseTo(4, 0);
      expect(factor(await breakdown('fleet_other', ofOtherVehicle), 'continuousDrivingMinutes')).toBeCloseTo(4, 0);
      expect(factor(await breakdown('fleet_other', ofSameVehicle), 'continuousDrivingMinutes')).toBeCloseTo(16, 0);
    });

    it('an import scoring only what it stored scores the later trips it put back in the queue too', async () => {
      await createFleet(database.db, { name: 'fleet_import', fleetId: 'fleet_import' });
      await createVehicle(database.db, { fleetId: 'fleet_import', plate: 'IM-9' });
      const worker = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      const later = await upload('fleet_import', second('IM-9', 'drv-1'));
      await worker.drain();
      const earlier = await upload('fleet_import', first('IM-9', 'drv-1'));
      const scorer = inProcessScorer(graph);
      const importer = new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock });
      const outcomes = await importer.scoreTrips([earlier]);
      expect(outcomes.map((o) => [o.tripId, o.status])).toEqual([[earlier, 'scored']]);
      expect(scorer.scored).toEqual(['trip-first', 'trip-second']);
      expect(await statusOf(later)).toBe('scored');
      expect(await breakdown('fleet_import', later)).toEqual({ ...inOrder, tripId: later });
    });

    it('a trip put back in the queue while `rescore` scored it is scored with the earlier trip, not overwritten by the rescore', async () => {
      // `trips rescore` beside running nodes: while it scores the later trip, the earlier one arrives and a node scores
      // it, which puts the later trip back in the queue, and scores that again. The rescore's result, computed without
      // the earlier trip, must not replace it (before, it did, and the trip kept 4 minutes of continuous driving).
      await createFleet(database.db, { name: 'fleet_rescore', fleetId: 'fleet_rescore' });
      await createVehicle(database.db, { fleetId: 'fleet_rescore', plate: 'RS-1' });
      const node = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      const later = await upload('fleet_rescore', second('RS-1', 'drv-1'));
      await node.drain();
      let arrived = false;
      const scorer = inProcessScorer(graph, async (batch) => {
        if (batch.vehicle !== 'RS-1' || batch.clientTripId !== 'trip-second' || arrived) return;
        arrived = true;
        await upload('fleet_rescore', first('RS-1', 'drv-1'));
        await node.drain();
        expect(await breakdown('fleet_rescore', later)).toEqual({ ...inOrder, tripId: later });
      });
      await rescore(database, scorer, { all: true, clock });
      expect(arrived).toBe(true);
      await node.drain();
      expect(await statusOf(later)).toBe('scored');
      expect(await breakdown('fleet_rescore', later)).toEqual({ ...inOrder, tripId: later });
    });

    it('the ingest status of a trip queued again stays "scored": it is served all along', async () => {
      const { secret } = await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_api' });
      const app = await buildIngestApp({ environment: 'production', database, logger: quietLogger(), clock });
      try {
        const later = await upload('fleet_api', second(PLATE.fleet_api, 'drv-1'));
        const worker = new ScoringWorker({
          db: database,
          scorer: inProcessScorer(graph),
          logger: quietLogger(),
          clock,
        });
        await worker.drain();
        // Arrives, is stored, and puts the later trip back in the queue; nothing scores it yet.
        await worker.runOnce({ tripIds: [await upload('fleet_api', first(PLATE.fleet_api, 'drv-1'))] });
        expect(await statusOf(later)).toBe('queued');
        const res = await app.inject({
          method: 'GET',
          url: `/ingest/v1/trips/${later}`,
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(res.json()).toEqual({ ok: true, tripId: later, status: 'scored', tripIds: [later], skipped: [] });
      } finally {
        await app.close();
      }
    });
  });
});
