import type { TracePoint } from '../types.ts';
import { TraceInputError } from './trace-input-error.ts';
import { checkTrace, tracePoint } from './trace-point-builder.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const WKT_POINT = /^\s*POINT\s*\(\s*(\S+)\s+(\S+)\s*\)\s*$/i;

/**
 * A position record as telemetry and other tools write it, or null for records that are not positions
 * (accelerometer samples, a header line). Accepts `{ type: "gps", t, lon, lat, accuracyM, speedMps, headingDeg }`
 * (the telemetry format), `lng`/`longitude`/`latitude`, `time`/`timestamp`/`timeMs`, WKT `point: "POINT(lon lat)"`,
 * and `speed` (m/s) or `speedKmh`, `course`/`heading`/`bearing` (degrees).
 */
export function samplePoint(record: unknown, where: string): TracePoint | null {
  if (!isObject(record)) throw new TraceInputError(`${where}: expected a JSON object`);
  if (record.type !== undefined && record.type !== 'gps') return null;
  let lon = record.lon ?? record.lng ?? record.longitude;
  let lat = record.lat ?? record.latitude;
  if (lon === undefined && lat === undefined && typeof record.point === 'string') {
    const wkt = WKT_POINT.exec(record.point);
    if (!wkt) throw new TraceInputError(`${where}: point ${JSON.stringify(record.point)} is not a WKT POINT(lon lat)`);
    lon = Number(wkt[1]);
    lat = Number(wkt[2]);
  }
  const time = record.t ?? record.timeMs ?? record.time ?? record.timestamp;
  const accuracy = record.accuracyM ?? record.accuracy;
  return tracePoint(where, lon, lat, time, accuracy, {
    speedMps: record.speedMps ?? record.speed,
    speedKmh: record.speedKmh,
    courseDeg: record.headingDeg ?? record.courseDeg ?? record.course ?? record.heading ?? record.bearing,
  });
}

/** Reads NDJSON samples, one JSON object per line; non-position lines (other sample types, a header) are skipped. */
export function parseNdjsonTrace(text: string, label = 'NDJSON'): TracePoint[] {
  const points: TracePoint[] = [];
  const lineOf: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw new TraceInputError(`${label}: line ${i + 1}: invalid JSON (${(error as Error).message})`);
    }
    const point = samplePoint(record, `${label}: line ${i + 1}`);
    if (point) {
      points.push(point);
      lineOf.push(i + 1);
    }
  });
  return checkTrace(label, points, (k) => `line ${lineOf[k]}`);
}

/** Reads a JSON array of samples or a telemetry batch (`{ samples: [...] }`). */
export function parseSampleArray(json: unknown, label = 'JSON'): TracePoint[] {
  const records = Array.isArray(json) ? json : isObject(json) && Array.isArray(json.samples) ? json.samples : null;
  if (!records) throw new TraceInputError(`${label}: expected an array of samples or an object with "samples"`);
  const points: TracePoint[] = [];
  const indexOf: number[] = [];
  records.forEach((record, i) => {
    const point = samplePoint(record, `${label}: record ${i}`);
    if (point) {
      points.push(point);
      indexOf.push(i);
    }
  });
  return checkTrace(label, points, (k) => `record ${indexOf[k]}`);
}
