import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '@svc/platform';
import { isPermanentScoringError, isStoredTelemetryUnreadable, type TripScorer } from '../scoring/trip-scorer.ts';
import { type ClaimedJob, claimJobs, failJob, markJudgedBy, releaseJob, renewLease } from '../store/job-queue.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import { previousTripsOf } from '../store/previous-trips.ts';
import type { UploadStatus } from '../store/schema.ts';
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
import type { PipelineMetrics } from './pipeline-metrics.ts';

export interface ScoringWorkerOptions {
  db: TripsDatabase;
  scorer: TripScorer;
  logger: Logger;
  /** Jobs scored at the same time (match the scorer's thread count). */
  concurrency?: number;
  /** How long a claimed job stays ours without renewal; renewed every third of it while scoring. */
  leaseMs?: number;
  /** Idle polling interval; `notify()` wakes the worker at once after an upload in this process. */
  pollMs?: number;
  /** Attempts before a job that keeps failing is marked failed with its last reason. */
  maxAttempts?: number;
  clock?: () => number;
  /** Stable name of this worker in lease_owner (host:pid:random by default). */
  owner?: string;
  /** Where scored trips and failed attempts are counted (the ingest app's /metrics); none by default. */
  metrics?: PipelineMetrics;
  /** First pause after a round the store failed (doubling, up to 30 times this); 1 s by default. */
  storeFaultPauseMs?: number;
}

/** Where one job stands after `scoreTrips`: scored, failed for good, or queued for a later attempt. */
export interface JobOutcome {
  tripId: string;
  /** `queued`: an attempt failed and the next is due at `nextAttemptAtMs`; absent: no such upload. */
  status: Exclude<UploadStatus, 'scoring'> | 'absent';
  attempts: number;
  /** Why the last attempt failed (`failed`, `queued`); null when scored. */
  reason: string | null;
  nextAttemptAtMs: number | null;
}

/** Trip ids per claim statement in `scoreTrips`: far below any database's bound-parameter limit. */
const CLAIM_CHUNK = 500;

/** Delay before the next attempt: 2 s, 8 s, 32 s, ... capped at 10 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(2000 * 4 ** Math.max(0, attempt - 1), 600_000);
}

/**
 * Pause of the worker after a round in which the store failed: `baseMs` (1 s by default), then twice as long after
 * each further faulty round, capped at 30 times the base, so a store out of reach is tried again soon after it is
 * back without being hammered (nor the log filled) meanwhile.
 */
export function storeFaultPauseMs(faultyRounds: number, baseMs = 1000): number {
  return Math.min(baseMs * 2 ** Math.max(0, faultyRounds - 1), baseMs * 30);
}

/**
 * Scores queued uploads off the request path: claims jobs, scores them with the engine, and stores
 * trip, breakdown and route in one transaction. Failures are retried with back-off; a trip that cannot
 * be scored ends `failed` with its reason, its telemetry kept. A failure of the store (store/store-fault.ts) is
 * not the trip's: its attempt is given back and the loop pauses until the store answers.
 */
