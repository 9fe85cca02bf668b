import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DomainError } from '@svc/platform';
import type { TelemetryBatch } from '@svc/scoring';
import { canonicalPlate } from '../ids.ts';
import { acceptUpload, telemetryJson } from '../ingest/accept-upload.ts';
import type { TripsDb } from '../store/open-trips-database.ts';
import { readCsv } from './csv-connector.ts';
import type { FileContents, FileRejection, FileTrip } from './file-trip.ts';
import { readGeoJson } from './geojson-connector.ts';
import { readGpx } from './gpx-connector.ts';
import { readNdjson } from './ndjson-connector.ts';
import { splitDrives } from './split-trips.ts';

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
  const text = bytes.toString('utf8');
  const read = { gpx: readGpx, csv: readCsv, geojson: readGeoJson, ndjson: readNdjson }[format];
  return { format, contents: splitDrives(read(text)) };
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
 * when the file gives one, otherwise a hash of its vehicle and samples, so importing a file twice (even
 * renamed) reports duplicates instead of storing trips twice.
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
      summary.tripIds.push(outcome.tripId);
      if (outcome.kind === 'imported') {
        summary.imported++;
        summary.importedTrips.push({ tripId: outcome.tripId, label: trip.label });
      } else summary.duplicates++;
    }
    options.onTrip?.();
  }
  return summary;
}

type TripOutcome = { kind: 'imported' | 'duplicate'; tripId: string } | { kind: 'rejected'; reason: string };

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
  try {
    const key =
      typeof trip.meta.clientTripId === 'string'
        ? trip.meta.clientTripId
        : `import-${createHash('sha256')
            .update(canonicalPlate(vehicle))
            .update(telemetryJson(trip.samples))
            .digest('hex')
            .slice(0, 48)}`;
    const accepted = await acceptUpload(
      db,
      { fleetId: options.fleetId, vehicleId: null, keyId: null, source: `import:${path.basename(file)}` },
      key,
      batch,
      options.nowMs ?? Date.now(),
    );
    return { kind: accepted.status === 'queued' ? 'imported' : 'duplicate', tripId: accepted.tripId };
  } catch (err) {
    if (
      err instanceof DomainError &&
      (err.code === 'invalid_input' || err.code === 'forbidden' || err.code === 'idempotency_conflict')
    ) {
      // Validation names samples by index; the file's reader knows their line.
      const reason = err.message.replace(/samples\[(\d+)\]\.?/g, (_m, i: string) => `${trip.locate(Number(i))}: `);
      return { kind: 'rejected', reason };
    }
    throw err;
  }
}
