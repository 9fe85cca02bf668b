import { type Kysely, sql } from 'kysely';
import { inSnapshot } from './read-snapshot.ts';
import type { TripsSchema } from './schema.ts';
import { themeLabels } from './trip-reads.ts';
import type { VehicleProfile } from './vehicle-profile.ts';
import {
  driverKey,
  driverWindowSums,
  iso,
  num,
  rosterEntry,
  round2,
  summarizeWindow,
  type Trend,
  trendOf,
  type WindowSummary,
} from './vehicle-window.ts';

const DAY_MS = 86_400_000;

export interface DriverProfile extends WindowSummary {
  driverId: string;
  fleetId: string;
  name: string | null;
  window: { days: number; from: string; to: string };
  trend: Trend;
  lifetime: VehicleProfile['lifetime'];
  vehicles: Array<{
    plate: string;
    trips: number;
    distanceKm: number;
    score: number | null;
    tier: string | null;
    lastTripDate: string;
  }>;
}

/** The fleets among `fleets` that have a driver `driverId` (driver ids are unique per fleet only). */
export async function fleetsWithDriver(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  driverId: string,
): Promise<string[]> {
  if (fleets.length === 0) return [];
  const rows = await db
    .selectFrom('drivers')
    .select('fleet_id')
    .where('driver_id', '=', driverId)
    .where('fleet_id', 'in', fleets)
    .orderBy('fleet_id')
    .execute();
  return rows.map((r) => r.fleet_id);
}

/**
 * The risk profile of driver `driverId` of fleet `fleetId` over the rolling window `[now - days, now)`,
 * summed as a vehicle's is (distance-weighted scores, themes, weakest theme, tier, trend against the
 * window before, from driver_stats as the driver list sums them), with lifetime totals and the vehicles
 * the driver drove in the window (their few trips summed one by one: index on fleet, driver and start
 * time); null when the fleet has no such driver. The caller has checked that the fleet is in scope.
 */
export async function driverProfile(
  db: Kysely<TripsSchema>,
  fleetId: string,
  driverId: string,
  options: { nowMs: number; windowDays: number },
): Promise<DriverProfile | null> {
  return inSnapshot(db, (snapshot) => driverProfileIn(snapshot, fleetId, driverId, options));
}

async function driverProfileIn(
  db: Kysely<TripsSchema>,
  fleetId: string,
  driverId: string,
  options: { nowMs: number; windowDays: number },
): Promise<DriverProfile | null> {
  const driver = await db
    .selectFrom('drivers')
    .select(['fleet_id', 'driver_id', 'name'])
    .where('fleet_id', '=', fleetId)
    .where('driver_id', '=', driverId)
    .executeTakeFirst();
  if (!driver) return null;
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  const prevFrom = from - options.windowDays * DAY_MS;
  const ofDriver = sql`r.fleet_id = ${fleetId} and r.driver_id = ${driverId}`;
  // Summed as the driver list sums it (driver_stats), so the two always agree.
  const sums = async (lo: number, hi: number) =>
    (await driverWindowSums(db, [fleetId], lo, hi, driverId)).get(driverKey(fleetId, driverId));

  const [current, previous, lifetime, vehicles, labels] = await Promise.all([
    sums(from, to),
    sums(prevFrom, from),
    sql<{ n: unknown; distance: unknown; first: unknown; last: unknown }>`select count(*) as n,
        sum(r.distance_km) as distance, min(r.start_ms) as first, max(r.start_ms) as last
      from trips r where ${ofDriver}`.execute(db),
    sql<{ plate: string; n: unknown; distance: unknown; weighted: unknown; plain: unknown; last: unknown }>`
      select r.plate, count(*) as n, sum(r.distance_km) as distance,
        sum(r.overall_score * r.distance_km) as weighted, sum(r.overall_score) as plain, max(r.start_ms) as last
      from trips r where ${ofDriver} and r.start_ms >= ${from} and r.start_ms < ${to}
      group by r.plate`.execute(db),
    themeLabels(db),
  ]);

  const summary = summarizeWindow(current, labels);
  const life = lifetime.rows[0];
  return {
    driverId: driver.driver_id,
    fleetId: driver.fleet_id,
    name: driver.name,
    window: { days: options.windowDays, from: iso(from), to: iso(to) },
    ...summary,
    trend: trendOf(summary, previous, prevFrom, from),
    lifetime: {
      trips: Number(life?.n ?? 0),
      distanceKm: round2(num(life?.distance) ?? 0),
      firstTripDate: num(life?.first) !== null ? iso(num(life?.first)!) : null,
      lastTripDate: num(life?.last) !== null ? iso(num(life?.last)!) : null,
    },
    vehicles: vehicles.rows
      .map((r) => ({ plate: r.plate, ...rosterEntry(r) }))
      .sort((a, b) => b.distanceKm - a.distanceKm || (a.plate < b.plate ? -1 : 1)),
  };
}
