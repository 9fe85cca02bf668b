import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { UniqueViolationError, withTransaction } from '@svc/platform';
import { type Sample, segmentTrips, type TelemetryBatch, validateTelemetry } from '@svc/scoring';
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
 * The longest an upload's GPS may span. An upload is normally one trip (the edge SDK ends one after 5 minutes
 * stopped); one holding several drives is split into one trip per drive (see acceptUpload), but more than a day
 * of positions in one request is a logger's backlog or a clock set wrong, which the sender must send in parts.
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

/** A movement of an upload left out of its trips: too short to be scored as a trip. */
export interface SkippedMovement {
  /** Its first and last moving second, epoch milliseconds (as the samples). */
  startMs: number;
  endMs: number;
  distanceKm: number;
  movingMin: number;
  /** Why it is not a trip, in words. */
  reason: string;
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
      `invalid telemetry: the GPS positions span ${hours} h (${new Date(gps[0]!.t).toISOString()} to ${new Date(gps.at(-1)!.t).toISOString()}), more than ${MAX_TRIP_SPAN_MS / 3_600_000} h: send at most a day of positions per upload (a day's drives may come together: they are stored as one trip each; \`trips import\` splits a file into trips)`,
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
  const upload: UploadToCompare = { sha256, stored, key: idempotencyKey };
  const existing = await findByIdempotencyKey(db, sender.fleetId, idempotencyKey);
  if (existing) return repeatOf(db, existing, upload);

  const plan = planTrips(stored);
  const rows: Array<{ tripId: string; key: string; batch: TelemetryBatch; json: string; sha256: string }> =
    plan.kind === 'whole'
      ? [{ tripId: newTripId(), key: idempotencyKey, batch: stored, json, sha256 }]
      : plan.drives.map((drive, k) => {
          const key = k === 0 ? idempotencyKey : `${idempotencyKey}.${k + 1}`;
          const part: TelemetryBatch = { ...stored, clientTripId: key, samples: drive };
          const partJson = telemetryJson(part);
          const partSha = createHash('sha256').update(partJson).digest('hex');
          return { tripId: newTripId(), key, batch: part, json: partJson, sha256: partSha };
        });
  const tripIds = rows.map((r) => r.tripId);
  const skipped = plan.kind === 'whole' ? [] : plan.skipped;
  const values = await Promise.all(
    rows.map(async (r) => ({
      trip_id: r.tripId,
      fleet_id: sender.fleetId,
      vehicle_id: vehicle.vehicleId,
      plate: vehicle.plate,
      driver_id: driverId,
      idempotency_key: r.key,
      ingest_key_id: sender.keyId,
      source: sender.source,
      received_at_ms: nowMs,
      sample_count: r.batch.samples.length,
      first_sample_ms: r.batch.samples[0]!.t,
      telemetry_gz: await gzipAsync(r.json),
      telemetry_sha256: r.sha256,
      status: 'queued' as const,
      attempts: 0,
      next_attempt_at_ms: nowMs,
      lease_owner: null,
      last_error: null,
      scored_at_ms: null,
      model_version: null,
      upload_trip_id: plan.kind === 'whole' ? null : tripIds[0]!,
    })),
  );

