import { NotFoundError, withTransaction } from '@svc/platform';
import type { Kysely, Transaction } from 'kysely';
import { checkDriverId } from './drivers.ts';
import { requireFleet } from './fleets.ts';
import type { LocationDeletionReason, TripsSchema, UploadStatus } from './schema.ts';
import { LIST_COLUMNS, type TripListRow, tripItemJson } from './trip-item.ts';

/**
 * Deleting location data while keeping the scores. A trip's raw telemetry (every GPS fix and IMU sample, kept
 * so that trips can be scored again) and its route (the matched path and the trace, served by
 * `/v1/trips/{id}/route`) say where a person drove and when; its scores, breakdown and summary metrics do not.
 * Two operations delete the former and keep the latter:
 *
 * - `deleteLocationData`: retention. Trips that started before a cutoff lose their telemetry and route.
 * - `eraseDriver`: a driver's erasure. Their trips lose telemetry and route and no longer name them, and the
 *   driver's registration goes; the trips stay in their vehicle's and fleet's sums, as trips without an
 *   identified driver.
 *
 * Both work in batches, each one transaction: a batch's trips are changed together or not at all, a crash
 * leaves whole batches, and running the operation again finishes the rest. A trip whose location data is gone
 * can no longer be scored again: `rescore` keeps its score, `queue retry` leaves it failed.
 */

/** The telemetry column of an upload whose telemetry was deleted. */
const NO_TELEMETRY = Buffer.alloc(0);

interface Cursor {
  startMs: number;
  tripId: string;
}

export interface LocationDeletionResult {
  /** Uploads whose telemetry was deleted (scored trips, and failed uploads that never were). */
  uploads: number;
  /** Of those, scored trips that also lost their route. */
  trips: number;
}

/**
 * Deletes the telemetry, and the routes, of the trips that started before `beforeMs` (optionally in one
 * fleet): scored trips and failed uploads. Trips still queued or being scored keep theirs until they are
 * scored; the next pass takes them. With `dryRun`, counts what would go and changes nothing.
 */
export async function deleteLocationData(
  db: Kysely<TripsSchema>,
  options: { beforeMs: number; nowMs: number; fleetId?: string | undefined; dryRun?: boolean; batchSize?: number },
): Promise<LocationDeletionResult> {
  if (options.fleetId !== undefined) await requireFleet(db, options.fleetId);
  const batchSize = options.batchSize ?? 500;
  const result: LocationDeletionResult = { uploads: 0, trips: 0 };
  // Keyset over the index of kept telemetry (start time, trip id): queued uploads in the range are passed
  // over once, not read again by every batch.
  let after: Cursor | null = null;
  for (;;) {
    const cursor = after;
    const batch: Array<{ trip_id: string; first_sample_ms: number; status: UploadStatus }> = await db
      .selectFrom('trip_uploads')
      .select(['trip_id', 'first_sample_ms', 'status'])
      .where('telemetry_deleted_at_ms', 'is', null)
      .where('first_sample_ms', '<', options.beforeMs)
      .$if(cursor !== null, (q) =>
        q.where((eb) =>
          eb.or([
            eb('first_sample_ms', '>', cursor!.startMs),
            eb.and([eb('first_sample_ms', '=', cursor!.startMs), eb('trip_id', '>', cursor!.tripId)]),
          ]),
        ),
      )
      .$if(options.fleetId !== undefined, (q) => q.where('fleet_id', '=', options.fleetId!))
      .orderBy('first_sample_ms')
      .orderBy('trip_id')
      .limit(batchSize)
      .execute();
    if (batch.length === 0) break;
    const last = batch.at(-1)!;
    after = { startMs: Number(last.first_sample_ms), tripId: last.trip_id };
    const ids = batch.filter((u) => u.status === 'scored' || u.status === 'failed').map((u) => u.trip_id);
    if (ids.length === 0) continue;
    if (options.dryRun) {
      result.uploads += ids.length;
      result.trips += await countScored(db, ids);
      continue;
    }
    const done = await withTransaction(db, (trx) => deleteUploadsLocations(trx, ids, options.nowMs, 'retention'));
    result.uploads += done.uploads;
    result.trips += done.trips;
  }
  return result;
}

