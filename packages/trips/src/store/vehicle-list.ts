import type { MachineType } from '@svc/scoring';
import type { Kysely } from 'kysely';
import { byCodeUnit, sortByOrder, sortOrders } from './list-order.ts';
import { inSnapshot } from './read-snapshot.ts';
import type { TripsSchema } from './schema.ts';
import { themeLabels } from './trip-reads.ts';
import {
  iso,
  summarizeHeadline,
  summarizeWindow,
  type WindowHeadline,
  type WindowSummary,
  windowSums,
} from './vehicle-window.ts';

const DAY_MS = 86_400_000;

/** How `GET /v1/vehicles` can be ordered: a field ascending, or descending with a leading `-`. */
export const VEHICLE_SORTS = sortOrders(['plate', 'score', 'distanceKm', 'trips', 'lastTripDate']);
export type VehicleSort = (typeof VEHICLE_SORTS)[number];

/** One vehicle of the list: who it is and what its trips in the window add up to. */
export interface VehicleSummary extends WindowSummary {
  plate: string;
  fleetId: string;
  machineType: MachineType;
  make: string | null;
  model: string | null;
}

export interface VehicleListOptions {
  nowMs: number;
  windowDays: number;
  sort: VehicleSort;
  /** Only vehicles whose window score falls in one of these tiers (vehicles without a score never do). */
  tiers?: readonly string[] | undefined;
  machineTypes?: readonly string[] | undefined;
  offset: number;
  limit: number;
}

export interface VehicleList {
  vehicles: VehicleSummary[];
  total: number;
  window: { days: number; from: string; to: string };
}

/** A vehicle as the list orders and filters it, before its page is summed with the themes. */
type VehicleHeadline = Omit<VehicleSummary, keyof WindowSummary> & WindowHeadline;

const SORT_KEYS: Record<string, (v: VehicleHeadline) => number | string | null> = {
  plate: (v) => v.plate,
  score: (v) => v.score,
  // Without trips in the window there is no distance or trip count to order by (0 is not a value): last, as
  // the score and last trip are.
  distanceKm: (v) => (v.trips > 0 ? v.distanceKm : null),
  trips: (v) => (v.trips > 0 ? v.trips : null),
  // ISO dates of one format order as their instants do.
  lastTripDate: (v) => v.lastTripDate,
};

/**
 * The vehicles of `fleets` with their trips of the rolling window `[now - days, now)` summed as the
 * vehicle profile sums them (distance-weighted scores, themes, weakest theme, tier), filtered, ordered
 * (nulls last whatever the direction, then by plate) and paged. Scope is part of both queries.
 *
 * Every vehicle of the scope is summarised before the page is cut, because ordering by score or
 * distance needs them all; windowSums reads a few rows per vehicle (weeks and days of vehicle_stats),
 * not every trip, and the page is cut in memory. See the README for what that costs on a large store.
 */
export async function listVehicleSummaries(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: VehicleListOptions,
): Promise<VehicleList> {
  return inSnapshot(db, (snapshot) => listVehicleSummariesIn(snapshot, fleets, options));
}

async function listVehicleSummariesIn(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: VehicleListOptions,
): Promise<VehicleList> {
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  const window = { days: options.windowDays, from: iso(from), to: iso(to) };
  if (fleets.length === 0) return { vehicles: [], total: 0, window };

  let vehiclesQuery = db
    .selectFrom('vehicles')
    .select(['plate', 'fleet_id', 'machine_type', 'make', 'model'])
    .where('fleet_id', 'in', fleets);
  if (options.machineTypes && options.machineTypes.length > 0) {
    vehiclesQuery = vehiclesQuery.where('machine_type', 'in', options.machineTypes);
  }
  // Every vehicle of the scope is ordered by its headline sums; only the page's are summed with the themes
  // (SumColumns), in the same snapshot, so they are the same sums.
  const [vehicles, byPlate, labels] = await Promise.all([
    vehiclesQuery.execute(),
    windowSums(db, fleets, from, to, undefined, 'headline'),
    themeLabels(db),
  ]);

  let headlines: VehicleHeadline[] = vehicles.map((v) => ({
    plate: v.plate,
    fleetId: v.fleet_id,
    machineType: v.machine_type as MachineType,
    make: v.make,
    model: v.model,
    ...summarizeHeadline(byPlate.get(v.plate)),
  }));
  if (options.tiers && options.tiers.length > 0) {
    const tiers = new Set(options.tiers);
    headlines = headlines.filter((v) => v.tier !== null && tiers.has(v.tier));
  }
  // Plates are unique in an environment, so the plate makes the order total and pages never overlap.
  sortByOrder(headlines, options.sort, SORT_KEYS, (a, b) => byCodeUnit(a.plate, b.plate));
  const page = headlines.slice(options.offset, options.offset + options.limit);
  const full = await windowSums(
    db,
    fleets,
    from,
    to,
    page.map((v) => v.plate),
    'all',
  );
  return {
    vehicles: page.map((v) => ({
      plate: v.plate,
      fleetId: v.fleetId,
      machineType: v.machineType,
      make: v.make,
      model: v.model,
      ...summarizeWindow(full.get(v.plate), labels),
    })),
    total: headlines.length,
    window,
  };
}
