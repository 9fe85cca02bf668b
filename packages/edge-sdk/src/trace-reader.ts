import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readTrace } from '@svc/roads';
import type { Sample, TelemetryMeta } from '@svc/scoring';
import { SampleRejectedError } from './errors.ts';
import { validateSample } from './validate-sample.ts';

/** A recorded trace ready to be fed through the SDK: samples in time order and the metadata the file carried. */
export interface TelemetryTrace {
  file: string;
  meta: TelemetryMeta;
  samples: Sample[];
  /** Samples dropped because their stream already had one at the same time (duplicated lines). */
  duplicates: number;
}

const SAMPLE_TYPES = new Set(['gps', 'accel', 'gyro', 'phone', 'obd']);
const META_KEYS = ['deviceId', 'vehicle', 'driverId', 'machineType', 'imuFrame', 'timeZone'] as const;

/**
 * Reads a trace for replay. Telemetry NDJSON (one sample per line, optional `{"type":"header",...}` line) and
 * telemetry JSON (a TelemetryBatch or an array of samples) keep every sample type; GPX, GeoJSON, CSV and other
 * position files go through `readTrace` of @svc/roads and become GPS fixes. Every sample is validated here, so
 * a bad file fails before anything is recorded, with the file and line in the message.
 */
export async function readTelemetryTrace(file: string): Promise<TelemetryTrace> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new Error(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new Error(`${file}: corrupt gzip data (${(error as Error).message})`);
    }
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new Error(`${file}: the file is empty`);
  const ext = extname(file.replace(/\.gz$/i, '')).toLowerCase();

  const telemetry =
    ext === '.ndjson' || ext === '.jsonl'
      ? fromNdjson(file, text)
      : ext === '.json' || (ext === '' && text.trimStart().startsWith('{'))
        ? fromJson(file, text)
        : undefined;
  if (telemetry) return finish(file, telemetry.meta, telemetry.samples);

  // Positions only: GPX, GeoJSON, CSV, WKT point arrays...
  const points = await readTrace(file);
  const samples = points.map((point, i): Sample => {
    if (point.timeMs === undefined) {
      throw new Error(`${file}: point ${i} has no time; a replay needs timestamped fixes`);
    }
    const raw: Record<string, unknown> = { type: 'gps', t: point.timeMs, lon: point.lon, lat: point.lat };
    if (point.accuracyM !== undefined) raw.accuracyM = point.accuracyM;
    if (point.speedMps !== undefined) raw.speedMps = point.speedMps;
    if (point.courseDeg !== undefined) raw.headingDeg = point.courseDeg;
    return checked(file, `point ${i}`, raw);
  });
  return finish(file, {}, samples);
}

type Parsed = { meta: TelemetryMeta; samples: Sample[] };

/** NDJSON telemetry, or undefined when the lines are positions of another shape (left to readTrace). */
function fromNdjson(file: string, text: string): Parsed | undefined {
  const meta: TelemetryMeta = {};
  const samples: Sample[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw new Error(`${file}: line ${i + 1}: invalid JSON (${(error as Error).message})`);
    }
    const type = (record as { type?: unknown } | null)?.type;
    if (type === 'header') {
      Object.assign(meta, pickMeta(record as Record<string, unknown>));
      continue;
    }
    if (typeof type !== 'string' || !SAMPLE_TYPES.has(type)) {
      if (type === undefined) return undefined;
      throw new Error(`${file}: line ${i + 1}: unknown sample type ${JSON.stringify(type)}`);
    }
    samples.push(checked(file, `line ${i + 1}`, record));
  }
  return { meta, samples };
}

/** A TelemetryBatch or an array of typed samples, or undefined for other JSON (left to readTrace). */
function fromJson(file: string, text: string): Parsed | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: invalid JSON (${(error as Error).message})`);
  }
  const isBatch = json !== null && typeof json === 'object' && !Array.isArray(json) && 'samples' in json;
  const records = isBatch ? (json as { samples: unknown }).samples : json;
  if (!Array.isArray(records) || records.length === 0) return undefined;
  const typed = records.every((r) => SAMPLE_TYPES.has((r as { type?: unknown } | null)?.type as string));
  if (!typed) return undefined;
  return {
    meta: isBatch ? pickMeta(json as Record<string, unknown>) : {},
    samples: records.map((record, i) => checked(file, `sample ${i}`, record)),
  };
}

function pickMeta(record: Record<string, unknown>): TelemetryMeta {
  const meta: Record<string, unknown> = {};
  for (const key of META_KEYS) if (typeof record[key] === 'string') meta[key] = record[key];
  return meta as TelemetryMeta;
}

function checked(file: string, where: string, record: unknown): Sample {
  try {
    return validateSample(record);
  } catch (error) {
    if (error instanceof SampleRejectedError) throw new Error(`${file}: ${where}: ${error.message}`);
    throw error;
  }
}

/** Sorts by time (stable) and drops same-stream duplicates, which a live recorder would refuse. */
function finish(file: string, meta: TelemetryMeta, samples: Sample[]): TelemetryTrace {
  if (samples.length === 0) throw new Error(`${file}: no samples`);
  const ordered = samples.map((s, i) => ({ s, i })).sort((a, b) => a.s.t - b.s.t || a.i - b.i);
  const lastT = new Map<string, number>();
  const kept: Sample[] = [];
  let duplicates = 0;
  for (const { s } of ordered) {
    if (s.type !== 'phone' && lastT.get(s.type) === s.t) {
      duplicates++;
      continue;
    }
    lastT.set(s.type, s.t);
    kept.push(s);
  }
  return { file, meta, samples: kept, duplicates };
}