export class ScoringWorker {
  readonly owner: string;
  readonly #db: TripsDatabase;
  readonly #scorer: TripScorer;
  readonly #log: Logger;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #maxAttempts: number;
  readonly #clock: () => number;
  readonly #metrics: PipelineMetrics | undefined;
  readonly #faultPauseMs: number;
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The last store fault met by a job or a claim since the loop last looked (see #run). */
  #storeFault: Error | undefined;
  /** Consecutive rounds of the loop in which the store failed, and when the first of them began. */
  #faultyRounds = 0;
  #faultySinceMs = 0;
  /** Whether the last store fault was met by a claim (or putting jobs back) rather than by a job's own statements. */
  #claimsFailed = false;
  /** What the store said in the last faulty round (see storeFault). */
  #faultReason = '';
  /** Consecutive claims that failed for another reason than the store. */
  #failedClaims = 0;
  /** Ends the loop's pause after a store fault early (stop()). */
  #endPause: (() => void) | undefined;
  /**
   * Jobs whose attempt a store fault ended and which could not be put back then (the store took no write): put
   * back before anything new is claimed, so that the claim's attempt is given back then, before its lease expires
   * and a new claim counts another.
   */
  #unreleased: Array<{ job: ClaimedJob; fault: Error }> = [];

  constructor(options: ScoringWorkerOptions) {
    this.#db = options.db;
    this.#scorer = options.scorer;
    this.#log = options.logger;
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#leaseMs = options.leaseMs ?? 120_000;
    this.#pollMs = options.pollMs ?? 500;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#clock = options.clock ?? Date.now;
    this.#metrics = options.metrics;
    this.#faultPauseMs = options.storeFaultPauseMs ?? 1000;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  }

  /** Starts the background loop. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops claiming new jobs and waits for the ones in progress. */
  async stop(): Promise<void> {
    this.#running = false;
    this.notify();
    this.#endPause?.();
    await this.#loop;
    // Jobs a store fault left claimed go back now if the store takes it; otherwise their leases expire.
    await this.#releasePending().catch(() => {});
  }

  /**
   * While scoring is paused by a store fault (from the first faulty round until a round's jobs get through): what
   * the store last said; otherwise null. For the ingest endpoint's readiness report.
   */
  get storeFault(): string | null {
    return this.#faultyRounds > 0 ? this.#faultReason : null;
  }

  /** Wakes the loop now (an upload was just queued). */
  notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    wake?.();
  }

  /**
   * Claims and processes one round of jobs (with `tripIds`, only among those); returns how many were
   * claimed. `onRequeued` hears of later trips put back in the queue because a trip scored in this round
   * joins their fatigue context (store/fatigue-followers.ts).
   */
  async runOnce(
    options: { tripIds?: readonly string[]; onRequeued?: (tripIds: string[]) => void } = {},
  ): Promise<number> {
    await this.#releasePending();
    const claimedAtMs = this.#clock();
    const jobs = await claimJobs(this.#db.db, {
      owner: this.owner,
      limit: this.#concurrency,
      leaseMs: this.#leaseMs,
      nowMs: claimedAtMs,
      ...(options.tripIds ? { tripIds: options.tripIds } : {}),
    });
    await Promise.all(
      jobs.map(async (job) => {
        const requeued = await this.#process(job, claimedAtMs + this.#leaseMs);
        if (requeued.length > 0) options.onRequeued?.(requeued);
      }),
    );
    return jobs.length;
  }

  /**
   * Scores exactly these jobs and no other (what an import stored), then says where each stands. Jobs
   * are claimed like any other, so a service running on the same database may take some of them: those
   * are waited for (polling every `pollMs`; a dead node's lease expires and the job is then taken over
   * here). A failed attempt's retry is not waited for: the job is reported `queued` with its reason and
   * the time of its next attempt, which a running service makes. Later trips of the same drivers that these
   * trips put back in the queue (their fatigue context changed) are scored too, though not reported.
   */
  async scoreTrips(
    tripIds: readonly string[],
    options: { onProgress?: (settled: number) => void } = {},
  ): Promise<JobOutcome[]> {
    const asked = new Set(tripIds);
    const open = new Set(tripIds);
    const settled = new Map<string, JobOutcome>();
    const onRequeued = (ids: string[]) => {
      for (const id of ids) open.add(id);
    };
    while (open.size > 0) {
      let claimed = 0;
      const ids = [...open];
      for (let i = 0; i < ids.length; i += CLAIM_CHUNK) {
        const chunk = ids.slice(i, i + CLAIM_CHUNK);
        for (;;) {
          const n = await this.runOnce({ tripIds: chunk, onRequeued });
          if (n === 0) break;
          claimed += n;
        }
      }
      const nowMs = this.#clock();
      const found = new Set<string>();
      for (let i = 0; i < ids.length; i += CLAIM_CHUNK) {
        const rows = await this.#db.db
          .selectFrom('trip_uploads')
          .select(['trip_id', 'status', 'attempts', 'last_error', 'next_attempt_at_ms'])
          .where('trip_id', 'in', ids.slice(i, i + CLAIM_CHUNK))
          .execute();
        for (const row of rows) {
          found.add(row.trip_id);
          const due = Number(row.next_attempt_at_ms) <= nowMs;
          // Still runnable (another claimer got there first and let go, or a lease just expired), or
          // leased by another worker: stays open.
          if (row.status === 'scoring' || (row.status === 'queued' && due)) continue;
          open.delete(row.trip_id);
          if (!asked.has(row.trip_id)) continue;
          settled.set(row.trip_id, {
            tripId: row.trip_id,
            status: row.status,
            attempts: Number(row.attempts),
            reason: row.status === 'scored' ? null : row.last_error,
            nextAttemptAtMs: row.status === 'queued' ? Number(row.next_attempt_at_ms) : null,
          });
        }
      }
      for (const id of ids) {
        if (found.has(id)) continue;
        open.delete(id);
        if (!asked.has(id)) continue;
        settled.set(id, { tripId: id, status: 'absent', attempts: 0, reason: null, nextAttemptAtMs: null });
      }
      options.onProgress?.(settled.size);
      if (open.size > 0 && claimed === 0) await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
    }
    return tripIds.map((id) => settled.get(id)!);
  }

