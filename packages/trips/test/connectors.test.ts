import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile, readImportFile } from '../src/connectors/import-files.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import type { TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';

const T0 = Date.UTC(2026, 10, 1, 8, 0, 0);
const iso = (i: number) => new Date(T0 + i * 1000).toISOString();
const lonAt = (i: number) => (7.42 + i * 0.0002).toFixed(6);

function gpx(): string {
  const pts = (n: number, offset: number) =>
    Array.from(
      { length: n },
      (_, i) => `      <trkpt lat="43.73" lon="${lonAt(i)}"><ele>12</ele><time>${iso(offset + i)}</time></trkpt>`,
    ).join('\n');
  return `<?xml version="1.0"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>Morning</name><trkseg>
${pts(30, 0)}
  </trkseg></trk>
  <trk><name>Broken</name><trkseg>
      <trkpt lat="43.73" lon="7.42"><time>${iso(100)}</time></trkpt>
      <trkpt lat="95" lon="7.43"><time>${iso(101)}</time></trkpt>
  </trkseg></trk>
  <trk><name>Evening</name><trkseg>
${pts(30, 3600)}
  </trkseg></trk>
</gpx>`;
}

function csv(): string {
  const rows = ['trip_id,timestamp,lat,lon,speed_kmh'];
  // Not the times of tracks.gpx: the same fixes of the same vehicle would be that trip again (a duplicate).
  for (let i = 0; i < 30; i++) rows.push(`A,${iso(1800 + i)},43.73,${lonAt(i)},50`);
  for (let i = 0; i < 30; i++) rows.push(`B,${iso(7200 + i)},43.73,${lonAt(i)},50`);
  rows.push(`C,${iso(9000)},43.73,${lonAt(0)},50`);
  rows.push(`C,not-a-time,43.73,${lonAt(1)},50`);
  return rows.join('\n');
}

function geojson(): string {
  const coords = Array.from({ length: 30 }, (_, i) => [Number(lonAt(i)), 43.73]);
  return JSON.stringify({
    type: 'FeatureCollection',
    features: [
      {
        type: 'Feature',
        geometry: { type: 'LineString', coordinates: coords },
        properties: { coordTimes: coords.map((_, i) => iso(20_000 + i)) },
      },
      { type: 'Feature', geometry: { type: 'LineString', coordinates: coords }, properties: {} },
    ],
  });
}

/** A GeoJSON LineString feature of 30 fixes with coordTimes from `offsetS` seconds after T0. */
function timedLine(offsetS: number) {
  const coords = Array.from({ length: 30 }, (_, i) => [Number(lonAt(i)), 43.73]);
  return {
    type: 'Feature',
    geometry: { type: 'LineString', coordinates: coords },
    properties: { coordTimes: coords.map((_, i) => iso(offsetS + i)) },
  };
}

function ndjson(): string {
  const lines = [JSON.stringify({ type: 'header', driverId: 'drv-9', clientTripId: 'nd-trip-0001' })];
  for (let i = 0; i < 30; i++)
    lines.push(JSON.stringify({ type: 'gps', t: T0 + 40_000_000 + i * 1000, lon: Number(lonAt(i)), lat: 43.73 }));
  lines.push(JSON.stringify({ type: 'header', clientTripId: 'nd-trip-0002' }));
  lines.push(JSON.stringify({ type: 'gps', t: T0 + 50_000_000, lon: 7.42, lat: 43.73 }));
  lines.push(JSON.stringify({ type: 'gps', t: T0 + 50_001_000, lon: 7.4201, lat: 'north' }));
  return lines.join('\n');
}

