import { gzipSync } from 'node:zlib';
import { DatabaseUnavailableError, openDatabase } from '@svc/platform';
import { TcpRelay, testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { buildIngestApp, SCORING_PAUSED } from '../src/ingest/build-ingest-app.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { rescore } from '../src/scoring/rescore.ts';
import type { TripScorer } from '../src/scoring/trip-scorer.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { logLines } from './fixtures/log-lines.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

/**
 * The store failing under the pipeline, not the trips: SQLite's database full (SQLITE_FULL, raised for real by a
 * page limit at the store's present size) and PostgreSQL out of reach (a relay taken away). Uploads are refused
 * with 503 and nothing of them is kept; scoring attempts ended by the store do not count against the trip, so no
 * trip fails for good over it, and everything is scored once the store answers again.
 */

const sqlite = testDialects().find((d) => d.name === 'sqlite')!;
const postgres = testDialects().find((d) => d.name === 'postgres')!;
const sender = { fleetId: 'fleet_f', vehicleId: null, keyId: null, source: 'test' };

const WARN_OR_WORSE = new Set(['warn', 'error', 'fatal']);

async function setUp(database: TripsDatabase) {
  await claimEnvironment(database.db, 'production', database.location);
  await createFleet(database.db, { name: 'F', fleetId: 'fleet_f' });
  await createVehicle(database.db, { fleetId: 'fleet_f', plate: 'FU-1' });
}

const uploads = (database: TripsDatabase) =>
  database.db
    .selectFrom('trip_uploads')
    .select(['trip_id', 'status', 'attempts', 'last_error'])
    .orderBy('trip_id')
    .execute();

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(sqlite.skip)('a full SQLite database', () => {
  let database: TripsDatabase;
  let ingest: FastifyInstance;
  let key: string;
  let now = Date.UTC(2026, 10, 20, 12);
  /** Caps the file at its present number of pages: a write needing a new page fails with SQLITE_FULL. */
  const fill = async () => {
    const { page_count } = (await sql<{ page_count: number }>`pragma page_count`.execute(database.db)).rows[0]!;
    await sql.raw(`pragma max_page_count = ${page_count}`).execute(database.db);
  };
  const makeRoom = () => sql.raw('pragma max_page_count = 1073741823').execute(database.db);
  // 600 fixes: the stored telemetry and the route each need pages of their own, so they cannot fit in what is
  // left free in the pages already there.
  const trip = (hour: number) => gpsTrip({ startMs: Date.UTC(2026, 10, 20, hour), vehicle: 'FU-1', points: 600 });

  beforeAll(async () => {
    database = await sqlite.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    // No free pages to begin with (a migration that drops and recreates triggers leaves some): a capped file then
    // has no room for an upload's pages.
    await sql`vacuum`.execute(database.db);
    await setUp(database);
    key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_f' })).secret;
    ingest = await buildIngestApp({ environment: 'production', database, logger: quietLogger() });
  });
  // A failed test must not leave the next one a full database.
  afterEach(makeRoom);
  afterAll(async () => {
    await ingest?.close();
    await database?.close();
  });

  it('refuses an upload with 503 and Retry-After, keeps nothing of it, and stores it once when retried with room', async () => {
    const post = () =>
      ingest.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: gzipSync(JSON.stringify(trip(6))),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'idempotency-key': 'full-disk-upload-1',
        },
      });
    const before = await uploads(database);
    await fill();
    const refused = await post();
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toEqual({ ok: false, error: 'the store is unavailable; retry with back-off' });
    expect(await uploads(database)).toEqual(before);
    await makeRoom();
    const stored = await post();
    expect(stored.statusCode).toBe(202);
    expect((await post()).statusCode).toBe(200);
    expect(await uploads(database)).toHaveLength(before.length + 1);
    await new ScoringWorker({ db: database, scorer: fakeScorer(), logger: quietLogger(), clock: () => now }).drain();
  });

  /**
   * The engine's scores, after which the database is full while `full.on`: the disk fills up while a trip is
   * scored, so the claim got through and storing the result does not.
   */
  const full = { on: false };
  const fillingScorer = (): TripScorer => {
    const inner = fakeScorer();
    return {
      modelVersion: inner.modelVersion,
      async score(input) {
        const scored = await inner.score(input);
        if (full.on) await fill();
        return scored;
      },
      close: () => inner.close(),
    };
  };
  afterEach(() => {
    full.on = false;
  });

  it('refuses an upload with 503 while another process holds the write lock past the busy timeout', async () => {
    const file = database.location.replace(/^sqlite:/, '');
    const other = await openDatabase({ sqliteFile: file });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Another process's long write: the lock is taken by its first write and kept until it commits.
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const writer = other.db.transaction().execute(async (trx) => {
      await sql`update fleets set name = name where fleet_id = 'fleet_f'`.execute(trx);
      locked();
      await held;
    });
    await lockTaken;
    await sql.raw('pragma busy_timeout = 50').execute(database.db);
    const before = await uploads(database);
    try {
      const busy = await ingest.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: JSON.stringify(trip(5)),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': 'busy-upload-1',
        },
      });
      expect(busy.statusCode).toBe(503);
      expect(busy.headers['retry-after']).toBe('2');
      expect(busy.json()).toEqual({ ok: false, error: 'the store is busy; retry with back-off' });
      expect(await uploads(database)).toEqual(before);
    } finally {
      release();
      await writer;
      await other.close();
      await sql.raw('pragma busy_timeout = 5000').execute(database.db);
    }
  });

  it('fails no trip over it: each attempt the store ends is given back, and the trips are scored once there is room', async () => {
    const ids: string[] = [];
    for (let h = 7; h < 11; h++) {
      ids.push((await acceptUpload(database.db, sender, `full-disk-trip-${h}`, trip(h), now)).tripId);
    }
    const faults: string[] = [];
    const worker = new ScoringWorker({
      db: database,
      scorer: fillingScorer(),
      logger: quietLogger(),
      clock: () => now,
      maxAttempts: 2,
      metrics: { uploadAccepted() {}, tripScored() {}, attemptFailed: (result) => faults.push(result) },
    });
    full.on = true;
    for (let round = 0; round < 6; round++) {
      await worker.drain().catch((err: unknown) => {
        // Claims (and putting a job back) need room too: `drain` then reports the store's fault, as a command should.
        if (!(err instanceof DatabaseUnavailableError)) throw err;
      });
      for (const u of (await uploads(database)).filter((r) => ids.includes(r.trip_id))) {
        expect(u.status).not.toBe('failed');
        expect(u.attempts).toBeLessThanOrEqual(1);
      }
      now += 60_000;
    }
    expect(faults.length).toBeGreaterThanOrEqual(ids.length);
    expect(new Set(faults)).toEqual(new Set(['store_fault']));
    full.on = false;
    await makeRoom();
    for (let round = 0; round < 4; round++) {
      await worker.drain();
      now += 60_000;
    }
    const after = (await uploads(database)).filter((r) => ids.includes(r.trip_id));
    // Each was claimed and counted once more than it was given back: the attempt that scored it.
    expect(after.map((u) => [u.status, u.attempts])).toEqual(ids.map(() => ['scored', 1]));
    const scored = await database.db.selectFrom('trips').select('trip_id').where('trip_id', 'in', ids).execute();
    expect(scored).toHaveLength(ids.length);
  });

  it("stops a rescore at a failed trip when the store fails, rather than recording the fault as the trip's", async () => {
    const tripId = (await acceptUpload(database.db, sender, 'full-disk-rescore-1', trip(13), now)).tripId;
    const broken: TripScorer = {
      modelVersion: 'fake-1',
      score: async () => {
        throw new Error('engine down');
      },
      close: async () => {},
    };
    await new ScoringWorker({
      db: database,
      scorer: broken,
      logger: quietLogger(),
      clock: () => now,
      maxAttempts: 1,
    }).drain();
    const failedBefore = (await uploads(database)).find((u) => u.trip_id === tripId)!;
    expect(failedBefore).toMatchObject({ status: 'failed', last_error: 'engine down (gave up after 1 attempts)' });
    full.on = true;
    const run = rescore(database, fillingScorer(), { clock: () => now }).catch((err: unknown) => err);
    const stopped = await run;
    expect(stopped).toBeInstanceOf(Error);
    expect((stopped as Error).message).toBe(
      `rescore stopped at ${tripId}: database unavailable: database or disk is full (the trips before it are done; run the command again once the database answers)`,
    );
    full.on = false;
    await makeRoom();
    // Before, the fault was written down as the trip's reason and the run went on past it, done with it.
    expect((await uploads(database)).find((u) => u.trip_id === tripId)).toEqual(failedBefore);
    const resumed = await rescore(database, fillingScorer(), { clock: () => now + 120_000 });
    expect(resumed).toMatchObject({ rescored: 1, failed: 0 });
    expect((await uploads(database)).find((u) => u.trip_id === tripId)).toMatchObject({ status: 'scored' });
  });

  it('pauses the running worker with one warning and a degraded readiness report, and says when trips get through again', async () => {
    const tripId = (await acceptUpload(database.db, sender, 'full-disk-loop-1', trip(12), Date.now())).tripId;
    const log = logLines();
    const faults: string[] = [];
    const worker = new ScoringWorker({
      db: database,
      scorer: fillingScorer(),
      logger: log.logger,
      maxAttempts: 2,
      pollMs: 20,
      storeFaultPauseMs: 20,
      metrics: { uploadAccepted() {}, tripScored() {}, attemptFailed: (result) => faults.push(result) },
    });
    // The node's ingest endpoint, whose readiness report says why scoring is paused.
    const node = await buildIngestApp({
      environment: 'production',
      database,
      logger: quietLogger(),
      scoringPausedBy: () => worker.storeFault,
    });
    const readyz = async () => (await node.inject({ url: '/readyz' })).json();
    full.on = true;
    worker.start();
    try {
      await until('an attempt ended by the store', async () => faults.length > 0);
      // Pauses of 20, 40, 80 and 160 ms: some rounds in which neither the job goes back nor a claim gets through.
      await new Promise((r) => setTimeout(r, 400));
      expect(await readyz()).toEqual({
        ok: true,
        status: 'degraded',
        degraded: [`${SCORING_PAUSED}: database unavailable: database or disk is full`],
      });
      full.on = false;
      await makeRoom();
      await until('the trip was scored', async () =>
        (await uploads(database)).some((u) => u.trip_id === tripId && u.status === 'scored'),
      );
      expect(await readyz()).toEqual({ ok: true, status: 'ready' });
    } finally {
      await worker.stop();
      await node.close();
    }
    expect(faults.length).toBeGreaterThan(0);
    expect(new Set(faults)).toEqual(new Set(['store_fault']));
    expect(
      log.lines.filter((l) => WARN_OR_WORSE.has(l.level as string)).map((l) => [l.level, l.msg, l.reason]),
    ).toEqual([
      [
        'warn',
        'the store is failing: scoring pauses and tries again; trips keep their attempts meanwhile',
        'database unavailable: database or disk is full',
      ],
    ]);
    expect(log.lines.filter((l) => l.msg === 'the store answers again; scoring goes on')).toHaveLength(1);
    expect((await uploads(database)).find((u) => u.trip_id === tripId)).toMatchObject({
      status: 'scored',
      attempts: 1,
    });
  });
});

