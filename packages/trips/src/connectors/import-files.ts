import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import { DomainError } from '@svc/platform';
import { type Sample, type TelemetryBatch, validateTelemetry } from '@svc/scoring';
import { IdempotencyConflictError } from '../errors.ts';
import { canonicalPlate } from '../ids.ts';
import {
  type AcceptedUpload,
  acceptUpload,
  IDEMPOTENCY_KEY_PATTERN,
  type SkippedMovement,
  type UploadSender,
} from '../ingest/accept-upload.ts';
import type { TripsDb } from '../store/open-trips-database.ts';
import { readCsv } from './csv-connector.ts';
import type { FileContents, FileRejection, FileTrip } from './file-trip.ts';
import { readGeoJson } from './geojson-connector.ts';
import { readGpx } from './gpx-connector.ts';
import { importKey, legacyImportKey } from './import-key.ts';
import { readNdjson } from './ndjson-connector.ts';
import { splitDrives } from './split-trips.ts';

const gunzipAsync = promisify(gunzip);

export type FileFormat = 'gpx' | 'csv' | 'geojson' | 'ndjson';

/** The per-file summary the CLI prints. */
export interface FileSummary {
  file: string;
  format: FileFormat | null;
  /** Trips found in the file (imported + duplicates + rejected trips). */
  trips: number;
  imported: number;
  duplicates: number;
  rejected: FileRejection[];
  /** Short movements left out between the drives of a track split into trips (see split-trips.ts). */
  skipped: FileRejection[];
  /** Ids of the trips found in the file and stored (imported now, or duplicates of stored trips). */
  tripIds: string[];
  /** The trips stored by this import (not the duplicates), with where each is in the file. */
  importedTrips: Array<{ tripId: string; label: string }>;
}

export interface ImportOptions {
  fleetId: string;
  /** Vehicle of every trip; when absent, each trip must name its own (NDJSON header or batch). */
  plate?: string | undefined;
  driverId?: string | undefined;
  nowMs?: number;
  /** Called after each trip is stored or refused (progress bars). */
  onTrip?: () => void;
}

/** The format of a file, from its name (a trailing .gz is ignored). */
export function formatOf(file: string): FileFormat | null {
  const name = file.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.gpx')) return 'gpx';
  if (name.endsWith('.csv') || name.endsWith('.tsv') || name.endsWith('.txt')) return 'csv';
  if (name.endsWith('.geojson') || name.endsWith('.json')) return 'geojson';
  if (name.endsWith('.ndjson') || name.endsWith('.jsonl')) return 'ndjson';
  return null;
}

/**
 * Largest file (after gunzip) read: files are parsed whole, and V8's longest string is ~512 MiB. A month
 * of one vehicle's 1 Hz positions as CSV is well under 256 MiB; a larger file is refused with a clear
 * reason instead of failing the whole import.
 */
export const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024;

/** Reads and splits a file into trips, without storing anything. */
export async function readImportFile(
  file: string,
  maxBytes = MAX_IMPORT_FILE_BYTES,
): Promise<{ format: FileFormat | null; contents: FileContents }> {
  const format = formatOf(file);
  if (!format) {
    // A folder or a missing file is that, whatever its name: "unknown format" would send the user astray.
    const problem = await stat(file).then(
      (info) => (info.isDirectory() ? describeReadError({ code: 'EISDIR' } as NodeJS.ErrnoException) : null),
      (err: NodeJS.ErrnoException) => describeReadError(err),
    );
    if (problem)
      return {
        format,
        contents: { trips: [], rejected: [{ location: 'file', reason: `cannot read it: ${problem}` }] },
      };
    return {
      format,
      contents: {
        trips: [],
        rejected: [
          { location: 'file', reason: 'unknown format: use .gpx, .csv, .geojson/.json or .ndjson (optionally .gz)' },
        ],
      },
    };
  }
  const refuse = (reason: string) => ({ format, contents: { trips: [], rejected: [{ location: 'file', reason }] } });
  const tooLarge = () =>
    refuse(`too large to import in one piece (over ${Math.round(maxBytes / 1024 / 1024)} MiB of data): split it`);
  let bytes: Buffer;
  try {
    const size = (await stat(file)).size;
    if (size > maxBytes) return tooLarge();
    bytes = await readFile(file);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        bytes = gunzipSync(bytes, { maxOutputLength: maxBytes });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge();
        // zlib's code (Z_BUF_ERROR, Z_DATA_ERROR) tells an operator nothing; its message says what is wrong.
        return refuse(`not a readable gzip file (${(err as Error).message}): it is truncated or corrupt`);
      }
    }
  } catch (err) {
    return refuse(`cannot read it: ${describeReadError(err as NodeJS.ErrnoException)}`);
  }
  const text = textOf(bytes);
  if (typeof text !== 'string') return refuse(text.notText);
  const read = { gpx: readGpx, csv: readCsv, geojson: readGeoJson, ndjson: readNdjson }[format];
  return { format, contents: splitDrives(read(text)) };
}

