/**
 * `vehicle_stats` and `fleet_stats` (migrations 0008 and 0009): per-vehicle and per-fleet sums by day and
 * week, filled from the trips already stored and then kept by triggers, and windowSums / fleetWindowSums,
 * which add a window up from them and from the trips of its two partial days. Checked against the trips summed one by one, over random windows, after
 * inserts, deletes and updates made by plain SQL.
 */
import { migrateToLatest } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../src/store/drivers.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import type { TripsDatabase } from '../src/store/open-trips-database.ts';
import type { TripsSchema } from '../src/store/schema.ts';
import { driverWindowSums, fleetWindowSums, THEMES, windowSums } from '../src/store/vehicle-window.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { prng } from './fixtures/prng.ts';

const DAY_MS = 86_400_000;
const before0008 = Object.fromEntries(Object.entries(tripsMigrations).filter(([name]) => name < '0008'));

type TripRow = Insertable<TripsSchema['trips']>;

/** The window's sums of `rows`, one trip at a time per plate, fleet or driver, as windowSums, fleetWindowSums and driverWindowSums promise them. */
function bruteForce(
  rows: TripRow[],
  fleets: string[],
  fromMs: number,
  toMs: number,
  by: 'plate' | 'fleet_id' | 'driver' = 'plate',
) {
  const keyOf = (r: TripRow) => (by === 'driver' ? (r.driver_id ? `${r.fleet_id}/${r.driver_id}` : null) : r[by]);
  const out = new Map<string, Record<string, number>>();
  for (const r of rows) {
    if (!fleets.includes(r.fleet_id) || r.start_ms < fromMs || r.start_ms >= toMs) continue;
    const key = keyOf(r);
    if (key === null) continue;
    const s = out.get(key) ?? { n: 0, distance: 0, duration: 0, weighted: 0, plain: 0, last: -1 };
    s.n! += 1;
    s.distance! += r.distance_km;
    s.duration! += r.duration_min;
    s.weighted! += r.overall_score * r.distance_km;
    s.plain! += r.overall_score;
    s.last = Math.max(s.last!, r.start_ms);
    for (const t of THEMES) {
      const v = r[`theme_${t}`] ?? null;
      s[`${t}_w`] = (s[`${t}_w`] ?? 0) + (v === null ? 0 : v * r.distance_km);
      s[`${t}_d`] = (s[`${t}_d`] ?? 0) + (v === null ? 0 : r.distance_km);
      s[`${t}_s`] = (s[`${t}_s`] ?? 0) + (v ?? 0);
      s[`${t}_n`] = (s[`${t}_n`] ?? 0) + (v === null ? 0 : 1);
    }
    out.set(key, s);
  }
  return out;
}

