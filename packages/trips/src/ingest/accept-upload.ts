import { dialectOf, UniqueViolationError } from '@svc/platform';
import { ForbiddenError, IdempotencyConflictError, InvalidInputError, UnauthenticatedError } from '../errors.ts';
import { newTripId } from '../ids.ts';
import { ensureDriver } from '../store/drivers.ts';
import type { TripsDb } from '../store/open-trips-database.ts';
import { withWriteTransaction } from '../store/write-transaction.ts';
import { isRegistrablePlate, type PreparedUpload, type SkippedMovement } from './prepare-upload.ts';
import { inlineUploadPreparer, type UploadPreparer } from './upload-preparer.ts';

export {
  MAX_CLOCK_AHEAD_MS,
  MAX_TRIP_SPAN_MS,
  planTrips,
  type SkippedMovement,
  telemetryJson,
} from './prepare-upload.ts';

/** `Idempotency-Key`: 8-128 characters of `[A-Za-z0-9._:-]`. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

/** Who sends: the fleet the key (or the import) writes into, and the vehicle a device key is bound to. */
export interface UploadSender {
  fleetId: string;
  /** Set for device keys: the only vehicle they may send for. */
  vehicleId: string | null;
  /** The ingest key, or null for a CLI import. */
  keyId: string | null;
  /** `ingest` or `import:<file>`. */
  source: string;
}

export interface AcceptedUpload {
  /** The upload's trip: its first drive when it held several (the trip stored under its key). */
  tripId: string;
  /** Every trip stored from the upload, in time order (`tripId` first): one unless it held several drives. */
  tripIds: string[];
  /** The short movements left out of the trips of an upload that held a drive and more (see acceptUpload). */
  skipped: SkippedMovement[];
  status: 'queued' | 'duplicate';
}

/**
 * The ingest operation shared by the HTTP endpoint and the file connectors: validates the telemetry and
 * the sender's rights, then stores it and queues its scoring in one commit. Only after that commit may
 * the caller acknowledge. The same key in the same fleet is the same trip: a repeat of the same trip
 * returns the stored trip id and changes nothing; the key sent with different telemetry (or for another
 * vehicle or driver) is an IdempotencyConflictError, so that neither trip is dropped unnoticed. "The same
 * trip" is the same canonical fingerprint (trip-fingerprint.ts): the same stored fields and samples, whatever
 * the key order, the body's form or the order of samples of the same time.
 *
 * An upload may hold more than one movement by the rule the edge SDK and the engine share (`segmentTrips`: a trip
 * ends after 5 minutes stopped or 5 minutes without GPS): a connector sending a logger's day, a device that
 * parked and kept recording. Stored whole it would be scored as one trip, parked hours and all, so (see
 * planTrips) each scorable drive becomes a trip of its own, all stored and queued in one transaction: the first
 * under the upload's key (its trip id is `tripId`, as for any upload), the n-th (n >= 2) under `<key>.<n>`, which
 * is also its `clientTripId`. The movements too short to score are left out and reported in `skipped`, and so
 * are the samples of the standstill between the drives. What the upload was is kept beside the first drive
 * (`split_uploads`: the SHA-256 and canonical fingerprint of the upload whole, the trip ids, what was skipped),
 * so that the same upload sent again is a duplicate answering the same trips, and the key with another upload
 * is the 409. A drive's own key is a key like any other: the same drive sent alone under it is its duplicate,
 * other telemetry under it a 409; and an upload whose drive key some other trip already has is a 409 too, with
 * nothing stored, rather than a drive silently merged with another trip.
 *
 * `body` is a telemetry value (a connector's) or a RawUploadBody (the endpoint's bytes). What costs CPU (parsing,
 * validation, serialising, hashing, compression, cutting drives) runs on `preparer` (prepare-upload.ts), a
 * server's ingest threads; this function only reads and writes the store.
 */
