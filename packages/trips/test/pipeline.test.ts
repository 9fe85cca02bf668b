import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { createFleet } from '../src/store/fleets.ts';
import { claimJobs, failJob } from '../src/store/job-queue.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { removeScoredTrip } from '../src/store/scored-trips.ts';
import { LIST_COLUMNS, type TripItem, type TripListRow, tripItem, tripItemJson } from '../src/store/trip-item.ts';
import { listTrips, type TripListPage, walkTimeOrder } from '../src/store/trip-list.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { ThreadTaskError } from '../src/threads/thread-pool.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { logLines } from './fixtures/log-lines.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

/** A page's items, parsed from the joined JSON listTrips returns. */
const itemsOf = (page: TripListPage): TripItem[] => JSON.parse(`[${page.itemsJson.toString()}]`) as TripItem[];

describe.each(testDialects())('scoring pipeline on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let now = Date.UTC(2026, 10, 20, 12);
    const clock = () => now;
    const sender = { fleetId: 'fleet_p', vehicleId: null, keyId: null, source: 'test' };

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'P', fleetId: 'fleet_p' });
      await createVehicle(database.db, { fleetId: 'fleet_p', plate: 'OK-1' });
      await createVehicle(database.db, { fleetId: 'fleet_p', plate: 'OK-2' });
      await createVehicle(database.db, { fleetId: 'fleet_p', plate: 'FAIL-1' });
      await createVehicle(database.db, { fleetId: 'fleet_p', plate: 'FAILP-1' });
    });
    afterAll(async () => {
      await database?.close();
    });

    const status = async (tripId: string) =>
      database.db
        .selectFrom('trip_uploads')
        .select(['status', 'attempts', 'last_error'])
        .where('trip_id', '=', tripId)
        .executeTakeFirstOrThrow();

    it('retries a failing trip with back-off, then keeps it as failed with its reason', async () => {
      const { tripId } = await acceptUpload(
        database.db,
        sender,
        'retry-trip-1',
        gpsTrip({ startMs: now, vehicle: 'FAIL-1' }),
        now,
      );
      const log = logLines();
      const worker = new ScoringWorker({
        db: database,
        scorer: fakeScorer(),
        logger: log.logger,
        clock,
        maxAttempts: 3,
      });
      await worker.drain();
      expect(await status(tripId)).toMatchObject({ status: 'queued', attempts: 1, last_error: 'engine crashed' });
      // Not due yet: nothing runs.
      expect(await worker.runOnce()).toBe(0);
      now += 60_000;
      await worker.drain();
      expect(await status(tripId)).toMatchObject({ status: 'queued', attempts: 2 });
      now += 10 * 60_000;
      await worker.drain();
      const final = await status(tripId);
      expect(final.status).toBe('failed');
      expect(final.last_error).toBe('engine crashed (gave up after 3 attempts)');
      // Retries are information; giving up is a warning an operator should see.
      expect(log.lines.filter((l) => l.tripId === tripId).map((l) => [l.level, l.msg])).toEqual([
        ['info', 'scoring failed; will retry'],
        ['info', 'scoring failed; will retry'],
        ['warn', 'trip could not be scored'],
      ]);
      // The telemetry is kept.
      const kept = await database.db
        .selectFrom('trip_uploads')
        .select('sample_count')
        .where('trip_id', '=', tripId)
        .executeTakeFirstOrThrow();
      expect(kept.sample_count).toBe(60);
    });

    it('fails an unscorable trip at once, without retrying', async () => {
      const { tripId } = await acceptUpload(
        database.db,
        sender,
        'perm-trip-01',
        gpsTrip({ startMs: now, vehicle: 'FAILP-1' }),
        now,
      );
      const scorer = fakeScorer();
      const log = logLines();
      await new ScoringWorker({ db: database, scorer, logger: log.logger, clock }).drain();
      expect(await status(tripId)).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_error: 'trip too short to score',
      });
      expect(scorer.calls).toBe(1);
      // The model's verdict on the data is normal operation: logged with its reason, not as a warning.
      expect(log.lines.filter((l) => l.tripId === tripId)).toEqual([
        expect.objectContaining({ level: 'info', msg: 'trip not scorable', reason: 'trip too short to score' }),
      ]);
    });

    it("logs the engine's refusal as it arrives from a scoring thread as information, and keeps the trip failed", async () => {
      const { tripId } = await acceptUpload(
        database.db,
        sender,
        'thread-refusal-01',
        gpsTrip({ startMs: now + 7_200_000, vehicle: 'OK-2' }),
        now,
      );
      const reason = 'the trip is 0.19 km and 24 s moving; a scorable trip needs 1 km and 120 s moving';
      // What the pool rebuilds from a scoring thread: the engine's TripNotScorableError by name and code only.
      const threaded = {
        modelVersion: 'fake-1',
        score: async () => {
          throw new ThreadTaskError('TripNotScorableError', reason, 'too_short');
        },
        close: async () => {},
      };
      const log = logLines();
      await new ScoringWorker({ db: database, scorer: threaded, logger: log.logger, clock }).drain();
      expect(await status(tripId)).toMatchObject({ status: 'failed', attempts: 1, last_error: reason });
      expect(log.lines.filter((l) => l.tripId === tripId)).toEqual([
        expect.objectContaining({ level: 'info', msg: 'trip not scorable', reason }),
      ]);
    });

    it('takes over a job whose worker died once its lease expired', async () => {
      const { tripId } = await acceptUpload(
        database.db,
        sender,
        'lease-trip-1',
        gpsTrip({ startMs: now, vehicle: 'OK-1' }),
        now,
      );
      const claimed = await claimJobs(database.db, { owner: 'dead-worker', limit: 10, leaseMs: 30_000, nowMs: now });
      expect(claimed.map((j) => j.tripId)).toContain(tripId);
      const worker = new ScoringWorker({ db: database, scorer: fakeScorer(), logger: quietLogger(), clock });
      expect(await worker.runOnce()).toBe(0);
      now += 31_000;
      await worker.drain();
      expect(await status(tripId)).toMatchObject({ status: 'scored', attempts: 2 });
    });

    it('scores only the trips it is given (an import), leaves the rest of the queue alone, waits for one another node holds, and reports how each ended', async () => {
      const imports = { ...sender, source: 'import:day.gpx' };
      const accept = async (key: string, vehicle: string, from = imports) =>
        (await acceptUpload(database.db, from, key, gpsTrip({ startMs: now - 3_600_000, vehicle }), now)).tripId;
      // On a vehicle of its own: the trips of OK-1 scored in the tests before start after these, and would be
      // scored again (their fatigue context changes).
      const scored = await accept('only-ok-1', 'OK-2');
      const crashing = await accept('only-crash-1', 'FAIL-1');
      const unscorable = await accept('only-short-1', 'FAILP-1');
      const held = await accept('only-held-1', 'OK-2');
      // A device's upload, queued before the import: the service's job, not the import's.
      const device = await accept('device-upload-1', 'OK-1', { ...sender, source: 'ingest' });
      // Another node (a running service) claims one of the imported trips first.
      const taken = await claimJobs(database.db, {
        owner: 'node-b',
        limit: 10,
        leaseMs: 60_000,
        nowMs: now,
        tripIds: [held, 'trip_not_in_queue'],
      });
      expect(taken.map((j) => j.tripId)).toEqual([held]);

      const scorer = fakeScorer();
      const worker = new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock, pollMs: 10 });
      const progress: number[] = [];
      const outcomes = worker.scoreTrips([scored, crashing, unscorable, held], {
        onProgress: (n) => progress.push(n),
      });
      await vi.waitFor(() => expect(progress.at(-1)).toBe(3));
      expect(scorer.calls).toBe(3);
      // Still waiting for node-b (it polls again and reports 3 again), whose attempt then fails for good.
      await vi.waitFor(() => expect(progress.filter((n) => n === 3).length).toBeGreaterThan(1));
      await failJob(database.db, {
        tripId: held,
        lease: taken[0]!.lease,
        reason: 'node-b: road graph missing',
        permanent: true,
        retryAtMs: null,
      });
      expect(await outcomes).toEqual([
        { tripId: scored, status: 'scored', attempts: 1, reason: null, nextAttemptAtMs: null },
        { tripId: crashing, status: 'queued', attempts: 1, reason: 'engine crashed', nextAttemptAtMs: now + 2000 },
        { tripId: unscorable, status: 'failed', attempts: 1, reason: 'trip too short to score', nextAttemptAtMs: null },
        { tripId: held, status: 'failed', attempts: 1, reason: 'node-b: road graph missing', nextAttemptAtMs: null },
      ]);
      expect(scorer.calls).toBe(3);
      expect(await status(device)).toMatchObject({ status: 'queued', attempts: 0 });
    });

    it('keeps totals and pages exact while trips arrive and leave, reading only the changed day counts', async () => {
      const db = database.db;
      const expected = async (tiers?: string[]) => {
        let q = db.selectFrom('trips').select('trip_id').where('fleet_id', '=', 'fleet_p');
        if (tiers) q = q.where('tier', 'in', tiers);
        return (await q.orderBy('start_ms', 'desc').orderBy('trip_id', 'desc').execute()).map((r) => r.trip_id);
      };
      const listed = async (tiers?: string[]) => {
        const ids: string[] = [];
        let total = -1;
        for (let offset = 0; total < 0 || offset < total; offset += 10) {
          const page = await listTrips(db, ['fleet_p'], tiers ? { tiers } : {}, { offset, limit: 10 });
          total = page.total;
          ids.push(...itemsOf(page).map((item) => item.tripId));
        }
        return { ids, total };
      };
      const check = async () => {
        for (const tiers of [undefined, ['Safe', 'Good'], ['Critical']]) {
          const want = await expected(tiers);
          const got = await listed(tiers);
          expect(got.total).toBe(want.length);
          expect(got.ids).toEqual(want);
        }
        // The store's per-day totals (kept by triggers) match the trips themselves.
        const trips = await db
          .selectFrom('trips')
          .select(['start_day', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy('start_day')
          .execute();
        const totals = await db.selectFrom('trip_day_totals').select(['day', 'trip_count']).execute();
        expect(
          Object.fromEntries(
            totals.filter((t) => Number(t.trip_count) !== 0).map((t) => [t.day, Number(t.trip_count)]),
          ),
        ).toEqual(Object.fromEntries(trips.map((t) => [t.start_day, Number(t.n)])));
      };
      await check(); // the counts of these scopes are now cached
      // New trips on new and existing days, scored through the pipeline.
      for (const [i, days] of [0, 3, 3, 9, 40].entries()) {
        await acceptUpload(
          db,
          sender,
          `arrive-${i}`,
          gpsTrip({ startMs: Date.UTC(2026, 9, 1, 8) - days * 86_400_000, vehicle: 'OK-1', speedKmh: 40 + i * 25 }),
          now,
        );
      }
      await new ScoringWorker({ db: database, scorer: fakeScorer(), logger: quietLogger(), clock }).drain();
      const afterArrivals = (await expected()).length;
      await check();
      // One leaves.
      const [leaving] = await expected();
      await db.transaction().execute((trx) => removeScoredTrip(trx, leaving!));
      await check();
      expect((await expected()).length).toBe(afterArrivals - 1);
    });

    it('rescoring a trip replaces its result and moves it between day/tier counts', async () => {
      const startMs = Date.UTC(2026, 10, 10, 9);
      const { tripId } = await acceptUpload(
        database.db,
        sender,
        'rescore-trip',
        gpsTrip({ startMs, vehicle: 'OK-1', speedKmh: 20 }),
        now,
      );
      await new ScoringWorker({ db: database, scorer: fakeScorer(), logger: quietLogger(), clock }).drain();
      const before = await listTrips(database.db, ['fleet_p'], {}, { offset: 0, limit: 100 });
      // Score it again: the trip must be there once, counts unchanged.
      await database.db
        .updateTable('trip_uploads')
        .set({ status: 'queued', next_attempt_at_ms: 0 })
        .where('trip_id', '=', tripId)
        .execute();
      await new ScoringWorker({ db: database, scorer: fakeScorer('fake-2'), logger: quietLogger(), clock }).drain();
      const after = await listTrips(database.db, ['fleet_p'], {}, { offset: 0, limit: 100 });
      expect(after.total).toBe(before.total);
      expect(itemsOf(after).filter((item) => item.tripId === tripId)).toHaveLength(1);
      const row = await database.db
        .selectFrom('trips')
        .select('model_version')
        .where('trip_id', '=', tripId)
        .executeTakeFirstOrThrow();
      expect(row.model_version).toBe('fake-2');
    });
  });
});

