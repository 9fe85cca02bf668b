import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TracePoint } from '../types.ts';
import { parseCsvTrace } from './csv-trace.ts';
import { parseGeoJsonTrace } from './geojson-trace.ts';
import { parseGpxTrace } from './gpx-trace.ts';
import { parseNdjsonTrace, parseSampleArray } from './sample-trace.ts';
import { TraceInputError } from './trace-input-error.ts';

export type TraceFormat = 'gpx' | 'geojson' | 'csv' | 'ndjson' | 'json';

/** Format from the extension (`.gpx`, `.geojson`, `.json`, `.csv`, `.ndjson`/`.jsonl`), else from the content. */
export function detectTraceFormat(file: string, text: string): TraceFormat {
  const ext = extname(file.replace(/\.gz$/i, '')).toLowerCase();
  if (ext === '.gpx') return 'gpx';
  if (ext === '.geojson') return 'geojson';
  if (ext === '.csv' || ext === '.txt') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.json') return 'json';
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('<')) return 'gpx';
  if (start.startsWith('[')) return 'json';
  if (start.startsWith('{')) {
    const lines = start.split(/\r?\n/).filter((l) => l.trim() !== '');
    if (lines.length > 1 && lines.every((l) => l.trim().startsWith('{') && l.trim().endsWith('}'))) return 'ndjson';
    return 'json';
  }
  return 'csv';
}

/** Parses trace text in a known format; `label` (usually the file name) prefixes error messages. */
export function parseTrace(text: string, format: TraceFormat, label: string): TracePoint[] {
  switch (format) {
    case 'gpx':
      return parseGpxTrace(text, label);
    case 'csv':
      return parseCsvTrace(text, label);
    case 'ndjson':
      return parseNdjsonTrace(text, label);
    case 'geojson':
    case 'json': {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new TraceInputError(`${label}: invalid JSON (${(error as Error).message})`);
      }
      const isGeoJson =
        typeof json === 'object' &&
        json !== null &&
        !Array.isArray(json) &&
        typeof (json as { type?: unknown }).type === 'string' &&
        !('samples' in json);
      return isGeoJson || format === 'geojson' ? parseGeoJsonTrace(json, label) : parseSampleArray(json, label);
    }
  }
}

/**
 * Reads a GPS trace file: GPX (tracks or routes, with or without times), GeoJSON (LineString, or Points with a
 * `time` property), CSV (`lon,lat,time` header), NDJSON samples, or a JSON array of samples; `.gz` compressed
 * files too. The format comes from the extension, else from the content.
 */
export async function readTrace(file: string): Promise<TracePoint[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TraceInputError(`${file}: cannot read trace (${code ?? (error as Error).message})`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new TraceInputError(`${file}: corrupt gzip data (${(error as Error).message})`);
    }
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw new TraceInputError(`${file}: the file is empty`);
  return parseTrace(text, detectTraceFormat(file, text), file);
}
