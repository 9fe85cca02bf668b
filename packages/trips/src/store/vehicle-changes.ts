import { dialectOf, NotFoundError, UniqueViolationError, withTransaction } from '@svc/platform';
import { type Kysely, sql, type Transaction } from 'kysely';
import { AlreadyExistsError, InvalidInputError } from '../errors.ts';
import type { TripsSchema } from './schema.ts';
import { removeScoredTrips } from './scored-trips.ts';
import { alreadyExists, parsePlate, type Vehicle, vehicleOfRow } from './vehicles.ts';
import { withWriteTransaction } from './write-transaction.ts';

/**
 * Changes to a registered vehicle that reach its trips: a new plate (`renameVehicle`), and deletion with all of
 * its data (`deleteVehicle`). Its machine type, make and model are changed by `updateVehicle` (vehicles.ts),
 * which touches no trip.
 *
 * A trip carries its vehicle's plate in its row, in its stored list item, in the ingest's upload row and in the
 * per-vehicle sums (`vehicle_stats`, keyed by plate), so that a page of `/v1/trips?vehicle=` and a profile read
 * no other table. A rename therefore rewrites them all, in one transaction: no reader ever sees a vehicle whose
 * history is split between two plates, and a rename interrupted leaves the old plate everywhere.
 */

export interface VehicleRenameResult {
  vehicle: Vehicle;
  previousPlate: string;
  /** Scored trips now listed under the new plate. */
  trips: number;
  /** Uploads (scored or not) now stored under it. */
  uploads: number;
}

/**
 * Gives a vehicle a new plate (a mistyped one corrected, a vehicle re-registered), keeping its id, fleet, device
 * keys and every trip: its trips, their list items, uploads and per-vehicle sums move to the new plate in one
 * write transaction. The old plate is then free, and names nothing: `/v1/vehicles/<old>` answers 404 and an
 * upload naming it is refused, while a device key bound to the vehicle goes on working (its uploads name no
 * plate). Per-fleet and per-driver sums are not touched (their triggers do not fire on a plate, migration 0018);
 * the vehicle's sums move from the old plate's buckets to the new one's with its trips.
 *
 * Concurrent writers: an upload being stored checks the vehicle and takes its current plate inside its own
 * transaction (accept-upload.ts), and a scored trip takes its upload's plate when it is written (scored-trips.ts),
 * so neither writes the old plate after the rename has committed. On PostgreSQL a scoring worker writing one of
 * the vehicle's trips at the same moment can deadlock with the rename (each holding uploads the other needs: the
 * worker's trip and the later trips it puts back in the queue); PostgreSQL stops one of them and its transaction
 * is retried.
 */
export async function renameVehicle(
  db: Kysely<TripsSchema>,
  input: { plate: string; to: string },
): Promise<VehicleRenameResult> {
  const from = parsePlate(input.plate);
  const to = parsePlate(input.to);
  if (from === to) throw new InvalidInputError(`vehicle ${from} already has plate ${to}: nothing to change`);
  try {
    return await withWriteTransaction(db, async (trx) => {
      const row = await trx.selectFrom('vehicles').selectAll().where('plate', '=', from).executeTakeFirst();
      if (!row) throw new NotFoundError(`vehicle ${from} does not exist (see vehicles list)`);
      const taken = await trx.selectFrom('vehicles').select('fleet_id').where('plate', '=', to).executeTakeFirst();
      if (taken) throw new AlreadyExistsError(alreadyExists(to, taken.fleet_id, row.fleet_id));
      // The vehicle's uploads and trips move first, with its row not yet locked: on PostgreSQL an upload being
      // stored for it locks that row for share, so locking it first held every upload of the vehicle for the whole
      // move (some 8 s for 7,400 trips, 23 s before the sums triggers were narrowed). Each row moved stays locked
      // until the commit, so a scoring worker writing one of these trips waits and then takes the new plate.
      let uploads = await moveUploads(trx, row.fleet_id, from, to);
      let trips = await movePlateOfTrips(trx, row.fleet_id, from, to);
      if (dialectOf(trx) === 'postgres') {
        // Now the row, in a mode that waits for the uploads being stored for it and holds off new ones, but not
        // scoring workers (their foreign key locks it for key share only). What was stored or scored under the old
        // plate meanwhile is moved by the statements that follow, which see everything committed before them.
        // (SQLite's write lock, taken first, orders all writers: nothing can have come meanwhile.)
        const locked = await trx
          .selectFrom('vehicles')
          .select('plate')
          .where('vehicle_id', '=', row.vehicle_id)
          .forNoKeyUpdate()
          .executeTakeFirst();
        // Renamed or deleted by another command meanwhile: this one changes nothing.
        if (locked?.plate !== from) throw new NotFoundError(`vehicle ${from} does not exist (see vehicles list)`);
        uploads += await moveUploads(trx, row.fleet_id, from, to);
        trips += await movePlateOfTrips(trx, row.fleet_id, from, to);
      }
      // Every trip left the old plate's buckets: what is left of them are zero counts (and the rounding residue
      // of float sums), which a later vehicle registered under the old plate must not inherit.
      await trx.deleteFrom('vehicle_stats').where('fleet_id', '=', row.fleet_id).where('plate', '=', from).execute();
      await trx.updateTable('vehicles').set({ plate: to }).where('vehicle_id', '=', row.vehicle_id).execute();
      return {
        vehicle: vehicleOfRow({ ...row, plate: to }),
        previousPlate: from,
        trips,
        uploads,
      };
    });
  } catch (err) {
    // Registered by someone else between the look-up and the update.
    if (err instanceof UniqueViolationError) throw new AlreadyExistsError(alreadyExists(to, null, ''));
    throw err;
  }
}