describe.each(testDialects())('trip list paging on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    // fleet_d holds about 4 % of the trips: a page of its own is read from its per-fleet index, pages of
    // the other scopes by walking the time-ordered index (see walkTimeOrder).
    const fleets = ['fleet_a', 'fleet_b', 'fleet_c', 'fleet_d'];

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      const db = database.db;
      for (const f of fleets) await createFleet(db, { name: f, fleetId: f });
      await createVehicle(db, { fleetId: 'fleet_a', plate: 'A-1' });
      // Deterministic pseudo-random trips written straight into the store, with many equal start times.
      let seed = 7;
      const rnd = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed / 2_147_483_648;
      };
      const tiers = ['Critical', 'Fair', 'Good', 'Safe'];
      const rows = [];
      const counts = new Map<string, number>();
      for (let i = 0; i < 600; i++) {
        const fleet = rnd() < 0.04 ? 'fleet_d' : fleets[Math.floor(rnd() * 3)]!;
        const startMs =
          Date.UTC(2026, 9, 1) + Math.floor(rnd() * 30) * 86_400_000 + Math.floor(rnd() * 6) * 4 * 3_600_000;
        const tier = tiers[Math.floor(rnd() * 4)]!;
        const day = Math.floor(startMs / 86_400_000);
        counts.set(`${fleet}|${day}|${tier}`, (counts.get(`${fleet}|${day}|${tier}`) ?? 0) + 1);
        rows.push({
          trip_id: `trip_${String(i).padStart(4, '0')}x${Math.floor(rnd() * 1000)}`,
          fleet_id: fleet,
          vehicle_id: (await db.selectFrom('vehicles').select('vehicle_id').executeTakeFirstOrThrow()).vehicle_id,
          plate: 'A-1',
          driver_id: null,
          start_ms: startMs,
          end_ms: startMs + 600_000,
          start_day: day,
          overall_score: 50,
          tier,
          map_matched: 1,
          matched_share: 1,
          distance_km: 1,
          duration_min: 10,
          machine_type: 'car',
          model_version: 't',
          scored_at_ms: 0,
          theme_speeding: null,
          theme_braking: null,
          theme_acceleration: null,
          theme_cornering: null,
          theme_distraction: null,
          theme_exposure: null,
          weakest_theme: 'speeding',
        });
      }
      // Half the rows carry their stored item JSON, half are as a node older than migration 0003 wrote
      // them (item_json null): pages must come out the same either way.
      await db
        .insertInto('trips')
        .values(rows.map((r, i) => (i % 2 === 0 ? { ...r, item_json: tripItemJson(r as TripListRow) } : r)))
        .execute();
      await db
        .insertInto('trip_day_counts')
        .values(
          [...counts].map(([k, n]) => {
            const [fleet_id, day, tier] = k.split('|');
            return { fleet_id: fleet_id!, day: Number(day), tier: tier!, trip_count: n };
          }),
        )
        .execute();
    });
    afterAll(async () => {
      await database?.close();
    });

    it('pages through the day counts exactly like a plain ORDER BY / OFFSET, for any scope and filter', async () => {
      const db = database.db;
      const stored = new Map(
        (await db.selectFrom('trips').select(LIST_COLUMNS).execute()).map((r) => [r.trip_id, tripItem(r)]),
      );
      const scopes = [['fleet_a'], ['fleet_b', 'fleet_c'], ['fleet_d'], ['fleet_d', 'fleet_c'], fleets];
      expect(walkTimeOrder(24, 600)).toBe(false);
      expect(walkTimeOrder(150, 600)).toBe(true);
      const filters = [
        {},
        { tiers: ['Safe'] },
        { tiers: ['Fair', 'Critical'] },
        { fromMs: Date.UTC(2026, 9, 5, 7), toMs: Date.UTC(2026, 9, 19, 13) },
        { fromMs: Date.UTC(2026, 9, 10), tiers: ['Good'] },
        { toMs: Date.UTC(2026, 9, 3, 1) },
      ];
      for (const scope of scopes) {
        for (const filter of filters) {
          let q = db.selectFrom('trips').select('trip_id').where('fleet_id', 'in', scope);
          if ('tiers' in filter && filter.tiers) q = q.where('tier', 'in', filter.tiers);
          if ('fromMs' in filter && filter.fromMs) q = q.where('start_ms', '>=', filter.fromMs);
          if ('toMs' in filter && filter.toMs) q = q.where('start_ms', '<', filter.toMs);
          const expected = (await q.orderBy('start_ms', 'desc').orderBy('trip_id', 'desc').execute()).map(
            (r) => r.trip_id,
          );
          for (const limit of [10, 37, 100]) {
            const seen: string[] = [];
            for (let offset = 0; offset < expected.length + limit; offset += limit) {
              const page = await listTrips(db, scope, filter, { offset, limit });
              expect(page.total).toBe(expected.length);
              const items = itemsOf(page);
              expect(page.count).toBe(items.length);
              for (const item of items) expect(item).toEqual(stored.get(item.tripId));
              seen.push(...items.map((item) => item.tripId));
            }
            expect(seen, `${scope} ${JSON.stringify(filter)} limit ${limit}`).toEqual(expected);
          }
        }
      }
    });
  });
});
