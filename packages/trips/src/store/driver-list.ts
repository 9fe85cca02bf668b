import type { Kysely } from 'kysely';
import { byCodeUnit, sortByOrder, sortOrders } from './list-order.ts';
import { inSnapshot } from './read-snapshot.ts';
import type { TripsSchema } from './schema.ts';
import { themeLabels } from './trip-reads.ts';
import {
  driverKey,
  driverWindowSums,
  iso,
  summarizeHeadline,
  summarizeWindow,
  type WindowHeadline,
  type WindowSummary,
} from './vehicle-window.ts';

const DAY_MS = 86_400_000;

/** How `GET /v1/drivers` can be ordered: a field ascending, or descending with a leading `-`. */
export const DRIVER_SORTS = sortOrders(['driverId', 'name', 'score', 'distanceKm', 'trips', 'lastTripDate']);
export type DriverSort = (typeof DRIVER_SORTS)[number];

/** One driver of the list: who they are and what their trips in the window add up to. */
export interface DriverSummary extends WindowSummary {
  driverId: string;
  fleetId: string;
  name: string | null;
}

export interface DriverListOptions {
  nowMs: number;
  windowDays: number;
  sort: DriverSort;
  /** Only drivers whose window score falls in one of these tiers (drivers without a score never do). */
  tiers?: readonly string[] | undefined;
  offset: number;
  limit: number;
}

/** A driver as the list orders and filters them, before their page is summed with the themes. */
type DriverHeadline = Omit<DriverSummary, keyof WindowSummary> & WindowHeadline;

const SORT_KEYS: Record<string, (d: DriverHeadline) => number | string | null> = {
  driverId: (d) => d.driverId,
  name: (d) => (d.name === null ? null : d.name.toLowerCase()),
  score: (d) => d.score,
  // Without trips in the window there is no distance or trip count to order by (0 is not a value): last, as
  // the score and last trip are.
  distanceKm: (d) => (d.trips > 0 ? d.distanceKm : null),
  trips: (d) => (d.trips > 0 ? d.trips : null),
  lastTripDate: (d) => d.lastTripDate,
};

/**
 * The drivers of `fleets` with their trips of the rolling window `[now - days, now)` summed as the driver
 * profile sums them (driverWindowSums: a few rows of driver_stats per driver), filtered, ordered (nulls
 * last whatever the direction, then by fleet and driver id, a total order) and paged in memory, as the
 * vehicle list is.
 */
export async function listDriverSummaries(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: DriverListOptions,
): Promise<{ drivers: DriverSummary[]; total: number; window: { days: number; from: string; to: string } }> {
  return inSnapshot(db, (snapshot) => listDriverSummariesIn(snapshot, fleets, options));
}

async function listDriverSummariesIn(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  options: DriverListOptions,
): Promise<{ drivers: DriverSummary[]; total: number; window: { days: number; from: string; to: string } }> {
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  const window = { days: options.windowDays, from: iso(from), to: iso(to) };
  if (fleets.length === 0) return { drivers: [], total: 0, window };
  // Every driver of the scope is ordered by their headline sums; only the page's are summed with the themes
  // (SumColumns), in the same snapshot, so they are the same sums.
  const [drivers, sums, labels] = await Promise.all([
    db.selectFrom('drivers').select(['fleet_id', 'driver_id', 'name']).where('fleet_id', 'in', fleets).execute(),
    driverWindowSums(db, fleets, from, to, undefined, 'headline'),
    themeLabels(db),
  ]);
  let headlines: DriverHeadline[] = drivers.map((d) => ({
    driverId: d.driver_id,
    fleetId: d.fleet_id,
    name: d.name,
    ...summarizeHeadline(sums.get(driverKey(d.fleet_id, d.driver_id))),
  }));
  if (options.tiers && options.tiers.length > 0) {
    const tiers = new Set(options.tiers);
    headlines = headlines.filter((d) => d.tier !== null && tiers.has(d.tier));
  }
  sortByOrder(
    headlines,
    options.sort,
    SORT_KEYS,
    (a, b) => byCodeUnit(a.fleetId, b.fleetId) || byCodeUnit(a.driverId, b.driverId),
  );
  const page = headlines.slice(options.offset, options.offset + options.limit);
  // The page's fleets and driver ids: an id of two fleets on the page reads both, each under its own key.
  const full = await driverWindowSums(
    db,
    [...new Set(page.map((d) => d.fleetId))],
    from,
    to,
    [...new Set(page.map((d) => d.driverId))],
    'all',
  );
  return {
    drivers: page.map((d) => ({
      driverId: d.driverId,
      fleetId: d.fleetId,
      name: d.name,
      ...summarizeWindow(full.get(driverKey(d.fleetId, d.driverId)), labels),
    })),
    total: headlines.length,
    window,
  };
}