/** Moves the fleet's uploads under `from` to `to`; returns how many. */
async function moveUploads(trx: Transaction<TripsSchema>, fleetId: string, from: string, to: string) {
  // By fleet and plate (the index the vehicle's list and fatigue look-ups use), not by vehicle id, which
  // `trips` and `trip_uploads` do not index: every row under the plate in its fleet is this vehicle's.
  const moved = await trx
    .updateTable('trip_uploads')
    .set({ plate: to })
    .where('fleet_id', '=', fleetId)
    .where('plate', '=', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows);
}

/**
 * Rewrites the plate and stored list item of the fleet's scored trips under `from`; returns how many. One statement:
 * the per-vehicle sums trigger (the only one a plate fires, migration 0018) runs for every row inside the database,
 * not one round trip per trip. The list item is the JSON of tripItemJson (trip-item.ts) with only its `vehicle`
 * member changed, so that member is replaced in place: `"vehicle":"<plate>"` can occur nowhere else in it, a quote
 * inside any string value being escaped.
 */
async function movePlateOfTrips(trx: Transaction<TripsSchema>, fleetId: string, from: string, to: string) {
  const member = (plate: string) => `"vehicle":${JSON.stringify(plate)}`;
  const moved = await trx
    .updateTable('trips')
    .set({
      plate: to,
      item_json: sql<string>`replace(item_json, ${member(from)}, ${member(to)})`,
    })
    .where('fleet_id', '=', fleetId)
    .where('plate', '=', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows);
}

export interface VehicleDeletionCounts {
  /** Scored trips (breakdowns, routes and summaries with them). */
  trips: number;
  /** Uploads, scored or not, with their telemetry. */
  uploads: number;
  /** Device keys bound to the vehicle: revoked first, deleted with it. */
  deviceKeys: number;
}