/** How far into a file binary data is looked for: as git and diff do, a NUL byte in the first 8 KB. */
const TEXT_PROBE_BYTES = 8000;

/**
 * The text of a file: UTF-8 (each reader drops a byte order mark), or UTF-16 when it starts with one, as
 * Excel's "Unicode Text" and Windows PowerShell's `>` write it. A file with a NUL byte among its first 8 KB
 * in neither is not text (a spreadsheet workbook, a ZIP, an image): its bytes read as UTF-8 put control
 * characters in the readers' messages (a CSV header's "found: ...", JSON's "Unexpected token"), which the
 * terminal then interprets, so it is refused as what it is.
 */
function textOf(bytes: Buffer): string | { notText: string } {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (!bytes.subarray(0, TEXT_PROBE_BYTES).includes(0)) return bytes.toString('utf8');
  if (bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) {
    return { notText: 'not a text file but a ZIP archive (a spreadsheet workbook?): export it as CSV' };
  }
  return { notText: 'not a text file: it holds binary data (or UTF-16 text without a byte order mark)' };
}

/** Why a file could not be read, in words, with the system's code for a search. */
function describeReadError(err: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'it is a folder, not a file',
    ENOTDIR: 'a part of its path is not a folder',
    EMFILE: 'too many open files',
  };
  if (err.code === 'EISDIR') return words.EISDIR!;
  const said = err.code !== undefined ? words[err.code] : undefined;
  return said ? `${said} (${err.code})` : err.code ? `${err.message} (${err.code})` : String(err.message ?? err);
}

/**
 * Imports the trips of one file through the same operation as the ingest endpoint (validation,
 * idempotency, one commit per trip, queued for scoring). A trip's idempotency key is its clientTripId
 * when the file gives one, otherwise what the trip is: its vehicle and its set of GPS fixes (import-key.ts),
 * so importing a file twice (even renamed), or another export of the same drive (other columns, field order,
 * number spelling, order of rows), reports duplicates instead of storing trips twice.
 */
export async function importFile(
  db: TripsDb,
  file: string,
  options: ImportOptions,
  read?: Awaited<ReturnType<typeof readImportFile>>,
): Promise<FileSummary> {
  // The caller may have read the file already (to count its trips for a progress bar): a file is read once.
  const { format, contents } = read ?? (await readImportFile(file));
  const summary: FileSummary = {
    file,
    format,
    trips: contents.trips.length + contents.rejected.length,
    imported: 0,
    duplicates: 0,
    rejected: [...contents.rejected],
    skipped: [...(contents.skipped ?? [])],
    tripIds: [],
    importedTrips: [],
  };
  for (const trip of contents.trips) {
    const outcome = await importTrip(db, file, trip, options);
    if (outcome.kind === 'rejected') summary.rejected.push({ location: trip.label, reason: outcome.reason });
    else {
      summary.tripIds.push(...outcome.tripIds);
      if (outcome.kind === 'imported') {
        summary.imported++;
        for (const [k, tripId] of outcome.tripIds.entries()) {
          summary.importedTrips.push({ tripId, label: k === 0 ? trip.label : `${trip.label}, drive ${k + 1}` });
        }
      } else summary.duplicates++;
      // A trip with one drive and short movements besides is stored as the drive (acceptUpload): the short
      // movements are reported as those between the drives of a split track are.
      for (const s of outcome.skipped ?? []) {
        summary.skipped.push({
          location: `${trip.label}, ${hhmm(s.startMs)}-${hhmm(s.endMs)} UTC`,
          reason: `not a trip beside the drive (${s.reason})`,
        });
      }
    }
    options.onTrip?.();
  }
  return summary;
}

type TripOutcome =
  | { kind: 'imported' | 'duplicate'; tripIds: string[]; skipped?: SkippedMovement[] }
  | { kind: 'rejected'; reason: string };

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