export async function acceptUpload(
  db: TripsDb,
  sender: UploadSender,
  idempotencyKey: string,
  body: unknown,
  nowMs = Date.now(),
  preparer: UploadPreparer = inlineUploadPreparer,
): Promise<AcceptedUpload> {
  if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    throw new InvalidInputError(
      'Idempotency-Key must be 8-128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-" (use the client trip id)',
    );
  }
  const bound = sender.vehicleId !== null ? await boundVehicle(db, sender.vehicleId) : null;
  const upload = await preparer.prepare({
    body: body instanceof RawUploadBody ? { bytes: body.bytes, format: body.format } : { value: body },
    idempotencyKey,
    nowMs,
    boundPlate: bound?.plate ?? null,
  });
  const vehicle = bound ?? (await registeredVehicle(db, sender.fleetId, upload));
  if (upload.laterError) throw new InvalidInputError(upload.laterError.message);
  const driverId = upload.driverId;

  const existing = await findByIdempotencyKey(db, sender.fleetId, idempotencyKey);
  if (existing) return repeatOf(db, sender, existing, upload, idempotencyKey, preparer);

  const tripIds = upload.trips.map(() => newTripId());
  const skipped = upload.split?.skipped ?? [];
  const values = upload.trips.map((trip, k) => ({
    trip_id: tripIds[k]!,
    fleet_id: sender.fleetId,
    vehicle_id: vehicle.vehicleId,
    plate: vehicle.plate,
    driver_id: driverId,
    idempotency_key: trip.key,
    ingest_key_id: sender.keyId,
    source: sender.source,
    received_at_ms: nowMs,
    sample_count: trip.sampleCount,
    first_sample_ms: trip.firstSampleMs,
    // From a thread the bytes arrive as a Uint8Array; the SQLite driver binds only Buffers as blobs.
    telemetry_gz: Buffer.from(trip.telemetryGz.buffer, trip.telemetryGz.byteOffset, trip.telemetryGz.byteLength),
    telemetry_sha256: trip.sha256,
    status: 'queued' as const,
    attempts: 0,
    next_attempt_at_ms: nowMs,
    lease_owner: null,
    last_error: null,
    scored_at_ms: null,
    model_version: null,
    upload_trip_id: upload.split ? tripIds[0]! : null,
  }));

  try {
    await withWriteTransaction(db, async (trx) => {
      if (sender.keyId !== null) await requireKeyInForce(trx, sender.keyId);
      const plate = await vehiclePlateInForce(trx, vehicle.vehicleId, sender.fleetId, upload);
      if (driverId !== null) await ensureDriver(trx, sender.fleetId, driverId, nowMs);
      await trx
        .insertInto('trip_uploads')
        .values(plate === vehicle.plate ? values : values.map((v) => ({ ...v, plate })))
        .execute();
      if (upload.split) {
        await trx
          .insertInto('split_uploads')
          .values({
            trip_id: tripIds[0]!,
            upload_sha256: upload.sha256,
            // Kept for a split upload only (rare, and already several rows to write): a repeat of it in another
            // form is compared with this, the upload whole not being stored.
            upload_fingerprint: upload.split.fingerprint,
            trip_ids: JSON.stringify(tripIds),
            skipped: JSON.stringify(skipped),
          })
          .execute();
      }
    });
  } catch (err) {
    if (err instanceof UniqueViolationError) {
      // Two uploads under the same key raced; the other one won and this is its repeat (or a conflict).
      const winner = await findByIdempotencyKey(db, sender.fleetId, idempotencyKey);
      if (winner) return repeatOf(db, sender, winner, upload, idempotencyKey, preparer);
      // Not the key itself: a drive's key (`<key>.<n>`) that another trip of the fleet has.
      if (upload.trips.length > 1) await refuseTakenDriveKey(db, sender, idempotencyKey, upload.trips);
    }
    throw err;
  }
  return { tripId: tripIds[0]!, tripIds, skipped, status: 'queued' };
}

/** An upload body as the ingest endpoint read it: bytes of JSON or NDJSON, parsed where the upload is prepared. */
export class RawUploadBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly format: 'json' | 'ndjson',
  ) {}
}

type StoredUpload = { trip_id: string; telemetry_sha256: string; upload_trip_id: string | null; vehicle_id: string };

