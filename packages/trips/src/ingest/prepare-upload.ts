import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type Sample, segmentTrips, type TelemetryBatch, validateTelemetry } from '@svc/scoring';
import { ForbiddenError, InvalidInputError } from '../errors.ts';
import { canonicalPlate, isValidPlate } from '../ids.ts';
import { checkNewDriverId } from '../store/drivers.ts';
import { parseTelemetryBody } from './telemetry-body.ts';
import { tripFingerprint } from './trip-fingerprint.ts';

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

/** An upload to prepare: its body (raw bytes from the ingest endpoint, or a value a connector built). */
export interface PrepareRequest {
  body: { bytes: Uint8Array; format: 'json' | 'ndjson' } | { value: unknown };
  idempotencyKey: string;
  nowMs: number;
  /** The plate of the vehicle a device key is bound to; null for a fleet key or an import. */
  boundPlate: string | null;
}

/** One trip to store from an upload: its telemetry as stored (gzip JSON) and what its row records of it. */
export interface PreparedTrip {
  key: string;
  telemetryGz: Uint8Array;
  sha256: string;
  sampleCount: number;
  firstSampleMs: number;
}

/**
 * What an upload becomes before anything is read from or written to the store: checked, in its stored form, and
 * cut into the trips to store. Plain data, so that it crosses from a preparing thread unchanged.
 */
export interface PreparedUpload {
  /** The plate the batch names, as sent; undefined when it names none (a device key's upload). */
  vehicleAsSent: string | undefined;
  /** The plate stored with the telemetry: the device key's vehicle, else the batch's in canonical form. */
  plate: string;
  driverId: string | null;
  /** SHA-256 of the upload whole as stored (the stored bytes of `trips[0]` when it is one trip). */
  sha256: string;
  /** The trips to store, in time order: the upload whole, or its drives (see planTrips). */
  trips: PreparedTrip[];
  /** Set when the upload is stored as its drives: its canonical fingerprint and the movements left out. */
  split: { fingerprint: string; skipped: SkippedMovement[] } | null;
  /**
   * A fault found after the vehicle named in the batch was known (a malformed driver id, no GPS sample). It is
   * raised only once that vehicle is found registered, so a batch for a vehicle of another fleet is told so
   * first, as before the preparation left the event loop. `trips` is empty when it is set.
   */
  laterError: { name: 'InvalidInputError'; message: string } | null;
}

/**
 * The CPU-bound part of accepting an upload, with no I/O: parses the body, validates the telemetry, resolves
 * the plate it is stored under, serialises, hashes and compresses it, and cuts a day's drives into trips
 * (planTrips). It runs on an ingest thread (upload-preparer.ts), so a large upload never holds the event loop
 * that answers the public API; the checks come in the order a sender's mistakes were always reported.
 */
export function prepareUpload(request: PrepareRequest): PreparedUpload {
  const { body, idempotencyKey, nowMs, boundPlate } = request;
  const value =
    'bytes' in body
      ? parseTelemetryBody(Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength), body.format)
      : body.value;
  const result = validateTelemetry(value);
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
  const plate = plateOf(batch, boundPlate);
  const base = { vehicleAsSent: batch.vehicle, plate, sha256: '', trips: [], split: null };
  let driverId: string | null;
  try {
    driverId = batch.driverId !== undefined ? checkNewDriverId(batch.driverId, 'driverId') : null;
    if (gps.length === 0) {
      throw new InvalidInputError('invalid telemetry: samples has no gps sample; a trip needs its positions');
    }
  } catch (err) {
    if (!(err instanceof InvalidInputError)) throw err;
    return { ...base, driverId: null, laterError: { name: 'InvalidInputError', message: err.message } };
  }

  // What is stored is the validated batch (samples in time order) with the resolved identity, so that
  // scoring and rescoring never need the sender again. Times are stored as whole milliseconds: the store's
  // time columns are integers (bigint on PostgreSQL), and epoch seconds with decimals times 1000 seldom are.
  const samples = batch.samples.map((s) => (Number.isInteger(s.t) ? s : { ...s, t: Math.round(s.t) }));
  const stored: TelemetryBatch = { ...batch, samples, clientTripId: idempotencyKey, vehicle: plate };
  const json = telemetryJson(stored);
  // The SHA-256 of the stored bytes proves the telemetry is stored whole; it follows the sender's key order
  // and the upload order of samples of the same time, so the same trip re-serialised has another one.
  const sha256 = sha256Hex(json);
  const plan = planTrips(stored);
  if (plan.kind === 'whole') {
    return { ...base, driverId, sha256, trips: [storedTrip(idempotencyKey, json, sha256, samples)], laterError: null };
  }
  const trips = plan.drives.map((drive, k) => {
    const key = k === 0 ? idempotencyKey : `${idempotencyKey}.${k + 1}`;
    const partJson = telemetryJson({ ...stored, clientTripId: key, samples: drive });
    return storedTrip(key, partJson, sha256Hex(partJson), drive);
  });
  // The upload whole is not stored: a repeat of it in another form is compared with this fingerprint.
  const split = { fingerprint: tripFingerprint(stored), skipped: plan.skipped };
  return { ...base, driverId, sha256, trips, split, laterError: null };
}

/**
 * The canonical fingerprint (trip-fingerprint.ts) of telemetry as stored, gzip JSON: how a repeat that is not
 * byte for byte the stored upload is told apart from another trip. Throws InvalidInputError for telemetry nested
 * too deeply to walk.
 */
export function storedTelemetryFingerprint(telemetryGz: Uint8Array): string {
  const telemetry: unknown = JSON.parse(gunzipSync(telemetryGz).toString('utf8'));
  return tripFingerprint(telemetry as object);
}

/** The plate an upload is stored under (a device key's vehicle, else the one the batch names, canonical). */
function plateOf(batch: TelemetryBatch, boundPlate: string | null): string {
  if (boundPlate !== null) {
    if (batch.vehicle !== undefined && canonicalPlate(batch.vehicle) !== boundPlate) {
      throw new ForbiddenError(
        `this device key sends for vehicle ${boundPlate} only, and the batch names vehicle "${batch.vehicle}"`,
      );
    }
    return boundPlate;
  }
  if (batch.vehicle === undefined) {
    throw new InvalidInputError('invalid telemetry: vehicle is required (the plate of a vehicle of your fleet)');
  }
  return canonicalPlate(batch.vehicle);
}

/** Whether a plate could be registered at all (one that could not names no vehicle of any fleet). */
export function isRegistrablePlate(plate: string): boolean {
  return isValidPlate(plate);
}

function storedTrip(key: string, json: string, sha256: string, samples: readonly Sample[]): PreparedTrip {
  return {
    key,
    // Level 6, zlib's default: telemetry is stored once and read at each scoring.
    telemetryGz: gzipSync(json),
    sha256,
    sampleCount: samples.length,
    firstSampleMs: samples[0]!.t,
  };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What acceptUpload stores for an upload: the upload as it came, or its drives (see acceptUpload). */
export type TripPlan = { kind: 'whole' } | { kind: 'drives'; drives: Sample[][]; skipped: SkippedMovement[] };

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