async function countScored(db: Kysely<TripsSchema>, ids: readonly string[]): Promise<number> {
  const row = await db
    .selectFrom('trips')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('trip_id', 'in', ids)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Inside a transaction: deletes the telemetry of those of `ids` that are scored or failed uploads still
 * holding it (checked again here: a requeue or a rescore may have come in between), and the routes of their
 * scored trips, recording why.
 */
async function deleteUploadsLocations(
  trx: Transaction<TripsSchema>,
  ids: readonly string[],
  nowMs: number,
  reason: LocationDeletionReason,
): Promise<LocationDeletionResult> {
  const changed = await trx
    .updateTable('trip_uploads')
    .set({ telemetry_gz: NO_TELEMETRY, telemetry_deleted_at_ms: nowMs })
    .where('trip_id', 'in', ids)
    .where('telemetry_deleted_at_ms', 'is', null)
    .where('status', 'in', ['scored', 'failed'])
    .returning('trip_id')
    .execute();
  if (changed.length === 0) return { uploads: 0, trips: 0 };
  const changedIds = changed.map((r) => r.trip_id);
  const trips = await markTripsDeleted(trx, changedIds, nowMs, reason);
  return { uploads: changed.length, trips };
}

/** Deletes the routes of the scored trips among `ids` and records the deletion; returns how many trips. */
async function markTripsDeleted(
  trx: Transaction<TripsSchema>,
  ids: readonly string[],
  nowMs: number,
  reason: LocationDeletionReason,
): Promise<number> {
  await trx.deleteFrom('trip_routes').where('trip_id', 'in', ids).execute();
  const inserted = await trx
    .insertInto('trip_location_deletions')
    .columns(['trip_id', 'deleted_at_ms', 'reason'])
    .expression((eb) =>
      eb
        .selectFrom('trips')
        .select((s) => ['trips.trip_id', s.val(nowMs).as('deleted_at_ms'), s.val(reason).as('reason')])
        .where('trips.trip_id', 'in', ids),
    )
    .onConflict((oc) => oc.column('trip_id').doNothing())
    .returning('trip_id')
    .execute();
  return inserted.length;
}

export interface DriverErasureResult {
  /** Trips (scored or not) that named the driver and no longer do. */
  trips: number;
  /**
   * Uploads not yet scored that were dropped (failed, telemetry deleted) rather than scored later. A scored trip
   * queued again (fatigue-followers.ts) is not one of them: it keeps its score and is `scored` again.
   */
  unscored: number;
  /** Whether the driver's registration (id and name) was deleted; false when it was already gone. */
  registrationDeleted: boolean;
}

/** What `eraseDriver` would change, for a dry run. */
export async function driverDataCounts(
  db: Kysely<TripsSchema>,
  input: { fleetId: string; driverId: string },
): Promise<{ trips: number; unscored: number; registered: boolean }> {
  checkDriverId(input.driverId);
  await requireFleet(db, input.fleetId);
  // Waiting uploads that are scored trips queued again keep their score (see eraseDriver): not counted as
  // dropped.
  const rows = await db
    .selectFrom('trip_uploads')
    .leftJoin('trips', 'trips.trip_id', 'trip_uploads.trip_id')
    .select((eb) => [
      'trip_uploads.status',
      eb.fn.countAll<number>().as('n'),
      eb.fn.count<number>('trips.trip_id').as('listed'),
    ])
    .where('trip_uploads.fleet_id', '=', input.fleetId)
    .where('trip_uploads.driver_id', '=', input.driverId)
    .groupBy('trip_uploads.status')
    .execute();
  const registered = await db
    .selectFrom('drivers')
    .select('driver_id')
    .where('fleet_id', '=', input.fleetId)
    .where('driver_id', '=', input.driverId)
    .executeTakeFirst();
  if (!registered && rows.length === 0) {
    throw new NotFoundError(`driver ${input.driverId} not found in fleet ${input.fleetId}`);
  }
  let trips = 0;
  let unscored = 0;
  for (const r of rows) {
    trips += Number(r.n);
    if (r.status === 'queued' || r.status === 'scoring') unscored += Number(r.n) - Number(r.listed);
  }
  return { trips, unscored, registered: registered !== undefined };
}

/**
 * Erases a driver's personal data in a fleet: every upload and scored trip that names them loses its
 * telemetry and route and is kept without a driver (`driverId: null`, in their vehicle's and fleet's sums as
 * before), uploads not yet scored are dropped as failed (scoring them would need the telemetry), and the
 * driver's registration (id, name) is deleted. The per-driver sums follow by trigger, in the same
 * transactions. Telemetry naming the id later registers it again, as any new driver.
 */
export async function eraseDriver(
  db: Kysely<TripsSchema>,
  input: { fleetId: string; driverId: string; nowMs: number; batchSize?: number },
): Promise<DriverErasureResult> {
  // Throws for a driver the fleet does not know (neither registered nor named by any upload).
  await driverDataCounts(db, input);
  const batchSize = input.batchSize ?? 500;
  const result: DriverErasureResult = { trips: 0, unscored: 0, registrationDeleted: false };
  for (;;) {
    const done = await withTransaction(db, async (trx) => {
      const batch = await trx
        .selectFrom('trip_uploads')
        .select(['trip_id', 'status'])
        .where('fleet_id', '=', input.fleetId)
        .where('driver_id', '=', input.driverId)
        .orderBy('trip_id')
        .limit(batchSize)
        .execute();
      if (batch.length === 0) {
        // Last: the registration goes once nothing names the driver any more.
        const deleted = await trx
          .deleteFrom('drivers')
          .where('fleet_id', '=', input.fleetId)
          .where('driver_id', '=', input.driverId)
          .executeTakeFirst();
        result.registrationDeleted = deleted.numDeletedRows > 0n;
        return { trips: 0, unscored: 0 };
      }
      const ids = batch.map((u) => u.trip_id);
      const waiting = batch.filter((u) => u.status === 'queued' || u.status === 'scoring').map((u) => u.trip_id);
      // A waiting upload may be a scored trip queued again (an earlier trip of its driver arrived, see
      // fatigue-followers.ts): it is listed with its score, which it keeps as every scored trip of the driver
      // does, so it is scored again no more and is `scored`, not failed, wherever its status is read.
      const listed = new Set(
        waiting.length === 0
          ? []
          : (await trx.selectFrom('trips').select('trip_id').where('trip_id', 'in', waiting).execute()).map(
              (r) => r.trip_id,
            ),
      );
      const unscored = waiting.filter((id) => !listed.has(id));
      // A worker scoring one of these loses its lease and drops the result (writeScoredTrip checks both).
      if (listed.size > 0) {
        await trx
          .updateTable('trip_uploads')
          .set({ status: 'scored', lease_owner: null, last_error: null })
          .where('trip_id', 'in', [...listed])
          .execute();
      }
      if (unscored.length > 0) {
        await trx
          .updateTable('trip_uploads')
          .set({
            status: 'failed',
            lease_owner: null,
            last_error: 'not scored: the data of its driver was erased before it was scored',
          })
          .where('trip_id', 'in', unscored)
          .execute();
      }
      await trx
        .updateTable('trip_uploads')
        .set({ driver_id: null, telemetry_gz: NO_TELEMETRY, telemetry_deleted_at_ms: input.nowMs })
        .where('trip_id', 'in', ids)
        .where('telemetry_deleted_at_ms', 'is', null)
        .execute();
      // Uploads whose telemetry had already gone (retention) keep that time; they only lose the driver.
      await trx.updateTable('trip_uploads').set({ driver_id: null }).where('trip_id', 'in', ids).execute();
      await unlinkScoredTrips(trx, ids);
      // A trip whose route had already gone under retention keeps that record.
      await markTripsDeleted(trx, ids, input.nowMs, 'driver-erased');
      return { trips: ids.length, unscored: unscored.length };
    });
    // Counted once committed (a transaction retried after a conflict runs its callback again).
    if (done.trips === 0) break;
    result.trips += done.trips;
    result.unscored += done.unscored;
  }
  return result;
}

/** Sets the driver of the scored trips among `ids` to none, with their stored list items. */
async function unlinkScoredTrips(trx: Transaction<TripsSchema>, ids: readonly string[]): Promise<void> {
  const rows = (await trx
    .selectFrom('trips')
    .select([...LIST_COLUMNS])
    .where('trip_id', 'in', ids)
    .execute()) as TripListRow[];
  for (const row of rows) {
    const unlinked = { ...row, driver_id: null };
    await trx
      .updateTable('trips')
      .set({ driver_id: null, item_json: tripItemJson(unlinked) })
      .where('trip_id', '=', row.trip_id)
      .execute();
  }
}
