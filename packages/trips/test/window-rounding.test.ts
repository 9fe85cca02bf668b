/**
 * A window's scores are the distance-weighted means of its trips rounded to 0.1 (README "Vehicle profile"), and
 * its tier is the tier of that figure. Two trips of 10.001 km at 64.9 and 10 km at 65.0 average 64.94999750...:
 * shown 64.9, Fair. Rounding the floating-point mean after snapping it to 4 decimals (how summed distances are
 * rounded, so that one sum added up in two orders rounds one way) showed it as 65.0, Good; a sandbox vehicle's
 * exposure of 94.44996 was shown 94.5. Every figure built from those means is checked: vehicle, driver and fleet
 * profiles, lists, rosters, themes and the trend's previous score, on SQLite and PostgreSQL.
 */
import { testDialects } from '@svc/platform/testing';
import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDriverSummaries } from '../src/store/driver-list.ts';
import { driverProfile } from '../src/store/driver-profile.ts';
import { createDriver } from '../src/store/drivers.ts';
import { fleetProfile, fleetSummaries } from '../src/store/fleet-profile.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import type { TripsDatabase } from '../src/store/open-trips-database.ts';
import type { TripsSchema } from '../src/store/schema.ts';
import { listVehicleSummaries } from '../src/store/vehicle-list.ts';
import { vehicleProfile } from '../src/store/vehicle-profile.ts';
import { createVehicle } from '../src/store/vehicles.ts';

const DAY_MS = 86_400_000;
const FLEET = 'fleet_round';
const PLATE = 'RD-001-AA';

describe.each(testDialects())('window scores rounded to 0.1 on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    const nowMs = Date.UTC(2026, 11, 7, 12);
    const options = { nowMs, windowDays: 7 };

    let vehicleId = '';
    const trip = (n: number, startMs: number, score: number, distance: number): Insertable<TripsSchema['trips']> => ({
      trip_id: `trip_round${n}`,
      fleet_id: FLEET,
      vehicle_id: vehicleId,
      plate: PLATE,
      driver_id: 'drv-1',
      start_ms: startMs,
      end_ms: startMs + 600_000,
      start_day: Math.floor(startMs / DAY_MS),
      overall_score: score,
      tier: score < 65 ? 'Fair' : 'Good',
      map_matched: 1,
      matched_share: 1,
      distance_km: distance,
      duration_min: 10,
      machine_type: 'car',
      model_version: 'test',
      scored_at_ms: startMs,
      // The themes average as the score does: speeding 64.9 and 65.0, exposure 94.4 and 94.5.
      theme_speeding: score,
      theme_braking: 80,
      theme_acceleration: 80,
      theme_cornering: 80,
      theme_distraction: 80,
      theme_exposure: Math.round((score + 29.5) * 10) / 10,
      weakest_theme: 'speeding',
      item_json: '{}',
    });

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await createFleet(database.db, { fleetId: FLEET, name: 'Rounding' }, nowMs);
      vehicleId = (await createVehicle(database.db, { fleetId: FLEET, plate: PLATE }, nowMs)).vehicleId;
      await createDriver(database.db, { fleetId: FLEET, driverId: 'drv-1' }, nowMs);
      const trips = [];
      // Three trips in each of the window and the one before it (the trend's), each pair averaging 64.94999750...
      for (const [base, n] of [
        [nowMs - 2 * DAY_MS, 0],
        [nowMs - 9 * DAY_MS, 3],
      ] as const) {
        trips.push(
          trip(n, base, 64.9, 10.001),
          trip(n + 1, base + 3_600_000, 65, 5),
          trip(n + 2, base + 7_200_000, 65, 5),
        );
      }
      await database.db.insertInto('trips').values(trips).execute();
    });
    afterAll(async () => {
      await database?.close();
    });

    const fair = { score: 64.9, tier: 'Fair' };

    it('shows the mean rounded to the nearest 0.1, and its tier', async () => {
      const vehicle = (await vehicleProfile(database.db, [FLEET], PLATE, options))!;
      expect({ score: vehicle.score, tier: vehicle.tier }).toEqual(fair);
      expect(vehicle.themes.find((t) => t.id === 'speeding')!.score).toBe(64.9);
      expect(vehicle.themes.find((t) => t.id === 'exposure')!.score).toBe(94.4);
      expect(vehicle.trend.previousScore).toBe(64.9);
      expect(vehicle.drivers.map((d) => ({ score: d.score, tier: d.tier }))).toEqual([fair]);

      const driver = (await driverProfile(database.db, FLEET, 'drv-1', options))!;
      expect({ score: driver.score, tier: driver.tier }).toEqual(fair);
      expect(driver.trend.previousScore).toBe(64.9);
      expect(driver.vehicles.map((v) => ({ score: v.score, tier: v.tier }))).toEqual([fair]);

      const [fleet] = await fleetSummaries(database.db, [FLEET], options);
      expect({ score: fleet!.score, tier: fleet!.tier }).toEqual(fair);
      const profile = (await fleetProfile(database.db, [FLEET], FLEET, options))!;
      expect(profile.vehicles.byTier).toEqual({ Critical: 0, Fair: 1, Good: 0, Safe: 0 });
      expect(profile.riskiestVehicles.map((v) => ({ score: v.score, tier: v.tier }))).toEqual([fair]);

      const vehicles = await listVehicleSummaries(database.db, [FLEET], {
        ...options,
        offset: 0,
        limit: 20,
        sort: 'score',
      });
      expect(vehicles.vehicles.map((v) => ({ score: v.score, tier: v.tier }))).toEqual([fair]);
      const drivers = await listDriverSummaries(database.db, [FLEET], {
        ...options,
        offset: 0,
        limit: 20,
        sort: 'score',
      });
      expect(drivers.drivers.map((d) => ({ score: d.score, tier: d.tier }))).toEqual([fair]);
    });
  });
});
