import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { UniqueViolationError, withTransaction } from '@svc/platform';
import { type TelemetryBatch, validateTelemetry } from '@svc/scoring';
import { ForbiddenError, IdempotencyConflictError, InvalidInputError } from '../errors.ts';
import { canonicalPlate, newTripId, PLATE_PATTERN } from '../ids.ts';
import { checkDriverId, ensureDriver } from '../store/drivers.ts';
import type { TripsDb } from '../store/open-trips-database.ts';
import { tripFingerprint } from './trip-fingerprint.ts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * How far after the server's clock a trip may end: a device clock a little fast (or a server's a little slow)
 * is no reason to lose a trip, a trip dated tomorrow or later is a clock set wrong.
 */
export const MAX_CLOCK_AHEAD_MS = 24 * 3_600_000;

/**
 * The longest a trip's GPS may span: an upload is one trip (the edge SDK ends one after 5 minutes stopped), and
 * a day of positions in one upload is days of driving, stops and all, that would be scored as a single trip.
 */
export const MAX_TRIP_SPAN_MS = 24 * 3_600_000;

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
  tripId: string;
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
 */
export async function acceptUpload(
  db: TripsDb,
  sender: UploadSender,
  idempotencyKey: string,
  body: unknown,
  nowMs = Date.now(),
): Promise<AcceptedUpload> {
  if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    throw new InvalidInputError(
      'Idempotency-Key must be 8-128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-" (use the client trip id)',
    );
  }
  const result = validateTelemetry(body);
  if (!result.ok) {
    const shown = result.errors.slice(0, 5).map((e) => e.message);
    const more = result.errors.length - shown.length + (result.truncated ? 1 : 0);
    throw new InvalidInputError(
      `invalid telemetry: ${shown.join('; ')}${more > 0 ? ` (and ${result.truncated ? 'more' : more} more)` : ''}`,
    );
  }
  const batch = result.batch;
  // Validation orders the samples, so the last is the latest. A trip from the future is a device clock set
  // wrong (a year, a decade): stored, it would head every trip list and end every lifetime until that date.
  const lastMs = batch.samples.at(-1)!.t;
  if (lastMs > nowMs + MAX_CLOCK_AHEAD_MS) {
    throw new InvalidInputError(
      `invalid telemetry: the samples end at ${new Date(lastMs).toISOString()}, more than ${MAX_CLOCK_AHEAD_MS / 3_600_000} h after the server's clock (${new Date(nowMs).toISOString()}): the device clock is wrong; send the times it recorded in epoch milliseconds UTC`,
    );
  }
  const gps = batch.samples.filter((x) => x.type === 'gps');
  if (gps.length > 1 && gps.at(-1)!.t - gps[0]!.t > MAX_TRIP_SPAN_MS) {
    const hours = ((gps.at(-1)!.t - gps[0]!.t) / 3_600_000).toFixed(1);
    throw new InvalidInputError(
      `invalid telemetry: the GPS positions span ${hours} h (${new Date(gps[0]!.t).toISOString()} to ${new Date(gps.at(-1)!.t).toISOString()}), more than ${MAX_TRIP_SPAN_MS / 3_600_000} h: an upload is one trip; send each trip on its own (\`trips import\` splits a file into trips)`,
    );
  }
  if (batch.clientTripId !== undefined && batch.clientTripId !== idempotencyKey) {
    throw new InvalidInputError(
      `clientTripId "${batch.clientTripId}" differs from the Idempotency-Key "${idempotencyKey}": they must be equal`,
    );
  }
  const vehicle = await resolveVehicle(db, sender, batch);
  const driverId = batch.driverId !== undefined ? checkDriverId(batch.driverId, 'driverId') : null;
  if (!batch.samples.some((s) => s.type === 'gps')) {
    throw new InvalidInputError('invalid telemetry: samples has no gps sample; a trip needs its positions');
  }

  // What is stored is the validated batch (samples in time order) with the resolved identity, so that
  // scoring and rescoring never need the sender again. Times are stored as whole milliseconds: the store's
  // time columns are integers (bigint on PostgreSQL), and epoch seconds with decimals times 1000 seldom are.
  const samples = batch.samples.map((s) => (Number.isInteger(s.t) ? s : { ...s, t: Math.round(s.t) }));
  const stored: TelemetryBatch = { ...batch, samples, clientTripId: idempotencyKey, vehicle: vehicle.plate };
  const json = telemetryJson(stored);
  // The SHA-256 of the stored bytes proves the telemetry is stored whole; it follows the sender's key order
  // and the upload order of samples of the same time, so the same trip re-serialised has another one.
  const sha256 = createHash('sha256').update(json).digest('hex');
  const existing = await findByIdempotencyKey(db, sender.fleetId, idempotencyKey);
  if (existing) return repeatOf(db, existing, { sha256, stored }, idempotencyKey);
  const telemetryGz = await gzipAsync(json);
  const tripId = newTripId();

  try {
    await withTransaction(db, async (trx) => {
      if (driverId !== null) await ensureDriver(trx, sender.fleetId, driverId, nowMs);
      await trx
        .insertInto('trip_uploads')
        .values({
          trip_id: tripId,
          fleet_id: sender.fleetId,
          vehicle_id: vehicle.vehicleId,
          plate: vehicle.plate,
          driver_id: driverId,
          idempotency_key: idempotencyKey,
          ingest_key_id: sender.keyId,
          source: sender.source,
          received_at_ms: nowMs,
          sample_count: stored.samples.length,
          first_sample_ms: stored.samples[0]!.t,
          telemetry_gz: telemetryGz,
          telemetry_sha256: sha256,
          status: 'queued',
          attempts: 0,
          next_attempt_at_ms: nowMs,
          lease_owner: null,
          last_error: null,
          scored_at_ms: null,
          model_version: null,
        })
        .execute();
    });
  } catch (err) {
    // Two uploads of the same trip raced; the other one won and this is its repeat.
    if (err instanceof UniqueViolationError) {
      const winner = await findByIdempotencyKey(db, sender.fleetId, idempotencyKey);
      if (winner) return repeatOf(db, winner, { sha256, stored }, idempotencyKey);
    }
    throw err;
  }
  return { tripId, status: 'queued' };
}