describe.each(testDialects())('file connectors on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-import-'));
    const options = { fleetId: 'fleet_imp', plate: 'IM-1' };

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await createFleet(database.db, { name: 'Imports', fleetId: 'fleet_imp' });
      await createVehicle(database.db, { fleetId: 'fleet_imp', plate: 'IM-1' });
      writeFileSync(path.join(dir, 'tracks.gpx'), gpx());
      writeFileSync(path.join(dir, 'trips.csv.gz'), gzipSync(csv()));
      writeFileSync(path.join(dir, 'trip.geojson'), geojson());
      writeFileSync(path.join(dir, 'trips.ndjson'), ndjson());
      writeFileSync(path.join(dir, 'notes.docx'), 'x');
    });
    afterAll(async () => {
      await database?.close();
    });

    it('imports each GPX track as a trip and rejects the broken one naming its line', async () => {
      const s = await importFile(database.db, path.join(dir, 'tracks.gpx'), options);
      expect(s).toMatchObject({ format: 'gpx', trips: 3, imported: 2, duplicates: 0 });
      expect(s.rejected).toEqual([
        { location: 'track 2 "Broken"', reason: 'line 37: latitude "95" is not a number between -90 and 90' },
      ]);
      const again = await importFile(database.db, path.join(dir, 'tracks.gpx'), options);
      expect(again).toMatchObject({ imported: 0, duplicates: 2 });
      expect(again.tripIds).toEqual(s.tripIds);
    });

    it('splits a gzipped CSV by trip_id and names the bad line', async () => {
      const s = await importFile(database.db, path.join(dir, 'trips.csv.gz'), options);
      expect(s).toMatchObject({ format: 'csv', imported: 2, duplicates: 0 });
      expect(s.rejected).toHaveLength(1);
      expect(s.rejected[0]!.location).toBe('trip "C"');
      expect(s.rejected[0]!.reason).toMatch(/^line 63: the time is missing/);
      const upload = await database.db
        .selectFrom('trip_uploads')
        .select(['source', 'sample_count'])
        .where('trip_id', '=', s.tripIds[0]!)
        .executeTakeFirstOrThrow();
      expect(upload).toEqual({ source: 'import:trips.csv.gz', sample_count: 30 });
    });

    it('splits a track of several drives into one trip per drive, leaving out a movement too short to be one', async () => {
      // One CSV track without a trip column: a 4-minute drive, 20 minutes parked, 40 s of moving the car
      // 150 m across a yard, 20 minutes parked, and another 4-minute drive.
      const fixes: Array<{ t: number; lat: number; lon: number }> = [];
      const drive = (startMs: number, seed: number) => {
        for (const s of scorableTrip({ startMs, vehicle: 'IM-1', seed, minutes: 4 }).samples) {
          if (s.type === 'gps') fixes.push({ t: s.t, lat: s.lat, lon: s.lon });
        }
      };
      const park = (fromMs: number, minutes: number, at: { lat: number; lon: number }) => {
        for (let k = 1; k <= minutes; k++) fixes.push({ t: fromMs + k * 60_000, lat: at.lat, lon: at.lon });
      };
      const t0 = Date.UTC(2026, 10, 5, 7, 0);
      drive(t0, 3);
      park(fixes.at(-1)!.t, 20, fixes.at(-1)!);
      const yard = fixes.at(-1)!;
      for (let i = 1; i <= 40; i++) fixes.push({ t: yard.t + i * 1000, lat: yard.lat, lon: yard.lon + i * 0.00005 });
      park(fixes.at(-1)!.t, 20, fixes.at(-1)!);
      drive(fixes.at(-1)!.t + 60_000, 4);
      const rows = ['timestamp,lat,lon', ...fixes.map((f) => `${new Date(f.t).toISOString()},${f.lat},${f.lon}`)];
      const file = path.join(dir, 'day.csv');
      writeFileSync(file, rows.join('\n'));

      const { contents } = await readImportFile(file);
      expect(contents.trips.map((t) => t.label)).toEqual([
        expect.stringMatching(/^the file \(lines 2-\d+\), drive 1 of 2 \(07:00-07:0\d UTC\)$/),
        expect.stringMatching(/^the file \(lines 2-\d+\), drive 2 of 2 \(07:4\d-07:\d\d UTC\)$/),
      ]);
      expect(contents.skipped).toEqual([
        {
          location: expect.stringMatching(/^the file \(lines 2-\d+\), 07:2\d-07:2\d UTC$/),
          reason: expect.stringMatching(/^not a trip between the drives: /),
        },
      ]);
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ imported: 2, duplicates: 0, rejected: [] });
      expect(s.skipped).toHaveLength(1);
      // Each drive is stored as its own trip, with only its own fixes.
      const uploads = await database.db
        .selectFrom('trip_uploads')
        .select(['trip_id', 'first_sample_ms', 'sample_count'])
        .where('trip_id', 'in', s.tripIds)
        .orderBy('first_sample_ms')
        .execute();
      expect(uploads.map((u) => Number(u.first_sample_ms))).toEqual([t0, expect.any(Number)]);
      expect(Number(uploads[1]!.first_sample_ms)).toBeGreaterThan(t0 + 40 * 60_000);
      expect(uploads.every((u) => u.sample_count < fixes.length / 2)).toBe(true);
      expect(await importFile(database.db, file, options)).toMatchObject({ imported: 0, duplicates: 2 });
    });

    it('stores a track of one drive and a short movement as the drive, listing the movement as skipped', async () => {
      // A 4-minute drive, 20 minutes parked, then 40 s moving the car 150 m across a yard, parked again.
      const fixes: Array<{ t: number; lat: number; lon: number }> = [];
      const t0 = Date.UTC(2026, 10, 6, 7, 0);
      for (const x of scorableTrip({ startMs: t0, vehicle: 'IM-1', seed: 6, minutes: 4 }).samples) {
        if (x.type === 'gps') fixes.push({ t: x.t, lat: x.lat, lon: x.lon });
      }
      const driveEnd = fixes.at(-1)!;
      for (let k = 1; k <= 20; k++) fixes.push({ ...driveEnd, t: driveEnd.t + k * 60_000 });
      const yard = fixes.at(-1)!;
      for (let i = 1; i <= 40; i++) fixes.push({ t: yard.t + i * 1000, lat: yard.lat, lon: yard.lon + i * 0.00005 });
      const parked = fixes.at(-1)!;
      for (let k = 1; k <= 10; k++) fixes.push({ ...parked, t: parked.t + k * 60_000 });
      const file = path.join(dir, 'one-drive.csv');
      const rows = ['timestamp,lat,lon', ...fixes.map((f) => `${new Date(f.t).toISOString()},${f.lat},${f.lon}`)];
      writeFileSync(file, rows.join('\n'));

      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ imported: 1, duplicates: 0, rejected: [] });
      expect(s.skipped).toEqual([
        {
          location: expect.stringMatching(/^the file \(lines 2-\d+\), 07:2\d-07:2\d UTC$/),
          reason: expect.stringMatching(
            /^not a trip beside the drive \(too short to be a trip: 0\.\d+ km and \d+ s moving; /,
          ),
        },
      ]);
      const upload = await database.db
        .selectFrom('trip_uploads')
        .select(['first_sample_ms', 'sample_count', 'idempotency_key'])
        .where('trip_id', '=', s.tripIds[0]!)
        .executeTakeFirstOrThrow();
      // The drive's fixes only (with the 30 s the engine reaches into the standstill), under the key of the track.
      expect(Number(upload.first_sample_ms)).toBe(t0);
      expect(upload.sample_count).toBeLessThanOrEqual(4 * 60 + 31);
      expect(upload.idempotency_key).toMatch(/^import-v2-/);
      // Imported again, the file is a duplicate that reports the same short movement as the first import did.
      const again = await importFile(database.db, file, options);
      expect(again).toMatchObject({ imported: 0, duplicates: 1, tripIds: s.tripIds });
      expect(again.skipped).toEqual(s.skipped);
    });

    it('takes the one drive out of a track whose positions span more than a day, instead of refusing it all', async () => {
      // A logger left on: a position an hour for two days, around one 4-minute drive.
      const t0 = Date.UTC(2026, 10, 9, 0, 0);
      const drive = scorableTrip({ startMs: t0 + 26 * 3_600_000, vehicle: 'IM-1', seed: 5, minutes: 4 }).samples;
      const at = drive.find((x) => x.type === 'gps')!;
      const idle = Array.from({ length: 48 }, (_, h) => ({
        type: 'gps' as const,
        t: t0 + h * 3_600_000,
        lat: at.lat,
        lon: at.lon,
      }));
      const fixes = [...idle, ...drive.filter((x) => x.type === 'gps')].sort((a, b) => a.t - b.t);
      const file = path.join(dir, 'logger.ndjson');
      writeFileSync(file, fixes.map((f) => JSON.stringify(f)).join('\n'));
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ imported: 1, rejected: [] });
      expect(s.importedTrips[0]!.label).toMatch(/, its drive \(02:0\d-02:\d\d UTC\)$/);
      const upload = await database.db
        .selectFrom('trip_uploads')
        .select(['first_sample_ms'])
        .where('trip_id', '=', s.tripIds[0]!)
        .executeTakeFirstOrThrow();
      expect(Number(upload.first_sample_ms)).toBeGreaterThanOrEqual(t0 + 26 * 3_600_000 - 3_600_000);
    });

    it('reads GeoJSON LineStrings with coordTimes and rejects a feature without times', async () => {
      const s = await importFile(database.db, path.join(dir, 'trip.geojson'), options);
      expect(s).toMatchObject({ imported: 1 });
      expect(s.rejected).toEqual([
        { location: 'features[1]', reason: expect.stringContaining('needs one time per position') },
      ]);
    });

    it('reads the times of a LineString from properties.coordinateProperties.times, as GPX converters write them', async () => {
      const file = path.join(dir, 'converted.geojson');
      const line = timedLine(50_000);
      const times = line.properties.coordTimes;
      writeFileSync(
        file,
        JSON.stringify({
          type: 'FeatureCollection',
          features: [{ ...line, properties: { name: 'Morning drive', coordinateProperties: { times } } }],
        }),
      );
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ imported: 1, rejected: [] });
      const upload = await database.db
        .selectFrom('trip_uploads')
        .select(['first_sample_ms'])
        .where('trip_id', '=', s.tripIds[0]!)
        .executeTakeFirstOrThrow();
      expect(Number(upload.first_sample_ms)).toBe(Date.parse(times[0]!));
    });

    it('leaves out the waypoints and routes of a GPX converted by togeojson, listing them, instead of storing a waypoint as a trip', async () => {
      const line = timedLine(110_000);
      const track = {
        ...line,
        properties: { _gpxType: 'trk', name: 'Delivery', coordinateProperties: { times: line.properties.coordTimes } },
      };
      const depot = {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [7.41, 43.72, 30] },
        properties: { name: 'Depot', time: iso(109_000), sym: 'Flag, Blue' },
      };
      const customer = { type: 'Feature', geometry: { type: 'Point', coordinates: [7.43, 43.74] }, properties: {} };
      const route = {
        type: 'Feature',
        geometry: {
          type: 'LineString',
          coordinates: [
            [7.41, 43.72],
            [7.43, 43.74],
          ],
        },
        properties: { _gpxType: 'rte', name: 'Planned' },
      };
      const file = path.join(dir, 'garmin-converted.geojson');
      writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [track, route, depot, customer] }));
      const skipped = [
        { location: 'features[1] "Planned"', reason: 'a planned route (_gpxType "rte"), not a recorded track' },
        {
          location: 'features[2] "Depot"',
          reason: 'a waypoint of the GPX the file was converted from, not a fix of a trip',
        },
        { location: 'features[3]', reason: 'a waypoint of the GPX the file was converted from, not a fix of a trip' },
      ];
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ trips: 1, imported: 1, duplicates: 0, rejected: [], skipped });
      expect(await importFile(database.db, file, options)).toMatchObject({ imported: 0, duplicates: 1, skipped });

      const plansOnly = path.join(dir, 'plans.geojson');
      writeFileSync(plansOnly, JSON.stringify({ type: 'FeatureCollection', features: [route, depot] }));
      expect(await importFile(database.db, plansOnly, options)).toMatchObject({
        imported: 0,
        rejected: [{ location: 'file', reason: 'the file has waypoints or planned routes but no recorded track' }],
        skipped: skipped.slice(0, 2).map((x, i) => ({ ...x, location: x.location.replace(/\d/, String(i)) })),
      });
    });

    it('reads a GeoJSON file that starts with a UTF-8 byte order mark, as CSV and NDJSON files', async () => {
      const file = path.join(dir, 'bom.geojson');
      writeFileSync(file, `\uFEFF${JSON.stringify({ type: 'FeatureCollection', features: [timedLine(40_000)] })}`);
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ imported: 1, rejected: [] });
    });

    it('rejects a MultiLineString feature without a coordinates array and still imports the other features', async () => {
      const file = path.join(dir, 'multiline-without-coordinates.geojson');
      writeFileSync(
        file,
        JSON.stringify({
          type: 'FeatureCollection',
          features: [
            { type: 'Feature', geometry: { type: 'MultiLineString' }, properties: { coordTimes: [] } },
            { type: 'Feature', geometry: { type: 'MultiLineString', coordinates: 5 }, properties: {} },
            timedLine(30_000),
          ],
        }),
      );
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ trips: 3, imported: 1 });
      expect(s.rejected).toEqual([
        { location: 'features[0]', reason: 'the MultiLineString has no positions' },
        { location: 'features[1]', reason: 'the MultiLineString has no positions' },
      ]);
    });

    it('reads NDJSON trips split by header lines, keeping their clientTripId and driver', async () => {
      const s = await importFile(database.db, path.join(dir, 'trips.ndjson'), options);
      expect(s.imported).toBe(1);
      expect(s.rejected).toHaveLength(1);
      expect(s.rejected[0]!.reason).toMatch(/^invalid telemetry: line 34: lat must be/);
      const row = await database.db
        .selectFrom('trip_uploads')
        .select(['idempotency_key', 'driver_id'])
        .where('trip_id', '=', s.tripIds[0]!)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ idempotency_key: 'nd-trip-0001', driver_id: 'drv-9' });
    });

    it('rejects a trip whose clientTripId was already imported for another vehicle, naming the stored trip', async () => {
      await createVehicle(database.db, { fleetId: 'fleet_imp', plate: 'IM-2' });
      const first = await importFile(database.db, path.join(dir, 'trips.ndjson'), options);
      expect(first).toMatchObject({ imported: 0, duplicates: 1 });
      const other = await importFile(database.db, path.join(dir, 'trips.ndjson'), { ...options, plate: 'IM-2' });
      expect(other).toMatchObject({ imported: 0, duplicates: 0 });
      expect(other.rejected[0]).toEqual({
        location: expect.any(String),
        reason: expect.stringMatching(
          new RegExp(
            `^clientTripId "nd-trip-0001" was already used in this fleet for a different trip \\(${first.tripIds[0]}\\)`,
          ),
        ),
      });
      const rows = await database.db
        .selectFrom('trip_uploads')
        .select('plate')
        .where('idempotency_key', '=', 'nd-trip-0001')
        .execute();
      expect(rows).toEqual([{ plate: 'IM-1' }]);
    });

    it('rejects a trip whose clientTripId cannot be a key, naming the field of the file rather than the header', async () => {
      const file = path.join(dir, 'short-ids.ndjson');
      const fixes = (t0: number) =>
        Array.from({ length: 40 }, (_, i) =>
          JSON.stringify({ type: 'gps', t: t0 + i * 1000, lon: 7.42 + i * 0.0002, lat: 43.73, speedMps: 14 }),
        );
      const t0 = Date.UTC(2026, 9, 3, 8);
      writeFileSync(
        file,
        [
          JSON.stringify({ type: 'header', clientTripId: 'abc' }),
          ...fixes(t0),
          JSON.stringify({ type: 'header', clientTripId: 'short-id-ok-0001' }),
          ...fixes(t0 + 3_600_000),
        ].join('\n'),
      );
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ trips: 2, imported: 1 });
      expect(s.rejected).toEqual([
        {
          location: expect.any(String),
          reason:
            'clientTripId "abc" must be 8-128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-" (or left out: the import then keys the trip by its content)',
        },
      ]);
    });

    it('takes no field of an NDJSON header from a "__proto__" key, and changes no prototype', async () => {
      const lines = [
        `{"type":"header","clientTripId":"nd-proto-0001","__proto__":{"driverId":"drv-proto","vehicle":"IM-2"}}`,
        ...Array.from({ length: 30 }, (_, i) =>
          JSON.stringify({ type: 'gps', t: T0 + (80_000 + i) * 1000, lon: Number(lonAt(i)), lat: 43.73 }),
        ),
      ];
      const file = path.join(dir, 'proto.ndjson');
      writeFileSync(file, lines.join('\n'));
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ trips: 1, imported: 1, rejected: [] });
      const row = await database.db
        .selectFrom('trip_uploads')
        .select(['idempotency_key', 'driver_id', 'plate'])
        .where('trip_id', '=', s.tripIds[0]!)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ idempotency_key: 'nd-proto-0001', driver_id: null, plate: 'IM-1' });
      expect(({} as Record<string, unknown>).driverId).toBeUndefined();
    });

    it('rejects an NDJSON trip with a value nested too deeply to be stored, and imports the next one', async () => {
      const gps = (offsetS: number, i: number) =>
        JSON.stringify({ type: 'gps', t: T0 + (offsetS + i) * 1000, lon: Number(lonAt(i)), lat: 43.73 });
      const deep = `{"type":"gps","t":${T0},"lon":7.42,"lat":43.73,"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
      const lines = [
        JSON.stringify({ type: 'header', clientTripId: 'nd-deep-0001' }),
        deep,
        ...Array.from({ length: 30 }, (_, i) => gps(60_000, i + 1)),
        JSON.stringify({ type: 'header' }),
        ...Array.from({ length: 30 }, (_, i) => gps(70_000, i)),
      ];
      const file = path.join(dir, 'deep.ndjson');
      writeFileSync(file, lines.join('\n'));
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ trips: 2, imported: 1 });
      expect(s.rejected).toEqual([{ location: 'lines 1-32', reason: expect.stringContaining('nested too deeply') }]);
    });

    it('refuses a file, or a gzip file once expanded, larger than the import reads in one piece', async () => {
      const big = path.join(dir, 'big.csv');
      writeFileSync(big, `lon,lat,time\n${'7.42,43.73,2026-11-03T10:00:00Z\n'.repeat(40_000)}`);
      const bomb = path.join(dir, 'bomb.csv.gz');
      writeFileSync(bomb, gzipSync(Buffer.alloc(3 * 1024 * 1024, 'a')));
      for (const file of [big, bomb]) {
        const { contents } = await readImportFile(file, 1024 * 1024);
        expect(contents.trips, file).toEqual([]);
        expect(contents.rejected, file).toEqual([
          { location: 'file', reason: 'too large to import in one piece (over 1 MiB of data): split it' },
        ]);
      }
      // Under the default limit the same file is read.
      expect((await readImportFile(big)).contents.trips).toHaveLength(1);
    });

    it('says a gzip file is truncated or corrupt, and a folder is not a file, instead of a zlib or system code', async () => {
      const whole = gzipSync(csv());
      writeFileSync(path.join(dir, 'cut.csv.gz'), whole.subarray(0, Math.floor(whole.length / 2)));
      writeFileSync(path.join(dir, 'garbled.csv.gz'), Buffer.concat([whole.subarray(0, 10), Buffer.alloc(200, 7)]));
      for (const [name, zlib] of [
        ['cut.csv.gz', 'unexpected end of file'],
        ['garbled.csv.gz', 'invalid'],
      ] as const) {
        const { contents } = await readImportFile(path.join(dir, name));
        expect(contents.trips, name).toEqual([]);
        expect(contents.rejected, name).toEqual([
          {
            location: 'file',
            reason: expect.stringMatching(
              new RegExp(`^not a readable gzip file \\(.*${zlib}.*\\): it is truncated or corrupt$`),
            ),
          },
        ]);
      }
      const folder = path.join(dir, 'folder.gpx');
      mkdirSync(folder, { recursive: true });
      expect((await readImportFile(folder)).contents.rejected).toEqual([
        { location: 'file', reason: 'cannot read it: it is a folder, not a file' },
      ]);
    });

    it('reads UTF-16 text with a byte order mark, as Excel saves "Unicode Text" (tab separated, decimal commas)', async () => {
      const file = path.join(dir, 'excel-unicode.txt');
      const rows = Array.from({ length: 30 }, (_, i) => `43,73\t${lonAt(i).replace('.', ',')}\t${iso(60_000 + i)}`);
      writeFileSync(file, Buffer.from(`\uFEFFLatitude\tLongitude\tTime\r\n${rows.join('\r\n')}\r\n`, 'utf16le'));
      const s = await importFile(database.db, file, options);
      expect(s).toMatchObject({ format: 'csv', imported: 1, rejected: [] });
      const upload = await database.db
        .selectFrom('trip_uploads')
        .select(['first_sample_ms', 'sample_count'])
        .where('trip_id', '=', s.tripIds[0]!)
        .executeTakeFirstOrThrow();
      expect({ ...upload, first_sample_ms: Number(upload.first_sample_ms) }).toEqual({
        first_sample_ms: T0 + 60_000_000,
        sample_count: 30,
      });
    });

    it('refuses a binary file as not text, without echoing its bytes into the terminal', async () => {
      const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256));
      // A workbook saved under a .csv name is a ZIP archive.
      const workbook = Buffer.concat([Buffer.from('PK\x03\x04\x14\x00\x06\x00', 'latin1'), binary]);
      const binaryData = 'not a text file: it holds binary data (or UTF-16 text without a byte order mark)';
      for (const [name, bytes, reason] of [
        ['photo.csv', binary, binaryData],
        ['photo.geojson', binary, binaryData],
        ['photo.ndjson.gz', gzipSync(binary), binaryData],
        ['fleet.csv', workbook, 'not a text file but a ZIP archive (a spreadsheet workbook?): export it as CSV'],
      ] as const) {
        writeFileSync(path.join(dir, name), bytes);
        const { contents } = await readImportFile(path.join(dir, name));
        expect(contents, name).toEqual({ trips: [], rejected: [{ location: 'file', reason }] });
      }
    });

    it('reports an unknown format, a missing file and a vehicle of another fleet as rejections', async () => {
      expect((await importFile(database.db, path.join(dir, 'notes.docx'), options)).rejected[0]!.reason).toContain(
        'unknown format',
      );
      expect((await importFile(database.db, path.join(dir, 'missing.gpx'), options)).rejected[0]!.reason).toBe(
        'cannot read it: no such file (ENOENT)',
      );
      const s = await importFile(database.db, path.join(dir, 'tracks.gpx'), { fleetId: 'fleet_imp', plate: 'ZZ-404' });
      expect(s.imported).toBe(0);
      expect(s.rejected.filter((r) => r.reason.includes('is not registered in fleet fleet_imp'))).toHaveLength(2);
    });

    it('rejects an NDJSON sample whose time is text, with or without an offset: telemetry times are epoch milliseconds', async () => {
      const line = (t: unknown) => JSON.stringify({ type: 'gps', t, lon: 7.42, lat: 43.7384 });
      writeFileSync(
        path.join(dir, 'text-times.ndjson'),
        [line('2026-11-01T09:00:00+01'), line(T0 + 1000), line(T0 + 2000)].join('\n'),
      );
      const s = await importFile(database.db, path.join(dir, 'text-times.ndjson'), options);
      expect(s.imported).toBe(0);
      expect(s.rejected).toEqual([
        {
          location: 'lines 1-3',
          reason:
            'invalid telemetry: line 1: t must be a finite number of epoch milliseconds (got "2026-11-01T09:00:00+01")',
        },
      ]);
    });

    const munich = new URL('../../../../shared/data/traces/munich-x0001-001.json', import.meta.url);
    /** The Munich trace converted to CSV, written beside the other test files. */
    const munichCsv = () => {
      const fixes = JSON.parse(readFileSync(munich, 'utf8')) as Array<{ point: string; time: string }>;
      const rows = ['lon,lat,time'];
      for (const f of fixes) {
        const [lon, lat] = f.point.replace(/^POINT\(|\)$/g, '').split(' ');
        rows.push(`${lon},${lat},${f.time.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2')}`);
      }
      writeFileSync(path.join(dir, 'munich.csv'), rows.join('\n'));
    };
    it.skipIf(!existsSync(munich))(
      'imports a real 1 Hz Munich trip converted to CSV (skipped without ../shared/data)',
      async () => {
        munichCsv();
        const s = await importFile(database.db, path.join(dir, 'munich.csv'), options);
        expect(s).toMatchObject({ imported: 1, rejected: [] });
      },
    );

    it.skipIf(!existsSync(munich))(
      'imports the real Munich trip as it is published, a JSON array of WKT points, as the other commands read it (skipped without ../shared/data)',
      async () => {
        await createVehicle(database.db, { fleetId: 'fleet_imp', plate: 'IM-MUC' });
        const file = fileURLToPath(munich);
        const s = await importFile(database.db, file, { fleetId: 'fleet_imp', plate: 'IM-MUC' });
        expect(s).toMatchObject({ format: 'geojson', trips: 1, imported: 1, duplicates: 0, rejected: [] });
        // Its 1,194 fixes, at their instants: the same drive as its CSV conversion is a duplicate of it.
        munichCsv();
        const again = await importFile(database.db, path.join(dir, 'munich.csv'), {
          fleetId: 'fleet_imp',
          plate: 'IM-MUC',
        });
        expect(again).toMatchObject({ imported: 0, duplicates: 1 });
        expect(again.tripIds).toEqual(s.tripIds);
      },
    );

    it('reads JSON holding a telemetry batch or an array of samples, and names the record of a bad position', async () => {
      const samples = Array.from({ length: 200 }, (_, i) => ({
        type: 'gps',
        t: T0 + 20_000_000 + i * 1000,
        lon: 7.42 + i * 0.0002,
        lat: 43.73,
      }));
      writeFileSync(
        path.join(dir, 'batch.json'),
        JSON.stringify({ schemaVersion: 1, clientTripId: 'json-batch-1', samples }),
      );
      const batch = await importFile(database.db, path.join(dir, 'batch.json'), options);
      expect(batch).toMatchObject({ trips: 1, imported: 1, rejected: [] });
      const shifted = samples.map((x) => ({ ...x, t: x.t + 10_000_000 }));
      writeFileSync(path.join(dir, 'samples.json'), JSON.stringify(shifted));
      expect(await importFile(database.db, path.join(dir, 'samples.json'), options)).toMatchObject({
        imported: 1,
        rejected: [],
      });
      const positions = shifted.map((x) => ({ point: `POINT(${x.lon} ${x.lat})`, time: new Date(x.t).toISOString() }));
      positions[7] = { point: 'POINT(7.42)', time: positions[7]!.time };
      writeFileSync(path.join(dir, 'positions.json'), JSON.stringify(positions));
      const bad = await importFile(database.db, path.join(dir, 'positions.json'), options);
      expect(bad).toMatchObject({ imported: 0 });
      expect(bad.rejected).toEqual([
        { location: 'file', reason: 'record 7: point "POINT(7.42)" is not a WKT POINT(lon lat)' },
      ]);
    });
  });
});

