import { parseTime } from '@svc/roads';
import type { GpsSample } from '@svc/scoring';
import { type FileContents, gpsSample } from './file-trip.ts';

const COLUMN_NAMES = {
  lon: ['lon', 'lng', 'long', 'longitude', 'x'],
  lat: ['lat', 'latitude', 'y'],
  time: ['time', 'timestamp', 't', 'datetime', 'date_time', 'utc'],
  speedKmh: ['speed_kmh', 'speedkmh', 'kmh', 'speed_km_h', 'speed_kph', 'kph'],
  speedMps: ['speed_mps', 'speedmps', 'speed_ms', 'speed'],
  speedMph: ['speed_mph', 'speedmph', 'mph'],
  speedKnots: ['speed_knots', 'speed_kn', 'speed_kt', 'knots'],
  heading: ['heading', 'heading_deg', 'course', 'bearing'],
  accuracy: ['accuracy', 'accuracy_m', 'hacc', 'horizontal_accuracy'],
  altitude: ['altitude', 'altitude_m', 'ele', 'elevation'],
  trip: ['trip', 'trip_id', 'tripid', 'journey', 'journey_id'],
} as const;

const DEGREES = ['deg', 'degrees', '°', 'dd', 'decimal_degrees'];
const METRES = ['m', 'metres', 'meters'];
const SPEED_UNITS: Record<string, string> = {
  'km/h': 'speed_kmh',
  kmh: 'speed_kmh',
  kph: 'speed_kmh',
  'm/s': 'speed_mps',
  mps: 'speed_mps',
  mph: 'speed_mph',
  kn: 'speed_knots',
  knots: 'speed_knots',
  kt: 'speed_knots',
};

/**
 * A unit a header names after a column (in parentheses or brackets: `Latitude (deg)`, `Speed [km/h]`, as spreadsheets
 * and logger apps export them), by the kind of column: the name the column is read under, or undefined for a unit
 * this reader does not convert (`Altitude (ft)`), which leaves the column unrecognised rather than misread.
 */
function nameWithUnit(kind: keyof typeof COLUMN_NAMES, base: string, unit: string): string | undefined {
  if (kind === 'lon' || kind === 'lat' || kind === 'heading') return DEGREES.includes(unit) ? base : undefined;
  if (kind === 'accuracy' || kind === 'altitude') return METRES.includes(unit) ? base : undefined;
  if (kind === 'time') return unit === 'utc' || unit === 'iso_8601' ? base : undefined;
  if (kind === 'speedMps' && base === 'speed') return SPEED_UNITS[unit];
  return undefined;
}

/**
 * A header cell as a column name: lower case, spaces and dashes as `_`, with a unit after the name read where the
 * reader knows it (`Speed (km/h)` is `speed_kmh`, `Latitude (deg)` is `latitude`). Before, such a column was not
 * recognised: a file whose position columns named their unit was refused for missing them, and a speed column with
 * a unit was left out, so the speeds came from the positions.
 */
function columnName(cell: string): string {
  const plain = (text: string) =>
    text
      .toLowerCase()
      .trim()
      .replace(/[\s-]+/g, '_');
  const withUnit = /^(.*?)\s*[([]\s*([^)\]]+?)\s*[)\]]$/.exec(cell.trim());
  if (withUnit) {
    const base = plain(withUnit[1]!);
    const unit = plain(withUnit[2]!);
    const kind = (Object.keys(COLUMN_NAMES) as Array<keyof typeof COLUMN_NAMES>).find((k) =>
      (COLUMN_NAMES[k] as readonly string[]).includes(base),
    );
    const name = kind === undefined ? undefined : nameWithUnit(kind, base, unit);
    if (name !== undefined) return name;
  }
  return plain(cell);
}

/** A cell that cannot be read; its message names the column and the value. */
class CellError extends Error {}

