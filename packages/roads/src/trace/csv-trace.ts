import type { TracePoint } from '../types.ts';
import { TraceInputError } from './trace-input-error.ts';
import { checkTrace, tracePoint } from './trace-point-builder.ts';

const LON = ['lon', 'lng', 'longitude', 'x'];
const LAT = ['lat', 'latitude', 'y'];
const TIME = ['time', 'timestamp', 'timems', 't', 'datetime'];
const ACCURACY = ['accuracy', 'accuracym', 'horizontalaccuracym', 'hacc'];

/**
 * Reads a CSV trace with a header row naming `lon`, `lat` and optionally `time` and `accuracy` columns (common
 * spellings accepted, any order, `,` `;` or tab separated, no quoted separators). Times as in `parseTime`.
 */
export function parseCsvTrace(text: string, label = 'CSV'): TracePoint[] {
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
  const points: TracePoint[] = [];
  const lineOf: number[] = [];
  for (let i = headerLine + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const cells = line.split(separator).map((c) => c.trim().replace(/^"|"$/g, ''));
    const where = `${label}: line ${i + 1}`;
    points.push(
      tracePoint(
        where,
        cells[lon],
        cells[lat],
        time >= 0 ? cells[time] : undefined,
        accuracy >= 0 ? cells[accuracy] : undefined,
      ),
    );
    lineOf.push(i + 1);
  }
  return checkTrace(label, points, (k) => `line ${lineOf[k]}`);
}
