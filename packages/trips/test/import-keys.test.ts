import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testDialects } from '@svc/platform/testing';
import type { GpsSample, TelemetryBatch } from '@svc/scoring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile, readImportFile } from '../src/connectors/import-files.ts';
import { importKey, legacyImportKey } from '../src/connectors/import-key.ts';
import { acceptUpload, IDEMPOTENCY_KEY_PATTERN } from '../src/ingest/accept-upload.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import type { TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';

/**
 * The key `trips import` gives a trip whose file names no trip id (import-key.ts): the same fixes exported by
 * another tool are the same trip (a duplicate, nothing stored), trips imported under the rule before keep their
 * keys and are still recognised, and really different tracks are imported.
 */

// Times with milliseconds, so that epoch seconds with decimals are another spelling of them.
const T0 = Date.UTC(2026, 10, 3, 8, 0, 0) + 100;

interface Fix {
  t: number;
  lon: number;
  lat: number;
  /** Only some exports carry these. */
  speedMps: number;
  accuracyM: number;
  altitudeM: number;
}

/**
 * 40 fixes at 1 Hz, and two times with a second fix from another location provider (equal times, other
 * positions): their order is the exporter's.
 */
function track(seed = 0): Fix[] {
  const fixes: Fix[] = [];
  for (let i = 0; i < 40; i++) {
    const fix = {
      t: T0 + i * 1000,
      lon: Number((7.42 + seed * 0.01 + i * 0.0002).toFixed(6)),
      lat: Number((43.73 + i * 0.00001).toFixed(6)),
      speedMps: 16.25,
      accuracyM: 4,
      altitudeM: 12.5,
    };
    fixes.push(fix);
    if (i === 10 || i === 25) fixes.push({ ...fix, lon: Number((fix.lon + 0.00003).toFixed(6)), accuracyM: 9 });
  }
  return fixes;
}

/** The fixes with the two fixes of each equal time swapped. */
function swapEqualTimes(fixes: Fix[]): Fix[] {
  const out = [...fixes];
  for (let i = 1; i < out.length; i++) {
    if (out[i]!.t === out[i - 1]!.t) [out[i - 1], out[i]] = [out[i]!, out[i - 1]!];
  }
  return out;
}

const iso = (t: number) => new Date(t).toISOString();

/** The base export: CSV `timestamp,lat,lon`, shortest numbers, ISO times with milliseconds. */
const baseCsv = (fixes: Fix[]) =>
  ['timestamp,lat,lon', ...fixes.map((f) => `${iso(f.t)},${f.lat},${f.lon}`)].join('\n');

const ndjsonOf = (fixes: Fix[], line: (f: Fix) => string) => fixes.map(line).join('\n');