/** What deleteVehicle would delete, for a dry run. */
export async function vehicleDeletionCounts(
  db: Kysely<TripsSchema>,
  plateInput: string,
): Promise<VehicleDeletionCounts & { vehicle: Vehicle }> {
  const plate = parsePlate(plateInput);
  const row = await db.selectFrom('vehicles').selectAll().where('plate', '=', plate).executeTakeFirst();
  if (!row) throw new NotFoundError(`vehicle ${plate} does not exist (see vehicles list)`);
  const count = async (table: 'trips' | 'trip_uploads') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('fleet_id', '=', row.fleet_id)
          .where('plate', '=', plate)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const keys = await db
    .selectFrom('ingest_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('vehicle_id', '=', row.vehicle_id)
    .executeTakeFirstOrThrow();
  return {
    vehicle: vehicleOfRow(row),
    trips: await count('trips'),
    uploads: await count('trip_uploads'),
    deviceKeys: Number(keys.n),
  };
}

/**
 * Deletes a vehicle and everything of it: its trips (breakdowns, routes, summaries), its uploads and their
 * telemetry, its per-vehicle sums and its device keys; the fleet's and its drivers' sums and the day counts lose
 * its trips in the same transactions. Its drivers stay registered in the fleet. For a vehicle registered by
 * mistake, or one that left the fleet whose history the fleet is not to keep.
 *
 * First its device keys are revoked (one transaction), so that none of its devices adds to it; its trips and
 * uploads then go in batches of 500, each one transaction (a trip never half-deleted, the counts always exact);
 * last, in one transaction, whatever a fleet connector stored for it meanwhile, its sums and keys, and the vehicle
 * itself. From that commit no upload can name it (one being stored checks the vehicle in its own transaction).
 * Interrupted, running it again finishes it: the vehicle is deleted last. A trip being scored meanwhile is dropped
 * when its worker finds its upload gone.
 */
export async function deleteVehicle(
  db: Kysely<TripsSchema>,
  plateInput: string,
  options: { nowMs: number; batchSize?: number },
): Promise<VehicleDeletionCounts & { vehicle: Vehicle }> {
  const { vehicle } = await vehicleDeletionCounts(db, plateInput);
  const { vehicleId, fleetId, plate } = vehicle;
  // What was deleted, counted as it goes: a connector may store uploads for the vehicle until its last
  // transaction, and the counts taken before the deletion did not include them.
  const deleted = { trips: 0, uploads: 0 };
  const add = (batch: { rows: number; trips: number; uploads: number }) => {
    deleted.trips += batch.trips;
    deleted.uploads += batch.uploads;
    return batch.rows;
  };
  const batchSize = options.batchSize ?? 500;
  await withTransaction(db, async (trx) => {
    await trx
      .updateTable('ingest_keys')
      .set({ revoked_at_ms: options.nowMs })
      .where('vehicle_id', '=', vehicleId)
      .where('revoked_at_ms', 'is', null)
      .execute();
  });
  for (;;) {
    const done = add(await withWriteTransaction(db, (trx) => deleteTripsOfPlate(trx, fleetId, plate, batchSize)));
    if (done === 0) break;
  }
  const last = await withWriteTransaction(db, async (trx) => {
    const batches = { rows: 0, trips: 0, uploads: 0 };
    // The vehicle's row first: on PostgreSQL an upload being stored for it holds the row (for share) until it
    // commits, so this waits for it and the statements below see its rows; one that comes later finds no vehicle.
    // Not in the strongest mode, which a scoring worker's foreign key would wait for while holding an upload
    // this deletes. (SQLite's write lock, taken first, orders all writers.)
    await trx
      .selectFrom('vehicles')
      .select('vehicle_id')
      .where('vehicle_id', '=', vehicleId)
      .$if(dialectOf(trx) === 'postgres', (q) => q.forNoKeyUpdate())
      .execute();
    for (;;) {
      const batch = await deleteTripsOfPlate(trx, fleetId, plate, batchSize);
      if (batch.rows === 0) break;
      batches.trips += batch.trips;
      batches.uploads += batch.uploads;
    }
    await trx.deleteFrom('vehicle_stats').where('fleet_id', '=', fleetId).where('plate', '=', plate).execute();
    const keys = await trx.deleteFrom('ingest_keys').where('vehicle_id', '=', vehicleId).executeTakeFirst();
    await trx.deleteFrom('vehicles').where('vehicle_id', '=', vehicleId).execute();
    return { ...batches, deviceKeys: Number(keys.numDeletedRows) };
  });
  add(last);
  return { vehicle, ...deleted, deviceKeys: last.deviceKeys };
}

/**
 * Deletes up to `limit` of the scored trips under a plate in a fleet, with their uploads, or when none is left,
 * of the uploads under it never scored; returns how many rows it took (0 when none was left) and how many trips
 * and uploads it deleted.
 */
async function deleteTripsOfPlate(trx: Kysely<TripsSchema>, fleetId: string, plate: string, limit: number) {
  let ids: string[] = [];
  for (const table of ['trips', 'trip_uploads'] as const) {
    ids = (
      await trx
        .selectFrom(table)
        .select('trip_id')
        .where('fleet_id', '=', fleetId)
        .where('plate', '=', plate)
        .limit(limit)
        .execute()
    ).map((r) => r.trip_id);
    if (ids.length > 0) break;
  }
  if (ids.length === 0) return { rows: 0, trips: 0, uploads: 0 };
  if (dialectOf(trx) === 'postgres') {
    // The uploads' rows first, as a scoring worker takes them (its upload and the later ones it puts back in the
    // queue) before the trips' sums rows and the version row: deleting the trips first took those, and then
    // waited for an upload a worker held while that worker waited for them. On a vehicle being scored that
    // deadlock came back on every retry, and `vehicles delete` failed with "deadlock detected".
    await trx
      .selectFrom('trip_uploads')
      .select('trip_id')
      .where('trip_id', 'in', ids)
      .orderBy('trip_id')
      .forUpdate()
      .execute();
  }
  const trips = await removeScoredTrips(trx, ids);
  await trx.deleteFrom('split_uploads').where('trip_id', 'in', ids).execute();
  const uploads = await trx.deleteFrom('trip_uploads').where('trip_id', 'in', ids).executeTakeFirst();
  return { rows: ids.length, trips, uploads: Number(uploads.numDeletedRows) };
}
