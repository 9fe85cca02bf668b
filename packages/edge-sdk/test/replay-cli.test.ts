import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drive } from './drive.ts';
import { FakeIngestServer } from './fake-ingest-server.ts';

const BIN = fileURLToPath(new URL('../bin/edge-sdk.js', import.meta.url));
const TRACES = fileURLToPath(new URL('../../../../shared/data/traces/', import.meta.url));
const MUNICH = path.join(TRACES, 'munich-x0001-001.json');
const ANDORRA_GPX = path.join(TRACES, 'andorra-route.gpx');
const T0 = Date.UTC(2025, 5, 5, 17);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('edge-sdk replay', () => {
  let dir: string;
  let server: FakeIngestServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-cli-'));
    server = await FakeIngestServer.start();
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays a telemetry NDJSON file with its header into trips the server receives once each', async () => {
    const samples = drive({
      startMs: T0,
      legs: [{ stop: 5 }, { move: 150, speedKmh: 45 }, { stop: 310 }, { move: 140, speedKmh: 35 }, { stop: 20 }],
      accelHz: 1,
    }).map((s) => (s.type === 'accel' ? { ...s, t: s.t + 500 } : s));
    const header = { type: 'header', vehicle: 'HD-ND 42', driverId: 'drv-nd' };
    const file = path.join(dir, 'drive.ndjson.gz');
    writeFileSync(file, gzipSync([header, ...samples].map((l) => JSON.stringify(l)).join('\n')));

    const before = server.trips.size;
    const run = await cli(['replay', file, '--endpoint', server.url, '--key', 'test-key-1', '--no-delay']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${samples.length} samples replayed; 2 of 2 trips delivered`);
    const stored = server.storedTrips().slice(before);
    expect(stored).toHaveLength(2);
    expect(stored.map((t) => t.batch.vehicle)).toEqual(['HD-ND 42', 'HD-ND 42']);
    expect(stored.map((t) => t.batch.driverId)).toEqual(['drv-nd', 'drv-nd']);
    expect(stored[0]?.batch.samples.some((s) => s.type === 'accel')).toBe(true);
  });

  it('plays a trace in scaled real time with --speed', async () => {
    const samples = drive({ startMs: T0 + 86_400_000, legs: [{ move: 130, speedKmh: 40 }] });
    const file = path.join(dir, 'short.ndjson');
    writeFileSync(file, samples.map((s) => JSON.stringify(s)).join('\n'));
    const run = await cli(['replay', file, '--endpoint', server.url, '--key', 'test-key-1', '--speed', '100']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('1 of 1 trips delivered');
  });

  it.skipIf(!existsSync(MUNICH))(
    'replays the recorded Munich drive (1 Hz, 20 min) as one trip (needs ../shared/data)',
    async () => {
      const before = server.trips.size;
      const run = await cli([
        'replay',
        MUNICH,
        '--endpoint',
        server.url,
        '--key',
        'test-key-1',
        '--vehicle',
        'M-X 1',
        '--no-delay',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/13\.\d\d km/);
      const [trip] = server.storedTrips().slice(before);
      expect(trip?.batch).toMatchObject({ vehicle: 'M-X 1' });
      expect(trip?.batch.samples).toHaveLength(1194);
    },
  );

  it.skipIf(!existsSync(ANDORRA_GPX))(
    'refuses a GPX route without times in one line on stderr (needs ../shared/data)',
    async () => {
      const run = await cli(['replay', ANDORRA_GPX, '--endpoint', server.url, '--key', 'test-key-1', '--no-delay']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`edge-sdk: ${ANDORRA_GPX}: point 0 has no time; a replay needs timestamped fixes\n`);
    },
  );

  it('replays GPX, CSV and GeoJSON traces whose times carry a UTC offset written ±hh, ±hhmm or ±hh:mm, at the instants they name', async () => {
    // The same 3-minute drive, exported by three apps in local time: Athens (+02) and New York (-05).
    const exports = [
      { name: 'athens-hh.gpx', offsetH: 2, zone: '+02', lon: 23.7275, lat: 37.9838 },
      { name: 'athens-hhmm.csv', offsetH: 2, zone: '+0200', lon: 23.7275, lat: 37.9838 },
      { name: 'new-york-hh.geojson', offsetH: -5, zone: '-05', lon: -73.9857, lat: 40.7484 },
      { name: 'new-york-hh-mm.gpx', offsetH: -5, zone: '-05:00', lon: -73.9857, lat: 40.7484 },
    ];
    for (const [i, e] of exports.entries()) {
      const startMs = Date.UTC(2026, 10, 21, 8, 15) + i * 86_400_000;
      const fixes = drive({
        startMs,
        lon: e.lon,
        lat: e.lat,
        legs: [{ stop: 5 }, { move: 150, speedKmh: 45 }, { stop: 20 }],
      }) as Array<{ t: number; lon: number; lat: number }>;
      const local = (t: number) => `${new Date(t + e.offsetH * 3_600_000).toISOString().slice(0, 19)}${e.zone}`;
      const file = path.join(dir, e.name);
      if (e.name.endsWith('.gpx')) {
        writeFileSync(
          file,
          [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<gpx version="1.1" creator="OsmAnd~ 4.8.6" xmlns="http://www.topografix.com/GPX/1/1">',
            `  <metadata><time>${local(startMs)}</time></metadata>`,
            '  <trk><name>Morning drive</name><trkseg>',
            ...fixes.map(
              (f) =>
                `    <trkpt lat="${f.lat.toFixed(7)}" lon="${f.lon.toFixed(7)}"><ele>84.2</ele><time>${local(f.t)}</time><hdop>0.9</hdop></trkpt>`,
            ),
            '  </trkseg></trk>',
            '</gpx>',
          ].join('\n'),
        );
      } else if (e.name.endsWith('.csv')) {
        writeFileSync(
          file,
          [
            'time,lat,lon,accuracy',
            ...fixes.map((f) => `${local(f.t)},${f.lat.toFixed(7)},${f.lon.toFixed(7)},4.5`),
          ].join('\r\n'),
        );
      } else {
        const coordinates = fixes.map((f) => [Number(f.lon.toFixed(7)), Number(f.lat.toFixed(7))]);
        const feature = {
          type: 'Feature',
          properties: { name: 'Morning drive', coordinateProperties: { times: fixes.map((f) => local(f.t)) } },
          geometry: { type: 'LineString', coordinates },
        };
        writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [feature] }));
      }
      const before = server.trips.size;
      const run = await cli(['replay', file, '--endpoint', server.url, '--key', 'test-key-1', '--no-delay', '--quiet']);
      expect(run.stderr, e.name).toBe('');
      expect(run.code, e.name).toBe(0);
      expect(run.stdout, e.name).toContain(`${fixes.length} samples replayed; 1 of 1 trips delivered`);
      const [trip] = server.storedTrips().slice(before);
      const times = trip!.batch.samples.map((x) => x.t);
      // Every time the file wrote in local time arrives as the UTC instant it names.
      expect(
        times.every((t) => fixes.some((f) => f.t === t)),
        e.name,
      ).toBe(true);
      expect(times[0], e.name).toBeLessThan(startMs + 10_000);
    }
  });

  it('keeps the buffer when the server refuses the key, and delivers on a rerun with --storage', async () => {
    const samples = drive({ startMs: T0 + 2 * 86_400_000, legs: [{ move: 130, speedKmh: 40 }] });
    const file = path.join(dir, 'refused.ndjson');
    writeFileSync(file, samples.map((s) => JSON.stringify(s)).join('\n'));
    const storage = path.join(dir, 'kept.db');

    const refused = await cli([
      'replay',
      file,
      '--endpoint',
      server.url,
      '--key',
      'wrong-key',
      '--no-delay',
      '--storage',
      storage,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('reason: HTTP 401: missing or unknown ingest key');
    expect(refused.stderr).toBe(
      `edge-sdk: 1 of 1 trips not delivered; buffer kept at ${storage} (rerun with --storage to resume)\n`,
    );

    const rerun = await cli([
      'replay',
      file,
      '--endpoint',
      server.url,
      '--key',
      'test-key-1',
      '--no-delay',
      '--storage',
      storage,
    ]);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain(`0 samples replayed, ${samples.length} already recorded; 1 of 1 trips delivered`);

    const status = await cli(['status', storage]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/ sent .*server trip_/);
  });

  it('says how many samples it left out for repeating the time of the one before', async () => {
    const samples = drive({ startMs: T0, legs: [{ stop: 5 }, { move: 150, speedKmh: 45 }, { stop: 310 }] });
    const fixes = samples.filter((x) => x.type === 'gps');
    // Two fixes repeated at the same instant, somewhere else: a live recorder would keep the first.
    const repeated = fixes.slice(20, 22).map((f) => ({ ...f, lat: (f as { lat: number }).lat + 0.001 }));
    const file = path.join(dir, 'repeats.ndjson');
    writeFileSync(file, [...samples, ...repeated].map((l) => JSON.stringify(l)).join('\n'));
    const run = await cli(['replay', file, '--endpoint', server.url, '--key', 'test-key-1', '--no-delay', '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `${samples.length} samples replayed, 2 left out (same kind and time as the one before); 1 of 1 trips delivered`,
    );
  });

  it('fails with the reason when the samples never make a trip (parked, or too short)', async () => {
    for (const [name, legs] of [
      ['parked', [{ stop: 400 }]],
      ['short', [{ stop: 5 }, { move: 30, speedKmh: 20 }, { stop: 310 }]],
    ] as const) {
      const samples = drive({ startMs: T0, legs: [...legs] });
      const file = path.join(dir, `${name}.ndjson`);
      writeFileSync(file, samples.map((l) => JSON.stringify(l)).join('\n'));
      const before = server.trips.size;
      const run = await cli(['replay', file, '--endpoint', server.url, '--key', 'test-key-1', '--no-delay', '--quiet']);
      expect(run.code, name).toBe(1);
      expect(run.stderr, name).toBe(
        `edge-sdk: no trip was recorded from ${samples.length} samples: a trip starts at the first speed above 8 km/h, and one under 1 km or 2 minutes moving is discarded\n`,
      );
      expect(server.trips.size, name).toBe(before);
    }
  });

  it('rejects bad arguments with one line on stderr', async () => {
    const missingKey = await cli(['replay', 'x.ndjson', '--endpoint', server.url]);
    expect(missingKey.code).toBe(1);
    expect(missingKey.stderr).toBe('edge-sdk: an ingest key is required: --key <key> or EDGE_SDK_INGEST_KEY\n');
    const badSpeed = await cli(['replay', 'x.ndjson', '--endpoint', server.url, '--key', 'k', '--speed', '0']);
    expect(badSpeed.code).toBe(1);
    expect(badSpeed.stderr).toBe(
      "edge-sdk: option '--speed <factor>' argument '0' is invalid. must be a positive number\n",
    );
    const noEndpoint = await cli(['replay', 'x.ndjson', '--key', 'k']);
    expect(noEndpoint.stderr).toBe("edge-sdk: required option '--endpoint <url>' not specified\n");
    // A folder given as the buffer file is named as such, not as SQLite's "unable to open database file".
    const trace = path.join(dir, 'folder-storage.ndjson');
    writeFileSync(trace, '{"type":"gps","t":1750000000000,"lon":7,"lat":45}\n');
    const folderStorage = await cli(['replay', trace, '--endpoint', server.url, '--key', 'k', '--storage', dir]);
    expect(folderStorage.code).toBe(1);
    expect(folderStorage.stderr).toBe(`edge-sdk: cannot open storage ${dir}: it is a folder, not a buffer file\n`);
    const badFile = await cli(['replay', path.join(dir, 'nope.ndjson'), '--endpoint', server.url, '--key', 'k']);
    expect(badFile.stderr).toBe(`edge-sdk: ${path.join(dir, 'nope.ndjson')}: cannot read (ENOENT)\n`);
  });
});