/** Other exports of the same fixes, none naming a trip id. */
const EXPORTS: Array<{ name: string; file: string; write: (fixes: Fix[]) => string }> = [
  {
    name: 'CSV with the columns in another order, numbers with trailing zeros and times without milliseconds zeros',
    file: 'columns.csv',
    write: (fixes) =>
      [
        'lon;time;lat',
        ...fixes.map((f) => `${f.lon.toFixed(8)};${iso(f.t).replace('Z', '000Z')};${f.lat.toFixed(8)}`),
      ].join('\n'),
  },
  {
    name: 'CSV with the fixes of equal times in the other order',
    file: 'equal-times.csv',
    write: (fixes) => baseCsv(swapEqualTimes(fixes)),
  },
  {
    name: 'CSV with times as epoch seconds with decimals',
    file: 'epoch.csv',
    write: (fixes) => ['lat,lon,utc', ...fixes.map((f) => `${f.lat},${f.lon},${(f.t / 1000).toFixed(3)}`)].join('\n'),
  },
  {
    name: 'NDJSON samples with their fields in another order and numbers spelt otherwise',
    file: 'fields.ndjson',
    write: (fixes) =>
      ndjsonOf(fixes, (f) => `{"lat": ${f.lat.toFixed(7)}, "lon": ${f.lon.toFixed(7)}, "t": ${f.t}.0, "type": "gps"}`),
  },
  {
    name: 'GPX with elevation and speed, which the CSV has not',
    file: 'track.gpx',
    write: (fixes) =>
      [
        '<?xml version="1.0"?>',
        '<gpx version="1.0" creator="other tool" xmlns="http://www.topografix.com/GPX/1/0"><trk><trkseg>',
        ...fixes.map(
          (f) =>
            `<trkpt lon="${f.lon}" lat="${f.lat}"><ele>${f.altitudeM}</ele><time>${iso(f.t)}</time><speed>${f.speedMps}</speed></trkpt>`,
        ),
        '</trkseg></trk></gpx>',
      ].join('\n'),
  },
  {
    name: 'CSV with speed in km/h and accuracy, the equal times swapped, columns reordered',
    file: 'rich.csv',
    write: (fixes) =>
      [
        'accuracy,speed_kmh,latitude,longitude,time',
        ...swapEqualTimes(fixes).map(
          (f) => `${f.accuracyM}.0,${(f.speedMps * 3.6).toFixed(1)},${f.lat},${f.lon},${iso(f.t)}`,
        ),
      ].join('\n'),
  },
  {
    name: 'NDJSON in time order with its own sample fields (speed, accuracy) and the same fix repeated',
    file: 'repeated.ndjson',
    write: (fixes) =>
      ndjsonOf([...fixes, fixes[5]!], (f) =>
        JSON.stringify({ type: 'gps', t: f.t, lon: f.lon, lat: f.lat, speedMps: f.speedMps, accuracyM: f.accuracyM }),
      ),
  },
];