describe.each(testDialects())('vehicle stats on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    const rows = new Map<string, TripRow>();
    const plates: Array<{ plate: string; vehicleId: string; fleetId: string }> = [];
    const rnd = prng(8008);
    // Midnight UTC, so that windows can start and end exactly on day boundaries.
    const baseMs = Date.UTC(2026, 8, 1);
    let nextId = 0;

    const randomTrip = (): TripRow => {
      const v = plates[Math.floor(rnd() * plates.length)]!;
      // A few trips start exactly at midnight: the edge between a stored day and a partial one.
      const startMs = baseMs + Math.floor(rnd() * 70) * DAY_MS + (rnd() < 0.1 ? 0 : Math.floor(rnd() * DAY_MS));
      const distance = rnd() < 0.1 ? 0 : Math.round(rnd() * 80_000) / 1000;
      const theme = () => (rnd() < 0.2 ? null : Math.round(rnd() * 1000) / 10);
      return {
        trip_id: `trip_vs${String(nextId++).padStart(6, '0')}`,
        fleet_id: v.fleetId,
        vehicle_id: v.vehicleId,
        plate: v.plate,
        // A quarter of the trips have no identified driver.
        driver_id: rnd() < 0.25 ? null : `drv-${1 + Math.floor(rnd() * 3)}`,
        start_ms: startMs,
        end_ms: startMs + 600_000,
        start_day: Math.floor(startMs / DAY_MS),
        overall_score: Math.round(rnd() * 1000) / 10,
        tier: 'Good',
        map_matched: 1,
        matched_share: 1,
        distance_km: distance,
        duration_min: Math.round(rnd() * 600) / 10,
        machine_type: 'car',
        model_version: 'test',
        scored_at_ms: startMs,
        theme_speeding: theme(),
        theme_braking: theme(),
        theme_acceleration: theme(),
        theme_cornering: theme(),
        theme_distraction: theme(),
        theme_exposure: theme(),
        weakest_theme: 'speeding',
        item_json: '{}',
      };
    };
    const insert = async (n: number) => {
      const batch = Array.from({ length: n }, randomTrip);
      for (let i = 0; i < batch.length; i += 100) {
        await database.db
          .insertInto('trips')
          .values(batch.slice(i, i + 100))
          .execute();
      }
      for (const r of batch) rows.set(r.trip_id, r);
    };

    const expectSums = (
      got: Map<string, Record<string, unknown>>,
      want: Map<string, Record<string, number>>,
      where: string,
    ) => {
      expect([...got.keys()].sort(), where).toEqual([...want.keys()].sort());
      for (const [p, w] of want) {
        const g = got.get(p)!;
        for (const [key, value] of Object.entries(w)) {
          const actual = Number(g[key]);
          if (key === 'n' || key === 'last' || key.endsWith('_n')) expect(actual, `${where} ${p} ${key}`).toBe(value);
          else expect(actual, `${where} ${p} ${key}`).toBeCloseTo(value, 6);
        }
      }
    };

    /** windowSums against the brute force over random windows, all fleets, one fleet and one plate. */
    const compareWindows = async (count: number) => {
      const all = [...rows.values()];
      for (let i = 0; i < count; i++) {
        const aligned = rnd() < 0.3;
        const fromMs = baseMs + (aligned ? Math.floor(rnd() * 60) * DAY_MS : Math.floor(rnd() * 60 * DAY_MS));
        const length =
          rnd() < 0.2 ? Math.floor(rnd() * DAY_MS * 1.5) + 1 : (aligned ? Math.floor(rnd() * 40) : rnd() * 40) * DAY_MS;
        const toMs = fromMs + Math.max(1, Math.floor(length));
        const scopes: Array<[string[], string | undefined]> = [
          [['fleet_vs_a', 'fleet_vs_b'], undefined],
          [['fleet_vs_b'], undefined],
          [['fleet_vs_a'], plates[0]!.plate],
        ];
        for (const [fleets, plate] of scopes) {
          const where = `window ${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()} ${fleets} ${plate ?? ''}`;
          const got = await windowSums(database.db, fleets, fromMs, toMs, plate);
          const want = bruteForce(
            all.filter((r) => plate === undefined || r.plate === plate),
            fleets,
            fromMs,
            toMs,
          );
          expectSums(got, want, where);
          if (plate === undefined) {
            // The same window per fleet, from fleet_stats (migration 0009).
            const fleetsGot = await fleetWindowSums(database.db, fleets, fromMs, toMs);
            expectSums(fleetsGot, bruteForce(all, fleets, fromMs, toMs, 'fleet_id'), `${where} by fleet`);
            // And per driver, from driver_stats (migration 0010), all drivers and one.
            const driversGot = await driverWindowSums(database.db, fleets, fromMs, toMs);
            expectSums(driversGot, bruteForce(all, fleets, fromMs, toMs, 'driver'), `${where} by driver`);
            const one = await driverWindowSums(database.db, fleets, fromMs, toMs, 'drv-2');
            const oneWant = bruteForce(
              all.filter((r) => r.driver_id === 'drv-2'),
              fleets,
              fromMs,
              toMs,
              'driver',
            );
            expectSums(one, oneWant, `${where} driver drv-2`);
            // A page's keys (the lists sum only their page with all columns): exactly those keys' sums.
            const pagePlates = [plates[0]!.plate, plates[2]!.plate];
            expectSums(
              await windowSums(database.db, fleets, fromMs, toMs, pagePlates),
              bruteForce(
                all.filter((r) => pagePlates.includes(r.plate)),
                fleets,
                fromMs,
                toMs,
              ),
              `${where} plates ${pagePlates}`,
            );
            expectSums(
              await driverWindowSums(database.db, fleets, fromMs, toMs, ['drv-1', 'drv-3']),
              bruteForce(
                all.filter((r) => r.driver_id === 'drv-1' || r.driver_id === 'drv-3'),
                fleets,
                fromMs,
                toMs,
                'driver',
              ),
              `${where} drivers drv-1, drv-3`,
            );
            // The headline columns (what a list orders by): the same five sums and last start, no theme's.
            for (const [headline, full] of [
              [await windowSums(database.db, fleets, fromMs, toMs, undefined, 'headline'), got],
              [await driverWindowSums(database.db, fleets, fromMs, toMs, undefined, 'headline'), driversGot],
            ] as const) {
              expect([...headline.keys()].sort(), `${where} headline`).toEqual([...full.keys()].sort());
              for (const [key, row] of headline) {
                const { n, distance, duration, weighted, plain, last } = full.get(key)!;
                expect(row, `${where} headline ${key}`).toEqual({ n, distance, duration, weighted, plain, last });
              }
            }
          }
        }
      }
    };

    beforeAll(async () => {
      database = await dialect.open(before0008, { migrationTable: TRIPS_MIGRATION_TABLE });
      for (const fleetId of ['fleet_vs_a', 'fleet_vs_b']) {
        await createFleet(database.db, { name: fleetId, fleetId });
        for (let v = 0; v < 4; v++) {
          const vehicle = await createVehicle(database.db, { fleetId, plate: `${fleetId.slice(-1)}-VS-${v}` });
          plates.push({ plate: vehicle.plate, vehicleId: vehicle.vehicleId, fleetId });
        }
        for (let d = 1; d <= 3; d++) await createDriver(database.db, { fleetId, driverId: `drv-${d}` });
      }
      await insert(400);
    });
    afterAll(async () => {
      await database?.close();
    });

    it('0008 and 0009 sum the trips already stored, by day and by week', async () => {
      expect(await migrateToLatest(database.db, tripsMigrations, TRIPS_MIGRATION_TABLE)).toEqual([
        '0008_vehicle_stats',
        '0009_fleet_stats',
        '0010_driver_stats',
        '0011_location_data_deletions',
        '0012_rescore_leases',
        '0013_uploads_by_driver',
        '0014_uploads_in_time_order',
        '0015_split_uploads',
        '0016_one_open_rescore_run',
        '0017_rescore_run_of_upload',
        '0018_stats_triggers_on_summed_columns',
      ]);
      const stats = await database.db.selectFrom('vehicle_stats').selectAll().execute();
      for (const span of [1, 7]) {
        const rowsOfSpan = stats.filter((s) => Number(s.span) === span);
        expect(rowsOfSpan.reduce((n, s) => n + Number(s.trip_count), 0)).toBe(rows.size);
        for (const s of rowsOfSpan) {
          // A week row starts on a Monday (UTC).
          if (span === 7) expect(new Date(Number(s.bucket) * DAY_MS).getUTCDay()).toBe(1);
        }
      }
      await compareWindows(40);
    });

    it('stays exact through inserts, deletes and updates by any writer', async () => {
      await insert(150);
      const ids = [...rows.keys()];
      // Rescoring deletes and writes a trip again; plain SQL may also update one in place.
      for (let i = 0; i < 60; i++) {
        const id = ids[Math.floor(rnd() * ids.length)]!;
        if (!rows.has(id)) continue;
        await database.db.deleteFrom('trips').where('trip_id', '=', id).execute();
        rows.delete(id);
      }
      const left = [...rows.keys()];
      for (let i = 0; i < 40; i++) {
        const id = left[Math.floor(rnd() * left.length)]!;
        const moved = randomTrip();
        const change = {
          overall_score: moved.overall_score,
          distance_km: moved.distance_km,
          theme_braking: moved.theme_braking,
          theme_exposure: null,
          driver_id: moved.driver_id,
          start_ms: moved.start_ms,
          start_day: moved.start_day,
        };
        await database.db.updateTable('trips').set(change).where('trip_id', '=', id).execute();
        rows.set(id, { ...rows.get(id)!, ...change });
      }
      // A plate (and list item) set alone, as a vehicle's rename does: the vehicle's sums follow it.
      for (let i = 0; i < 20; i++) {
        const id = left[Math.floor(rnd() * left.length)]!;
        const row = rows.get(id)!;
        const others = plates.filter((p) => p.fleetId === row.fleet_id && p.plate !== row.plate);
        const change = { plate: others[Math.floor(rnd() * others.length)]!.plate, item_json: '{"moved":true}' };
        await database.db.updateTable('trips').set(change).where('trip_id', '=', id).execute();
        rows.set(id, { ...row, ...change });
      }
      await compareWindows(40);
    });

    it('answers an empty scope or window with no sums', async () => {
      expect((await windowSums(database.db, [], baseMs, baseMs + 30 * DAY_MS)).size).toBe(0);
      expect((await windowSums(database.db, ['fleet_vs_a'], baseMs, baseMs)).size).toBe(0);
      expect((await windowSums(database.db, ['fleet_nowhere'], baseMs, baseMs + 30 * DAY_MS)).size).toBe(0);
      expect((await fleetWindowSums(database.db, [], baseMs, baseMs + 30 * DAY_MS)).size).toBe(0);
      expect((await fleetWindowSums(database.db, ['fleet_vs_a'], baseMs, baseMs)).size).toBe(0);
      expect((await fleetWindowSums(database.db, ['fleet_nowhere'], baseMs, baseMs + 30 * DAY_MS)).size).toBe(0);
      expect((await driverWindowSums(database.db, [], baseMs, baseMs + 30 * DAY_MS)).size).toBe(0);
      expect((await driverWindowSums(database.db, ['fleet_vs_a'], baseMs, baseMs)).size).toBe(0);
    });
  });
});
