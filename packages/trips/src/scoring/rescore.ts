import { randomUUID } from 'node:crypto';
import { DomainError } from '@svc/platform';
import { isDeadLocalHolder, leaseOwnerName } from '../service/process-liveness.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import { previousTripsOf } from '../store/previous-trips.ts';
import {
  LeaseLostError,
  LocationDataDeletedError,
  RequeuedWhileScoringError,
  withdrawScoredTrip,
  writeScoredTrip,
} from '../store/scored-trips.ts';
import { isStoreFault } from '../store/store-fault.ts';
import { machineTypeOfVehicle } from '../store/vehicles.ts';
import { withWriteTransaction } from '../store/write-transaction.ts';
import { isPermanentScoringError, isStoredTelemetryUnreadable, type TripScorer } from './trip-scorer.ts';

export interface RescoreOptions {
  /** Every stored trip; by default only trips scored by another model version, and failed ones. */
  all?: boolean;
  batchSize?: number;
  /** Trips scored at once (match the scorer's threads). */
  concurrency?: number;
  clock?: () => number;
  onProgress?: (done: number, total: number) => void;
  /** How long the run is held without renewal (default 5 minutes; renewed with every batch). */
  leaseMs?: number;
  /**
   * Stops the run after the trips being scored (Ctrl-C): what was done is recorded and the lease released,
   * so running the command again resumes at once.
   */
  signal?: AbortSignal;
}

/** How long a rescore holds its run without renewing it (it renews with every batch). */
const DEFAULT_LEASE_MS = 5 * 60_000;

/** The trip was queued again, claimed or scored by a node after the run read it: the run leaves it to the queue. */
class ChangedMeanwhile extends Error {}

/** Another process is working through the same rescore run. */
export class RescoreInProgressError extends DomainError {
  constructor(message: string) {
    super('rescore_in_progress', message);
  }
}

export interface RescoreResult {
  runId: number;
  resumed: boolean;
  modelVersion: string;
  rescored: number;
  failed: number;
  total: number;
  /** True when `signal` stopped the run before the end (it resumes at the next rescore). */
  interrupted: boolean;
  /**
   * Trips this run would have taken whose location data was deleted (retention, a driver's erasure): they
   * cannot be scored again and keep the score they have.
   */
  keptWithoutTelemetry: number;
  /**
   * Scored trips of this process's part of the run whose stored telemetry cannot be read (damaged storage):
   * they keep their score and model version, so a run for a newer model (or with `all`) takes them again.
   */
  unreadableTelemetry: Array<{ tripId: string; reason: string }>;
  /** The holder of the run, a process of this machine no longer running, whose lease was taken before it expired. */
  takenOverFrom?: string;
}

/**
 * Recomputes stored trips with the current scoring model, from their stored telemetry. Resumable: the
 * run records the last trip id done (trips are taken in id order), so an interrupted rescore started
 * again with the same options continues where it stopped. Each trip is replaced in its own transaction
 * (trip, breakdown, route and day counts together); a trip the new model cannot score is kept as a
 * failed upload with the reason and the model's version, and leaves the scored list (without `all`, an upload
 * the current model already found unscorable is not taken again). An engine error stops the run at a scored
 * trip (its score stays), but not at an upload that had failed already. Trips whose telemetry was deleted
 * (store/location-data.ts) cannot be scored again: they keep their score and are counted apart; so do scored
 * trips whose stored telemetry cannot be read (damaged storage), which are listed.
 */
