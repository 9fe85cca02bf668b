import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { TripsSchema } from './schema.ts';
import { dayOf } from './scored-trips.ts';

const DAY_MS = 86_400_000;

/** Filters of `GET /v1/trips` beyond paging (all optional, all combined with AND). */
export interface TripListFilter {
  plate?: string | undefined;
  driverId?: string | undefined;
  tiers?: string[] | undefined;
  /** Inclusive lower bound on the trip's start, epoch ms. */
  fromMs?: number | undefined;
  /** Exclusive upper bound on the trip's start, epoch ms. */
  toMs?: number | undefined;
}

export interface TripListRow {
  trip_id: string;
  fleet_id: string;
  plate: string;
  driver_id: string | null;
  start_ms: number;
  end_ms: number;
  overall_score: number;
  tier: string;
  map_matched: number;
  distance_km: number;
  duration_min: number;
}

export interface TripListPage {
  rows: TripListRow[];
  total: number;
}

const LIST_COLUMNS = [
  'trip_id',
  'fleet_id',
  'plate',
  'driver_id',
  'start_ms',
  'end_ms',
  'overall_score',
  'tier',
  'map_matched',
  'distance_km',
  'duration_min',
] as const;

type TripsQuery = SelectQueryBuilder<TripsSchema, 'trips', object>;

/**
 * One page of scored trips in the given fleets, newest first (start time, then trip id, both
 * descending: a total order, so pages never overlap or skip). The fleets are the caller's scope and are
 * part of every statement.
 *
 * Without a vehicle or driver filter the page is located through the per-day counts: the total is a sum
 * over at most a few thousand (fleet, day, tier) rows, and the page itself is read from the one or two
 * days it falls in, so page 5,000 costs about what page 1 does. With a vehicle or driver filter the
 * matching set is one vehicle's or driver's trips, small enough for COUNT and OFFSET on its index.
 */
export async function listTrips(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  filter: TripListFilter,
  page: { offset: number; limit: number },
): Promise<TripListPage> {
  if (fleets.length === 0) return { rows: [], total: 0 };
  if (filter.fromMs !== undefined && filter.toMs !== undefined && filter.fromMs >= filter.toMs) {
    return { rows: [], total: 0 };
  }
  return db.transaction().execute(async (trx) => {
    if (filter.plate !== undefined || filter.driverId !== undefined) return listDirect(trx, fleets, filter, page);
    return listByDay(trx, fleets, filter, page, cacheOf(db));
  });
}

type Buckets = Array<{ day: number; n: number }>;

/** Per-day totals by (version, scope, tiers), per database. Small: a few thousand numbers per entry. */
const caches = new WeakMap<object, Map<string, Buckets>>();
const CACHE_ENTRIES = 256;

function cacheOf(db: object): Map<string, Buckets> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