describe.skipIf(postgres.skip)(`PostgreSQL out of reach (${postgres.label})`, () => {
  const relay = TcpRelay.forUrl(process.env.TEST_DATABASE_URL || 'postgres://127.0.0.1:5432/test', 5432);
  let owner: TripsDatabase;
  let database: TripsDatabase;

  beforeAll(async () => {
    owner = await postgres.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    await setUp(owner);
    const schema = (
      await owner.db.selectNoFrom((eb) => eb.fn<string>('current_schema').as('s')).executeTakeFirstOrThrow()
    ).s;
    await relay.up();
    database = await openTripsDatabase({
      environment: 'production',
      url: relay.urlThrough(process.env.TEST_DATABASE_URL!),
      pgSchema: schema,
    });
  });
  afterAll(async () => {
    await database?.close();
    await relay.down();
    await owner?.close();
  });

  /** A trip queued through the owner's direct connection (not the relay), starting on `day` of November 2026. */
  const queueTrip = async (key: string, day: number) =>
    (
      await acceptUpload(
        owner.db,
        sender,
        key,
        gpsTrip({ startMs: Date.UTC(2026, 10, day, 8), vehicle: 'FU-1' }),
        Date.now(),
      )
    ).tripId;

  /** The engine's scores, with `fault` run once, after the first trip is scored and before its result is written. */
  const faultAfterScoring = (fault: () => Promise<void>): TripScorer => {
    const inner = fakeScorer();
    let pending = true;
    return {
      modelVersion: inner.modelVersion,
      async score(input) {
        const scored = await inner.score(input);
        if (pending) {
          pending = false;
          await fault();
        }
        return scored;
      },
      close: () => inner.close(),
    };
  };

  /**
   * Runs a worker that gives each trip one attempt until `tripId` is scored; returns the attempts that ended
   * without a score, by result. Before, a store fault used up that one attempt and the trip failed for good (the
   * wait then times out).
   */
  const scoreWithOneAttempt = async (scorer: TripScorer, tripId: string): Promise<string[]> => {
    const faults: string[] = [];
    const worker = new ScoringWorker({
      db: database,
      scorer,
      logger: quietLogger(),
      pollMs: 20,
      storeFaultPauseMs: 50,
      maxAttempts: 1,
      metrics: { uploadAccepted() {}, tripScored() {}, attemptFailed: (result) => faults.push(result) },
    });
    worker.start();
    try {
      await until('the trip was scored', async () =>
        (await uploads(owner)).some((u) => u.trip_id === tripId && u.status === 'scored'),
      );
    } finally {
      await worker.stop();
    }
    // One attempt, given back at the fault, and the one that scored it.
    expect((await uploads(owner)).find((u) => u.trip_id === tripId)).toMatchObject({ status: 'scored', attempts: 1 });
    return faults;
  };

  /** A worker polling every 20 ms whose log lines are kept. */
  const loggedWorker = (storeFaultPauseMs: number) => {
    const log = logLines();
    const worker = new ScoringWorker({
      db: database,
      scorer: fakeScorer(),
      logger: log.logger,
      pollMs: 20,
      storeFaultPauseMs,
    });
    return { log, worker };
  };

  it('the worker backs off with one warning instead of an error per poll, and scores the queue once it is back', async () => {
    const tripId = await queueTrip('pg-away-trip-1', 21);
    const { log, worker } = loggedWorker(50);
    await relay.down();
    worker.start();
    try {
      // At a 20 ms poll, 1.5 s is some 75 polls (each logged an error before); with pauses of 50, 100, 200, 400 and
      // 800 ms, five claims and one warning.
      await new Promise((r) => setTimeout(r, 1500));
      expect(log.lines.filter((l) => WARN_OR_WORSE.has(l.level as string)).map((l) => [l.level, l.msg])).toEqual([
        ['warn', 'the store is failing: scoring pauses and tries again; trips keep their attempts meanwhile'],
      ]);
      await relay.up();
      await until('the trip was scored', async () =>
        (await uploads(owner)).some((u) => u.trip_id === tripId && u.status === 'scored'),
      );
    } finally {
      await worker.stop();
    }
    expect((await uploads(owner)).find((u) => u.trip_id === tripId)).toMatchObject({ attempts: 1 });
    expect(log.lines.filter((l) => l.msg === 'the store answers again; scoring goes on')).toHaveLength(1);
    expect(log.lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
  });

  it('leaves its paused state once a claim goes through again, also with no job to claim', async () => {
    const { log, worker } = loggedWorker(20);
    await relay.down();
    worker.start();
    try {
      await until('the worker is paused', async () => worker.storeFault !== null);
      expect(worker.storeFault).toMatch(/^(cannot reach the database|database connection failed)/);
      await relay.up();
      // Other nodes may have taken every job meanwhile: the worker (and `/readyz`) must not stay paused for want
      // of one.
      await until('the worker is no longer paused', async () => worker.storeFault === null);
    } finally {
      await worker.stop();
    }
    expect(log.lines.filter((l) => l.msg === 'the store answers again; scoring goes on')).toHaveLength(1);
  });

  it('counts no attempt when the connection is cut while the result is being written', async () => {
    const tripId = await queueTrip('pg-away-trip-3', 24);
    // The cut lands inside the result's transaction every time: its write waits on a row lock another session
    // holds. The statement fails, and so does Kysely's ROLLBACK on the broken client; before, the ROLLBACK's "not
    // queryable" error reached the worker as an unknown failure.
    let cutting: Promise<void> | undefined;
    const scorer = faultAfterScoring(async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = owner.db.transaction().execute(async (trx) => {
        await sql`select 1 from trip_uploads where trip_id = ${tripId} for update`.execute(trx);
        locked();
        await released;
      });
      await lockTaken;
      cutting = (async () => {
        await until('the write waits on the lock', async () => {
          const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted`.execute(
            owner.db,
          );
          return waiting.rows[0]!.n > 0;
        });
        await relay.down();
        release();
        await holder;
        await relay.up();
      })();
    });
    expect(await scoreWithOneAttempt(scorer, tripId)).toEqual(['store_fault']);
    await cutting;
  });

  it('puts a job back once the store answers when it could not at the fault, before its lease runs out', async () => {
    const tripId = await queueTrip('pg-away-trip-2', 22);
    // PostgreSQL goes away while the trip is scored: neither the result nor the job's release can be written, so
    // the job is put back before the next claim; before, it waited for its lease, and that claim counted again.
    const scorer = faultAfterScoring(async () => {
      await relay.down();
      setTimeout(() => void relay.up(), 600);
    });
    expect(await scoreWithOneAttempt(scorer, tripId)).toEqual(['store_fault']);
  });
});

describe.skipIf(sqlite.skip)('claims failing for another reason than the store', () => {
  let database: TripsDatabase;
  beforeAll(async () => {
    database = await sqlite.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    await setUp(database);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('are logged as errors after growing pauses, not at every poll, and scoring goes on once they stop', async () => {
    const tripId = (
      await acceptUpload(
        database.db,
        sender,
        'claim-error-1',
        gpsTrip({ startMs: Date.UTC(2026, 10, 23, 8), vehicle: 'FU-1' }),
        Date.now(),
      )
    ).tripId;
    // A store that answers, but not the claim's statement: as a schema not migrated would.
    await sql`alter table trip_uploads rename to trip_uploads_away`.execute(database.db);
    const log = logLines();
    const worker = new ScoringWorker({
      db: database,
      scorer: fakeScorer(),
      logger: log.logger,
      pollMs: 20,
      storeFaultPauseMs: 20,
    });
    worker.start();
    try {
      // 600 ms: 30 polls at 20 ms (each an error before); with pauses of 20, 40, 80, 160 and 320 ms, five claims.
      await new Promise((r) => setTimeout(r, 600));
      const errors = log.lines.filter((l) => l.level === 'error');
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(errors.length).toBeLessThanOrEqual(6);
      expect(errors.every((l) => l.msg === 'scoring worker: claiming jobs failed')).toBe(true);
      await sql`alter table trip_uploads_away rename to trip_uploads`.execute(database.db);
      await until('the trip was scored', async () =>
        (await uploads(database)).some((u) => u.trip_id === tripId && u.status === 'scored'),
      );
    } finally {
      await worker.stop();
    }
  });
});
