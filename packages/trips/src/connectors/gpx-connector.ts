import { parseTime } from '@svc/roads';
import type { GpsSample } from '@svc/scoring';
import { SaxesParser } from 'saxes';
import { type FileContents, type FileTrip, gpsSample } from './file-trip.ts';

interface PointDraft {
  lon?: string;
  lat?: string;
  time?: string;
  ele?: string;
  speed?: string;
  course?: string;
  line: number;
}

/**
 * GPX: each `<trk>` is one trip (its segments in order); times are required (`<time>`), speed
 * (`<speed>` in m/s, GPX 1.0 or Garmin extensions), course and elevation are used when present. A
 * track with a bad point is rejected whole, naming the line.
 */
export function readGpx(text: string): FileContents {
  const parser = new SaxesParser({ position: true });
  const out: FileContents = { trips: [], rejected: [] };
  let track: {
    index: number;
    line: number;
    points: GpsSample[];
    lines: number[];
    error?: string;
    name?: string;
  } | null = null;
  let point: PointDraft | null = null;
  let field: keyof PointDraft | 'name' | null = null;
  let textBuf = '';
  let trackCount = 0;
  let sawGpx = false;
  let routes = 0;

  parser.on('opentag', (tag) => {
    const name = tag.name.replace(/^.*:/, '');
    if (name === 'gpx') sawGpx = true;
    else if (name === 'rte') routes++;
    else if (name === 'trk') track = { index: ++trackCount, line: parser.line, points: [], lines: [] };
    else if (name === 'trkpt' && track) {
      const a = tag.attributes as Record<string, string>;
      point = { lon: a.lon, lat: a.lat, line: parser.line };
    } else if (point && (name === 'time' || name === 'ele' || name === 'speed' || name === 'course')) {
      field = name;
      textBuf = '';
    } else if (!point && track && name === 'name') {
      field = 'name';
      textBuf = '';
    }
  });
  const onText = (t: string) => {
    if (field) textBuf += t;
  };
  parser.on('text', onText);
  // Some exporters wrap names, and even times, in CDATA sections: their text is the element's text.
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    const name = tag.name.replace(/^.*:/, '');
    const t = track as typeof track;
    if (field && name === field) {
      if (field === 'name' && t) t.name = textBuf.trim();
      else if (point && field !== 'name') point[field] = textBuf.trim() as never;
      field = null;
    } else if (name === 'trkpt' && point && t) {
      const p = point as PointDraft;
      point = null;
      if (t.error) return;
      if (p.time === undefined) {
        t.error = `line ${p.line}: <trkpt> has no <time>; a trip needs the time of each point`;
        return;
      }
      const sample = gpsSample({
        lon: p.lon,
        lat: p.lat,
        t: parseTime(p.time),
        ...(p.speed !== undefined ? { speedMps: Number(p.speed) } : {}),
        ...(p.course !== undefined ? { headingDeg: Number(p.course) } : {}),
        ...(p.ele !== undefined ? { altitudeM: Number(p.ele) } : {}),
      });
      if (typeof sample === 'string') t.error = `line ${p.line}: ${sample}`;
      else {
        t.points.push(sample);
        t.lines.push(p.line);
      }
    } else if (name === 'trk' && t) {
      track = null;
      const label = `track ${t.index}${t.name ? ` "${t.name}"` : ''}`;
      if (t.error) out.rejected.push({ location: label, reason: t.error });
      else if (t.points.length === 0)
        out.rejected.push({ location: label, reason: `line ${t.line}: the track has no points` });
      else {
        const lines = t.lines;
        const trip: FileTrip = {
          label: `${label} (lines ${lines[0]}-${lines.at(-1)})`,
          samples: t.points,
          meta: {},
          locate: (i) => `line ${lines[i] ?? '?'}`,
        };
        out.trips.push(trip);
      }
    }
  });
  try {
    parser.write(text).close();
  } catch (err) {
    out.rejected.push({
      location: `line ${parser.line}`,
      reason: `malformed GPX: ${(err as Error).message.split('\n')[0]}`,
    });
    return out;
  }
  if (!sawGpx) out.rejected.push({ location: 'line 1', reason: 'no <gpx> element: not a GPX file' });
  else if (trackCount === 0) {
    out.rejected.push({
      location: 'file',
      reason:
        routes > 0 ? 'the file has routes (<rte>) but no recorded tracks (<trk>) with times' : 'the file has no <trk>',
    });
  }
  return out;
}