/** Trips per UTC day (newest first) in the scope, from trip_day_counts, cached under the data version. */
async function dayBuckets(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  tiers: string[] | undefined,
  cache: Map<string, Buckets>,
): Promise<Buckets> {
  const { version } = await db
    .selectFrom('trips_version')
    .select('version')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  const key = `${version}|${fleets.join(',')}|${tiers?.join(',') ?? '*'}`;
  const hit = cache.get(key);
  if (hit) {
    // Refresh its place: the map's insertion order is the eviction order.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let q = db
    .selectFrom('trip_day_counts')
    .select(['day', (eb) => eb.fn.sum<number>('trip_count').as('n')])
    .where('fleet_id', 'in', fleets);
  if (tiers !== undefined) q = q.where('tier', 'in', tiers);
  const buckets = (await q.groupBy('day').orderBy('day', 'desc').execute())
    .map((b) => ({ day: Number(b.day), n: Number(b.n) }))
    .filter((b) => b.n > 0);
  cache.set(key, buckets);
  while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return buckets;
}

function scoped(db: Kysely<TripsSchema>, fleets: readonly string[], filter: TripListFilter): TripsQuery {
  let q = db.selectFrom('trips').where('fleet_id', 'in', fleets) as TripsQuery;
  if (filter.plate !== undefined) q = q.where('plate', '=', filter.plate);
  if (filter.driverId !== undefined) q = q.where('driver_id', '=', filter.driverId);
  if (filter.tiers !== undefined) q = q.where('tier', 'in', filter.tiers);
  if (filter.fromMs !== undefined) q = q.where('start_ms', '>=', filter.fromMs);
  if (filter.toMs !== undefined) q = q.where('start_ms', '<', filter.toMs);
  return q;
}

async function listDirect(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  filter: TripListFilter,
  page: { offset: number; limit: number },
): Promise<TripListPage> {
  const { n } = await scoped(db, fleets, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const total = Number(n);
  if (page.offset >= total) return { rows: [], total };
  const ids = scoped(db, fleets, filter)
    .select('trip_id')
    .orderBy('start_ms', 'desc')
    .orderBy('trip_id', 'desc')
    .limit(page.limit)
    .offset(page.offset);
  return { rows: await rowsOf(db, ids), total };
}

/**
 * The page's rows, in order. The ids are chosen on the index alone (sorting a day's worth of index
 * entries is cheap; sorting a day's worth of full rows is not), then only those rows are read.
 */
async function rowsOf(
  db: Kysely<TripsSchema>,
  ids: SelectQueryBuilder<TripsSchema, 'trips', { trip_id: string }>,
): Promise<TripListRow[]> {
  return db
    .selectFrom('trips')
    .select(LIST_COLUMNS)
    .where('trip_id', 'in', ids)
    .orderBy('start_ms', 'desc')
    .orderBy('trip_id', 'desc')
    .execute();
}

async function listByDay(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  filter: TripListFilter,
  page: { offset: number; limit: number },
  cache: Map<string, Buckets>,
): Promise<TripListPage> {
  const firstDay = filter.fromMs !== undefined ? dayOf(filter.fromMs) : undefined;
  const lastDay = filter.toMs !== undefined ? dayOf(filter.toMs - 1) : undefined;
  const buckets = (await dayBuckets(db, fleets, filter.tiers, cache))
    .filter((b) => (firstDay === undefined || b.day >= firstDay) && (lastDay === undefined || b.day <= lastDay))
    .map((b) => ({ ...b }));

  // A date bound in the middle of a day makes that day's bucket only partly relevant: count it exactly.
  const edges = new Set<number>();
  if (firstDay !== undefined && filter.fromMs !== firstDay * DAY_MS) edges.add(firstDay);
  if (lastDay !== undefined && filter.toMs !== (lastDay + 1) * DAY_MS) edges.add(lastDay);
  for (const bucket of buckets) {
    if (!edges.has(bucket.day)) continue;
    const { n } = await scoped(db, fleets, filter)
      .where('start_ms', '>=', bucket.day * DAY_MS)
      .where('start_ms', '<', (bucket.day + 1) * DAY_MS)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    bucket.n = Number(n);
  }

  let total = 0;
  for (const b of buckets) total += b.n;
  if (page.offset >= total) return { rows: [], total };

  // Find the newest day holding the page's first row and the oldest day holding its last row.
  const lastIndex = Math.min(page.offset + page.limit, total) - 1;
  let before = 0;
  let highDay: number | undefined;
  let lowDay: number | undefined;
  let skip = 0;
  for (const b of buckets) {
    if (highDay === undefined && before + b.n > page.offset) {
      highDay = b.day;
      skip = page.offset - before;
    }
    if (before + b.n > lastIndex) {
      lowDay = b.day;
      break;
    }
    before += b.n;
  }
  if (highDay === undefined || lowDay === undefined) return { rows: [], total };

  const ids = scoped(db, fleets, filter)
    .where('start_ms', '>=', lowDay * DAY_MS)
    .where('start_ms', '<', (highDay + 1) * DAY_MS)
    .select('trip_id')
    .orderBy('start_ms', 'desc')
    .orderBy('trip_id', 'desc')
    .limit(page.limit)
    .offset(skip);
  return { rows: await rowsOf(db, ids), total };
}
