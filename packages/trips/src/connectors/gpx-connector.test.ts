import { describe, expect, it } from 'vitest';
import { readGpx } from './gpx-connector.ts';

const gpx = (points: string[]) =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">',
    '<trk><trkseg>',
    ...points,
    '</trkseg></trk>',
    '</gpx>',
  ].join('\n');
const point = (i: number, lat = `43.7${i}`, lon = '7.42') =>
  `<trkpt lat="${lat}" lon="${lon}"><time>2026-11-03T10:00:0${i}Z</time></trkpt>`;

describe('readGpx', () => {
  it('rejects a track whose point has an empty lat or lon attribute instead of reading it as 0', () => {
    for (const [lat, lon] of [
      ['', '7.42'],
      ['43.71', ''],
      [' ', '7.42'],
    ]) {
      const { trips, rejected } = readGpx(gpx([point(0), point(1, lat, lon), point(2)]));
      expect(trips, `${lat}|${lon}`).toEqual([]);
      expect(rejected, `${lat}|${lon}`).toEqual([
        { location: 'track 1', reason: expect.stringMatching(/^line 5: (longitude|latitude) ".*" is not a number/) },
      ]);
    }
  });

  it('reads the name and times of a track written in CDATA sections', () => {
    const cdata = (i: number) =>
      `<trkpt lat="43.7${i}" lon="7.42"><time><![CDATA[2026-11-03T10:00:0${i}Z]]></time></trkpt>`;
    const text = gpx([cdata(0), cdata(1), cdata(2)]).replace('<trk>', '<trk><name><![CDATA[Depot & back]]></name>');
    const { trips, rejected } = readGpx(text);
    expect(rejected).toEqual([]);
    expect(trips.map((t) => t.label)).toEqual(['track 1 "Depot & back" (lines 4-6)']);
    expect(trips[0]!.samples.map((s) => s.t)).toEqual([0, 1, 2].map((i) => Date.UTC(2026, 10, 3, 10, 0, i)));
  });

  it('reads a track with all its coordinates', () => {
    const { trips, rejected } = readGpx(gpx([point(0), point(1), point(2)]));
    expect(rejected).toEqual([]);
    expect(trips[0]!.samples.map((s) => (s.type === 'gps' ? [s.lon, s.lat] : null))).toEqual([
      [7.42, 43.7],
      [7.42, 43.71],
      [7.42, 43.72],
    ]);
  });
});