  /** Processes jobs until none is runnable (for the CLI and tests). */
  async drain(): Promise<void> {
    while ((await this.runOnce()) > 0) {}
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let claimed = 0;
      try {
        claimed = await this.runOnce();
      } catch (err) {
        if (isStoreFault(err)) {
          this.#storeFault = err;
          this.#claimsFailed = true;
        } else {
          // Not the store's state but something wrong with the claim itself (a bug, a schema not migrated): an
          // error each time, but after pauses that grow as for a store fault, not at every poll.
          this.#log.error({ err }, 'scoring worker: claiming jobs failed');
          this.#failedClaims++;
          await this.#pause(storeFaultPauseMs(this.#failedClaims, this.#faultPauseMs));
          continue;
        }
      }
      this.#failedClaims = 0;
      if (this.#storeFault) {
        await this.#pauseForStore(this.#storeFault);
        continue;
      }
      // After claims failed (the store out of reach), a claim that went through shows the store answers, jobs or
      // none. After jobs failed (their results could not be written), only a round whose jobs got past the store
      // does: a claim that finds nothing may write no page (a full SQLite file takes it).
      if (this.#faultyRounds > 0 && (claimed > 0 || this.#claimsFailed)) {
        this.#log.info(
          { faultyRounds: this.#faultyRounds, downS: Math.round((this.#clock() - this.#faultySinceMs) / 1000) },
          'the store answers again; scoring goes on',
        );
        this.#faultyRounds = 0;
        this.#claimsFailed = false;
      }
      if (claimed > 0 || !this.#running) continue;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#timer = setTimeout(resolve, this.#pollMs);
      });
    }
  }

  /**
   * After a round in which the store failed: one warning when such a run of rounds begins (not one per job or
   * per poll), then a pause that grows with each faulty round. Uploads arriving meanwhile do not cut it short.
   */
  async #pauseForStore(fault: Error): Promise<void> {
    this.#storeFault = undefined;
    this.#faultReason = fault.message;
    if (this.#faultyRounds++ === 0) {
      this.#faultySinceMs = this.#clock();
      this.#log.warn(
        { reason: fault.message },
        'the store is failing: scoring pauses and tries again; trips keep their attempts meanwhile',
      );
    }
    await this.#pause(storeFaultPauseMs(this.#faultyRounds, this.#faultPauseMs));
  }

  /** Waits `ms` unless stop() comes first; uploads arriving meanwhile do not cut it short. */
  async #pause(ms: number): Promise<void> {
    if (!this.#running) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#endPause = undefined;
  }

  /**
   * Scores one claimed job; returns the later trips its result put back in the queue. `leaseUntilMs` is when the
   * claim expires unless renewed.
   */
  async #process(job: ClaimedJob, leaseUntilMs: number): Promise<string[]> {
    const { tripId, attempts, lease } = job;
    if (attempts > this.#maxAttempts) {
      // Each earlier attempt ended without a verdict (its worker died or hung): likely a poison trip.
      await withWriteTransaction(this.#db.db, async (trx) => {
        const failed = await failJob(trx, {
          tripId,
          lease,
          reason: `scoring did not finish in ${attempts - 1} attempts (the worker stopped or timed out each time)`,
          permanent: true,
          retryAtMs: null,
        });
        // As below: a scored trip queued again that fails for good is no longer served.
        if (failed === 'failed') await withdrawScoredTrip(trx, tripId, this.#clock());
      });
      this.#log.warn({ tripId, attempts }, 'trip could not be scored');
      this.#metrics?.attemptFailed('failed');
      return [];
    }
    // Until when this claim is known to hold, by its last successful renewal: a claim lost before then was not
    // overtaken by the clock but put back in the queue and claimed again (see the LeaseLostError case below).
    let heldUntilMs = leaseUntilMs;
    const renew = setInterval(() => {
      const untilMs = this.#clock() + this.#leaseMs;
      renewLease(this.#db.db, tripId, lease, untilMs).then(
        (held) => {
          if (held) heldUntilMs = untilMs;
        },
        () => {},
      );
    }, this.#leaseMs / 3);
    renew.unref();
    try {
      const upload = await this.#db.db
        .selectFrom('trip_uploads')
        .select([
          'trip_id',
          'fleet_id',
          'vehicle_id',
          'plate',
          'driver_id',
          'telemetry_gz',
          'first_sample_ms',
          'received_at_ms',
          'scored_at_ms',
        ])
        .where('trip_id', '=', tripId)
        .executeTakeFirstOrThrow();
      const previousTrips = await previousTripsOf(this.#db.db, upload);
      const machineType = await machineTypeOfVehicle(this.#db.db, upload.vehicle_id);
      const scoringStart = performance.now();
      const scored = await this.#scorer.score({
        telemetryGz: upload.telemetry_gz,
        previousTrips,
        ...(machineType ? { machineType } : {}),
      });
      const scoringS = (performance.now() - scoringStart) / 1000;
      const { requeued } = await withWriteTransaction(this.#db.db, (trx) =>
        writeScoredTrip(
          trx,
          {
            tripId,
            fleetId: upload.fleet_id,
            vehicleId: upload.vehicle_id,
            plate: upload.plate,
            driverId: upload.driver_id,
          },
          scored,
          { nowMs: this.#clock(), leaseOwner: lease },
        ),
      );
      this.#log.debug({ tripId, overallScore: scored.overallScore, requeued: requeued.length }, 'trip scored');
      // A trip scored before (queued again for its fatigue context) has no upload delay to report.
      const sinceReceivedS =
        upload.scored_at_ms === null ? (this.#clock() - Number(upload.received_at_ms)) / 1000 : null;
      this.#metrics?.tripScored(scoringS, sinceReceivedS);
      if (requeued.length > 0) {
        this.#log.info({ tripId, requeued }, 'later trips of the driver queued again (fatigue context changed)');
      }
      return requeued;
    } catch (err) {
      if (err instanceof LeaseLostError) {
        if (this.#clock() <= heldUntilMs) {
          // An earlier trip of the driver arrived meanwhile (the trip went back in the queue), and another claim,
          // here or on another node, took it and scores it with the full context: nothing went wrong.
          this.#log.debug({ tripId }, 'queued again while it was scored and claimed again; that claim scores it');
        } else {
          this.#log.warn({ tripId }, 'scoring took longer than the lease; another worker owns the job now');
        }
        return [];
      }
      if (err instanceof RequeuedWhileScoringError) {
        this.#log.debug({ tripId }, 'an earlier trip arrived while this one was scored; it is scored again');
        return [];
      }
      if (err instanceof LocationDataDeletedError) {
        this.#log.info({ tripId }, 'location data deleted while the trip was scored; result dropped');
        return [];
      }
      if (isStoreFault(err)) {
        await this.#releaseAfterStoreFault(job, err);
        return [];
      }
      const reason = err instanceof Error ? err.message : String(err);
      const unreadable = isStoredTelemetryUnreadable(err);
      if (unreadable && (await this.#keepScore(tripId, lease, reason))) {
        this.#metrics?.attemptFailed('failed');
        return [];
      }
      // Damaged storage is not retried (no attempt can read it), but it is no verdict of the model either.
      const permanent = isPermanentScoringError(err) || unreadable;
      const exhausted = attempts >= this.#maxAttempts;
      const retryAtMs = permanent || exhausted ? null : this.#clock() + retryDelayMs(attempts);
      const finalReason = exhausted && !permanent ? `${reason} (gave up after ${attempts} attempts)` : reason;
      try {
        const status = await withWriteTransaction(this.#db.db, async (trx) => {
          const failed = await failJob(trx, { tripId, lease, reason: finalReason, permanent, retryAtMs });
          // A trip scored before and queued again (an earlier trip of its driver arrived) that fails for good
          // leaves the scored list with it, as rescore takes out a trip the model can no longer score: a
          // failed upload is never served.
          if (failed === 'failed') await withdrawScoredTrip(trx, tripId, this.#clock());
          // The model's own verdict is recorded with it: `trips rescore` tries the trip again only under another
          // model (or with --all), not every time it runs.
          if (failed === 'failed' && permanent && !unreadable) {
            await markJudgedBy(trx, tripId, this.#scorer.modelVersion);
          }
          return failed;
        });
        const line = { tripId, attempts, status, reason };
        // The engine's own refusal (TripNotScorableError, also as rebuilt from a scoring thread, by its name).
        const verdict = isPermanentScoringError(err) && !unreadable;
        if (status === null)
          this.#log.info(line, 'scoring failed, but the job was queued again or taken over meanwhile');
        // The model's verdict on the data (a car moved across a car park, an upload without GPS) is an outcome
        // of normal operation, kept with its reason for `trips queue status` and the import summary; a warning
        // is for what an operator should look at (retries exhausted, telemetry that cannot be read).
        else if (status === 'failed' && verdict) this.#log.info(line, 'trip not scorable');
        else if (status === 'failed') this.#log.warn(line, 'trip could not be scored');
        else this.#log.info(line, 'scoring failed; will retry');
        if (status !== null) {
          this.#metrics?.attemptFailed(status === 'queued' ? 'retry' : verdict ? 'not_scorable' : 'failed');
        }
        if (!permanent) {
          this.#log.debug({ err }, 'scoring error detail');
        }
      } catch (recordErr) {
        this.#log.error({ err: recordErr, tripId }, 'could not record a scoring failure; the lease will expire');
      }
      return [];
    } finally {
      clearInterval(renew);
    }
  }
  /**
   * A job whose attempt failed because of the store (reading the upload, storing the result): back in the queue
   * with its attempt given back, due after the loop's next pause, its reason recorded for `trips queue status`.
   * When the store cannot take even that write, the job is put back before the next claim (#unreleased); only if
   * the store stays away past the lease, or this process ends first, does a later claim count another attempt.
   */
  async #releaseAfterStoreFault(job: ClaimedJob, fault: Error): Promise<void> {
    this.#storeFault = fault;
    this.#claimsFailed = false;
    this.#metrics?.attemptFailed('store_fault');
    try {
      await this.#release(job, fault);
    } catch (releaseErr) {
      this.#log.debug({ tripId: job.tripId, err: releaseErr }, 'could not put the job back yet after a store fault');
      this.#unreleased.push({ job, fault });
    }
  }

  async #release(job: ClaimedJob, fault: Error): Promise<void> {
    const released = await releaseJob(this.#db.db, {
      tripId: job.tripId,
      lease: job.lease,
      reason: `the store failed, not the trip; retried without counting an attempt: ${fault.message}`,
      retryAtMs: this.#clock() + storeFaultPauseMs(this.#faultyRounds + 1, this.#faultPauseMs),
    });
    this.#log.debug({ tripId: job.tripId, released, reason: fault.message }, 'scoring attempt ended by a store fault');
  }

  /** Puts back the jobs a store fault left claimed (see #unreleased); throws the store's error while it fails. */
  async #releasePending(): Promise<void> {
    while (this.#unreleased.length > 0) {
      const { job, fault } = this.#unreleased[0]!;
      await this.#release(job, fault);
      this.#unreleased.shift();
    }
  }

  /**
   * A trip queued again (an earlier trip of its driver arrived) whose stored telemetry can no longer be read:
   * its score, computed when the telemetry was whole, stays served, and the upload goes back to `scored` with
   * the reason, rather than failing and leaving /v1 over damaged storage. False when the trip was never scored
   * (or the claim was lost): then it fails as usual.
   */
  async #keepScore(tripId: string, lease: string, reason: string): Promise<boolean> {
    const kept = await withWriteTransaction(this.#db.db, async (trx) => {
      const scored = await trx.selectFrom('trips').select('trip_id').where('trip_id', '=', tripId).executeTakeFirst();
      if (!scored) return false;
      const r = await trx
        .updateTable('trip_uploads')
        .set({ status: 'scored', lease_owner: null, last_error: reason.slice(0, 2000), next_attempt_at_ms: 0 })
        .where('trip_id', '=', tripId)
        .where('lease_owner', '=', lease)
        .executeTakeFirst();
      return r.numUpdatedRows > 0n;
    });
    if (kept) {
      this.#log.warn(
        { tripId, reason },
        'stored telemetry cannot be read; the trip keeps the score it has (restore its upload from a backup to score it again)',
      );
    }
    return kept;
  }
}