describe('sample times with a UTC offset', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'trips-offsets-'));
  // 08:00:00 UTC, written as the local time of the exporting app: 09:00 in Monaco (+01), 03:00 in New York (-05).
  const local = (i: number, offsetH: number, zone: string) =>
    `${new Date(T0 + i * 1000 + offsetH * 3_600_000).toISOString().slice(0, 19)}${zone}`;
  const times = async (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    const { contents } = await readImportFile(path.join(dir, name));
    expect(contents.rejected, name).toEqual([]);
    return contents.trips.map((trip) => trip.samples.map((x) => x.t));
  };
  const expected = (n: number, fromS = 0) => Array.from({ length: n }, (_, i) => T0 + (fromS + i) * 1000);

  it('reads ±hh, ±hhmm and ±hh:mm offsets in GPX, CSV and GeoJSON as the instants they name, as it reads Z', async () => {
    const gpxTrack = (zone: string, offsetH: number) =>
      `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="Garmin Connect" xmlns="http://www.topografix.com/GPX/1/1">
  <metadata><time>${local(0, offsetH, zone)}</time></metadata>
  <trk><name>Monaco commute</name><type>driving</type><trkseg>
${Array.from(
  { length: 30 },
  (_, i) =>
    `    <trkpt lat="43.7384" lon="${lonAt(i)}"><ele>41.6</ele><time>${local(i, offsetH, zone)}</time><extensions><speed>13.9</speed></extensions></trkpt>`,
).join('\n')}
  </trkseg></trk>
</gpx>`;
    for (const [zone, offsetH] of [
      ['Z', 0],
      ['+01', 1],
      ['+0100', 1],
      ['+01:00', 1],
      ['-05', -5],
    ] as const) {
      expect(await times(`commute${zone.replace(':', '')}.gpx`, gpxTrack(zone, offsetH)), zone).toEqual([expected(30)]);
    }

    // A fleet export with semicolons and a space before the offset, and one from a PostGIS dump (+hhmm).
    const fleetCsv = ['vehicle;timestamp;lat;lon;speed_kmh'];
    for (let i = 0; i < 30; i++)
      fleetCsv.push(`MC-1;${local(i, 1, ' +01').replace('T', ' ')};43,7384;${lonAt(i).replace('.', ',')};50`);
    expect(await times('fleet-export.csv', fleetCsv.join('\r\n'))).toEqual([expected(30)]);
    const postgis = ['lon,lat,time'];
    for (let i = 0; i < 30; i++) postgis.push(`${lonAt(i)},43.7384,${local(i, 2, '+0200').replace('T', ' ')}`);
    expect(await times('postgis.csv', postgis.join('\n'))).toEqual([expected(30)]);

    // GeoJSON: a LineString with coordTimes in -05, and Point features with a time in -05:00.
    const coords = Array.from({ length: 30 }, (_, i) => [Number(lonAt(i)), 43.7384]);
    const line = {
      type: 'Feature',
      geometry: { type: 'LineString', coordinates: coords },
      properties: { coordTimes: coords.map((_, i) => local(i, -5, '-05')) },
    };
    const points = coords.map((c, i) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: c },
      properties: { time: local(600 + i, -5, '-05:00') },
    }));
    expect(
      await times('tracks.geojson', JSON.stringify({ type: 'FeatureCollection', features: [line, ...points] })),
    ).toEqual([expected(30), expected(30, 600)]);
  });

  it('still refuses other offset spellings, naming the line', async () => {
    const rows = ['lon,lat,time'];
    for (let i = 0; i < 5; i++) rows.push(`${lonAt(i)},43.7384,${local(i, 1, i === 3 ? '+1' : '+01')}`);
    writeFileSync(path.join(dir, 'odd.csv'), rows.join('\n'));
    const csvRead = await readImportFile(path.join(dir, 'odd.csv'));
    expect(csvRead.contents.rejected).toEqual([
      { location: 'the file', reason: expect.stringMatching(/^line 5: the time is missing or not ISO 8601/) },
    ]);
  });
});
