import { SaxesParser } from 'saxes';
import type { TracePoint } from '../types.ts';
import { TraceInputError } from './trace-input-error.ts';
import { checkTrace, tracePoint } from './trace-point-builder.ts';

/**
 * Reads the points of a GPX document: track points (`trkpt`, all tracks and segments in order), else route
 * points (`rtept`). `<time>` is optional; points without it have no `timeMs`. `<speed>` (m/s) and `<course>` (degrees),
 * as GPX 1.0 writes them inside the point or Garmin's track point extension does, are read when present.
 */
export function parseGpxTrace(text: string, label = 'GPX'): TracePoint[] {
  const parser = new SaxesParser({ position: true });
  const tracks: TracePoint[] = [];
  const routes: TracePoint[] = [];
  const lines: number[] = [];
  let sawGpx = false;
  let current: {
    kind: 'trkpt' | 'rtept';
    lon?: string;
    lat?: string;
    time?: string;
    speed?: string;
    course?: string;
    line: number;
  } | null = null;
  // The field whose text is being read: the point's time, speed or course.
  let inField: 'time' | 'speed' | 'course' | null = null;
  let fieldText = '';
  parser.on('opentag', (tag) => {
    const name = tag.name.replace(/^.*:/, '');
    if (name === 'gpx') sawGpx = true;
    if (name === 'trkpt' || name === 'rtept') {
      const a = tag.attributes as Record<string, string>;
      current = { kind: name, lon: a.lon, lat: a.lat, line: parser.line };
    } else if ((name === 'time' || name === 'speed' || name === 'course') && current) {
      inField = name;
      fieldText = '';
    }
  });
  parser.on('text', (t) => {
    if (inField) fieldText += t;
  });
  parser.on('closetag', (tag) => {
    const name = tag.name.replace(/^.*:/, '');
    if (inField !== null && name === inField && current) {
      current[inField] = fieldText.trim();
      inField = null;
    } else if ((name === 'trkpt' || name === 'rtept') && current) {
      const list = current.kind === 'trkpt' ? tracks : routes;
      const where = `${label}: ${current.kind} ${list.length + 1} (line ${current.line})`;
      list.push(
        tracePoint(where, current.lon, current.lat, current.time, undefined, {
          speedMps: current.speed,
          courseDeg: current.course,
        }),
      );
      if (current.kind === 'trkpt') lines.push(current.line);
      current = null;
    }
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof TraceInputError) throw error;
    throw new TraceInputError(`${label}: malformed GPX (${(error as Error).message})`);
  }
  if (!sawGpx) throw new TraceInputError(`${label}: no <gpx> element: not a GPX file`);
  const points = tracks.length > 0 ? tracks : routes;
  const kind = tracks.length > 0 ? 'trkpt' : 'rtept';
  return checkTrace(label, points, (i) => `${kind} ${i + 1}`);
}
