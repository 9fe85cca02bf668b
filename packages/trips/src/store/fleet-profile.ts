import type { Kysely } from 'kysely';
import { TIERS } from '../scoring/tiers.ts';
import { byCodeUnit, sortByOrder, sortOrders } from './list-order.ts';
import { inSnapshot } from './read-snapshot.ts';
import type { TripsSchema } from './schema.ts';
import { themeLabels } from './trip-reads.ts';
import {
  fleetWindowSums,
  iso,
  summarizeHeadline,
  summarizeWindow,
  type Trend,
  trendOf,
  type WindowSummary,
  windowSums,
} from './vehicle-window.ts';

const DAY_MS = 86_400_000;

/** How `GET /v1/fleets` can be ordered: a field ascending, or descending with a leading `-`. */
export const FLEET_SORTS = sortOrders(['name', 'score', 'distanceKm', 'trips', 'lastTripDate']);
export type FleetSort = (typeof FLEET_SORTS)[number];

/** How many vehicles a fleet's profile names as its riskiest. */
export const RISKIEST_VEHICLES = 5;

/** One fleet's risk over a window: all its trips summed as one vehicle's are, and its registered vehicles and drivers. */
export interface FleetSummary extends WindowSummary {
  fleetId: string;
  name: string;
  window: { days: number; from: string; to: string };
  trend: Trend;
  vehicles: { total: number };
  drivers: { total: number };
}

/** The profile of one fleet: its summary, how its vehicles spread over the tiers, and the riskiest ones. */
export interface FleetProfile extends Omit<FleetSummary, 'vehicles'> {
  vehicles: {
    /** Vehicles registered in the fleet. */
    total: number;
    /** Vehicles with at least one trip in the window. */
    withTrips: number;
    /** Vehicles with trips in the window by the tier of their own window score. */
    byTier: Record<(typeof TIERS)[number], number>;
  };
  riskiestVehicles: Array<{
    plate: string;
    score: number | null;
    tier: string | null;
    trips: number;
    distanceKm: number;
  }>;
}

interface Options {
  nowMs: number;
  windowDays: number;
}

/**
 * Every fleet of `fleets` summed over the rolling window `[now - days, now)`: the distance-weighted score
 * and themes of all its trips, summed as a vehicle's are (fleetWindowSums: a few rows per fleet, whatever
 * its size), and the trend against the window before. Fleets without trips are included with null scores.
 */
export async function fleetSummaries(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: Options,
): Promise<FleetSummary[]> {
  return inSnapshot(db, (snapshot) => fleetSummariesIn(snapshot, fleets, options));
}

async function fleetSummariesIn(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: Options,
): Promise<FleetSummary[]> {
  if (fleets.length === 0) return [];
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  const prevFrom = from - options.windowDays * DAY_MS;
  const count = (table: 'vehicles' | 'drivers') =>
    db
      .selectFrom(table)
      .select((eb) => ['fleet_id', eb.fn.countAll<number | string>().as('n')])
      .where('fleet_id', 'in', fleets)
      .groupBy('fleet_id')
      .execute();
  const [fleetRows, vehicleCounts, driverCounts, current, previous, labels] = await Promise.all([
    db.selectFrom('fleets').select(['fleet_id', 'name']).where('fleet_id', 'in', fleets).execute(),
    count('vehicles'),
    count('drivers'),
    fleetWindowSums(db, fleets, from, to),
    fleetWindowSums(db, fleets, prevFrom, from),
    themeLabels(db),
  ]);
  const vehicles = new Map(vehicleCounts.map((v) => [v.fleet_id, Number(v.n)]));
  const drivers = new Map(driverCounts.map((d) => [d.fleet_id, Number(d.n)]));
  return fleetRows.map((fleet) => {
    const summary = summarizeWindow(current.get(fleet.fleet_id), labels);
    return {
      fleetId: fleet.fleet_id,
      name: fleet.name,
      window: { days: options.windowDays, from: iso(from), to: iso(to) },
      ...summary,
      trend: trendOf(summary, previous.get(fleet.fleet_id), prevFrom, from),
      vehicles: { total: vehicles.get(fleet.fleet_id) ?? 0 },
      drivers: { total: drivers.get(fleet.fleet_id) ?? 0 },
    };
  });
}

/**
 * One fleet's profile, or null when it is not among `fleets`: its summary (as fleetSummaries), how many
 * of its vehicles fall in each tier by their own window score, and the vehicles with the lowest scores.
 * The vehicles are summed as the vehicle list sums them, so the two always agree.
 */
export async function fleetProfile(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  fleetId: string,
  options: Options,
): Promise<FleetProfile | null> {
  return inSnapshot(db, (snapshot) => fleetProfileIn(snapshot, fleets, fleetId, options));
}

async function fleetProfileIn(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  fleetId: string,
  options: Options,
): Promise<FleetProfile | null> {
  if (!fleets.includes(fleetId)) return null;
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  // The vehicles' tiers and the riskiest need no theme sums (SumColumns).
  const [[summary], perVehicle, plates] = await Promise.all([
    fleetSummaries(db, [fleetId], options),
    windowSums(db, [fleetId], from, to, undefined, 'headline'),
    db.selectFrom('vehicles').select('plate').where('fleet_id', '=', fleetId).execute(),
  ]);
  if (!summary) return null;
  const vehicles = plates.map(({ plate }) => ({ plate, summary: summarizeHeadline(perVehicle.get(plate)) }));
  const byTier = Object.fromEntries(TIERS.map((t) => [t, 0])) as FleetProfile['vehicles']['byTier'];
  for (const v of vehicles) if (v.summary.tier !== null) byTier[v.summary.tier as keyof typeof byTier]++;
  const riskiestVehicles = vehicles
    .filter((v) => v.summary.score !== null)
    .sort((a, b) => (a.summary.score as number) - (b.summary.score as number) || (a.plate < b.plate ? -1 : 1))
    .slice(0, RISKIEST_VEHICLES)
    .map(({ plate, summary: v }) => ({
      plate,
      score: v.score,
      tier: v.tier,
      trips: v.trips,
      distanceKm: v.distanceKm,
    }));
  return {
    ...summary,
    vehicles: {
      total: summary.vehicles.total,
      withTrips: vehicles.filter((v) => v.summary.trips > 0).length,
      byTier,
    },
    riskiestVehicles,
  };
}

const SORT_KEYS: Record<string, (f: FleetSummary) => number | string | null> = {
  name: (f) => f.name.toLowerCase(),
  score: (f) => f.score,
  // Without trips in the window there is no distance or trip count to order by (0 is not a value): last, as
  // the score and last trip are.
  distanceKm: (f) => (f.trips > 0 ? f.distanceKm : null),
  trips: (f) => (f.trips > 0 ? f.trips : null),
  lastTripDate: (f) => f.lastTripDate,
};

/** Orders fleet summaries by `sort`: nulls last whichever the direction, then by fleet id (a total order). */
export function sortFleets(fleets: FleetSummary[], sort: FleetSort): FleetSummary[] {
  return sortByOrder(fleets, sort, SORT_KEYS, (a, b) => byCodeUnit(a.fleetId, b.fleetId));
}
