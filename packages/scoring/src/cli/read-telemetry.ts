import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { detectTraceFormat, parseTrace, type TracePoint } from '@svc/roads';
import type { Sample, TelemetryBatch } from '../telemetry.ts';
import { validateTelemetry } from '../validate.ts';

/** A file the CLI cannot read or that holds no usable telemetry; the message names the file and record. */
export class TelemetryFileError extends Error {
  override name = 'TelemetryFileError';
}

const SAMPLE_TYPES = new Set(['gps', 'accel', 'gyro', 'phone', 'obd']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when records use the telemetry format (typed samples) rather than a plain position trace. */
function isTelemetry(records: unknown[]): boolean {
  return records.some((r) => isRecord(r) && typeof r.type === 'string' && SAMPLE_TYPES.has(r.type) && r.type !== 'gps');
}

function validated(batch: unknown, file: string): TelemetryBatch {
  const result = validateTelemetry(batch);
  if (!result.ok) {
    const first = result.errors[0]!;
    const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : '';
    throw new TelemetryFileError(`${file}: ${first.message}${more}`);
  }
  return result.batch;
}

function fromPoints(points: readonly TracePoint[], file: string): TelemetryBatch {
  if (points.length === 0) throw new TelemetryFileError(`${file}: the trace has no positions`);
  const untimed = points.findIndex((p) => p.timeMs === undefined);
  if (untimed >= 0) {
    throw new TelemetryFileError(`${file}: position ${untimed} has no time; scoring needs a timestamp on every fix`);
  }
  const samples: Sample[] = points.map((p) => ({
    type: 'gps',
    t: p.timeMs!,
    lon: p.lon,
    lat: p.lat,
    ...(p.accuracyM !== undefined ? { accuracyM: p.accuracyM } : {}),
    // The receiver's own speed and course, where the file has them: the map matcher and the speed series use them.
    ...(p.speedMps !== undefined ? { speedMps: p.speedMps } : {}),
    ...(p.courseDeg !== undefined ? { headingDeg: p.courseDeg } : {}),
  }));
  return validated({ schemaVersion: 1, samples }, file);
}

/**
 * Reads a trace or telemetry file for scoring: a telemetry batch (JSON `{ samples }`), telemetry NDJSON
 * (optional `{ "type": "header", ... }` first line), or a plain GPS trace in any format the roads package
 * reads (GPX, GeoJSON, CSV, NDJSON or JSON positions); `.gz` too. Telemetry is validated.
 */
export async function readTelemetryFile(file: string): Promise<TelemetryBatch> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TelemetryFileError(`${file}: cannot read the file (${code ?? (error as Error).message})`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new TelemetryFileError(`${file}: corrupt gzip data (${(error as Error).message})`);
    }
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const format = detectTraceFormat(file, text);
  if (format === 'ndjson') {
    const lines = text.split(/\r?\n/);
    const records: unknown[] = [];
    let header: Record<string, unknown> = {};
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (line === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        throw new TelemetryFileError(`${file}: line ${i + 1}: invalid JSON (${(error as Error).message})`);
      }
      if (isRecord(record) && record.type === 'header' && records.length === 0) {
        const { type: _type, ...meta } = record;
        header = meta;
        continue;
      }
      records.push(record);
    }
    if (isTelemetry(records) || Object.keys(header).length > 0) {
      return validated({ schemaVersion: 1, ...header, samples: records }, file);
    }
  } else if (format === 'json') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new TelemetryFileError(`${file}: invalid JSON (${(error as Error).message})`);
    }
    if (isRecord(json) && Array.isArray(json.samples)) return validated(json, file);
    if (Array.isArray(json) && isTelemetry(json)) return validated({ schemaVersion: 1, samples: json }, file);
  }
  try {
    return fromPoints(parseTrace(text, format, file), file);
  } catch (error) {
    if (error instanceof TelemetryFileError) throw error;
    throw new TelemetryFileError((error as Error).message);
  }
}
