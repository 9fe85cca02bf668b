import { arg, runShape } from '@svc/platform';
import { type Kysely, type SelectQueryBuilder, SqliteAdapter, sql } from 'kysely';
import { TOKENS_VERSION_COLUMN } from './api-tokens.ts';
import type { TripsSchema } from './schema.ts';
import { dayOf } from './scored-trips.ts';
import { LIST_COLUMNS, tripItemJson } from './trip-item.ts';

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

export interface TripListPage {
  /**
   * The page's Trip items as JSON, newest first, joined by commas: the inside of a JSON array. UTF-8 bytes
   * when the database joined them (see itemsInTimeOrder), else a string.
   */
  itemsJson: Buffer | string;
  /** How many items the page holds. */
  count: number;
  total: number;
  /**
   * The `api_tokens_version` the page's statement saw, when one statement read the page (api/auth.ts,
   * confirmScope); undefined when the page was read otherwise.
   */
  tokenVersion?: number;
}

/** Items joined, for the ways of reading a page that get them one by one. */
function pageOf(items: string[], total: number): TripListPage {
  return { itemsJson: items.join(','), count: items.length, total };
}

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
  // The page size is written into the page statements (see itemsInTimeOrder): an integer of 1-100 only.
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > 100) {
    throw new RangeError(`page size ${page.limit} is not an integer of 1-100`);
  }
  if (!Number.isInteger(page.offset) || page.offset < 0) throw new RangeError(`page offset ${page.offset} is invalid`);
  if (fleets.length === 0) return pageOf([], 0);
  if (filter.fromMs !== undefined && filter.toMs !== undefined && filter.fromMs >= filter.toMs) {
    return pageOf([], 0);
  }
  const direct = filter.plate !== undefined || filter.driverId !== undefined;
  if (!direct && !db.isTransaction) {
    const page1 = await listFromCachedCounts(db, fleets, filter, page, cacheOf(db));
    if (page1) return page1;
  }
  // One snapshot for the counts and the page: a transaction (repeatable read on PostgreSQL, where the
  // default READ COMMITTED would let the page see commits the counts did not).
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      if (direct) return listDirect(trx, fleets, filter, page);
      return listByDay(trx, fleets, filter, page, cacheOf(db));
    });
}

type Buckets = Array<{ day: number; n: number }>;

/**
 * The per-day trip counts of one scope (fleets and tiers), as of `version`. `counts` holds each
 * (fleet, day, tier) row of trip_day_counts in the scope, so a newer version is applied by reading only the
 * rows changed since (each row records the version that last changed it) and adjusting their days.
 */
interface ScopeCounts {
  version: number;
  counts: Map<string, number>;
  days: Map<number, number>;
  /** The days with trips, newest first; rebuilt after a change. */
  sorted: Buckets | null;
  /** Running sums of `sorted` (entry i: the trips in its first i days), computed with it. */
  cumulative: number[];
}

/** Scope counts per database, most recently used last. */
const caches = new WeakMap<object, Map<string, ScopeCounts>>();
const CACHE_ENTRIES = 256;
/**
 * Rows of trip_day_counts the entries of one database hold in all. An entry holds one per (fleet, day, tier)
 * of its scope, about 200 bytes of heap each, so it grows with the history: bounded by entries alone, a
 * 10-fleet store with two years of trips held 976 MB once 256 scopes (fleet sets and tier filters) had been listed.
 * 500,000 rows are about 100 MB; the entry in use is kept whatever its size.
 */
const DEFAULT_CACHE_ROWS = 500_000;
let cacheRows = DEFAULT_CACHE_ROWS;

/** Sets the rows the scope counts of one database may hold (tests); returns the previous bound. */
export function setScopeCountsRowLimit(rows: number = DEFAULT_CACHE_ROWS): number {
  const previous = cacheRows;
  cacheRows = rows;
  return previous;
}

