import { SaxesParser } from 'saxes';
import type { TracePoint } from '../types.ts';
import { TraceInputError } from './trace-input-error.ts';
import { checkTrace, tracePoint } from './trace-point-builder.ts';

/**
 * Reads the points of a GPX document: track points (`trkpt`, all tracks and segments in order), else route
 * points (`rtept`). `<time>` is optional; points without it have no `timeMs`.
 */
export function parseGpxTrace(text: string, label = 'GPX'): TracePoint[] {
  const parser = new SaxesParser({ position: true });
  const tracks: TracePoint[] = [];
  const routes: TracePoint[] = [];
  const lines: number[] = [];
  let sawGpx = false;
  let current: { kind: 'trkpt' | 'rtept'; lon?: string; lat?: string; time?: string; line: number } | null = null;
  let inTime = false;
  let timeText = '';
  parser.on('opentag', (tag) => {
    const name = tag.name.replace(/^.*:/, '');
    if (name === 'gpx') sawGpx = true;
    if (name === 'trkpt' || name === 'rtept') {
      const a = tag.attributes as Record<string, string>;
      current = { kind: name, lon: a.lon, lat: a.lat, line: parser.line };
    } else if (name === 'time' && current) {
      inTime = true;
      timeText = '';
    }
  });
  parser.on('text', (t) => {
    if (inTime) timeText += t;
  });
  parser.on('closetag', (tag) => {
    const name = tag.name.replace(/^.*:/, '');
    if (name === 'time' && inTime && current) {
      current.time = timeText.trim();
      inTime = false;
    } else if ((name === 'trkpt' || name === 'rtept') && current) {
      const list = current.kind === 'trkpt' ? tracks : routes;
      const where = `${label}: ${current.kind} ${list.length + 1} (line ${current.line})`;
      list.push(tracePoint(where, current.lon, current.lat, current.time));
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