/**
 * JSON of telemetry to store or hash. Validation does not look inside fields it does not know, and a value
 * nested some ten thousand levels deep makes JSON.stringify overflow the stack: that is the sender's error.
 */
export function telemetryJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new InvalidInputError('invalid telemetry: a value is nested too deeply to be stored (unknown fields?)');
    }
    throw err;
  }
}

type StoredUpload = { trip_id: string; telemetry_sha256: string };

async function findByIdempotencyKey(db: TripsDb, fleetId: string, key: string): Promise<StoredUpload | undefined> {
  return db
    .selectFrom('trip_uploads')
    .select(['trip_id', 'telemetry_sha256'])
    .where('fleet_id', '=', fleetId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** The answer to a key already stored: the same trip is a duplicate, other telemetry a conflict. */
async function repeatOf(
  db: TripsDb,
  stored: StoredUpload,
  upload: { sha256: string; stored: TelemetryBatch },
  key: string,
): Promise<AcceptedUpload> {
  if (await isSameTrip(db, stored, upload)) return { tripId: stored.trip_id, status: 'duplicate' };
  throw new IdempotencyConflictError(
    `Idempotency-Key "${key}" was already used in this fleet for a different trip (${stored.trip_id}): ` +
      'a repeat must send the same telemetry; a new trip needs a new key',
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
  upload: { sha256: string; stored: TelemetryBatch },
): Promise<boolean> {
  if (stored.telemetry_sha256 === upload.sha256) return true;
  const row = await db
    .selectFrom('trip_uploads')
    .select(['telemetry_gz', 'telemetry_deleted_at_ms'])
    .where('trip_id', '=', stored.trip_id)
    .executeTakeFirst();
  if (!row || row.telemetry_deleted_at_ms !== null || row.telemetry_gz.length === 0) return false;
  const telemetry: unknown = JSON.parse((await gunzipAsync(row.telemetry_gz)).toString('utf8'));
  const fingerprint = tripFingerprint(upload.stored);
  try {
    return tripFingerprint(telemetry as object) === fingerprint;
  } catch (err) {
    // Stored telemetry nested deeper than the fingerprint can walk is not this upload, which it could walk.
    if (err instanceof InvalidInputError) return false;
    throw err;
  }
}

async function resolveVehicle(db: TripsDb, sender: UploadSender, batch: TelemetryBatch) {
  if (sender.vehicleId !== null) {
    const bound = await db
      .selectFrom('vehicles')
      .select(['vehicle_id as vehicleId', 'plate'])
      .where('vehicle_id', '=', sender.vehicleId)
      .executeTakeFirstOrThrow();
    if (batch.vehicle !== undefined && canonicalPlate(batch.vehicle) !== bound.plate) {
      throw new ForbiddenError(
        `this device key sends for vehicle ${bound.plate} only, and the batch names vehicle "${batch.vehicle}"`,
      );
    }
    return bound;
  }
  if (batch.vehicle === undefined) {
    throw new InvalidInputError('invalid telemetry: vehicle is required (the plate of a vehicle of your fleet)');
  }
  const plate = canonicalPlate(batch.vehicle);
  // A plate no vehicle could be registered with names none; PostgreSQL would not even take some of them
  // (a NUL character) as a parameter.
  const vehicle = PLATE_PATTERN.test(plate)
    ? await db
        .selectFrom('vehicles')
        .select(['vehicle_id as vehicleId', 'plate'])
        .where('plate', '=', plate)
        .where('fleet_id', '=', sender.fleetId)
        .executeTakeFirst()
    : undefined;
  // Unknown and other-fleet plates get the same answer: the key's fleet has no such vehicle.
  if (!vehicle) {
    throw new ForbiddenError(
      `vehicle "${batch.vehicle}" is not registered in fleet ${sender.fleetId} (npx trips vehicles create)`,
    );
  }
  return vehicle;
}