async function importTrip(db: TripsDb, file: string, trip: FileTrip, options: ImportOptions): Promise<TripOutcome> {
  const named = typeof trip.meta.vehicle === 'string' ? trip.meta.vehicle : undefined;
  if (options.plate && named && canonicalPlate(named) !== canonicalPlate(options.plate)) {
    return { kind: 'rejected', reason: `the file names vehicle "${named}" but --vehicle is "${options.plate}"` };
  }
  const vehicle = options.plate ?? named;
  if (!vehicle) return { kind: 'rejected', reason: 'no vehicle: pass --vehicle <plate>' };
  const driverId = options.driverId ?? (typeof trip.meta.driverId === 'string' ? trip.meta.driverId : undefined);
  const batch: TelemetryBatch = {
    schemaVersion: 1,
    ...trip.meta,
    vehicle,
    ...(driverId !== undefined ? { driverId } : {}),
    samples: trip.samples,
  } as TelemetryBatch;
  const clientTripId = typeof trip.meta.clientTripId === 'string' ? trip.meta.clientTripId : undefined;
  if (clientTripId !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(clientTripId)) {
    const shown = clientTripId.length > 60 ? `${clientTripId.slice(0, 60)}...` : clientTripId;
    return {
      kind: 'rejected',
      reason: `clientTripId ${JSON.stringify(shown)} must be 8-128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-" (or left out: the import then keys the trip by its content)`,
    };
  }
  try {
    if (clientTripId !== undefined) {
      // The file's own trip id is the key, as the endpoint's Idempotency-Key (unchanged).
      const nowMs = options.nowMs ?? Date.now();
      return outcomeOf(await acceptUpload(db, senderOf(file, options), clientTripId, batch, nowMs));
    }
    return await importByContent(db, file, trip, batch, vehicle, driverId, options);
  } catch (err) {
    if (
      err instanceof DomainError &&
      (err.code === 'invalid_input' || err.code === 'forbidden' || err.code === 'idempotency_conflict')
    ) {
      // Validation names samples by index; the file's reader knows their line. The ingest's messages name the
      // endpoint's Idempotency-Key header, which a file's trip id stands for.
      let reason = err.message.replace(/samples\[(\d+)\]\.?/g, (_m, i: string) => `${trip.locate(Number(i))}: `);
      if (clientTripId !== undefined) reason = reason.replace(/^Idempotency-Key "/, 'clientTripId "');
      return { kind: 'rejected', reason };
    }
    throw err;
  }
}

function senderOf(file: string, options: ImportOptions): UploadSender {
  return { fleetId: options.fleetId, vehicleId: null, keyId: null, source: `import:${path.basename(file)}` };
}

/**
 * What acceptUpload did with a trip of the file. The importer splits a track holding several drives before
 * (split-trips.ts), so a drive it sends is stored as one trip; a trip holding one drive and short movements is
 * stored as the drive alone, and the short movements come back in `skipped`.
 */
function outcomeOf(accepted: AcceptedUpload): TripOutcome {
  return {
    kind: accepted.status === 'queued' ? 'imported' : 'duplicate',
    tripIds: accepted.tripIds,
    ...(accepted.skipped.length > 0 ? { skipped: accepted.skipped } : {}),
  };
}

/**
 * Imports a trip whose file names no trip id, under the key of what it is (importKey: its plate and its set of
 * GPS fixes), so that another export of the same drive is a duplicate.
 *
 * Trips imported before that rule are stored under the key of the rule before it (legacyImportKey: a hash of
 * the plate and the samples as the file listed them), and their keys are left as they are: rewriting them
 * would need every stored trip's file again. So both keys are looked up in the fleet, each on the unique
 * (fleet_id, idempotency_key): a file imported under the old rule and imported again finds its trip under the
 * old key, another export of a drive imported under the new rule finds it under the new one, and either is a
 * duplicate. A drive imported under the old rule and now exported again otherwise (another tool, another order)
 * has neither key: its stored key hashed the other file's order and fields, which this file cannot give back.
 * For it, the trips imported under the old rule for the same vehicle whose first sample has the time of this
 * trip's first sample (few: one index lookup on (fleet_id, plate, first_sample_ms)) are read back and keyed by
 * the new rule from their stored telemetry; one with this key is this trip (not once its telemetry was deleted by
 * retention or an erasure: then it cannot be told). Only a trip found in none of these ways is stored, and always
 * under the new key.
 *
 * A trip found in any of these ways has the same vehicle and the same fixes, so it is this drive whatever else the
 * file holds (speed, accuracy, IMU samples, another form): the copy stored first stays, as it was. Only another
 * driver is not taken as the same trip: `--driver` (or the file's driver) naming a driver the stored trip does
 * not have is a rejection that names the stored trip, as a repeated key with another driver is at the endpoint.
 */
async function importByContent(
  db: TripsDb,
  file: string,
  trip: FileTrip,
  batch: TelemetryBatch,
  vehicle: string,
  driverId: string | undefined,
  options: ImportOptions,
): Promise<TripOutcome> {
  const sender = senderOf(file, options);
  const nowMs = options.nowMs ?? Date.now();
  const legacyKey = legacyImportKey(vehicle, trip.samples);
  const validated = validateTelemetry(batch);
  const key = validated.ok ? importKey(vehicle, validated.batch.samples) : null;
  // Telemetry acceptUpload refuses: it says why (the key makes no difference then).
  if (!validated.ok || key === null) return outcomeOf(await acceptUpload(db, sender, legacyKey, batch, nowMs));
  const keys = [key, legacyKey];
  // As acceptUpload stores it (first_sample_ms): the validated samples are in time order, times in whole ms.
  const firstMs = Math.round(validated.batch.samples[0]!.t);
  const stored =
    (await storedUnder(db, options.fleetId, keys)) ??
    (await importedByOldRule(db, options.fleetId, canonicalPlate(vehicle), firstMs, key));
  if (stored) return repeatOf(db, stored, driverId);
  try {
    return outcomeOf(await acceptUpload(db, sender, key, batch, nowMs));
  } catch (err) {
    // Another import stored the same fixes meanwhile, from another export of the drive: acceptUpload compares
    // whole trips, and that export's speeds or field order differ; by this rule it is the same drive.
    if (err instanceof IdempotencyConflictError) {
      const winner = await storedUnder(db, options.fleetId, keys);
      if (winner) return repeatOf(db, winner, driverId);
    }
    throw err;
  }
}

type StoredTrip = { trip_id: string; driver_id: string | null };

/** The trip stored in the fleet under the first of `keys` that names one (one lookup per key, on the unique index). */
async function storedUnder(db: TripsDb, fleetId: string, keys: readonly string[]): Promise<StoredTrip | undefined> {
  for (const key of keys) {
    const row = await db
      .selectFrom('trip_uploads')
      .select(['trip_id', 'driver_id'])
      .where('fleet_id', '=', fleetId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (row) return row;
  }
  return undefined;
}

/** A key of the rule before importKey (legacyImportKey). */
const LEGACY_IMPORT_KEY = /^import-[0-9a-f]{48}$/;

/**
 * The trip imported under the rule before importKey, of this vehicle, whose first sample is at `firstMs`, and
 * whose stored telemetry has `key` by the new rule: the same drive from another export (see importByContent).
 */
async function importedByOldRule(
  db: TripsDb,
  fleetId: string,
  plate: string,
  firstMs: number,
  key: string,
): Promise<StoredTrip | undefined> {
  const candidates = await db
    .selectFrom('trip_uploads')
    .select(['trip_id', 'driver_id', 'idempotency_key', 'telemetry_gz', 'telemetry_deleted_at_ms'])
    .where('fleet_id', '=', fleetId)
    .where('plate', '=', plate)
    .where('first_sample_ms', '=', firstMs)
    .where('idempotency_key', 'like', 'import-%')
    .execute();
  for (const row of candidates) {
    if (!LEGACY_IMPORT_KEY.test(row.idempotency_key)) continue;
    if (row.telemetry_deleted_at_ms !== null || row.telemetry_gz.length === 0) continue;
    const telemetry = JSON.parse((await gunzipAsync(row.telemetry_gz)).toString('utf8')) as { samples?: unknown };
    if (!Array.isArray(telemetry.samples)) continue;
    if (importKey(plate, telemetry.samples as Sample[]) === key) {
      return { trip_id: row.trip_id, driver_id: row.driver_id };
    }
  }
  return undefined;
}

/**
 * A drive found stored: a duplicate (with the short movements recorded beside it when it was stored, so that a
 * file imported again reports what the first import did), or a rejection when the import names another driver.
 */
async function repeatOf(db: TripsDb, stored: StoredTrip, driverId: string | undefined): Promise<TripOutcome> {
  if (driverId === undefined || driverId === stored.driver_id) {
    // Only a trip stored with short movements beside it has a split_uploads row (one primary-key lookup).
    const split = await db
      .selectFrom('split_uploads')
      .select('skipped')
      .where('trip_id', '=', stored.trip_id)
      .executeTakeFirst();
    const skipped = split ? (JSON.parse(split.skipped) as SkippedMovement[]) : [];
    return { kind: 'duplicate', tripIds: [stored.trip_id], ...(skipped.length > 0 ? { skipped } : {}) };
  }
  return {
    kind: 'rejected',
    reason:
      `the same fixes of this vehicle were already imported as trip ${stored.trip_id}, ` +
      `${stored.driver_id === null ? 'without a driver' : `driven by "${stored.driver_id}"`}, and this import names driver "${driverId}"`,
  };
}