async function findByIdempotencyKey(db: TripsDb, fleetId: string, key: string): Promise<StoredUpload | undefined> {
  return db
    .selectFrom('trip_uploads')
    .select(['trip_id', 'telemetry_sha256', 'upload_trip_id', 'vehicle_id'])
    .where('fleet_id', '=', fleetId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/**
 * The answer to a key already stored: the same upload is a duplicate answering the trips stored from it, other
 * telemetry a conflict. Under the key of a split upload (its first drive's row, with a `split_uploads` row) the
 * upload is compared whole with what was recorded of it; under any other key, with the trip stored under it
 * (a drive's key `<key>.<n>` included: the same drive sent alone is that trip).
 */
async function repeatOf(
  db: TripsDb,
  sender: UploadSender,
  stored: StoredUpload,
  upload: PreparedUpload,
  key: string,
  preparer: UploadPreparer,
): Promise<AcceptedUpload> {
  // A device key's upload is its own vehicle's (a repeat of another vehicle's trip cannot be the same trip), and
  // another vehicle's trips are out of its reach: GET /ingest/v1/trips/{id} answers 404 for them, so the 409 does
  // not name them either (it named their trip ids). The key is still taken: keys are unique per fleet.
  if (sender.vehicleId !== null && stored.vehicle_id !== sender.vehicleId) throw keyOfAnotherVehicle(key);
  if (stored.upload_trip_id === stored.trip_id) {
    const split = await db
      .selectFrom('split_uploads')
      .select(['upload_sha256', 'upload_fingerprint', 'trip_ids', 'skipped'])
      .where('trip_id', '=', stored.trip_id)
      .executeTakeFirst();
    if (split) {
      const tripIds = JSON.parse(split.trip_ids) as string[];
      const same =
        split.upload_sha256 === upload.sha256 ||
        split.upload_fingerprint === (await uploadFingerprint(upload, preparer));
      if (same) {
        return {
          tripId: stored.trip_id,
          tripIds,
          skipped: JSON.parse(split.skipped) as SkippedMovement[],
          status: 'duplicate',
        };
      }
      throw new IdempotencyConflictError(
        `Idempotency-Key "${key}" was already used in this fleet for a different upload (stored as ` +
          `${tripIds.length === 1 ? `trip ${tripIds[0]}` : `${tripIds.length} trips, ${tripIds.join(', ')}`}): ` +
          'a repeat must send the same telemetry; a new trip needs a new key',
      );
    }
  }
  if (await isSameTrip(db, stored, upload, preparer)) {
    return { tripId: stored.trip_id, tripIds: [stored.trip_id], skipped: [], status: 'duplicate' };
  }
  const partOf =
    stored.upload_trip_id !== null && stored.upload_trip_id !== stored.trip_id
      ? `, a later drive of the upload whose first trip is ${stored.upload_trip_id}`
      : '';
  throw new IdempotencyConflictError(
    `Idempotency-Key "${key}" was already used in this fleet for a different trip (${stored.trip_id}${partOf}): ` +
      'a repeat must send the same telemetry; a new trip needs a new key',
  );
}

/**
 * The canonical fingerprint of an upload whole, as stored: kept with it when it was cut into drives, else taken
 * from its one trip's stored bytes (on the preparer: some 3 ms per 1,200 samples).
 */
function uploadFingerprint(upload: PreparedUpload, preparer: UploadPreparer): Promise<string> {
  return upload.split ? Promise.resolve(upload.split.fingerprint) : preparer.fingerprint(upload.trips[0]!.telemetryGz);
}

/**
 * Throws the 409 for an upload split into drives whose key `<key>.<n>` (n >= 2) another trip of the fleet was
 * stored under (nothing of the upload was stored); returns when none is, so the caller rethrows its error.
 */
async function refuseTakenDriveKey(
  db: TripsDb,
  sender: UploadSender,
  key: string,
  rows: ReadonlyArray<{ key: string }>,
): Promise<void> {
  const taken = await db
    .selectFrom('trip_uploads')
    .select(['trip_id', 'idempotency_key', 'vehicle_id'])
    .where('fleet_id', '=', sender.fleetId)
    .where(
      'idempotency_key',
      'in',
      rows.slice(1).map((r) => r.key),
    )
    .orderBy('idempotency_key')
    .executeTakeFirst();
  if (!taken) return;
  if (sender.vehicleId !== null && taken.vehicle_id !== sender.vehicleId) {
    throw new IdempotencyConflictError(
      `this upload holds ${rows.length} drives, and the key "${taken.idempotency_key}" one of them would be stored under ` +
        'was already used in this fleet for a trip of another vehicle; nothing was stored: send the upload under another Idempotency-Key',
    );
  }
  throw new IdempotencyConflictError(
    `this upload holds ${rows.length} drives, which would be stored as trips under the keys "${key}", "${rows[1]!.key}"` +
      `${rows.length > 2 ? ` ... "${rows.at(-1)!.key}"` : ''}, and "${taken.idempotency_key}" was already used in this ` +
      `fleet for trip ${taken.trip_id}; nothing was stored: send the upload under another Idempotency-Key`,
  );
}

/** The 409 for a device key whose Idempotency-Key another vehicle's trip has, naming no trip. */
function keyOfAnotherVehicle(key: string): IdempotencyConflictError {
  return new IdempotencyConflictError(
    `Idempotency-Key "${key}" was already used in this fleet for a trip of another vehicle: a new trip needs a new key`,
  );
}

/**
 * Whether an upload is the trip stored under its key: the same bytes (the SHA-256 of the stored JSON), or else
 * the same canonical fingerprint (trip-fingerprint.ts), which does not depend on key order, body form or the
 * order of samples of the same time, so a device that re-serialises a trip between retries is not told "409, do
 * not retry" and does not drop it.
 *
 * Both fingerprints are computed here, on this rare path (a repeat whose bytes differ), rather than stored with
 * every upload: walking a trip canonically costs some 3 ms per 1,200 samples on the event loop, which cost the
 * ingest benchmark a fifth of its uploads per second, for a comparison almost never needed (a retry usually
 * sends the same bytes). Nothing is written, so a repeat changes nothing. Once the stored telemetry has been
 * deleted (retention, a driver's erasure) only the SHA-256 is left to compare.
 */
async function isSameTrip(
  db: TripsDb,
  stored: StoredUpload,
  upload: PreparedUpload,
  preparer: UploadPreparer,
): Promise<boolean> {
  if (stored.telemetry_sha256 === upload.sha256) return true;
  const row = await db
    .selectFrom('trip_uploads')
    .select(['telemetry_gz', 'telemetry_deleted_at_ms'])
    .where('trip_id', '=', stored.trip_id)
    .executeTakeFirst();
  if (!row || row.telemetry_deleted_at_ms !== null || row.telemetry_gz.length === 0) return false;
  const fingerprint = await uploadFingerprint(upload, preparer);
  try {
    return (await preparer.fingerprint(row.telemetry_gz)) === fingerprint;
  } catch (err) {
    // Stored telemetry nested deeper than the fingerprint can walk is not this upload, which it could walk.
    if (err instanceof InvalidInputError) return false;
    throw err;
  }
}

/**
 * The vehicle a device key is bound to: the only one it may send for. None when its fleet was deleted (with its
 * keys) while the upload arrived: the key no longer exists, as its retry will be told.
 */
async function boundVehicle(db: TripsDb, vehicleId: string) {
  const vehicle = await db
    .selectFrom('vehicles')
    .select(['vehicle_id as vehicleId', 'plate'])
    .where('vehicle_id', '=', vehicleId)
    .executeTakeFirst();
  if (!vehicle) throw new UnauthenticatedError('unknown ingest key');
  return vehicle;
}

/**
 * Inside the upload's transaction: the ingest key still exists and is not revoked. The key was checked when the
 * request began, but an upload may take minutes to arrive; a key revoked meanwhile (`ingest-keys revoke`, or
 * `fleets delete`, which revokes the fleet's keys first so that no upload adds to it) must not store it. On
 * PostgreSQL the key's row is locked for share until the commit, so a revocation waits for an upload it did not
 * stop, and a fleet deletion then finds that upload's trip and deletes it too.
 */
async function requireKeyInForce(trx: TripsDb, keyId: string): Promise<void> {
  const key = await trx
    .selectFrom('ingest_keys')
    .select('revoked_at_ms')
    .where('key_id', '=', keyId)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forShare())
    .executeTakeFirst();
  if (!key) throw new UnauthenticatedError('unknown ingest key');
  if (key.revoked_at_ms !== null) throw new UnauthenticatedError('ingest key has been revoked');
}

/**
 * Inside the upload's transaction: the vehicle is still registered, and its plate now, which the upload is stored
 * under. The vehicle was looked up before the upload was prepared; deleted since (`vehicles delete`), the upload is
 * refused as one naming no vehicle would be; renamed since (`vehicles rename`), the upload is stored under the new
 * plate, with the vehicle's other trips. On PostgreSQL the row is locked for share until the commit, so a rename or
 * deletion waits for an upload it did not stop and then finds its row.
 */
async function vehiclePlateInForce(trx: TripsDb, vehicleId: string, fleetId: string, upload: PreparedUpload) {
  const row = await trx
    .selectFrom('vehicles')
    .select('plate')
    .where('vehicle_id', '=', vehicleId)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forShare())
    .executeTakeFirst();
  if (!row) {
    throw new ForbiddenError(
      `vehicle "${upload.vehicleAsSent ?? upload.plate}" is not registered in fleet ${fleetId} (npx trips vehicles create)`,
    );
  }
  return row.plate;
}

/** The vehicle of the sender's fleet an upload of a fleet key (or an import) names. */
async function registeredVehicle(db: TripsDb, fleetId: string, upload: PreparedUpload) {
  // A plate no vehicle could be registered with names none; PostgreSQL would not even take some of them
  // (a NUL character) as a parameter.
  const vehicle = isRegistrablePlate(upload.plate)
    ? await db
        .selectFrom('vehicles')
        .select(['vehicle_id as vehicleId', 'plate'])
        .where('plate', '=', upload.plate)
        .where('fleet_id', '=', fleetId)
        .executeTakeFirst()
    : undefined;
  // Unknown and other-fleet plates get the same answer: the key's fleet has no such vehicle.
  if (!vehicle) {
    throw new ForbiddenError(
      `vehicle "${upload.vehicleAsSent}" is not registered in fleet ${fleetId} (npx trips vehicles create)`,
    );
  }
  return vehicle;
}