/** Splits one CSV line: `,` `;` or tab separated, double quotes around cells allowed (with "" escapes). */
function splitLine(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/**
 * CSV with a header row: `lon`, `lat`, `time` required (common spellings accepted, with a unit after the name as
 * in `Latitude (deg)`); optional speed (`speed_kmh` or `Speed (km/h)`, `speed_mph`, `speed_knots`, or `speed` /
 * `speed_mps` in m/s), heading, accuracy, altitude, and a `trip_id` column
 * that splits the file into trips (one trip when absent). A trip with a bad row (a required value
 * missing, or any value that is not a number) is rejected whole, naming the line; other trips of the file
 * are still imported.
 */
export function readCsv(text: string): FileContents {
  const out: FileContents = { trips: [], rejected: [] };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let headerIndex = lines.findIndex((l) => l.trim() !== '');
  // Excel's separator line (`sep=;`), which exports meant for Excel write before the header, names the separator.
  const sepLine = headerIndex < 0 ? null : /^"?sep=(.)"?\s*$/i.exec(lines[headerIndex]!);
  if (sepLine) headerIndex = lines.findIndex((l, i) => i > headerIndex && l.trim() !== '');
  if (headerIndex < 0) {
    out.rejected.push({ location: 'file', reason: 'the file is empty' });
    return out;
  }
  const header = lines[headerIndex]!;
  const separator = sepLine
    ? sepLine[1]!
    : header.includes('\t')
      ? '\t'
      : header.includes(';') && !header.includes(',')
        ? ';'
        : ',';
  const headerCells = splitLine(header, separator);
  const names = headerCells.map(columnName);
  const col = (kind: keyof typeof COLUMN_NAMES) =>
    names.findIndex((n) => (COLUMN_NAMES[kind] as readonly string[]).includes(n));
  const c = {
    lon: col('lon'),
    lat: col('lat'),
    time: col('time'),
    speedKmh: col('speedKmh'),
    speedMps: col('speedMps'),
    speedMph: col('speedMph'),
    speedKnots: col('speedKnots'),
    heading: col('heading'),
    accuracy: col('accuracy'),
    altitude: col('altitude'),
    trip: col('trip'),
  };
  const missing = (['lon', 'lat', 'time'] as const).filter((k) => c[k] < 0);
  if (missing.length > 0) {
    out.rejected.push({
      location: `line ${headerIndex + 1}`,
      reason: `the header needs ${missing.join(', ')} columns (found: ${names.join(', ')})`,
    });
    return out;
  }
  const trips = new Map<string, { samples: GpsSample[]; lines: number[]; error?: string }>();
  // With `;` or tab between cells, a comma inside a number is a decimal comma (European spreadsheets).
  const decimal = (cell: string) => (separator === ',' ? cell : cell.replace(',', '.'));
  /** An optional numeric cell: undefined when absent or empty; a bad value throws, naming the column. */
  const num = (cells: string[], i: number): number | undefined => {
    const cell = i >= 0 ? cells[i] : undefined;
    if (cell === undefined || cell === '') return undefined;
    const value = Number(decimal(cell));
    if (!Number.isFinite(value))
      // Named as the header writes it (`Speed (km/h)`), not as it was read (`speed_kmh`).
      throw new CellError(`${headerCells[i]} ${JSON.stringify(cell.slice(0, 40))} is not a number`);
    return value;
  };
  /** The row's speed in m/s from the first speed column the header has, in its unit. */
  const speedMps = (cells: string[]): number | undefined => {
    const kmh = num(cells, c.speedKmh);
    if (kmh !== undefined) return kmh / 3.6;
    const mps = num(cells, c.speedMps);
    if (mps !== undefined) return mps;
    const mph = num(cells, c.speedMph);
    if (mph !== undefined) return mph * 0.44704;
    const knots = num(cells, c.speedKnots);
    return knots === undefined ? undefined : knots * (1852 / 3600);
  };
  for (let i = headerIndex + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const cells = splitLine(line, separator);
    const tripKey = c.trip >= 0 ? (cells[c.trip] ?? '') : '';
    let trip = trips.get(tripKey);
    if (!trip) {
      trip = { samples: [], lines: [] };
      trips.set(tripKey, trip);
    }
    if (trip.error) continue;
    let sample: GpsSample | string;
    try {
      const mps = speedMps(cells);
      const heading = num(cells, c.heading);
      const accuracy = num(cells, c.accuracy);
      const altitude = num(cells, c.altitude);
      sample = gpsSample({
        lon: cells[c.lon] === undefined ? undefined : decimal(cells[c.lon]!),
        lat: cells[c.lat] === undefined ? undefined : decimal(cells[c.lat]!),
        t: parseTime(cells[c.time]),
        ...(mps !== undefined ? { speedMps: mps } : {}),
        ...(heading !== undefined ? { headingDeg: heading } : {}),
        ...(accuracy !== undefined ? { accuracyM: accuracy } : {}),
        ...(altitude !== undefined ? { altitudeM: altitude } : {}),
      });
    } catch (err) {
      if (!(err instanceof CellError)) throw err;
      sample = err.message;
    }
    if (typeof sample === 'string') trip.error = `line ${i + 1}: ${sample}`;
    else {
      trip.samples.push(sample);
      trip.lines.push(i + 1);
    }
  }
  for (const [key, trip] of trips) {
    const label = c.trip >= 0 ? `trip "${key}"` : 'the file';
    if (trip.error) out.rejected.push({ location: label, reason: trip.error });
    else if (trip.samples.length > 0) {
      const lineNumbers = trip.lines;
      out.trips.push({
        label: `${label} (lines ${lineNumbers[0]}-${lineNumbers.at(-1)})`,
        samples: trip.samples,
        meta: {},
        locate: (s) => `line ${lineNumbers[s] ?? '?'}`,
      });
    }
  }
  if (trips.size === 0) out.rejected.push({ location: 'file', reason: 'the file has a header but no rows' });
  return out;
}