  try {
    await withTransaction(db, async (trx) => {
      if (driverId !== null) await ensureDriver(trx, sender.fleetId, driverId, nowMs);
      await trx.insertInto('trip_uploads').values(values).execute();
      if (plan.kind === 'drives') {
        await trx
          .insertInto('split_uploads')
          .values({
            trip_id: tripIds[0]!,
            upload_sha256: sha256,
            // Computed for a split upload only (rare, and already several rows to write): a repeat of it in
            // another form is compared with this, the upload whole not being stored.
            upload_fingerprint: tripFingerprint(stored),
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
      if (winner) return repeatOf(db, winner, upload);
      // Not the key itself: a drive's key (`<key>.<n>`) that another trip of the fleet has.
      if (rows.length > 1) await refuseTakenDriveKey(db, sender.fleetId, idempotencyKey, rows);
    }
    throw err;
  }
  return { tripId: tripIds[0]!, tripIds, skipped, status: 'queued' };
}

/** What acceptUpload stores for an upload: the upload as it came, or its drives (see acceptUpload). */
type TripPlan = { kind: 'whole' } | { kind: 'drives'; drives: Sample[][]; skipped: SkippedMovement[] };

/**
 * Whether an upload is stored whole, as one trip, or as its drives, by `segmentTrips` of @svc/scoring (the
 * edge SDK's and the engine's rule: a trip starts above 8 km/h and ends after 5 minutes stopped or 5 minutes
 * without GPS; one under 1 km or 2 minutes moving is too short to score):
 * - one movement, or none (a device's trip, as the SDK cuts them): whole, as always;
 * - no scorable drive (only short movements): whole, as always; scoring fails it as too short, with the reason;
 * - two or more scorable drives: each drive is a trip, with its samples as segmentTrips cuts them (the phone
 *   events before it included); the short movements are skipped;
 * - one scorable drive and short movements (a car moved across a yard, then driven an hour later): the drive
 *   alone, the short movements skipped. Scored whole, the engine's trip would run from the first movement to
 *   the last, the hours parked between them counted as the trip's duration and idle time.
 *
 * The common upload costs one pass of segmentTrips over its GPS and OBD samples (what decides the movements;
 * some 0.6 ms for 1,200 fixes); only an upload that holds more than one movement is cut, by a second pass over
 * all its samples. Telemetry segmentTrips cannot read is stored whole, as before: scoring says why it fails.
 */
export function planTrips(stored: TelemetryBatch): TripPlan {
  // What decides the movements: the positions (and OBD speeds); IMU and phone samples are many and play no part.
  const positions = stored.samples.filter((x) => x.type === 'gps' || x.type === 'obd');
  const others = positions.length < stored.samples.length;
  let segments: ReturnType<typeof segmentTrips>;
  try {
    segments = segmentTrips(positions);
    if (segments.length <= 1 || !segments.some((x) => x.scorable)) return { kind: 'whole' };
    if (others) segments = segmentTrips(stored.samples);
  } catch {
    return { kind: 'whole' };
  }
  const drives = segments.filter((x) => x.scorable && x.samples.length > 0).map((x) => x.samples);
  if (drives.length === 0) return { kind: 'whole' };
  const skipped = segments
    .filter((x) => !x.scorable)
    .map((x) => ({
      startMs: x.startMs,
      endMs: x.endMs,
      distanceKm: x.distanceKm,
      movingMin: x.movingMin,
      reason: `too short to be a trip: ${x.reason ?? 'below the minimum scorable trip'}`,
    }));
  return { kind: 'drives', drives, skipped };
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

type StoredUpload = { trip_id: string; telemetry_sha256: string; upload_trip_id: string | null };
type UploadToCompare = { sha256: string; stored: TelemetryBatch; key: string };

async function findByIdempotencyKey(db: TripsDb, fleetId: string, key: string): Promise<StoredUpload | undefined> {
  return db
    .selectFrom('trip_uploads')
    .select(['trip_id', 'telemetry_sha256', 'upload_trip_id'])
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
async function repeatOf(db: TripsDb, stored: StoredUpload, upload: UploadToCompare): Promise<AcceptedUpload> {
  if (stored.upload_trip_id === stored.trip_id) {
    const split = await db
      .selectFrom('split_uploads')
      .select(['upload_sha256', 'upload_fingerprint', 'trip_ids', 'skipped'])
      .where('trip_id', '=', stored.trip_id)
      .executeTakeFirst();
    if (split) {
      const tripIds = JSON.parse(split.trip_ids) as string[];
      const same = split.upload_sha256 === upload.sha256 || split.upload_fingerprint === tripFingerprint(upload.stored);
      if (same) {
        return {
          tripId: stored.trip_id,
          tripIds,
          skipped: JSON.parse(split.skipped) as SkippedMovement[],
          status: 'duplicate',
        };
      }
      throw new IdempotencyConflictError(
        `Idempotency-Key "${upload.key}" was already used in this fleet for a different upload (stored as ` +
          `${tripIds.length === 1 ? `trip ${tripIds[0]}` : `${tripIds.length} trips, ${tripIds.join(', ')}`}): ` +
          'a repeat must send the same telemetry; a new trip needs a new key',
      );
    }
  }
  if (await isSameTrip(db, stored, upload)) {
    return { tripId: stored.trip_id, tripIds: [stored.trip_id], skipped: [], status: 'duplicate' };
  }
  const partOf =
    stored.upload_trip_id !== null && stored.upload_trip_id !== stored.trip_id
      ? `, a later drive of the upload whose first trip is ${stored.upload_trip_id}`
      : '';
  throw new IdempotencyConflictError(
    `Idempotency-Key "${upload.key}" was already used in this fleet for a different trip (${stored.trip_id}${partOf}): ` +
      'a repeat must send the same telemetry; a new trip needs a new key',
  );
}

/**
 * Throws the 409 for an upload split into drives whose key `<key>.<n>` (n >= 2) another trip of the fleet was
 * stored under (nothing of the upload was stored); returns when none is, so the caller rethrows its error.
 */
async function refuseTakenDriveKey(
  db: TripsDb,
  fleetId: string,
  key: string,
  rows: ReadonlyArray<{ key: string }>,
): Promise<void> {
  const taken = await db
    .selectFrom('trip_uploads')
    .select(['trip_id', 'idempotency_key'])
    .where('fleet_id', '=', fleetId)
    .where(
      'idempotency_key',
      'in',
      rows.slice(1).map((r) => r.key),
    )
    .orderBy('idempotency_key')
    .executeTakeFirst();
  if (!taken) return;
  throw new IdempotencyConflictError(
    `this upload holds ${rows.length} drives, which would be stored as trips under the keys "${key}", "${rows[1]!.key}"` +
      `${rows.length > 2 ? ` ... "${rows.at(-1)!.key}"` : ''}, and "${taken.idempotency_key}" was already used in this ` +
      `fleet for trip ${taken.trip_id}; nothing was stored: send the upload under another Idempotency-Key`,
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
async function isSameTrip(db: TripsDb, stored: StoredUpload, upload: UploadToCompare): Promise<boolean> {
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
