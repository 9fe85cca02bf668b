import type { ThemeId } from '@svc/scoring';
import { type Kysely, sql } from 'kysely';
import { inSnapshot } from './read-snapshot.ts';
import type { TripsSchema } from './schema.ts';
import { themeLabels } from './trip-reads.ts';
import { iso, num, rosterEntry, round2, summarizeWindow, type Trend, trendOf, windowSums } from './vehicle-window.ts';
import { findVehicleInFleets } from './vehicles.ts';

const DAY_MS = 86_400_000;

export interface VehicleProfile {
  plate: string;
  fleetId: string;
  machineType: string;
  make: string | null;
  model: string | null;
  window: { days: number; from: string; to: string };
  score: number | null;
  tier: string | null;
  themes: Array<{ id: ThemeId; label: string; score: number | null }>;
  weakestTheme: { id: ThemeId; label: string } | null;
  trend: Trend;
  trips: number;
  distanceKm: number;
  durationMin: number;
  lastTripDate: string | null;
  lifetime: { trips: number; distanceKm: number; firstTripDate: string | null; lastTripDate: string | null };
  drivers: Array<{
    driverId: string | null;
    name: string | null;
    trips: number;
    distanceKm: number;
    score: number | null;
    tier: string | null;
    lastTripDate: string;
  }>;
}

/**
 * The risk profile of the vehicle with `plate`, when it is in one of `fleets` (else null): scores over
 * the rolling window `[now - days, now)`, the trend against the window before it, lifetime totals and
 * the roster of drivers who drove it in the window.
 */
export async function vehicleProfile(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  plate: string,
  options: { nowMs: number; windowDays: number },
): Promise<VehicleProfile | null> {
  return inSnapshot(db, (snapshot) => vehicleProfileIn(snapshot, fleets, plate, options));
}

async function vehicleProfileIn(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  plate: string,
  options: { nowMs: number; windowDays: number },
): Promise<VehicleProfile | null> {
  const vehicle = await findVehicleInFleets(db, plate, fleets);
  if (!vehicle) return null;
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  const prevFrom = from - options.windowDays * DAY_MS;

  const base = () =>
    db.selectFrom('trips').where('trips.fleet_id', 'in', fleets).where('trips.plate', '=', vehicle.plate);

  const sumsOf = async (lo: number, hi: number) =>
    (await windowSums(db, fleets, lo, hi, vehicle.plate)).get(vehicle.plate);

  const [current, previous, lifetime, roster, labels] = await Promise.all([
    sumsOf(from, to),
    sumsOf(prevFrom, from),
    base()
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number | null>('distance_km').as('distance'),
        eb.fn.min<number | null>('start_ms').as('first'),
        eb.fn.max<number | null>('start_ms').as('last'),
      ])
      .executeTakeFirstOrThrow(),
    base()
      .leftJoin('drivers', (j) =>
        j.onRef('drivers.fleet_id', '=', 'trips.fleet_id').onRef('drivers.driver_id', '=', 'trips.driver_id'),
      )
      .where('trips.start_ms', '>=', from)
      .where('trips.start_ms', '<', to)
      .select((eb) => [
        'trips.driver_id',
        eb.fn.max('drivers.name').as('name'),
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number | null>('trips.distance_km').as('distance'),
        eb.fn.sum<number | null>(sql`trips.overall_score * trips.distance_km`).as('weighted'),
        eb.fn.sum<number | null>('trips.overall_score').as('plain'),
        eb.fn.max<number>('trips.start_ms').as('last'),
      ])
      .groupBy('trips.driver_id')
      .execute(),
    themeLabels(db),
  ]);

  const summary = summarizeWindow(current, labels);
  const trend = trendOf(summary, previous, prevFrom, from);

  const drivers = roster
    .map((r) => ({ driverId: r.driver_id, name: (r.name as string | null) ?? null, ...rosterEntry(r) }))
    .sort((a, b) => b.distanceKm - a.distanceKm || String(a.driverId).localeCompare(String(b.driverId)));

  return {
    plate: vehicle.plate,
    fleetId: vehicle.fleetId,
    machineType: vehicle.machineType,
    make: vehicle.make,
    model: vehicle.model,
    window: { days: options.windowDays, from: iso(from), to: iso(to) },
    score: summary.score,
    tier: summary.tier,
    themes: summary.themes,
    weakestTheme: summary.weakestTheme,
    trend,
    trips: summary.trips,
    distanceKm: summary.distanceKm,
    durationMin: summary.durationMin,
    lastTripDate: summary.lastTripDate,
    lifetime: {
      trips: Number(lifetime.n),
      distanceKm: round2(num(lifetime.distance) ?? 0),
      firstTripDate: lifetime.first !== null ? iso(Number(lifetime.first)) : null,
      lastTripDate: lifetime.last !== null ? iso(Number(lifetime.last)) : null,
    },
    drivers,
  };
}
