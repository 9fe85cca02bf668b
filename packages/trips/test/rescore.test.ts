import { spawnSync } from 'node:child_process';
import { type Database, openDatabase } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { RescoreInProgressError, rescore } from '../src/scoring/rescore.ts';
import type { ScoringInput, TripScorer } from '../src/scoring/trip-scorer.ts';
import { leaseOwnerName } from '../src/service/process-liveness.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import type { TripsSchema } from '../src/store/schema.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { buildWorld, quietLogger } from './fixtures/world.ts';

describe.each(testDialects())('rescore on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    const nowMs = Date.now();
    const versions = async () =>
      (await database.db.selectFrom('trips').select('model_version').execute()).map((r) => r.model_version);

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      await buildWorld(database, { tripsPerFleet: 10, nowMs });
    });
    afterAll(async () => {
      await database?.close();
    });

    it('resumes an interrupted run where its last batch ended, without scoring a trip twice', async () => {
      // The engine breaks down (a transient error) at its 10th trip, in the third batch of 4: the run is
      // checkpointed after the ninth.
      const inner = fakeScorer('fake-2');
      let calls = 0;
      const breaking: TripScorer = {
        modelVersion: 'fake-2',
        async score(input: ScoringInput) {
          if (++calls === 10) throw new Error('engine went away');
          return inner.score(input);
        },
        close: () => inner.close(),
      };
      await expect(rescore(database, breaking, { batchSize: 4, clock: () => nowMs })).rejects.toThrow(
        'engine went away',
      );
      const open = await database.db.selectFrom('rescore_runs').selectAll().executeTakeFirstOrThrow();
      expect(open).toMatchObject({ finished_at_ms: null, rescored: 9, failed: 0, lease_owner: null });
      expect((await versions()).filter((v) => v === 'fake-2')).toHaveLength(9);

      const again = fakeScorer('fake-2');
      const result = await rescore(database, again, { batchSize: 4, clock: () => nowMs });
      expect(result).toMatchObject({ runId: open.run_id, resumed: true, rescored: 30, failed: 0, total: 30 });
      // The run went on after the ninth trip: none of the first nine was scored again.
      expect(again.calls).toBe(21);
      expect(new Set(await versions())).toEqual(new Set(['fake-2']));
    });

    it('refuses a run another process holds, and takes it over once that lease has expired', async () => {
      const run = await database.db
        .insertInto('rescore_runs')
        .values({
          started_at_ms: nowMs,
          finished_at_ms: null,
          model_version: 'fake-3',
          all_trips: 0,
          cursor: '',
          rescored: 0,
          failed: 0,
          lease_owner: 'other-host:4242:abcd',
          lease_until_ms: nowMs + 60_000,
        })
        .returning('run_id')
        .executeTakeFirstOrThrow();
      const held = await rescore(database, fakeScorer('fake-3'), { clock: () => nowMs }).catch((e: unknown) => e);
      expect(held).toBeInstanceOf(RescoreInProgressError);
      expect((held as Error).message).toBe(
        `rescore run ${run.run_id} is being worked on by another process (other-host:4242:abcd); run this again when it has finished, or after ${new Date(nowMs + 60_000).toISOString()} if that process has died`,
      );
      expect(new Set(await versions())).toEqual(new Set(['fake-2']));

      const later = await rescore(database, fakeScorer('fake-3'), { clock: () => nowMs + 61_000 });
      expect(later).toMatchObject({ runId: run.run_id, resumed: true, rescored: 30 });
      const done = await database.db
        .selectFrom('rescore_runs')
        .selectAll()
        .where('run_id', '=', run.run_id)
        .executeTakeFirstOrThrow();
      expect(done).toMatchObject({ lease_owner: null, lease_until_ms: null });
      expect(Number(done.finished_at_ms)).toBe(nowMs + 61_000);
    });

    it('takes a run over at once from a rescore of this machine that was killed, not from a live or remote one', async () => {
      // After kill -9 on `trips rescore`, the next run waited for the 5-minute lease; a process of this machine can
      // be seen to be gone.
      const exited = spawnSync(process.execPath, ['-e', '0']).pid!;
      const local = leaseOwnerName('deadbeef').replace(`:${process.pid}:`, `:${exited}:`);
      const insertHeld = (owner: string) =>
        database.db
          .insertInto('rescore_runs')
          .values({
            started_at_ms: nowMs,
            finished_at_ms: null,
            model_version: 'fake-9',
            all_trips: 0,
            cursor: '',
            rescored: 0,
            failed: 0,
            lease_owner: owner,
            lease_until_ms: nowMs + 300_000,
          })
          .returning('run_id')
          .executeTakeFirstOrThrow();
      const remote = await insertHeld(local.replace(/^[^:]*/, 'other-host'));
      await expect(rescore(database, fakeScorer('fake-9'), { clock: () => nowMs })).rejects.toBeInstanceOf(
        RescoreInProgressError,
      );
      await database.db.deleteFrom('rescore_runs').where('run_id', '=', remote.run_id).execute();
      const run = await insertHeld(local);
      const result = await rescore(database, fakeScorer('fake-9'), { clock: () => nowMs });
      expect(result).toMatchObject({ runId: run.run_id, resumed: true, rescored: 30, takenOverFrom: local });
    });

    it('two rescores started at the same moment: one works through the run, the other is refused, each trip scored once', async () => {
      // Two operators (or a deploy script on two nodes) starting `trips rescore` together: before, each created a
      // run of its own, and every trip was scored twice.
      const scorers = [fakeScorer('fake-4'), fakeScorer('fake-4')];
      const outcomes = await Promise.allSettled(scorers.map((s) => rescore(database, s, { clock: () => nowMs })));
      const done = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(done).toHaveLength(1);
      expect(refused.map((o) => (o as PromiseRejectedResult).reason)).toEqual([expect.any(RescoreInProgressError)]);
      expect((done[0] as PromiseFulfilledResult<{ rescored: number }>).value.rescored).toBe(30);
      expect(scorers[0]!.calls + scorers[1]!.calls).toBe(30);
      expect(new Set(await versions())).toEqual(new Set(['fake-4']));
      const runs = await database.db
        .selectFrom('rescore_runs')
        .selectAll()
        .where('model_version', '=', 'fake-4')
        .execute();
      expect(runs).toHaveLength(1);
    });

    it.skipIf(dialect.name !== 'postgres')(
      "a rescore starting while another one's run is being inserted waits for it and takes that run, not one of its own",
      async () => {
        // The other process has inserted its run but not committed yet (its id is lower). Before, this rescore
        // saw no open run, kept one of its own, and the two scored every trip each.
        let commitOther!: () => void;
        const otherCommits = new Promise<void>((resolve) => {
          commitOther = resolve;
        });
        let otherRunId = 0;
        let inserted!: () => void;
        const otherInserted = new Promise<void>((resolve) => {
          inserted = resolve;
        });
        const other = database.db.transaction().execute(async (trx) => {
          const row = await trx
            .insertInto('rescore_runs')
            .values({
              started_at_ms: nowMs,
              finished_at_ms: null,
              model_version: 'fake-6',
              all_trips: 0,
              cursor: '',
              rescored: 0,
              failed: 0,
            })
            .returning('run_id')
            .executeTakeFirstOrThrow();
          otherRunId = row.run_id;
          inserted();
          await otherCommits;
        });
        await otherInserted;
        const scorer = fakeScorer('fake-6');
        let settled = false;
        const mine = rescore(database, scorer, { clock: () => nowMs }).finally(() => {
          settled = true;
        });
        // Let this rescore reach its insert: it either waits on the other's row lock (fixed) or runs on.
        for (let i = 0; i < 200 && !settled; i++) {
          const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query like '%rescore_runs%'`.execute(
            database.db,
          );
          if (waiting.rows[0]!.n > 0) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        commitOther();
        await other;
        const result = await mine;
        expect(result).toMatchObject({ runId: otherRunId, rescored: 30 });
        const runs = await database.db
          .selectFrom('rescore_runs')
          .select('run_id')
          .where('model_version', '=', 'fake-6')
          .execute();
        expect(runs.map((r) => r.run_id)).toEqual([otherRunId]);
      },
    );

    it('a run whose process was killed between checkpoints resumes without scoring or counting a trip twice (--all)', async () => {
      // The process dies (SIGKILL, a lost machine) while scoring the 7th trip, two trips after its last
      // checkpoint: the run's cursor is at the 4th. Before, the resumed run scored the 5th and 6th again and
      // counted them twice; without --all it counted them not at all.
      const first = fakeScorer('fake-7');
      let dying!: () => void;
      const died = new Promise<void>((resolve) => {
        dying = resolve;
      });
      let killed!: (err: Error) => void;
      const hanging: TripScorer = {
        modelVersion: 'fake-7',
        async score(input: ScoringInput) {
          if (first.calls === 6) {
            dying();
            // Never answers while "dead"; the test lets it fail at the end, as nothing of it may run on.
            return new Promise((_, reject) => {
              killed = reject;
            });
          }
          return first.score(input);
        },
        close: () => first.close(),
      };
      const dead = rescore(database, hanging, { all: true, batchSize: 4, clock: () => nowMs }).catch((e: unknown) => e);
      await died;
      const run = await database.db
        .selectFrom('rescore_runs')
        .selectAll()
        .where('model_version', '=', 'fake-7')
        .executeTakeFirstOrThrow();
      expect(run).toMatchObject({ rescored: 6, failed: 0, finished_at_ms: null });

      // After its lease ran out (5 minutes), the operator runs the same command again.
      const second = fakeScorer('fake-7');
      const resumed = await rescore(database, second, { all: true, batchSize: 4, clock: () => nowMs + 6 * 60_000 });
      expect(resumed).toMatchObject({ runId: run.run_id, resumed: true, rescored: 30, failed: 0, total: 30 });
      expect(second.calls).toBe(24);
      killed(new Error('killed'));
      expect(await dead).toBeInstanceOf(Error);
      const after = await database.db
        .selectFrom('rescore_runs')
        .selectAll()
        .where('run_id', '=', run.run_id)
        .executeTakeFirstOrThrow();
      expect(after).toMatchObject({ rescored: 30, failed: 0 });
      expect(Number(after.finished_at_ms)).toBe(nowMs + 6 * 60_000);
    });

    it('stops when interrupted, releasing the run, and a rescore started right after resumes it, scoring each trip once', async () => {
      // Ctrl-C on `trips rescore`: before, the process died holding the run, and the operator's next rescore was
      // refused for 5 minutes as "being worked on by another process".
      const interrupt = new AbortController();
      const first = fakeScorer('fake-5');
      const counting: TripScorer = {
        modelVersion: 'fake-5',
        async score(input: ScoringInput) {
          if (first.calls === 6) interrupt.abort();
          return first.score(input);
        },
        close: () => first.close(),
      };
      const stopped = await rescore(database, counting, { batchSize: 4, clock: () => nowMs, signal: interrupt.signal });
      expect(stopped).toMatchObject({ interrupted: true, rescored: 7, total: 30 });
      const run = await database.db
        .selectFrom('rescore_runs')
        .selectAll()
        .where('run_id', '=', stopped.runId)
        .executeTakeFirstOrThrow();
      expect(run).toMatchObject({ lease_owner: null, lease_until_ms: null, finished_at_ms: null, rescored: 7 });

      const second = fakeScorer('fake-5');
      const resumed = await rescore(database, second, { batchSize: 4, clock: () => nowMs });
      expect(resumed).toMatchObject({ runId: stopped.runId, resumed: true, interrupted: false, rescored: 30 });
      expect(first.calls + second.calls).toBe(30);
      expect(new Set(await versions())).toEqual(new Set(['fake-5']));
    });
  });
});

describe.each(testDialects())('rescore of failed uploads on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    const nowMs = Date.UTC(2026, 10, 20, 12);
    const ids: Record<string, string> = {};
    const upload = async (tripId: string) =>
      database.db
        .selectFrom('trip_uploads')
        .select(['status', 'model_version', 'last_error'])
        .where('trip_id', '=', tripId)
        .executeTakeFirstOrThrow();

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'F', fleetId: 'fleet_f' });
      // OK: scorable; FAILP: too short for the model (its verdict); FAIL: breaks the engine every time.
      for (const plate of ['OK-1', 'FAILP-1', 'FAIL-1']) {
        await createVehicle(database.db, { fleetId: 'fleet_f', plate });
        const sender = { fleetId: 'fleet_f', vehicleId: null, keyId: null, source: 'test' };
        const batch = gpsTrip({ startMs: nowMs - 86_400_000, vehicle: plate });
        ids[plate] = (await acceptUpload(database.db, sender, `trip-${plate}`, batch, nowMs)).tripId;
      }
      const worker = new ScoringWorker({
        db: database,
        scorer: fakeScorer('m-1'),
        logger: quietLogger(),
        clock: () => nowMs,
        maxAttempts: 1,
      });
      await worker.drain();
    });
    afterAll(async () => {
      await database?.close();
    });

    it("records the model's verdict on an unscorable upload, and takes it again only under another model", async () => {
      expect(await upload(ids['FAILP-1']!)).toMatchObject({ status: 'failed', model_version: 'm-1' });
      // Attempts exhausted is no verdict of the model.
      expect(await upload(ids['FAIL-1']!)).toMatchObject({ status: 'failed', model_version: null });

      // Same model: the upload it found unscorable is left alone (before, every rescore scored it again and
      // counted it as "not scorable" again); the one that breaks the engine stays failed and does not stop the run
      // (before, it stopped every rescore there).
      const same = fakeScorer('m-1');
      const result = await rescore(database, same, { clock: () => nowMs });
      expect(result).toMatchObject({ rescored: 0, failed: 1, total: 1, interrupted: false });
      expect(same.calls).toBe(1);
      expect(await upload(ids['FAIL-1']!)).toMatchObject({
        status: 'failed',
        model_version: null,
        last_error: 'engine crashed (rescore)',
      });

      // A new model takes every trip again, the unscorable one too.
      const next = fakeScorer('m-2');
      expect(await rescore(database, next, { clock: () => nowMs })).toMatchObject({ rescored: 1, failed: 2, total: 3 });
      expect(await upload(ids['FAILP-1']!)).toMatchObject({ status: 'failed', model_version: 'm-2' });
      expect(await upload(ids['OK-1']!)).toMatchObject({ status: 'scored', model_version: 'm-2' });
    });

    it('stops at a scored trip the engine breaks on, naming it, and keeps its score', async () => {
      const broken: TripScorer = {
        modelVersion: 'm-3',
        async score() {
          throw new Error('engine went away');
        },
        close: async () => {},
      };
      await expect(rescore(database, broken, { clock: () => nowMs })).rejects.toThrow(
        `rescore stopped at ${ids['OK-1']}: engine went away (the trips before it are done; run the command again to resume)`,
      );
      expect(await upload(ids['OK-1']!)).toMatchObject({ status: 'scored', model_version: 'm-2' });
    });

    it('goes on past a scored trip whose stored telemetry cannot be read, which keeps its score and is listed', async () => {
      // Damaged storage (here: bytes that are not gzip) stopped every rescore at this trip, and running the
      // command again "to resume" stopped there again: a new model could never be rolled out.
      await database.db
        .updateTable('trip_uploads')
        .set({ telemetry_gz: Buffer.from('not gzip at all') })
        .where('trip_id', '=', ids['OK-1']!)
        .execute();
      const before = await database.db
        .selectFrom('trips')
        .select(['overall_score', 'model_version'])
        .where('trip_id', '=', ids['OK-1']!)
        .executeTakeFirstOrThrow();
      const next = fakeScorer('m-4');
      const result = await rescore(database, next, { clock: () => nowMs });
      expect(result).toMatchObject({
        interrupted: false,
        rescored: 0,
        failed: 2,
        unreadableTelemetry: [
          { tripId: ids['OK-1'], reason: expect.stringMatching(/^the stored telemetry cannot be read \(.+\)$/) },
        ],
      });
      expect(await upload(ids['OK-1']!)).toMatchObject({ status: 'scored', model_version: 'm-2' });
      expect(
        await database.db
          .selectFrom('trips')
          .select(['overall_score', 'model_version'])
          .where('trip_id', '=', ids['OK-1']!)
          .executeTakeFirstOrThrow(),
      ).toEqual(before);
      // The run is finished; the trip is still on the old model, so the next run takes it (and lists it) again.
      const open = await database.db
        .selectFrom('rescore_runs')
        .select('run_id')
        .where('model_version', '=', 'm-4')
        .where('finished_at_ms', 'is', null)
        .execute();
      expect(open).toEqual([]);
      expect((await rescore(database, fakeScorer('m-4'), { clock: () => nowMs })).unreadableTelemetry).toHaveLength(1);
    });
  });
});

describe('rescore beside another process writing to the SQLite store', () => {
  let database: TripsDatabase;
  let other: Database<TripsSchema>;
  const nowMs = Date.now();

  beforeAll(async () => {
    database = await testDialects()[0]!.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    await claimEnvironment(database.db, 'production', database.location);
    await buildWorld(database, { tripsPerFleet: 3, nowMs, environment: 'production' });
    // `trips serve` scoring trips while `trips rescore` runs: a second connection to the same file.
    other = await openDatabase<TripsSchema>({ sqliteFile: database.location.replace(/^sqlite:/, '') });
  });
  afterAll(async () => {
    await other?.close();
    await database?.close();
  });

  it('waits for the write lock the service holds instead of stopping with "database is busy"', async () => {
    // While the first trip is scored, the other process takes the write lock for 300 ms (a long write of its
    // own). The rescore's write transaction read first and then asked for the lock: SQLite fails that at once
    // rather than wait (the reader's snapshot could be stale), and the two retries within ~40 ms came too soon,
    // so the run stopped at this trip ("database is busy: database is locked") after a few seconds beside a
    // running service.
    const inner = fakeScorer('fake-busy');
    let held: Promise<void> | undefined;
    const scorer: TripScorer = {
      modelVersion: 'fake-busy',
      async score(input: ScoringInput) {
        const scored = await inner.score(input);
        if (!held) {
          let locked!: () => void;
          const lockTaken = new Promise<void>((resolve) => (locked = resolve));
          held = other.db.transaction().execute(async (trx) => {
            await sql`update fleets set name = name where fleet_id = 'fleet_alpha'`.execute(trx);
            locked();
            await new Promise((resolve) => setTimeout(resolve, 300));
          });
          await lockTaken;
        }
        return scored;
      },
      close: () => inner.close(),
    };
    const result = await rescore(database, scorer, { clock: () => nowMs });
    await held;
    expect(result).toMatchObject({ interrupted: false, rescored: 9, failed: 0, total: 9 });
    const versions = await database.db.selectFrom('trips').select('model_version').execute();
    expect(new Set(versions.map((v) => v.model_version))).toEqual(new Set(['fake-busy']));
  });
});
