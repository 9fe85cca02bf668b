import { randomBytes } from 'node:crypto';
import { dialectOf } from '@svc/platform';
import { type Kysely, sql } from 'kysely';
import type { TripsSchema, UploadStatus } from './schema.ts';

/**
 * The scoring queue is the trip_uploads table itself: an accepted upload is a queued job in the same
 * row and the same commit, so no trip can be acknowledged without being queued or queued without being
 * stored. One implementation serves both dialects: on PostgreSQL claims use FOR UPDATE SKIP LOCKED so
 * several nodes' workers take different jobs; SQLite has a single writer, so the claim statement is
 * atomic by itself. A claimed job carries a lease (next_attempt_at_ms is its expiry): a worker that
 * dies mid-job loses it, and the job runs again elsewhere.
 */
export interface ClaimedJob {
  tripId: string;
  attempts: number;
  /**
   * The lease token written to lease_owner: the worker's name and a nonce of this claim. Every claim has its
   * own, so a result of an earlier claim of the same job (its lease expired, or the job was put back in the
   * queue meanwhile) cannot be stored over a newer one, even by the same worker.
   */
  lease: string;
}

/**
 * Takes up to `limit` runnable jobs (queued and due, or leased and expired) for `owner`; with `tripIds`,
 * only among those (an import scoring what it stored, and nobody else's uploads). The same lease and
 * SKIP LOCKED rules apply, so a running service and the importer never hold one job at once.
 */
export async function claimJobs(
  db: Kysely<TripsSchema>,
  options: { owner: string; limit: number; leaseMs: number; nowMs: number; tripIds?: readonly string[] },
): Promise<ClaimedJob[]> {
  const pg = dialectOf(db) === 'postgres';
  const lock = pg ? sql`for update skip locked` : sql``;
  if (options.tripIds?.length === 0) return [];
  const only = options.tripIds ? sql`and trip_id in (${sql.join(options.tripIds)})` : sql``;
  const lease = `${options.owner}/${randomBytes(6).toString('hex')}`;
  const result = await sql<{ trip_id: string; attempts: number }>`
    update trip_uploads
       set status = 'scoring',
           lease_owner = ${lease},
           attempts = attempts + 1,
           next_attempt_at_ms = ${options.nowMs + options.leaseMs}
     where trip_id in (
       select trip_id from trip_uploads
        where status in ('queued', 'scoring') and next_attempt_at_ms <= ${options.nowMs}
          ${only}
        order by next_attempt_at_ms
        limit ${options.limit}
        ${lock}
     )
     returning trip_id, attempts`.execute(db);
  return result.rows.map((r) => ({ tripId: r.trip_id, attempts: Number(r.attempts), lease }));
}

/** Extends the lease of a job still being worked on (`lease`: the claim's token); false when it was lost. */
export async function renewLease(
  db: Kysely<TripsSchema>,
  tripId: string,
  lease: string,
  untilMs: number,
): Promise<boolean> {
  const r = await db
    .updateTable('trip_uploads')
    .set({ next_attempt_at_ms: untilMs })
    .where('trip_id', '=', tripId)
    .where('lease_owner', '=', lease)
    .where('status', '=', 'scoring')
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Records a failed attempt of the claim holding `lease`: back to the queue at `retryAtMs`, or `failed` with
 * the reason for good when `permanent` (the trip cannot be scored, retrying will not help) or attempts are
 * exhausted. Returns the job's new status, or null when the claim no longer held the job (nothing changed).
 */
export async function failJob(
  db: Kysely<TripsSchema>,
  job: { tripId: string; lease: string; reason: string; permanent: boolean; retryAtMs: number | null },
): Promise<UploadStatus | null> {
  const status: UploadStatus = job.permanent || job.retryAtMs === null ? 'failed' : 'queued';
  const r = await db
    .updateTable('trip_uploads')
    .set({
      status,
      lease_owner: null,
      last_error: job.reason.slice(0, 2000),
      next_attempt_at_ms: job.retryAtMs ?? 0,
    })
    .where('trip_id', '=', job.tripId)
    .where('lease_owner', '=', job.lease)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n ? status : null;
}

/**
 * Puts the job of the claim holding `lease` back in the queue, due at `retryAtMs`, and gives back the attempt its
 * claim counted: the attempt failed because of the store (unavailable, full, a conflict), which says nothing
 * about the trip, so it must not bring the trip nearer to failing for good. Returns false when the claim no
 * longer held the job (nothing changed).
 */
export async function releaseJob(
  db: Kysely<TripsSchema>,
  job: { tripId: string; lease: string; reason: string; retryAtMs: number },
): Promise<boolean> {
  const r = await db
    .updateTable('trip_uploads')
    .set((eb) => ({
      status: 'queued',
      lease_owner: null,
      // The claim counted one, so it is at least 1 here; the guard only keeps a hand-edited row from going negative.
      attempts: sql<number>`case when ${eb.ref('attempts')} > 0 then ${eb.ref('attempts')} - 1 else 0 end`,
      last_error: job.reason.slice(0, 2000),
      next_attempt_at_ms: job.retryAtMs,
    }))
    .where('trip_id', '=', job.tripId)
    .where('lease_owner', '=', job.lease)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Records on a failed upload the model version that found it unscorable (a permanent failure), as a scored
 * upload records the model that scored it: rescore (scoring/rescore.ts) takes it again only under another model.
 * A failure that was not the model's verdict (attempts exhausted, the engine unavailable) leaves it null.
 */
export async function markJudgedBy(db: Kysely<TripsSchema>, tripId: string, modelVersion: string): Promise<void> {
  await db.updateTable('trip_uploads').set({ model_version: modelVersion }).where('trip_id', '=', tripId).execute();
}

/**
 * Puts failed (or all non-queued) uploads back in the queue, e.g. after a fix to the scoring engine. Uploads
 * whose telemetry was deleted (store/location-data.ts) stay as they are: there is nothing left to score.
 */
export async function requeue(
  db: Kysely<TripsSchema>,
  filter: { tripIds?: string[]; failedOnly?: boolean },
  nowMs: number,
): Promise<number> {
  let q = db
    .updateTable('trip_uploads')
    .set({ status: 'queued', attempts: 0, next_attempt_at_ms: nowMs, lease_owner: null })
    .where('telemetry_deleted_at_ms', 'is', null);
  if (filter.failedOnly !== false) q = q.where('status', '=', 'failed');
  if (filter.tripIds) q = q.where('trip_id', 'in', filter.tripIds);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Uploads per status, for operators. */
export async function queueCounts(db: Kysely<TripsSchema>): Promise<Record<UploadStatus, number>> {
  const rows = await db
    .selectFrom('trip_uploads')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const counts: Record<UploadStatus, number> = { queued: 0, scoring: 0, scored: 0, failed: 0 };
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}