/** How many scopes and (fleet, day, tier) rows this process holds for `db`'s trip lists. */
export function scopeCountsCached(db: object): { entries: number; rows: number } {
  const cache = caches.get(db);
  return { entries: cache?.size ?? 0, rows: cache ? rowsHeld(cache) : 0 };
}

function rowsHeld(cache: Map<string, ScopeCounts>): number {
  let rows = 0;
  for (const entry of cache.values()) rows += entry.counts.size;
  return rows;
}

/** Drops the least recently used entries past either bound, never the last one (the entry being used). */
function evict(cache: Map<string, ScopeCounts>): void {
  let rows = rowsHeld(cache);
  while (cache.size > 1 && (cache.size > CACHE_ENTRIES || rows > cacheRows)) {
    const oldest = cache.keys().next().value as string;
    rows -= cache.get(oldest)!.counts.size;
    cache.delete(oldest);
  }
}

function cacheOf(db: object): Map<string, ScopeCounts> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

type CountRow = { fleet_id: string; day: number | string; tier: string; trip_count: number | string };

function applyCounts(entry: ScopeCounts, rows: CountRow[]): void {
  for (const row of rows) {
    const day = Number(row.day);
    const key = `${row.fleet_id}|${day}|${row.tier}`;
    const count = Number(row.trip_count);
    const delta = count - (entry.counts.get(key) ?? 0);
    if (delta === 0) continue;
    entry.counts.set(key, count);
    entry.days.set(day, (entry.days.get(day) ?? 0) + delta);
    entry.sorted = null;
  }
}

/** The store's data version: it moves with every change to trips and their day counts. */
async function dataVersion(db: Kysely<TripsSchema>): Promise<number> {
  const [row] = await runShape(
    db,
    'trips-version',
    () => db.selectFrom('trips_version').select('version').where('id', '=', 1),
    [],
  );
  if (!row) throw new Error('trips_version has no row: the store was not migrated');
  return Number(row.version);
}

/**
 * Trips per UTC day in a scope (`fleets` null: the whole store), from trip_day_counts. The first request
 * of a scope reads all of its rows; later ones, when the data version moved, read only the rows changed
 * since, so a steady stream of ingested trips does not make every list request aggregate the whole history
 * again. Counts are applied as absolute values, so reading a change twice (a newer commit seen between the
 * version and the rows on a READ COMMITTED connection) is harmless.
 */
async function scopeCounts(
  db: Kysely<TripsSchema>,
  version: number,
  fleets: readonly string[] | null,
  tiers: string[] | undefined,
  cache: Map<string, ScopeCounts>,
): Promise<ScopeCounts & { sorted: Buckets }> {
  const key = scopeKey(fleets, tiers);
  let entry = cache.get(key);
  if (entry) {
    // Refresh its place: the map's insertion order is the eviction order.
    cache.delete(key);
    cache.set(key, entry);
  }
  if (!entry || entry.version > version) {
    entry = { version, counts: new Map(), days: new Map(), sorted: null, cumulative: [0] };
    applyCounts(entry, await countRows(db, fleets, tiers, -1));
    cache.set(key, entry);
    evict(cache);
  } else if (entry.version < version) {
    const rows = entry.counts.size;
    applyCounts(entry, await countRows(db, fleets, tiers, entry.version));
    entry.version = version;
    if (entry.counts.size > rows) evict(cache);
  }
  if (!entry.sorted) {
    entry.sorted = [...entry.days]
      .filter(([, n]) => n > 0)
      .map(([day, n]) => ({ day, n }))
      .sort((x, y) => y.day - x.day);
    entry.cumulative = runningSums(entry.sorted);
  }
  return entry as ScopeCounts & { sorted: Buckets };
}

/** The cache key of a scope's counts (`fleets` null: the whole store). */
function scopeKey(fleets: readonly string[] | null, tiers: string[] | undefined): string {
  // A tier filter is a set: `tier=good,fair` and `tier=fair,good` count the same rows, so they share an entry
  // (before, the 64 orders of the four tiers were as many entries of each scope).
  return `${fleets?.join(',') ?? '*'}|${tiers ? [...tiers].sort().join(',') : '*'}`;
}