describe.each(testDialects())('import keys on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-import-keys-'));
    const fleetId = 'fleet_keys';
    let vehicles = 0;

    /** A vehicle of its own per test, so that one test's trips are never another's duplicates. */
    async function newVehicle(): Promise<string> {
      const plate = `IK-${++vehicles}`;
      await createVehicle(database.db, { fleetId, plate });
      return plate;
    }

    function write(name: string, text: string): string {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    }

    async function uploadsOf(plate: string) {
      return database.db
        .selectFrom('trip_uploads')
        .select(['trip_id', 'idempotency_key', 'driver_id', 'sample_count'])
        .where('fleet_id', '=', fleetId)
        .where('plate', '=', plate)
        .execute();
    }

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await createFleet(database.db, { name: 'Keys', fleetId });
    });
    afterAll(async () => {
      await database?.close();
    });

    it.each(EXPORTS)('the same fixes exported again as $name: duplicate, nothing stored', async (variant) => {
      const plate = await newVehicle();
      const fixes = track();
      const first = await importFile(database.db, write(`base-${plate}.csv`, baseCsv(fixes)), { fleetId, plate });
      expect(first).toMatchObject({ imported: 1, duplicates: 0, rejected: [] });
      const stored = await uploadsOf(plate);
      expect(stored).toHaveLength(1);
      expect(stored[0]!.idempotency_key).toMatch(/^import-v2-[0-9a-f]{64}$/);

      const again = await importFile(database.db, write(`${plate}-${variant.file}`, variant.write(fixes)), {
        fleetId,
        plate,
      });
      expect(again).toMatchObject({ imported: 0, duplicates: 1, rejected: [], tripIds: first.tripIds });
      expect(await uploadsOf(plate)).toEqual(stored);
    });

    it('recognises every export of the same fixes as one trip whichever was imported first', async () => {
      const plate = await newVehicle();
      const fixes = track(1);
      const files = EXPORTS.map((v) => write(`all-${plate}-${v.file}`, v.write(fixes)));
      const summaries = [];
      for (const file of files.reverse()) summaries.push(await importFile(database.db, file, { fleetId, plate }));
      expect(summaries.map((s) => [s.imported, s.duplicates, s.rejected.length])).toEqual([
        [1, 0, 0],
        ...files.slice(1).map(() => [0, 1, 0]),
      ]);
      expect(new Set(summaries.flatMap((s) => s.tripIds)).size).toBe(1);
      expect(await uploadsOf(plate)).toHaveLength(1);
    });

    it('still finds a trip imported under the rule before (the old key kept), and stores nothing again', async () => {
      const plate = await newVehicle();
      const fixes = swapEqualTimes(track(2));
      const file = write(`old-${plate}.csv`, baseCsv(fixes));
      // What the import did before: the same batch, under the key of the plate and the samples in file order.
      const [trip] = (await readImportFile(file)).contents.trips;
      const oldKey = legacyImportKey(plate, trip!.samples);
      const batch = { schemaVersion: 1, vehicle: plate, samples: trip!.samples } as TelemetryBatch;
      const old = await acceptUpload(
        database.db,
        { fleetId, vehicleId: null, keyId: null, source: 'import:old.csv' },
        oldKey,
        batch,
      );
      expect(old.status).toBe('queued');

      const again = await importFile(database.db, file, { fleetId, plate });
      expect(again).toMatchObject({ imported: 0, duplicates: 1, rejected: [], tripIds: [old.tripId] });
      // Lower case and spaces: the plate the old key hashed was the canonical one, as it is now.
      const spelt = await importFile(database.db, file, { fleetId, plate: ` ${plate.toLowerCase()} ` });
      expect(spelt).toMatchObject({ imported: 0, duplicates: 1, rejected: [], tripIds: [old.tripId] });
      expect(await uploadsOf(plate)).toEqual([
        { trip_id: old.tripId, idempotency_key: oldKey, driver_id: null, sample_count: fixes.length },
      ]);
    });

    it('takes another export of a drive imported under the rule before as a duplicate too', async () => {
      const plate = await newVehicle();
      const fixes = track(5);
      const file = write(`old-other-${plate}.csv`, baseCsv(swapEqualTimes(fixes)));
      const [trip] = (await readImportFile(file)).contents.trips;
      const batch = { schemaVersion: 1, vehicle: plate, samples: trip!.samples } as TelemetryBatch;
      const sender = { fleetId, vehicleId: null, keyId: null, source: 'import:old.csv' };
      const old = await acceptUpload(database.db, sender, legacyImportKey(plate, trip!.samples), batch);
      // Another drive of the vehicle starting at the same millisecond, imported under the rule before too: read
      // back and told apart by its fixes.
      const moved = fixes.map((f) => ({ ...f, lat: Number((f.lat + 0.001).toFixed(6)) }));
      const [other] = (await readImportFile(write(`old-moved-${plate}.csv`, baseCsv(moved)))).contents.trips;
      const otherBatch = { schemaVersion: 1, vehicle: plate, samples: other!.samples } as TelemetryBatch;
      await acceptUpload(database.db, sender, legacyImportKey(plate, other!.samples), otherBatch);

      for (const variant of EXPORTS) {
        const s = await importFile(database.db, write(`old-other-${plate}-${variant.file}`, variant.write(fixes)), {
          fleetId,
          plate,
        });
        expect(s, variant.name).toMatchObject({ imported: 0, duplicates: 1, rejected: [], tripIds: [old.tripId] });
      }
      expect(await uploadsOf(plate)).toHaveLength(2);
    });

    it('imports really different tracks: a fix moved, a fix more, other times, another vehicle', async () => {
      const plate = await newVehicle();
      const fixes = track(3);
      const base = await importFile(database.db, write(`diff-${plate}.csv`, baseCsv(fixes)), { fleetId, plate });
      expect(base).toMatchObject({ imported: 1 });
      const moved = fixes.map((f, i) => (i === 17 ? { ...f, lat: Number((f.lat + 0.000001).toFixed(6)) } : f));
      const longer = [...fixes, { ...fixes.at(-1)!, t: fixes.at(-1)!.t + 1000, lon: fixes.at(-1)!.lon + 0.0002 }];
      const shorter = fixes.slice(0, -1);
      const later = fixes.map((f) => ({ ...f, t: f.t + 1 }));
      for (const [name, variant] of [
        ['moved', moved],
        ['longer', longer],
        ['shorter', shorter],
        ['later', later],
      ] as const) {
        const s = await importFile(database.db, write(`diff-${plate}-${name}.csv`, baseCsv(variant)), {
          fleetId,
          plate,
        });
        expect(s, name).toMatchObject({ imported: 1, duplicates: 0, rejected: [] });
      }
      expect(await uploadsOf(plate)).toHaveLength(5);
      const other = await newVehicle();
      const elsewhere = await importFile(database.db, write(`diff-${other}.csv`, baseCsv(fixes)), {
        fleetId,
        plate: other,
      });
      expect(elsewhere).toMatchObject({ imported: 1, duplicates: 0, rejected: [] });
      expect(elsewhere.tripIds).not.toEqual(base.tripIds);
    });

    it('takes the same fixes with the stored driver, or none, as a duplicate, and another driver as a rejection', async () => {
      const plate = await newVehicle();
      const fixes = track(4);
      const file = write(`drv-${plate}.csv`, baseCsv(fixes));
      const first = await importFile(database.db, file, { fleetId, plate, driverId: 'drv-a' });
      expect(first).toMatchObject({ imported: 1 });
      const other = write(`drv-${plate}.gpx`, EXPORTS.find((v) => v.file === 'track.gpx')!.write(fixes));
      expect(await importFile(database.db, other, { fleetId, plate, driverId: 'drv-a' })).toMatchObject({
        imported: 0,
        duplicates: 1,
      });
      expect(await importFile(database.db, other, { fleetId, plate })).toMatchObject({ imported: 0, duplicates: 1 });
      const conflict = await importFile(database.db, other, { fleetId, plate, driverId: 'drv-b' });
      expect(conflict).toMatchObject({ imported: 0, duplicates: 0 });
      expect(conflict.rejected).toEqual([
        {
          location: expect.stringMatching(/^track 1/),
          reason: `the same fixes of this vehicle were already imported as trip ${first.tripIds[0]}, driven by "drv-a", and this import names driver "drv-b"`,
        },
      ]);
      expect(await uploadsOf(plate)).toHaveLength(1);
    });
  });
});