export async function rescore(
  database: TripsDatabase,
  scorer: TripScorer,
  options: RescoreOptions = {},
): Promise<RescoreResult> {
  const db = database.db;
  const clock = options.clock ?? Date.now;
  const all = options.all ?? false;
  const modelVersion = scorer.modelVersion;
  const openRun = () =>
    db
      .selectFrom('rescore_runs')
      .selectAll()
      .where('finished_at_ms', 'is', null)
      .where('model_version', '=', modelVersion)
      .where('all_trips', '=', all ? 1 : 0)
      .executeTakeFirst();
  const open = await openRun();
  let run = open;
  // At most one run is open per model version and scope (a unique index, migration 0016): a process starting
  // at the same instant as another waits on the other's insert, inserts nothing and takes the other's run. The
  // loop covers that run finishing in between (then this one starts a new run).
  for (let attempt = 0; !run; attempt++) {
    if (attempt === 3) throw new Error('rescore: could not open a run (other rescores kept finishing meanwhile)');
    run =
      (await db
        .insertInto('rescore_runs')
        .values({
          started_at_ms: clock(),
          finished_at_ms: null,
          model_version: modelVersion,
          all_trips: all ? 1 : 0,
          cursor: '',
          rescored: 0,
          failed: 0,
        })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst()) ?? (await openRun());
  }
  const runId = run.run_id;
  // One process per run: a second rescore started meanwhile stops here instead of repeating the work.
  const owner = leaseOwnerName(randomUUID().slice(0, 8));
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const claimed = await db
    .updateTable('rescore_runs')
    .set({ lease_owner: owner, lease_until_ms: clock() + leaseMs })
    .where('run_id', '=', runId)
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_until_ms', '<', clock())]))
    .executeTakeFirst();
  let takenOverFrom: string | undefined;
  if (claimed.numUpdatedRows === 0n) {
    const holder = await db
      .selectFrom('rescore_runs')
      .select(['lease_owner', 'lease_until_ms'])
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    // A rescore of this machine that was killed (kill -9, an out-of-memory kill) is known dead at once: its run is
    // taken now rather than after its lease (5 minutes). Only if the holder is still the one seen dead.
    if (isDeadLocalHolder(holder.lease_owner)) {
      const taken = await db
        .updateTable('rescore_runs')
        .set({ lease_owner: owner, lease_until_ms: clock() + leaseMs })
        .where('run_id', '=', runId)
        .where('lease_owner', '=', holder.lease_owner)
        .executeTakeFirst();
      if (taken.numUpdatedRows > 0n) takenOverFrom = holder.lease_owner ?? undefined;
    }
  }
  if (claimed.numUpdatedRows === 0n && takenOverFrom === undefined) {
    const holder = await db
      .selectFrom('rescore_runs')
      .select(['lease_owner', 'lease_until_ms'])
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    throw new RescoreInProgressError(
      `rescore run ${runId} is being worked on by another process (${holder.lease_owner}); run this again when it has finished, or after ${new Date(Number(holder.lease_until_ms)).toISOString()} if that process has died`,
    );
  }
  try {
    // Read again now that it is ours: a process that held it before may have gone on until its lease ran out.
    return await work(
      await db.selectFrom('rescore_runs').selectAll().where('run_id', '=', runId).executeTakeFirstOrThrow(),
    );
  } finally {
    // Released at once on the way out, finished or failed, so the run can be resumed without waiting.
    await db
      .updateTable('rescore_runs')
      .set({ lease_owner: null, lease_until_ms: null })
      .where('run_id', '=', runId)
      .where('lease_owner', '=', owner)
      .execute();
  }

  async function work(run: { cursor: string; rescored: number; failed: number }): Promise<RescoreResult> {
    let cursor = run.cursor;
    let rescored = run.rescored;
    let failed = run.failed;
    const unreadableTelemetry: RescoreResult['unreadableTelemetry'] = [];

    const selected = () => {
      let q = db.selectFrom('trip_uploads').where('trip_id', '>', cursor).where('status', 'in', ['scored', 'failed']);
      if (!all) q = q.where((eb) => eb.or([eb('model_version', 'is', null), eb('model_version', '<>', modelVersion)]));
      return q;
    };
    // A trip this run already did (in a batch not checkpointed before its process died) is not done again.
    const candidates = () =>
      selected()
        .where('telemetry_deleted_at_ms', 'is', null)
        .where((eb) => eb.or([eb('rescore_run_id', 'is', null), eb('rescore_run_id', '<>', runId)]));
    // The trip is marked done by this run and counted in the run, in the trip's own transaction.
    const recordDone = async (trx: typeof db, tripId: string, counter: 'rescored' | 'failed') => {
      await trx.updateTable('trip_uploads').set({ rescore_run_id: runId }).where('trip_id', '=', tripId).execute();
      await trx
        .updateTable('rescore_runs')
        .set((eb) => ({ [counter]: eb(counter, '+', 1) }))
        .where('run_id', '=', runId)
        .execute();
    };
    let keptWithoutTelemetry = Number(
      (
        await selected()
          .where('telemetry_deleted_at_ms', 'is not', null)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const remaining = Number(
      (
        await candidates()
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    let total = rescored + failed + remaining;
    options.onProgress?.(rescored + failed, total);

    const batchSize = options.batchSize ?? 50;
    const concurrency = Math.max(1, options.concurrency ?? 1);
    for (;;) {
      const batch = await candidates()
        .select([
          'trip_id',
          'status',
          'fleet_id',
          'vehicle_id',
          'plate',
          'driver_id',
          'telemetry_gz',
          'first_sample_ms',
        ])
        .orderBy('trip_id')
        .limit(batchSize)
        .execute();
      if (batch.length === 0) break;
      // The batch is marked as this process's before any of its trips' context is read: a node that puts a trip back
      // in the queue (an earlier trip of its driver arrived), claims it or scores it meanwhile clears or replaces the
      // mark, and this run's result, computed without what changed, is then dropped instead of replacing the node's.
      // One write transaction for the batch (on SQLite it waits for a running service's writes as the others do): a
      // mark per trip cost a commit, an fsync, per ~12 ms of scoring.
      await withWriteTransaction(db, (trx) =>
        trx
          .updateTable('trip_uploads')
          .set({ lease_owner: owner })
          .where(
            'trip_id',
            'in',
            batch.map((u) => u.trip_id),
          )
          .where('status', 'in', ['scored', 'failed'])
          .execute(),
      );
      const done = batch.map(() => false);
      for (let i = 0; i < batch.length; i += concurrency) {
        if (options.signal?.aborted) {
          if (i > 0) {
            await db
              .updateTable('rescore_runs')
              .set({ cursor: batch[i - 1]!.trip_id })
              .where('run_id', '=', runId)
              .where('lease_owner', '=', owner)
              .execute();
          }
          return result(true);
        }
        const outcomes = await Promise.allSettled(
          batch.slice(i, i + concurrency).map(async (upload, k) => {
            const ref = {
              tripId: upload.trip_id,
              fleetId: upload.fleet_id,
              vehicleId: upload.vehicle_id,
              plate: upload.plate,
              driverId: upload.driver_id,
            };
            try {
              // Still marked? A trip a node took since the batch was marked is not scored for nothing (the write
              // below checks the mark again, for a change made while this one scores).
              const mark = await db
                .selectFrom('trip_uploads')
                .select('lease_owner')
                .where('trip_id', '=', upload.trip_id)
                .executeTakeFirst();
              if (mark?.lease_owner !== owner) throw new ChangedMeanwhile();
              const previousTrips = await previousTripsOf(db, upload);
              const machineType = await machineTypeOfVehicle(db, upload.vehicle_id);
              const scored = await scorer.score({
                telemetryGz: upload.telemetry_gz,
                previousTrips,
                ...(machineType ? { machineType } : {}),
              });
              await withWriteTransaction(db, async (trx) => {
                await writeScoredTrip(trx, ref, scored, { nowMs: clock(), leaseOwner: owner });
                await recordDone(trx, upload.trip_id, 'rescored');
              });
              rescored++;
            } catch (err) {
              if (
                err instanceof ChangedMeanwhile ||
                err instanceof RequeuedWhileScoringError ||
                err instanceof LeaseLostError
              ) {
                // Queued again, or scored by a node, since this batch was read: the queue has it (a finished run
                // scores the queued ones), and it is not this run's to count.
                done[i + k] = true;
                return;
              }
              if (err instanceof LocationDataDeletedError) {
                // Deleted after this batch was read: the stored score stays.
                keptWithoutTelemetry++;
                return;
              }
              const reason = err instanceof Error ? err.message : String(err);
              if (isStoredTelemetryUnreadable(err) && upload.status !== 'failed') {
                // Damaged storage, not an engine outage: this trip would stop every run here (before, it did), and
                // it cannot be scored again from what is stored. It keeps its score and is reported.
                unreadableTelemetry.push({ tripId: upload.trip_id, reason });
                done[i + k] = true;
                return;
              }
              // The store failing is no verdict on this trip, failed before or not: the run stops, as for an
              // engine outage, and resumes from here.
              if (isStoreFault(err)) {
                throw new Error(
                  `rescore stopped at ${upload.trip_id}: ${reason} (the trips before it are done; run the command again once the database answers)`,
                  { cause: err },
                );
              }
              if (!isPermanentScoringError(err)) {
                // The engine broke down (or this trip breaks it). A scored trip keeps its score and the run stops
                // here, so an engine outage does not withdraw trips. An upload that had failed already stays failed
                // with the new reason: a trip that breaks the engine every time must not stop every rescore.
                if (upload.status !== 'failed') {
                  throw new Error(
                    `rescore stopped at ${upload.trip_id}: ${reason} (the trips before it are done; run the command again to resume)`,
                    { cause: err },
                  );
                }
                const kept = await withWriteTransaction(db, async (trx) => {
                  const noted = await trx
                    .updateTable('trip_uploads')
                    .set({ last_error: `${reason} (rescore)`.slice(0, 2000), lease_owner: null })
                    .where('trip_id', '=', upload.trip_id)
                    .where('lease_owner', '=', owner)
                    .executeTakeFirst();
                  if (noted.numUpdatedRows === 0n) return false;
                  await recordDone(trx, upload.trip_id, 'failed');
                  return true;
                });
                if (kept) failed++;
                done[i + k] = true;
                return;
              }
              const withdrawn = await withWriteTransaction(db, async (trx) => {
                // Later trips of the driver counted this one's driving time: they go back in the queue.
                await withdrawScoredTrip(trx, upload.trip_id, clock());
                const marked = await trx
                  .updateTable('trip_uploads')
                  .set({
                    status: 'failed',
                    last_error: reason,
                    model_version: modelVersion,
                    scored_at_ms: null,
                    lease_owner: null,
                  })
                  .where('trip_id', '=', upload.trip_id)
                  .where('lease_owner', '=', owner)
                  .executeTakeFirst();
                // Queued again or scored by a node meanwhile: nothing of this is kept.
                if (marked.numUpdatedRows === 0n) throw new ChangedMeanwhile();
                await recordDone(trx, upload.trip_id, 'failed');
              }).then(
                () => true,
                (e: unknown) => {
                  if (e instanceof ChangedMeanwhile) return false;
                  throw e;
                },
              );
              if (withdrawn) failed++;
            }
            done[i + k] = true;
          }),
        );
        const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
        if (broken) {
          // Checkpoint the trips done in order before the one that broke, so a resumed run neither scores
          // nor counts them again; then stop with the error.
          const prefix = done.indexOf(false);
          if (prefix > 0) {
            await db
              .updateTable('rescore_runs')
              .set({ cursor: batch[prefix - 1]!.trip_id })
              .where('run_id', '=', runId)
              .where('lease_owner', '=', owner)
              .execute();
          }
          throw broken.reason;
        }
      }
      cursor = batch.at(-1)!.trip_id;
      const saved = await db
        .updateTable('rescore_runs')
        .set({ cursor, lease_until_ms: clock() + leaseMs })
        .where('run_id', '=', runId)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      if (saved.numUpdatedRows === 0n) {
        throw new RescoreInProgressError(
          `rescore run ${runId} was taken over by another process after this one held it past its lease; this one stops`,
        );
      }
      // Trips that arrived after the count was taken are rescored too: the total grows with them rather than being
      // passed ("rescoring 2950/2783 trips").
      total = Math.max(total, rescored + failed);
      options.onProgress?.(rescored + failed, total);
    }
    await db.updateTable('rescore_runs').set({ finished_at_ms: clock() }).where('run_id', '=', runId).execute();
    return result(false);

    function result(interrupted: boolean): RescoreResult {
      return {
        runId,
        resumed: open !== undefined,
        modelVersion,
        rescored,
        failed,
        total,
        interrupted,
        keptWithoutTelemetry,
        unreadableTelemetry,
        ...(takenOverFrom ? { takenOverFrom } : {}),
      };
    }
  }
}
