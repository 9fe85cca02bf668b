import { withTransaction } from '@svc/platform';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import { previousTripsOf } from '../store/previous-trips.ts';
import { LocationDataDeletedError, removeScoredTrip, writeScoredTrip } from '../store/scored-trips.ts';
import { isPermanentScoringError, type TripScorer } from './trip-scorer.ts';

export interface RescoreOptions {
  /** Every stored trip; by default only trips scored by another model version, and failed ones. */
  all?: boolean;
  batchSize?: number;
  /** Trips scored at once (match the scorer's threads). */
  concurrency?: number;
  clock?: () => number;
  onProgress?: (done: number, total: number) => void;
}

export interface RescoreResult {
  runId: number;
  resumed: boolean;
  modelVersion: string;
  rescored: number;
  failed: number;
  total: number;
  /**
   * Trips this run would have taken whose location data was deleted (retention, a driver's erasure): they
   * cannot be scored again and keep the score they have.
   */
  keptWithoutTelemetry: number;
}

/**
 * Recomputes stored trips with the current scoring model, from their stored telemetry. Resumable: the
 * run records the last trip id done (trips are taken in id order), so an interrupted rescore started
 * again with the same options continues where it stopped. Each trip is replaced in its own transaction
 * (trip, breakdown, route and day counts together); a trip the new model cannot score is kept as a
 * failed upload with the reason, and leaves the scored list. Trips whose telemetry was deleted
 * (store/location-data.ts) cannot be scored again: they keep their score and are counted apart.
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
  const open = await db
    .selectFrom('rescore_runs')
    .selectAll()
    .where('finished_at_ms', 'is', null)
    .where('model_version', '=', modelVersion)
    .where('all_trips', '=', all ? 1 : 0)
    .orderBy('run_id', 'desc')
    .executeTakeFirst();
  let run = open;
  if (!run) {
    run = await db
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
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  const runId = run.run_id;
  let cursor = run.cursor;
  let rescored = run.rescored;
  let failed = run.failed;

  const selected = () => {
    let q = db.selectFrom('trip_uploads').where('trip_id', '>', cursor).where('status', 'in', ['scored', 'failed']);
    if (!all) q = q.where((eb) => eb.or([eb('model_version', 'is', null), eb('model_version', '<>', modelVersion)]));
    return q;
  };
  const candidates = () => selected().where('telemetry_deleted_at_ms', 'is', null);
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
  const total = rescored + failed + remaining;
  options.onProgress?.(rescored + failed, total);

  const batchSize = options.batchSize ?? 50;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  for (;;) {
    const batch = await candidates()
      .select(['trip_id', 'fleet_id', 'vehicle_id', 'plate', 'driver_id', 'telemetry_gz', 'first_sample_ms'])
      .orderBy('trip_id')
      .limit(batchSize)
      .execute();
    if (batch.length === 0) break;
    for (let i = 0; i < batch.length; i += concurrency) {
      await Promise.all(
        batch.slice(i, i + concurrency).map(async (upload) => {
          const ref = {
            tripId: upload.trip_id,
            fleetId: upload.fleet_id,
            vehicleId: upload.vehicle_id,
            plate: upload.plate,
            driverId: upload.driver_id,
          };
          try {
            const previousTrips = await previousTripsOf(db, upload);
            const scored = await scorer.score({ telemetryGz: upload.telemetry_gz, previousTrips });
            await withTransaction(db, (trx) => writeScoredTrip(trx, ref, scored, { nowMs: clock() }));
            rescored++;
          } catch (err) {
            if (err instanceof LocationDataDeletedError) {
              // Deleted after this batch was read: the stored score stays.
              keptWithoutTelemetry++;
              return;
            }
            if (!isPermanentScoringError(err)) throw err;
            const reason = err instanceof Error ? err.message : String(err);
            await withTransaction(db, async (trx) => {
              await removeScoredTrip(trx, upload.trip_id);
              await trx
                .updateTable('trip_uploads')
                .set({ status: 'failed', last_error: reason, model_version: null, scored_at_ms: null })
                .where('trip_id', '=', upload.trip_id)
                .execute();
            });
            failed++;
          }
        }),
      );
    }
    cursor = batch.at(-1)!.trip_id;
    await db.updateTable('rescore_runs').set({ cursor, rescored, failed }).where('run_id', '=', runId).execute();
    options.onProgress?.(rescored + failed, total);
  }
  await db.updateTable('rescore_runs').set({ finished_at_ms: clock() }).where('run_id', '=', runId).execute();
  return { runId, resumed: open !== undefined, modelVersion, rescored, failed, total, keptWithoutTelemetry };
}