/** Entry i: the trips in the first i buckets (so entry `buckets.length` is the total). */
function runningSums(buckets: Buckets): number[] {
  const sums = new Array<number>(buckets.length + 1);
  sums[0] = 0;
  for (let i = 0; i < buckets.length; i++) sums[i + 1] = sums[i]! + buckets[i]!.n;
  return sums;
}

/** The first bucket whose trips reach past the first `row` trips: the bucket holding row `row` (0-based). */
function bucketOfRow(sums: number[], row: number): number {
  let lo = 0;
  let hi = sums.length - 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sums[mid + 1]! > row) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The scope's trip_day_counts rows changed after version `since` (all of them for -1); for the whole
 * store (`fleets` null, no tier filter) the per-day rows of trip_day_totals instead.
 */
async function countRows(
  db: Kysely<TripsSchema>,
  fleets: readonly string[] | null,
  tiers: string[] | undefined,
  since: number,
): Promise<CountRow[]> {
  if (fleets === null) {
    const totals = await runShape(
      db,
      'day-totals',
      () =>
        db
          .selectFrom('trip_day_totals')
          .select(['day', 'trip_count'])
          .where('version', '>', arg(0) as unknown as number),
      [since],
    );
    return totals.map((r) => ({ fleet_id: '*', day: r.day, tier: '*', trip_count: r.trip_count }));
  }
  const tierList = tiers ?? [];
  return runShape(
    db,
    `day-counts:${fleets.length}:${tiers === undefined ? '*' : tierList.length}`,
    () => {
      let q = db
        .selectFrom('trip_day_counts')
        .select(['fleet_id', 'day', 'tier', 'trip_count'])
        .where('version', '>', arg(0) as unknown as number)
        .where(
          'fleet_id',
          'in',
          fleets.map((_, i) => arg(1 + i)),
        );
      if (tiers !== undefined) {
        q = q.where(
          'tier',
          'in',
          tierList.map((_, i) => arg(1 + fleets.length + i)),
        );
      }
      return q;
    },
    [since, ...fleets, ...tierList],
  );
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
  if (page.offset >= total) return pageOf([], total);
  const keys = await scoped(db, fleets, filter)
    .select(['start_ms', 'trip_id'])
    .orderBy('start_ms', 'desc')
    .orderBy('trip_id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return pageOf(await itemsOf(db, fleets, keys, false), total);
}

type PageKey = { start_ms: number | string; trip_id: string };

/**
 * The stored item JSON of the page's trips, in the page's order. The page's keys come first, from the
 * narrow list index (an index-only sort of at most a day or two of entries); the items are then read
 * from the covering index `trips_list_items` over exactly the page's time span, so only about a page of
 * index entries is read and no table row is touched. A trip stored before `item_json` existed (a node
 * of an older version writing during an upgrade) is serialised from its columns instead.
 */
async function itemsOf(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  keys: PageKey[],
  dense: boolean,
): Promise<string[]> {
  if (keys.length === 0) return [];
  const newest = Number(keys[0]!.start_ms);
  const oldest = Number(keys[keys.length - 1]!.start_ms);
  const rows = dense
    ? await runShape(
        db,
        `list-items:${fleets.length}`,
        () =>
          db
            .selectFrom('trips')
            .select(['trip_id', 'item_json'])
            .where(
              'fleet_id',
              'in',
              fleets.map((_, i) => arg(i + 2)),
            )
            .where('start_ms', '>=', arg(0) as unknown as number)
            .where('start_ms', '<=', arg(1) as unknown as number),
        [oldest, newest, ...fleets],
      )
    : await db
        .selectFrom('trips')
        .select(['trip_id', 'item_json'])
        .where(
          'trip_id',
          'in',
          keys.map((k) => k.trip_id),
        )
        .where('fleet_id', 'in', fleets)
        .execute();
  const byId = new Map<string, string | null>();
  for (const row of rows) byId.set(row.trip_id, row.item_json);
  await fillLegacyItems(
    db,
    fleets,
    keys.map((k) => k.trip_id),
    byId,
  );
  const items: string[] = [];
  for (const key of keys) {
    const item = byId.get(key.trip_id);
    // A trip deleted between the two reads (they share a transaction, so only on a dialect without
    // snapshot reads) is left out rather than served half.
    if (item) items.push(item);
  }
  return items;
}

/**
 * Serialises, from their columns, the items of trips in `ids` that have no stored `item_json` in `byId`
 * (rows written by a node older than migration 0003 during an upgrade).
 */
async function fillLegacyItems(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  ids: string[],
  byId: Map<string, string | null>,
): Promise<void> {
  const missing = ids.filter((id) => !byId.get(id));
  if (missing.length === 0) return;
  const legacy = await db
    .selectFrom('trips')
    .select(LIST_COLUMNS)
    .where('trip_id', 'in', missing)
    .where('fleet_id', 'in', fleets)
    .execute();
  for (const row of legacy) byId.set(row.trip_id, tripItemJson(row));
}

/**
 * Whether a page is cheaper to read by walking the store's time-ordered item index than from the scope's
 * own per-fleet index: the walk passes every trip in the window, in scope or not, but needs no sort, so it
 * pays while the scope holds at least a quarter of the window's trips (an admin token over most fleets,
 * or a store with few fleets). Both ways return the same rows.
 */
export function walkTimeOrder(scopeTripsInWindow: number, allTripsInWindow: number): boolean {
  return scopeTripsInWindow * 4 >= allTripsInWindow;
}

/**
 * The page's items straight from the time-ordered index `trips_time_items`: its entries in the window
 * [from, to), newest first, filtered to the scope, `skip` of them passed over. On SQLite the index is
 * named, since the planner would otherwise take the fleet's index and sort; PostgreSQL plans it itself.
 *
 * The database joins the items (group_concat / string_agg) and SQLite hands them over as one blob:
 * the page costs one result value instead of a hundred rows, each a JS object and a string decoded from
 * UTF-8 to be joined and encoded again (on the bench store, page 1 in raw better-sqlite3: ~37 µs
 * against ~75 µs). SQLite's group_concat takes the rows in the order of its ordered FROM subquery: SQLite
 * keeps a subquery's ORDER BY whenever the outer query uses an aggregate other than count/min/max (its
 * "omit ORDER BY" rule, select.c); PostgreSQL gets the order in the aggregate itself. A page holding a
 * row without a stored item (written before migration 0003) is read again row by row.
 */
async function itemsInTimeOrder(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  tiers: string[] | undefined,
  window: { from: number; to: number; limit: number; skip: number; count?: number | undefined },
  expectVersion?: number,
): Promise<{ itemsJson: Buffer | string; count: number; tokenVersion?: number } | null> {
  const tierList = tiers ?? [];
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  // When the window's exact trip count is known (a page within one day) and the page lies in its older
  // half, the window is walked from its oldest end and the rows put back in order: at most half a day
  // of entries is passed over instead of up to a whole day.
  let limit = window.limit;
  let skip = window.skip;
  let ascending = false;
  if (window.count !== undefined && window.skip * 2 + window.limit > window.count) {
    limit = Math.min(window.limit, window.count - window.skip);
    if (limit < 1) return expectVersion === undefined ? { itemsJson: '', count: 0 } : null;
    skip = window.count - window.skip - limit;
    ascending = true;
  }
  const [row] = await runShape<
    TripsSchema,
    { items: Buffer | string | null; n: number; legacy: number | null; dv: number | string; tv: number | string }
  >(
    db,
    // LIMIT is written into the statement: SQLite (3.47 and later) compiles a statement again at every
    // execution that binds its LIMIT (~1.5 µs for a one-row lookup, ~5 µs for a page here; a bound OFFSET
    // costs nothing). `limit` is an integer of 1-100 (checked by listTrips): at most 200 such shapes.
    `time-items:${fleets.length}:${tiers === undefined ? '*' : tierList.length}:${limit}:${ascending}`,
    () => {
      const page = pageStatement(fleets, tiers, { sqlite, limit, ascending });
      // The data version the statement saw, read in the same statement (see listFromCachedCounts).
      // And the tokens' version (api/auth.ts, confirmScope).
      const dv = sql`(select version from trips_version where id = 1) as dv, ${TOKENS_VERSION_COLUMN} as tv`;
      const query = sqlite
        ? ascending
          ? sql`select cast(group_concat(v, ',') as blob) as items, count(*) as n, sum(legacy) as legacy, ${dv}
              from (select v, legacy from (${page}) order by s desc, t desc)`
          : sql`select cast(group_concat(v, ',') as blob) as items, count(*) as n, sum(legacy) as legacy, ${dv}
              from (${page})`
        : sql`select string_agg(v, ',' order by s desc, t desc) as items, count(*) as n, sum(legacy) as legacy, ${dv}
            from (${page}) as page`;
      return { compile: () => query.compile(db) };
    },
    [window.from, window.to, skip, ...fleets, ...tierList],
  );
  if (expectVersion !== undefined && (Number(row?.dv) !== expectVersion || Number(row?.legacy ?? 0) > 0)) return null;
  const count = Number(row?.n ?? 0);
  const tokenVersion = row ? Number(row.tv) : undefined;
  if (count === 0) return { itemsJson: '', count: 0, ...(tokenVersion === undefined ? {} : { tokenVersion }) };
  if (Number(row?.legacy ?? 0) === 0) {
    return { itemsJson: row?.items ?? '', count, ...(tokenVersion === undefined ? {} : { tokenVersion }) };
  }

  // Some row has no stored item: the page row by row, those rows serialised from their columns.
  const rows = await runShape<TripsSchema, { v: string; legacy: number }>(
    db,
    `time-item-rows:${fleets.length}:${tiers === undefined ? '*' : tierList.length}:${limit}:${ascending}`,
    () => {
      const query = pageStatement(fleets, tiers, { sqlite, limit, ascending });
      return { compile: () => query.compile(db) };
    },
    [window.from, window.to, skip, ...fleets, ...tierList],
  );
  if (ascending) rows.reverse();
  const byId = new Map<string, string | null>();
  await fillLegacyItems(
    db,
    fleets,
    rows.filter((r) => Number(r.legacy) === 1).map((r) => r.v),
    byId,
  );
  const items: string[] = [];
  for (const r of rows) {
    const item = Number(r.legacy) === 1 ? byId.get(r.v) : r.v;
    if (item) items.push(item);
  }
  return { itemsJson: items.join(','), count: items.length };
}

/**
 * The page of `trips_time_items` entries as rows `v` (the stored item, or the trip id of a row without
 * one), `s`, `t` (start and trip id) and `legacy` (1 when the item is missing). Arguments: from, to,
 * skip, then the fleets, then the tiers.
 */
function pageStatement(
  fleets: readonly string[],
  tiers: string[] | undefined,
  options: { sqlite: boolean; limit: number; ascending: boolean },
) {
  const tierList = tiers ?? [];
  const fleetIn = sql.join(fleets.map((_, i) => arg(3 + i)));
  const tierIn =
    tiers === undefined ? sql`` : sql` and tier in (${sql.join(tierList.map((_, i) => arg(3 + fleets.length + i)))})`;
  const order = options.ascending ? sql`start_ms asc, trip_id asc` : sql`start_ms desc, trip_id desc`;
  return sql`select coalesce(item_json, trip_id) as v, start_ms as s, trip_id as t,
      case when item_json is null then 1 else 0 end as legacy
    from trips${options.sqlite ? sql` indexed by trips_time_items` : sql``}
    where start_ms >= ${arg(0)} and start_ms < ${arg(1)} and fleet_id in (${fleetIn})${tierIn}
    order by ${order} limit ${sql.lit(options.limit)} offset ${arg(2)}`;
}

/**
 * The days of a scope's buckets a date filter keeps (copies, so that the cached ones stay as they are), and the
 * days a bound cuts in the middle, whose trips must be counted exactly.
 */
function dateBuckets(all: Buckets, filter: TripListFilter): { buckets: Buckets; edges: Set<number> } {
  const firstDay = filter.fromMs !== undefined ? dayOf(filter.fromMs) : undefined;
  const lastDay = filter.toMs !== undefined ? dayOf(filter.toMs - 1) : undefined;
  const edges = new Set<number>();
  if (firstDay === undefined && lastDay === undefined) return { buckets: all, edges };
  if (firstDay !== undefined && filter.fromMs !== firstDay * DAY_MS) edges.add(firstDay);
  if (lastDay !== undefined && filter.toMs !== (lastDay + 1) * DAY_MS) edges.add(lastDay);
  const buckets = all
    .filter((b) => (firstDay === undefined || b.day >= firstDay) && (lastDay === undefined || b.day <= lastDay))
    .map((b) => ({ ...b }));
  return { buckets, edges };
}

interface PageWindow {
  total: number;
  /** The page's rows lie in [from, to) (start times), after `skip` of the scope's rows in it. */
  from: number;
  to: number;
  skip: number;
  /** Whether to walk the store's time-ordered index (see walkTimeOrder) rather than the scope's own. */
  walk: boolean;
  /** The scope's trips in the window when it is one day, else undefined. */
  count: number | undefined;
}

/**
 * Where a page lies, from the scope's per-day counts (`buckets`, newest first, with their running sums) and the
 * whole store's (`storeDays`): null when the page is past the last trip.
 */
function locatePage(
  buckets: Buckets,
  sums: number[],
  storeDays: Map<number, number>,
  filter: TripListFilter,
  page: { offset: number; limit: number },
): PageWindow | null {
  const total = sums[buckets.length]!;
  if (page.offset >= total) return null;
  // The newest day holding the page's first row and the oldest day holding its last row.
  const lastIndex = Math.min(page.offset + page.limit, total) - 1;
  const high = bucketOfRow(sums, page.offset);
  const low = bucketOfRow(sums, lastIndex);
  const highDay = buckets[high]!.day;
  const lowDay = buckets[low]!.day;
  // The date filter is within [lowDay, highDay] or narrower; both bounds are always set here, so the
  // statement's shape depends only on how many fleets and tiers it names.
  const from = Math.max(lowDay * DAY_MS, filter.fromMs ?? Number.NEGATIVE_INFINITY);
  const to = Math.min((highDay + 1) * DAY_MS, filter.toMs ?? Number.POSITIVE_INFINITY);
  // The scope's trips in the days the page spans (buckets `high` to `low`, newest first).
  const inWindow = sums[low + 1]! - sums[high]!;
  let allInWindow = 0;
  for (let day = lowDay; day <= highDay; day++) allInWindow += storeDays.get(day) ?? 0;
  return {
    total,
    from,
    to,
    skip: page.offset - sums[high]!,
    walk: walkTimeOrder(inWindow, allInWindow),
    count: highDay === lowDay ? inWindow : undefined,
  };
}

/**
 * A page in one statement and no transaction, when this process holds the scope's and the whole store's per-day
 * counts as of one data version: the page statement also reads the data version, and the page is answered only
 * when that is the counts' version. Every change to the trips moves the version in its own transaction, and
 * the version row's lock makes versions commit in order, so a statement that saw the counts' version saw
 * exactly the trips they count: the answer of a snapshot, without the three statements of a transaction and a
 * version read (on PostgreSQL three round trips of five, on SQLite ~10-15 µs a page). Null when the counts are
 * not held, are older than the data, or the page needs more than that one statement (a date bound inside a
 * day, a page read through the scope's own index, a row without a stored item): the caller then reads it in a
 * transaction, which also brings the counts up to date.
 */
async function listFromCachedCounts(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  filter: TripListFilter,
  page: { offset: number; limit: number },
  cache: Map<string, ScopeCounts>,
): Promise<TripListPage | null> {
  const scope = cache.get(scopeKey(fleets, filter.tiers));
  const store = cache.get(scopeKey(null, undefined));
  if (!scope?.sorted || !store || store.version !== scope.version) return null;
  const { buckets, edges } = dateBuckets(scope.sorted, filter);
  if (edges.size > 0) return null;
  const sums = buckets === scope.sorted ? scope.cumulative : runningSums(buckets);
  const window = locatePage(buckets, sums, store.days, filter, page);
  if (!window?.walk) return null;
  const items = await itemsInTimeOrder(
    db,
    fleets,
    filter.tiers,
    { from: window.from, to: window.to, limit: page.limit, skip: window.skip, count: window.count },
    scope.version,
  );
  return items === null ? null : { ...items, total: window.total };
}

async function listByDay(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  filter: TripListFilter,
  page: { offset: number; limit: number },
  cache: Map<string, ScopeCounts>,
): Promise<TripListPage> {
  const version = await dataVersion(db);
  const scope = await scopeCounts(db, version, fleets, filter.tiers, cache);
  const all = scope.sorted;
  const { buckets, edges } = dateBuckets(all, filter);
  for (const bucket of edges.size > 0 ? buckets : []) {
    if (!edges.has(bucket.day)) continue;
    const { n } = await scoped(db, fleets, filter)
      .where('start_ms', '>=', bucket.day * DAY_MS)
      .where('start_ms', '<', (bucket.day + 1) * DAY_MS)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    bucket.n = Number(n);
  }

  // Without a date filter the buckets are the cached ones, and so are their running sums: a deep page is
  // found by two binary searches instead of walking a day at a time.
  const sums = buckets === all ? scope.cumulative : runningSums(buckets);
  if (page.offset >= sums[buckets.length]!) return pageOf([], sums[buckets.length]!);
  const store = (await scopeCounts(db, version, null, undefined, cache)).days;
  const window = locatePage(buckets, sums, store, filter, page)!;
  const { from, to, skip, total } = window;
  if (window.walk) {
    const items = await itemsInTimeOrder(db, fleets, filter.tiers, {
      from,
      to,
      limit: page.limit,
      skip,
      count: window.count,
    });
    return { ...items!, total };
  }

  const tiers = filter.tiers ?? [];
  const keys = await runShape(
    db,
    // LIMIT written in, as in itemsInTimeOrder.
    `page-keys:${fleets.length}:${filter.tiers === undefined ? '*' : tiers.length}:${page.limit}`,
    () => {
      let q = db
        .selectFrom('trips')
        .select(['start_ms', 'trip_id'])
        .where(
          'fleet_id',
          'in',
          fleets.map((_, i) => arg(4 + i)),
        )
        .where('start_ms', '>=', arg(0) as unknown as number)
        .where('start_ms', '<', arg(1) as unknown as number);
      if (filter.tiers !== undefined) {
        q = q.where(
          'tier',
          'in',
          tiers.map((_, i) => arg(4 + fleets.length + i)),
        );
      }
      const ordered = q.orderBy('start_ms', 'desc').orderBy('trip_id', 'desc').limit(sql.lit(page.limit));
      return ordered.offset(arg(3) as unknown as number);
    },
    [from, to, page.limit, skip, ...fleets, ...tiers],
  );
  return pageOf(await itemsOf(db, fleets, keys, filter.tiers === undefined), total);
}
