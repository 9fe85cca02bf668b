import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrace } from './read-trace.ts';

const dir = mkdtempSync(join(tmpdir(), 'roads-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const T0 = Date.parse('2024-05-01T08:00:00Z');

const gpx = (points: string) =>
  `<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${points}</trkseg></trk></gpx>`;

describe('readTrace', () => {
  it('reads GPX track points with times', async () => {
    const path = file(
      'timed.gpx',
      gpx(
        '<trkpt lat="43.73" lon="7.42"><time>2024-05-01T08:00:00Z</time></trkpt><trkpt lat="43.731" lon="7.421"><ele>12</ele><time>2024-05-01T08:00:01Z</time></trkpt>',
      ),
    );
    expect(await readTrace(path)).toEqual([
      { lon: 7.42, lat: 43.73, timeMs: T0 },
      { lon: 7.421, lat: 43.731, timeMs: T0 + 1000 },
    ]);
  });

  it('reads GPX without times and falls back to route points', async () => {
    const path = file('route.gpx', '<gpx><rte><rtept lat="1" lon="2"/><rtept lat="1.1" lon="2.1"/></rte></gpx>');
    expect(await readTrace(path)).toEqual([
      { lon: 2, lat: 1 },
      { lon: 2.1, lat: 1.1 },
    ]);
  });

  it('reads a GeoJSON LineString with coordinate times', async () => {
    const path = file(
      'line.geojson',
      JSON.stringify({
        type: 'Feature',
        properties: { coordinateProperties: { times: ['2024-05-01T08:00:00Z', '2024-05-01T08:00:02Z'] } },
        geometry: {
          type: 'LineString',
          coordinates: [
            [7.42, 43.73, 5],
            [7.43, 43.74],
          ],
        },
      }),
    );
    expect(await readTrace(path)).toEqual([
      { lon: 7.42, lat: 43.73, timeMs: T0 },
      { lon: 7.43, lat: 43.74, timeMs: T0 + 2000 },
    ]);
  });

  it('reads GeoJSON points with a time property and accuracy', async () => {
    const point = (lon: number, time: unknown) => ({
      type: 'Feature',
      properties: { time, accuracy: 6 },
      geometry: { type: 'Point', coordinates: [lon, 43.7] },
    });
    const path = file(
      'points.geojson',
      JSON.stringify({
        type: 'FeatureCollection',
        features: [point(7.4, '2024-05-01T08:00:00Z'), point(7.41, T0 + 1000)],
      }),
    );
    expect(await readTrace(path)).toEqual([
      { lon: 7.4, lat: 43.7, timeMs: T0, accuracyM: 6 },
      { lon: 7.41, lat: 43.7, timeMs: T0 + 1000, accuracyM: 6 },
    ]);
  });

  it('reads CSV with a lon,lat,time header in any column order', async () => {
    const path = file('trace.csv', 'time,lat,lon\n2024-05-01T08:00:00Z,43.7,7.4\n2024-05-01 08:00:01,43.71,7.41\n\n');
    expect(await readTrace(path)).toEqual([
      { lon: 7.4, lat: 43.7, timeMs: T0 },
      { lon: 7.41, lat: 43.71, timeMs: T0 + 1000 },
    ]);
  });

  it('reads NDJSON telemetry samples, skipping the header and non-GPS samples', async () => {
    const path = file(
      'trip.ndjson',
      [
        JSON.stringify({ type: 'header', deviceId: 'phone-1' }),
        JSON.stringify({ type: 'gps', t: T0, lon: 7.4, lat: 43.7, accuracyM: 4 }),
        JSON.stringify({ type: 'accel', t: T0 + 10, x: 0, y: 0, z: 9.81 }),
        JSON.stringify({ type: 'gps', t: T0 + 1000, lon: 7.401, lat: 43.7 }),
      ].join('\n'),
    );
    expect(await readTrace(path)).toEqual([
      { lon: 7.4, lat: 43.7, timeMs: T0, accuracyM: 4 },
      { lon: 7.401, lat: 43.7, timeMs: T0 + 1000 },
    ]);
  });

  it('sniffs the format when the extension says nothing, and reads gzip', async () => {
    const path = file('trace.dat', gzipSync(gpx('<trkpt lat="1" lon="2"/><trkpt lat="1" lon="2.001"/>')));
    expect(await readTrace(path)).toHaveLength(2);
  });

  const munich = fileURLToPath(new URL('../../../../../shared/data/traces/munich-x0001-001.json', import.meta.url));
  it.skipIf(!existsSync(munich))('reads the real Munich 1 Hz trace (WKT points, local times with offset)', async () => {
    const points = await readTrace(munich);
    expect(points).toHaveLength(1194);
    expect(points[0]).toEqual({
      lon: 11.564388282625075,
      lat: 48.16350662940509,
      timeMs: Date.parse('2014-09-10T04:54:07Z'),
    });
    expect(points[points.length - 1]!.timeMs! - points[0]!.timeMs!).toBe(1195_000);
  });

  describe('bad input', () => {
    it('rejects an empty file', async () => {
      await expect(readTrace(file('empty.gpx', ''))).rejects.toThrow(/empty\.gpx: the file is empty/);
    });

    it('rejects a trace with no points', async () => {
      await expect(readTrace(file('none.gpx', gpx('')))).rejects.toThrow(/none\.gpx: the trace has no points/);
    });

    it('names the record with NaN or out-of-range coordinates', async () => {
      await expect(readTrace(file('nan.csv', 'lon,lat\n7.4,43.7\n7.5,NaN\n'))).rejects.toThrow(
        /nan\.csv: line 3: lat is "NaN", expected a number/,
      );
      await expect(readTrace(file('range.gpx', gpx('<trkpt lat="91" lon="7"/>')))).rejects.toThrow(
        /range\.gpx: trkpt 1 \(line 1\): coordinates lon=7 lat=91 are out of range/,
      );
      await expect(readTrace(file('missing.gpx', gpx('<trkpt lon="7"/>')))).rejects.toThrow(/trkpt 1 .*lat is missing/);
    });

    it('names the record where time goes backwards', async () => {
      const path = file('back.csv', 'lon,lat,time\n7.4,43.7,2024-05-01T08:00:05Z\n7.41,43.7,2024-05-01T08:00:04Z\n');
      await expect(readTrace(path)).rejects.toThrow(
        /back\.csv: line 3: time 2024-05-01T08:00:04.000Z goes backwards \(line 2/,
      );
    });

    it('rejects unreadable times, malformed XML and broken JSON lines', async () => {
      await expect(readTrace(file('t.csv', 'lon,lat,time\n7.4,43.7,yesterday\n'))).rejects.toThrow(
        /t\.csv: line 2: time "yesterday" is not a valid time/,
      );
      await expect(readTrace(file('bad.gpx', '<gpx><trk><trkpt lat="1" lon="2"></trk>'))).rejects.toThrow(
        /bad\.gpx: malformed GPX/,
      );
      await expect(readTrace(file('bad.ndjson', '{"lon":1,"lat":2}\n{"lon":'))).rejects.toThrow(
        /bad\.ndjson: line 2: invalid JSON/,
      );
      await expect(readTrace(file('cols.csv', 'x1,y1\n1,2\n'))).rejects.toThrow(
        /cols\.csv: line 1: the header needs lon and lat/,
      );
      await expect(readTrace(join(dir, 'absent.csv'))).rejects.toThrow(/absent\.csv: cannot read trace \(ENOENT\)/);
    });

    it('says a binary file is not a trace, rather than quoting its bytes as a CSV header', async () => {
      const photo = join(dir, 'photo.jpg');
      writeFileSync(photo, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]));
      await expect(readTrace(photo)).rejects.toThrow(
        `${photo}: binary data, not a GPS trace (expected GPX, GeoJSON, CSV, NDJSON or JSON positions)`,
      );
    });

    const monacoPbf = fileURLToPath(new URL('../../../../../shared/data/osm/monaco.osm.pbf', import.meta.url));
    it.skipIf(!existsSync(monacoPbf))(
      'says the real Monaco .osm.pbf given as a trace is an OpenStreetMap extract (skipped when ../shared/data is absent)',
      async () => {
        await expect(readTrace(monacoPbf)).rejects.toThrow(
          `${monacoPbf}: an OpenStreetMap extract, not a GPS trace (expected GPX, GeoJSON, CSV, NDJSON or JSON positions)`,
        );
      },
    );
  });

  it('reads the receiver’s speed and course where each format carries them, for the matcher', async () => {
    const gpx10 = file(
      'motion.gpx',
      '<gpx version="1.0"><trk><trkseg><trkpt lat="43.73" lon="7.42"><time>2024-05-01T08:00:00Z</time>' +
        '<course>271.5</course><speed>12.5</speed></trkpt>' +
        '<trkpt lat="43.731" lon="7.421"><time>2024-05-01T08:00:01Z</time><extensions>' +
        '<gpxtpx:TrackPointExtension xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">' +
        '<gpxtpx:speed>3</gpxtpx:speed><gpxtpx:course>-90</gpxtpx:course></gpxtpx:TrackPointExtension></extensions>' +
        '</trkpt></trkseg></trk></gpx>',
    );
    expect(await readTrace(gpx10)).toEqual([
      { lon: 7.42, lat: 43.73, timeMs: T0, speedMps: 12.5, courseDeg: 271.5 },
      { lon: 7.421, lat: 43.731, timeMs: T0 + 1000, speedMps: 3, courseDeg: 270 },
    ]);
    const csv = file('motion.csv', 'time,lat,lon,speed_kmh,heading\n2024-05-01T08:00:00Z,43.73,7.42,36,90\n');
    expect(await readTrace(csv)).toEqual([{ lon: 7.42, lat: 43.73, timeMs: T0, speedMps: 10, courseDeg: 90 }]);
    const ndjson = file(
      'motion.ndjson',
      `${JSON.stringify({ type: 'gps', t: T0, lon: 7.42, lat: 43.73, speedMps: 0.2, headingDeg: 15 })}\n`,
    );
    expect(await readTrace(ndjson)).toEqual([{ lon: 7.42, lat: 43.73, timeMs: T0, speedMps: 0.2, courseDeg: 15 }]);
    const geojson = file(
      'motion.geojson',
      JSON.stringify({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [7.42, 43.73] },
        properties: { time: '2024-05-01T08:00:00Z', speed: 4, course: 180 },
      }),
    );
    expect(await readTrace(geojson)).toEqual([{ lon: 7.42, lat: 43.73, timeMs: T0, speedMps: 4, courseDeg: 180 }]);
  });

  it('names a record whose speed or course is not a number', async () => {
    const csv = file('bad-speed.csv', 'lat,lon,speed\n43.73,7.42,fast\n');
    await expect(readTrace(csv)).rejects.toThrow('line 2: speed "fast" is not a speed');
    const ndjson = file('bad-course.ndjson', `${JSON.stringify({ t: T0, lon: 7.42, lat: 43.73, course: 'north' })}\n`);
    await expect(readTrace(ndjson)).rejects.toThrow('line 1: course "north" is not an angle in degrees');
    const negative = file('negative.csv', 'lat,lon,speed\n43.73,7.42,-3\n');
    await expect(readTrace(negative)).rejects.toThrow('line 2: speed "-3" is not a speed');
  });
});