describe('import key rules', () => {
  const gps = (t: number, lon: number, lat: number, more: Partial<GpsSample> = {}): GpsSample => ({
    type: 'gps',
    t,
    lon,
    lat,
    ...more,
  });

  it('keeps within the Idempotency-Key rule', () => {
    const key = importKey('ab 12 cd', [gps(T0, 7.42, 43.73)])!;
    expect(key).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(key).toHaveLength(74);
    expect(legacyImportKey('ab 12 cd', [gps(T0, 7.42, 43.73)])).toMatch(IDEMPOTENCY_KEY_PATTERN);
  });

  it('depends on the canonical plate and the set of fixes only', () => {
    const a = [gps(T0, 7.42, 43.73), gps(T0, 7.4201, 43.73), gps(T0 + 1000, 7.4202, 43.7301)];
    const b = [gps(T0 + 1000, 7.4202, 43.7301, { speedMps: 3 }), gps(T0, 7.4201, 43.73), gps(T0, 7.42, 43.73)];
    expect(importKey(' ab  12 CD', a)).toBe(importKey('AB 12 CD', b));
    expect(importKey('AB 12 CD', a)).toBe(importKey('AB 12 CD', [...a, { type: 'accel', t: T0, x: 0, y: 0, z: 9.8 }]));
    expect(importKey('AB 12 CD', a)).not.toBe(importKey('AB 12 CE', a));
    expect(importKey('AB 12 CD', a)).not.toBe(importKey('AB 12 CD', a.slice(1)));
    expect(importKey('AB 12 CD', [{ type: 'accel', t: T0, x: 0, y: 0, z: 9.8 }])).toBeNull();
  });

  it('keeps the rule before byte for byte (the keys of trips imported with it)', () => {
    // Computed with the import of commit e5ea02d, before import-key.ts.
    expect(legacyImportKey('ab-1', [gps(1_793_000_000_000, 7.42, 43.73, { altitudeM: 12 })])).toBe(LEGACY_EXAMPLE);
  });
});

const LEGACY_EXAMPLE = 'import-5f5e095fce7bc85def2a08517de06a81d6fabf3847d0e82b';
