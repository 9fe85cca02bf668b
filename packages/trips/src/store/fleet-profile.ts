import type { Kysely } from 'kysely';
import { TIERS } from '../scoring/tiers.ts';
import type { TripsSchema } from './schema.ts';
import { themeLabels } from './trip-reads.ts';
import {
  addWindowSums,
  iso,
  summarizeWindow,
  type Trend,
  trendOf,
  type WindowAggregateRow,
  type WindowSummary,
  windowSums,
} from './vehicle-window.ts';

const DAY_MS = 86_400_000;

/** How `GET /v1/fleets` can be ordered: a field ascending, or descending with a leading `-`. */
export const FLEET_SORTS = [
  'name',
  '-name',
  'score',
  '-score',
  'distanceKm',
  '-distanceKm',
  'trips',
  '-trips',
  'lastTripDate',
  '-lastTripDate',
] as const;
export type FleetSort = (typeof FLEET_SORTS)[number];

/** How many vehicles a fleet's profile names as its riskiest. */
export const RISKIEST_VEHICLES = 5;

/** One fleet's risk over a window: its trips summed as one vehicle's are, and how its vehicles spread. */
export interface FleetSummary extends WindowSummary {
  fleetId: string;
  name: string;
  window: { days: number; from: string; to: string };
  trend: Trend;
  vehicles: {
    /** Vehicles registered in the fleet. */
    total: number;
    /** Vehicles with at least one trip in the window. */
    withTrips: number;
    /** Vehicles with trips in the window by the tier of their window score. */
    byTier: Record<(typeof TIERS)[number], number>;
  };
  drivers: { total: number };
}

/** The profile of one fleet: its summary plus the vehicles with the lowest window scores. */
export interface FleetProfile extends FleetSummary {
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
 * and themes of all its trips (the same sums as the vehicle list's, added over the fleet's vehicles, so
 * a fleet's figures always agree with its vehicles'), the trend against the window before, and how many
 * of its vehicles fall in each tier. Fleets without trips are included with null scores.
 */
export async function fleetSummaries(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: Options,
): Promise<FleetSummary[]> {
  return (await summarize(db, fleets, options)).map(({ summary }) => summary);
}

/** One fleet's profile (fleetSummaries plus its riskiest vehicles), or null when it is not among `fleets`. */
export async function fleetProfile(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  fleetId: string,
  options: Options,
): Promise<FleetProfile | null> {
  if (!fleets.includes(fleetId)) return null;
  const [found] = await summarize(db, [fleetId], options);
  if (!found) return null;
  const riskiestVehicles = found.vehicles
    .filter((v) => v.summary.score !== null)
    .sort((a, b) => (a.summary.score as number) - (b.summary.score as number) || (a.plate < b.plate ? -1 : 1))
    .slice(0, RISKIEST_VEHICLES)
    .map(({ plate, summary }) => ({
      plate,
      score: summary.score,
      tier: summary.tier,
      trips: summary.trips,
      distanceKm: summary.distanceKm,
    }));
  return { ...found.summary, riskiestVehicles };
}

type VehicleWindow = { plate: string; summary: WindowSummary };

async function summarize(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: Options,
): Promise<Array<{ summary: FleetSummary; vehicles: VehicleWindow[] }>> {
  if (fleets.length === 0) return [];
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  const prevFrom = from - options.windowDays * DAY_MS;
  const [fleetRows, vehicleRows, driverCounts, current, previous, labels] = await Promise.all([
    db.selectFrom('fleets').select(['fleet_id', 'name']).where('fleet_id', 'in', fleets).execute(),
    db.selectFrom('vehicles').select(['fleet_id', 'plate']).where('fleet_id', 'in', fleets).execute(),
    db
      .selectFrom('drivers')
      .select((eb) => ['fleet_id', eb.fn.countAll<number | string>().as('n')])
      .where('fleet_id', 'in', fleets)
      .groupBy('fleet_id')
      .execute(),
    windowSums(db, fleets, from, to),
    windowSums(db, fleets, prevFrom, from),
    themeLabels(db),
  ]);
  const platesOf = new Map<string, string[]>();
  for (const v of vehicleRows) {
    const plates = platesOf.get(v.fleet_id);
    if (plates) plates.push(v.plate);
    else platesOf.set(v.fleet_id, [v.plate]);
  }
  const drivers = new Map(driverCounts.map((d) => [d.fleet_id, Number(d.n)]));
  const present = (sums: Map<string, WindowAggregateRow>, plates: string[]) =>
    plates.flatMap((p) => {
      const row = sums.get(p);
      return row ? [row] : [];
    });
  return fleetRows.map((fleet) => {
    const plates = platesOf.get(fleet.fleet_id) ?? [];
    const window = addWindowSums(present(current, plates));
    const summary = summarizeWindow(window, labels);
    const vehicles = plates.map((plate) => ({ plate, summary: summarizeWindow(current.get(plate), labels) }));
    const byTier = Object.fromEntries(TIERS.map((t) => [t, 0])) as FleetSummary['vehicles']['byTier'];
    for (const v of vehicles) if (v.summary.tier !== null) byTier[v.summary.tier as keyof typeof byTier]++;
    return {
      summary: {
        fleetId: fleet.fleet_id,
        name: fleet.name,
        window: { days: options.windowDays, from: iso(from), to: iso(to) },
        ...summary,
        trend: trendOf(summary, addWindowSums(present(previous, plates)), prevFrom, from),
        vehicles: { total: plates.length, withTrips: vehicles.filter((v) => v.summary.trips > 0).length, byTier },
        drivers: { total: drivers.get(fleet.fleet_id) ?? 0 },
      },
      vehicles,
    };
  });
}

type SortKey = (f: FleetSummary) => number | string | null;
const SORT_KEYS: Record<string, SortKey> = {
  name: (f) => f.name.toLowerCase(),
  score: (f) => f.score,
  distanceKm: (f) => f.distanceKm,
  trips: (f) => f.trips,
  lastTripDate: (f) => f.lastTripDate,
};

/** Orders fleet summaries by `sort`: nulls last whichever the direction, then by fleet id (a total order). */
export function sortFleets(fleets: FleetSummary[], sort: FleetSort): FleetSummary[] {
  const descending = sort.startsWith('-');
  const key = SORT_KEYS[descending ? sort.slice(1) : sort] ?? SORT_KEYS.name!;
  return fleets.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) {
      if (ka === null) return 1;
      if (kb === null) return -1;
      const order = ka < kb ? -1 : 1;
      return descending ? -order : order;
    }
    return a.fleetId < b.fleetId ? -1 : a.fleetId > b.fleetId ? 1 : 0;
  });
}
