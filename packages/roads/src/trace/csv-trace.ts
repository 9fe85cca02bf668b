import type { TracePoint } from '../types.ts';
import { TraceInputError } from './trace-input-error.ts';
import { checkTrace, tracePoint } from './trace-point-builder.ts';

const LON = ['lon', 'lng', 'longitude', 'x'];
const LAT = ['lat', 'latitude', 'y'];
const TIME = ['time', 'timestamp', 'timems', 't', 'datetime'];
const ACCURACY = ['accuracy', 'accuracym', 'horizontalaccuracym', 'hacc'];
const SPEED_MPS = ['speed', 'speedmps', 'speed_mps', 'speed_ms'];
const SPEED_KMH = ['speedkmh', 'speed_kmh', 'kmh', 'speed_km_h'];
const COURSE = ['course', 'heading', 'headingdeg', 'heading_deg', 'bearing', 'coursedeg'];

/**
 * Reads a CSV trace with a header row naming `lon`, `lat` and optionally `time`, `accuracy`, `speed` (m/s, or
 * `speed_kmh`) and `course` (or `heading`, `bearing`) columns (common spellings accepted, any order, `,` `;` or tab
 * separated, no quoted separators). Times as in `parseTime`.
 */
export function parseCsvTrace(text: string, label = 'CSV'): TracePoint[] {
  // A binary file given as the trace (the .osm.pbf beside it, a photo) is read here, CSV being the fallback format:
  // its "header" was quoted as question marks. NUL is never in a text file; an invalid UTF-8 byte may be (a
  // Latin-1 street name), so that alone does not make a file binary.
  if (text.slice(0, 4096).includes('\u0000')) {
    const what = text.slice(0, 64).includes('OSMHeader') ? 'an OpenStreetMap extract' : 'binary data';
    throw new TraceInputError(
      `${label}: ${what}, not a GPS trace (expected GPX, GeoJSON, CSV, NDJSON or JSON positions)`,
    );
  }
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerLine = lines.findIndex((l) => l.trim() !== '');
  if (headerLine < 0) throw new TraceInputError(`${label}: the file is empty`);
  const header = lines[headerLine]!;
  const separator = header.includes('\t') ? '\t' : header.includes(';') && !header.includes(',') ? ';' : ',';
  const columns = header.split(separator).map((c) => c.trim().toLowerCase().replace(/^"|"$/g, ''));
  const find = (names: string[]) => columns.findIndex((c) => names.includes(c));
  const lon = find(LON);
  const lat = find(LAT);
  if (lon < 0 || lat < 0) {
    throw new TraceInputError(
      `${label}: line ${headerLine + 1}: the header needs lon and lat columns, found "${header.trim()}"`,
    );
  }
  const time = find(TIME);
  const accuracy = find(ACCURACY);
  const speedMps = find(SPEED_MPS);
  const speedKmh = find(SPEED_KMH);
  const course = find(COURSE);
  const cell = (cells: string[], index: number) => (index >= 0 ? cells[index] : undefined);
  const points: TracePoint[] = [];
  const lineOf: number[] = [];
  for (let i = headerLine + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const cells = line.split(separator).map((c) => c.trim().replace(/^"|"$/g, ''));
    const where = `${label}: line ${i + 1}`;
    points.push(
      tracePoint(where, cells[lon], cells[lat], cell(cells, time), cell(cells, accuracy), {
        speedMps: cell(cells, speedMps),
        speedKmh: cell(cells, speedKmh),
        courseDeg: cell(cells, course),
      }),
    );
    lineOf.push(i + 1);
  }
  return checkTrace(label, points, (k) => `line ${lineOf[k]}`);
}
