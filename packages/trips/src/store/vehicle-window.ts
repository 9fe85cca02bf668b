import type { ThemeId } from '@svc/scoring';
import { type Kysely, sql } from 'kysely';
import { tierOf } from '../scoring/tiers.ts';
import type { TripsSchema } from './schema.ts';
import { STAT_THEMES, statTerms, weekStartDay } from './vehicle-stat-terms.ts';

const DAY_MS = 86_400_000;

/** The six themes in the order every response lists them. */
export const THEMES: readonly ThemeId[] = STAT_THEMES;

/**
 * Rounds to `decimals` after snapping to 4 decimals. The same sum comes from several places (the trips
 * themselves, and day/week rows kept by triggers, which add and take out trips as they are rescored or
 * deleted), each adding the same 3-decimal distances in another order: floating-point noise of 1e-12 either
 * side of a half (51.455 as 51.454999... or 51.455000...1) would otherwise round one figure two ways in two
 * answers. Snapped first, a half is exactly a half and rounds up wherever it was summed.
 */
function roundSnapped(v: number, decimals: 1 | 2): number {
  const scale = decimals === 1 ? 10 : 100;
  return Math.round(Math.round(v * 10_000) / (10_000 / scale)) / scale;
}
export const round1 = (v: number) => roundSnapped(v, 1);
export const round2 = (v: number) => roundSnapped(v, 2);
export const iso = (ms: number) => new Date(ms).toISOString();

/** A driver's or database's number (PostgreSQL returns sums as strings), or null. */
export function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * The distance-weighted mean, rounded to 0.1: a 100 km trip says more about a vehicle than a 1 km one. When every
 * trip has zero distance the plain mean is used instead of dividing by zero. Rounded exactly, not by round1:
 * scores have one decimal and distances three (the engine rounds them so), so score times distance adds up to a
 * whole number of 0.0001 and distance to a whole number of metres. Snapped to those, both sums are the same
 * integers whichever order they were added up in (a window's trips or its stats rows), and their quotient is
 * rounded half up in integers. round1 snaps the mean itself to 4 decimals, which moved a mean within 0.00005
 * under a half up: 64.94999750 (10.001 km at 64.9, 10 km at 65.0) was shown 65.0, Good, instead of 64.9, Fair.
 */
export function roundedMean(
  weightedSum: number | null,
  weight: number | null,
  plainSum: number | null,
  n: number,
): number | null {
  if (n === 0) return null;
  const metres = weight === null ? 0 : Math.round(weight * 1000);
  // The mean times 10 is (weightedSum * 10^4) / metres, or (plainSum * 10) / n.
  if (metres > 0 && weightedSum !== null) return roundQuotient(Math.round(weightedSum * 10_000), metres) / 10;
  return plainSum !== null ? roundQuotient(Math.round(plainSum * 10), n) / 10 : null;
}

/** `numerator / denominator` (integers, denominator > 0, both under 2^52) rounded half up, as Math.round does. */
function roundQuotient(numerator: number, denominator: number): number {
  // The floating-point quotient may land on the integer next to its floor; the remainder is exact and corrects it.
  let quotient = Math.floor(numerator / denominator);
  let remainder = numerator - quotient * denominator;
  if (remainder < 0) {
    quotient -= 1;
    remainder += denominator;
  } else if (remainder >= denominator) {
    quotient += 1;
    remainder -= denominator;
  }
  return 2 * remainder >= denominator ? quotient + 1 : quotient;
}

/** The columns a window's sums come back in (see WindowAggregateRow), from the vehicle_stats columns. */
const OUTPUT_COLUMNS: Array<[output: string, column: string]> = [
  ['n', 'trip_count'],
  ['distance', 'distance_km'],
  ['duration', 'duration_min'],
  ['weighted', 'score_x_distance'],
  ['plain', 'score_sum'],
  ...THEMES.flatMap(
    (t): Array<[string, string]> => [
      [`${t}_w`, `${t}_x_distance`],
      [`${t}_d`, `${t}_distance`],
      [`${t}_s`, `${t}_sum`],
      [`${t}_n`, `${t}_count`],
    ],
  ),
];
/**
 * Which sums a window is read with: `all` (OUTPUT_COLUMNS), or `headline`, the five a list orders and filters
 * by (trips, distance, duration, the score's two sums) without the 24 of the themes. The vehicle and driver
 * lists sum every vehicle or driver of their scope with `headline`, then only their page with `all` (the keys
 * given as a list): on the bench store, summing 29 columns for 12,000 drivers was most of the driver list's time.
 */
export type SumColumns = 'all' | 'headline';

const TRIP_TERMS = new Map(statTerms('r', '1'));
function sumsOf(columns: Array<[output: string, column: string]>) {
  return {
    columns,
    /** Over stats rows `s`. */
    stat: columns.map(([output, column]) => `sum(s.${column}) as ${output}`).join(', '),
    /** Over trip rows `r`. */
    trip: columns.map(([output, column]) => `sum(${TRIP_TERMS.get(column)}) as ${output}`).join(', '),
  };
}
const SUMS: Record<SumColumns, ReturnType<typeof sumsOf>> = {
  all: sumsOf(OUTPUT_COLUMNS),
  headline: sumsOf(OUTPUT_COLUMNS.slice(0, 5)),
};
const STAT_SUMS = SUMS.all.stat;
/** windowSums' sums over trip rows `r`, named as WindowAggregateRow names them. */
export const TRIP_SUMS = SUMS.all.trip;

/**
 * How a window `[fromMs, toMs)` is summed: whole weeks `[w0, w1)` and whole days `[d0, w0)`, `[w1, d1)`
 * from the stats rows (day numbers), the trips of `[fromMs, edgeEnd)` and `[edgeStart, toMs)` one by one.
 */
function splitWindow(fromMs: number, toMs: number) {
  let d0 = Math.ceil(fromMs / DAY_MS);
  let d1 = Math.floor(toMs / DAY_MS);
  if (d0 >= d1) d0 = d1 = Math.ceil(fromMs / DAY_MS);
  let w0 = weekStartDay(d0) === d0 ? d0 : weekStartDay(d0) + 7;
  let w1 = weekStartDay(d1);
  if (w0 >= w1) w0 = w1 = d1;
  const edgeEnd = Math.min(d0 * DAY_MS, toMs);
  const edgeStart = Math.max(d1 * DAY_MS, edgeEnd);
  const stats: Array<[span: number, lo: number, hi: number]> = [
    [7, w0, w1],
    [1, d0, w0],
    [1, w1, d1],
  ];
  const trips: Array<[lo: number, hi: number]> = [
    [fromMs, edgeEnd],
    [edgeStart, toMs],
  ];
  return { stats: stats.filter(([, lo, hi]) => lo < hi), trips: trips.filter(([lo, hi]) => lo < hi) };
}

/** Adds the parts' rows up per `key` and sets each key's last start; keys whose rows add up to no trip are left out. */
function addParts(
  parts: Array<{ rows: Array<WindowAggregateRow & { key: string }> }>,
  lasts: Array<{ key: string; last: unknown }>,
  columns: SumColumns = 'all',
): Map<string, WindowAggregateRow> {
  const outputs = SUMS[columns].columns;
  const result = new Map<string, WindowAggregateRow>();
  for (const part of parts) {
    for (const row of part.rows) {
      const into = result.get(row.key);
      if (!into) {
        const fresh: WindowAggregateRow = { n: 0, distance: 0, duration: 0, weighted: 0, plain: 0, last: null };
        for (const [output] of outputs) fresh[output] = num(row[output]) ?? 0;
        result.set(row.key, fresh);
      } else {
        for (const [output] of outputs) into[output] = (into[output] as number) + (num(row[output]) ?? 0);
      }
    }
  }
  for (const { key, last } of lasts) {
    const row = result.get(key);
    if (row) row.last = last;
  }
  // A key whose rows add up to no trip (all taken out again) has no sums.
  for (const [key, row] of result) if (row.n === 0) result.delete(key);
  return result;
}

type Keyed = WindowAggregateRow & { key: string };

/**
 * What the trips of `fleets` that started in `[fromMs, toMs)` add up to per plate (of one plate with
 * `plate`), with each vehicle's last start in the window. Whole weeks and whole days come from
 * `vehicle_stats` (kept by triggers, migration 0008), the two partial days at the window's ends from
 * the trips themselves; the sums equal those of the trips one by one up to floating-point rounding
 * (test/vehicle-stats.test.ts). The vehicle list and the vehicle profile both sum windows here, so the
 * two always agree.
 *
 * Each part is summed per vehicle by the database and the parts are added here: walking the scope's
 * vehicles and each one's rows in key order needs no sort, where grouping the union of all the parts
 * sorts every row first (a temporary b-tree of tens of thousands of 29-column rows). A trip's fleet
 * is always its vehicle's (the ingest path resolves the plate inside the sender's fleet), so the stats
 * are joined to the vehicles on fleet and plate.
 */
export async function windowSums(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  fromMs: number,
  toMs: number,
  plate?: string | readonly string[],
  columns: SumColumns = 'all',
): Promise<Map<string, WindowAggregateRow>> {
  if (fleets.length === 0 || fromMs >= toMs || (Array.isArray(plate) && plate.length === 0)) return new Map();
  const split = splitWindow(fromMs, toMs);
  const inFleets = sql.join(fleets.map((f) => sql`${f}`));
  const plateOf = (table: string) => onlyKeys(`${table}.plate`, plate);
  const sums = SUMS[columns];
  const parts = [
    ...split.stats.map(([span, lo, hi]) =>
      // CROSS JOIN keeps the vehicles as the outer loop in SQLite (left to right; without statistics
      // it would scan the fleets' stats rows and sort them), then each vehicle's rows are one key range.
      sql<Keyed>`select v.plate as key, ${sql.raw(sums.stat)} from vehicles v cross join vehicle_stats s
        where v.fleet_id in (${inFleets})${plateOf('v')} and s.fleet_id = v.fleet_id and s.plate = v.plate
          and s.span = ${span} and s.bucket >= ${lo} and s.bucket < ${hi}
        group by v.fleet_id, v.plate`.execute(db),
    ),
    ...split.trips.map(([lo, hi]) =>
      sql<Keyed>`select r.plate as key, ${sql.raw(sums.trip)} from trips r
          where r.fleet_id in (${inFleets}) and r.start_ms >= ${lo} and r.start_ms < ${hi}${plateOf('r')}
          group by r.plate`.execute(db),
    ),
  ];
  const [lasts, ...partRows] = await Promise.all([
    // The last start of each vehicle, one index seek each (trips by fleet, plate and start).
    sql<{ key: string; last: unknown }>`select v.plate as key, (select max(r.start_ms) from trips r
        where r.fleet_id = v.fleet_id and r.plate = v.plate and r.start_ms >= ${fromMs} and r.start_ms < ${toMs}) as last
      from vehicles v where v.fleet_id in (${inFleets})${plateOf('v')}`.execute(db),
    ...parts,
  ]);
  return addParts(partRows, lasts.rows, columns);
}

/** ` and <column> = <key>`, ` and <column> in (<keys>)`, or nothing without keys. */
function onlyKeys(column: string, keys: string | readonly string[] | undefined) {
  if (keys === undefined) return sql``;
  if (typeof keys === 'string') return sql` and ${sql.ref(column)} = ${keys}`;
  return sql` and ${sql.ref(column)} in (${sql.join(keys.map((k) => sql`${k}`))})`;
}

/**
 * What the trips of each fleet of `fleets` that started in `[fromMs, toMs)` add up to, with the fleet's
 * last start in the window: windowSums for whole fleets, from `fleet_stats` (migration 0009), a few rows
 * per fleet whatever its number of vehicles. The sums equal those of the fleet's vehicles added up
 * (test/vehicle-stats.test.ts compares both with the trips one by one).
 */
export async function fleetWindowSums(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  fromMs: number,
  toMs: number,
): Promise<Map<string, WindowAggregateRow>> {
  if (fleets.length === 0 || fromMs >= toMs) return new Map();
  const split = splitWindow(fromMs, toMs);
  const inFleets = sql.join(fleets.map((f) => sql`${f}`));
  const parts = [
    ...split.stats.map(([span, lo, hi]) =>
      sql<Keyed>`select s.fleet_id as key, ${sql.raw(STAT_SUMS)} from fleet_stats s
          where s.fleet_id in (${inFleets}) and s.span = ${span} and s.bucket >= ${lo} and s.bucket < ${hi}
          group by s.fleet_id`.execute(db),
    ),
    ...split.trips.map(([lo, hi]) =>
      sql<Keyed>`select r.fleet_id as key, ${sql.raw(TRIP_SUMS)} from trips r
          where r.fleet_id in (${inFleets}) and r.start_ms >= ${lo} and r.start_ms < ${hi}
          group by r.fleet_id`.execute(db),
    ),
  ];
  const [lasts, ...sums] = await Promise.all([
    // One index seek per fleet (trips by fleet and start).
    sql<{ key: string; last: unknown }>`select f.fleet_id as key, (select max(r.start_ms) from trips r
        where r.fleet_id = f.fleet_id and r.start_ms >= ${fromMs} and r.start_ms < ${toMs}) as last
      from fleets f where f.fleet_id in (${inFleets})`.execute(db),
    ...parts,
  ]);
  return addParts(sums, lasts.rows);
}

/** The key driverWindowSums gives a driver: driver ids are unique per fleet only (fleet ids hold no "/"). */
export const driverKey = (fleetId: string, driverId: string) => `${fleetId}/${driverId}`;

/**
 * What the trips of each driver of `fleets` (of one driver with `driverId`) that started in
 * `[fromMs, toMs)` add up to, keyed by driverKey, with the driver's last start in the window: windowSums
 * for drivers, from `driver_stats` (migration 0010), so a driver's window costs a few rows, not their trips.
 */
export async function driverWindowSums(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  fromMs: number,
  toMs: number,
  driverId?: string | readonly string[],
  columns: SumColumns = 'all',
): Promise<Map<string, WindowAggregateRow>> {
  if (fleets.length === 0 || fromMs >= toMs || (Array.isArray(driverId) && driverId.length === 0)) return new Map();
  const split = splitWindow(fromMs, toMs);
  const inFleets = sql.join(fleets.map((f) => sql`${f}`));
  const one = (table: string) => onlyKeys(`${table}.driver_id`, driverId);
  const sums = SUMS[columns];
  const parts = [
    ...split.stats.map(([span, lo, hi]) =>
      // Drivers as the outer loop, as windowSums walks vehicles.
      sql<Keyed>`select d.fleet_id || '/' || d.driver_id as key, ${sql.raw(sums.stat)}
          from drivers d cross join driver_stats s
          where d.fleet_id in (${inFleets})${one('d')} and s.fleet_id = d.fleet_id and s.driver_id = d.driver_id
            and s.span = ${span} and s.bucket >= ${lo} and s.bucket < ${hi}
          group by d.fleet_id, d.driver_id`.execute(db),
    ),
    ...split.trips.map(([lo, hi]) =>
      sql<Keyed>`select r.fleet_id || '/' || r.driver_id as key, ${sql.raw(sums.trip)} from trips r
          where r.fleet_id in (${inFleets}) and r.start_ms >= ${lo} and r.start_ms < ${hi}
            and r.driver_id is not null${one('r')}
          group by r.fleet_id, r.driver_id`.execute(db),
    ),
  ];
  const [lasts, ...partRows] = await Promise.all([
    // One index seek per driver (trips by fleet, driver and start).
    sql<{ key: string; last: unknown }>`select d.fleet_id || '/' || d.driver_id as key, (select max(r.start_ms)
        from trips r where r.fleet_id = d.fleet_id and r.driver_id = d.driver_id
          and r.start_ms >= ${fromMs} and r.start_ms < ${toMs}) as last
      from drivers d where d.fleet_id in (${inFleets})${one('d')}`.execute(db),
    ...parts,
  ]);
  return addParts(partRows, lasts.rows, columns);
}

/** A window's sums (windowSums): the named ones, plus `<theme>_w|_d|_s|_n` per theme. */
export interface WindowAggregateRow {
  n: number | string | null;
  distance: unknown;
  duration: unknown;
  weighted: unknown;
  plain: unknown;
  last: unknown;
  [themeSum: string]: unknown;
}

/** What a vehicle's trips in one window add up to, as the profile and the vehicle list show it. */
export interface WindowSummary {
  trips: number;
  score: number | null;
  tier: string | null;
  themes: Array<{ id: ThemeId; label: string; score: number | null }>;
  weakestTheme: { id: ThemeId; label: string } | null;
  distanceKm: number;
  durationMin: number;
  lastTripDate: string | null;
}

/**
 * Scores of a window from its sums: the overall and each theme's distance-weighted mean, rounded to one
 * decimal; the tier is derived from the score as shown, so the two never disagree at a band's edge; the
 * weakest theme is the lowest-scoring one with any score (the first in theme order on a tie).
 */
export function summarizeWindow(row: WindowAggregateRow | undefined, labels: Map<string, string>): WindowSummary {
  const { trips, score, tier, distanceKm, durationMin, lastTripDate } = summarizeHeadline(row);
  const themes = THEMES.map((id) => {
    const score = row
      ? roundedMean(num(row[`${id}_w`]), num(row[`${id}_d`]), num(row[`${id}_s`]), Number(row[`${id}_n`] ?? 0))
      : null;
    return { id, label: labels.get(id) ?? id, score };
  });
  let weakest: (typeof themes)[number] | undefined;
  for (const t of themes) {
    if (t.score !== null && (weakest === undefined || t.score < (weakest.score as number))) weakest = t;
  }
  return {
    trips,
    score,
    tier,
    themes,
    weakestTheme: weakest ? { id: weakest.id, label: weakest.label } : null,
    distanceKm,
    durationMin,
    lastTripDate,
  };
}

/** What a list orders and filters by: a WindowSummary without the themes. */
export type WindowHeadline = Omit<WindowSummary, 'themes' | 'weakestTheme'>;

/** summarizeWindow without the themes, from sums read with the `headline` columns (or all). */
export function summarizeHeadline(row: WindowAggregateRow | undefined): WindowHeadline {
  const n = Number(row?.n ?? 0);
  const score = row ? roundedMean(num(row.weighted), num(row.distance), num(row.plain), n) : null;
  const last = row ? num(row.last) : null;
  return {
    trips: n,
    score,
    tier: score === null ? null : tierOf(score),
    distanceKm: round2(row ? (num(row.distance) ?? 0) : 0),
    durationMin: round1(row ? (num(row.duration) ?? 0) : 0),
    lastTripDate: last !== null ? iso(last) : null,
  };
}

/** A window needs this many trips before its score is compared with the previous window's. */
export const TREND_MIN_TRIPS = 3;
/** Score points of change below which the trend is `stable`. */
export const TREND_STABLE_POINTS = 2;

export interface Trend {
  direction: 'improving' | 'worsening' | 'stable' | 'insufficient_data';
  change: number | null;
  previousScore: number | null;
  previousWindow: { from: string; to: string };
}

/**
 * The trend of a window's score against the window before it (`previous`, summed the same way, over
 * `[previousFromMs, previousToMs)`): `improving` at +2 points or more, `worsening` at -2 or less, else
 * `stable`; `insufficient_data` under 3 trips in either window.
 */
export function trendOf(
  current: WindowSummary,
  previous: WindowAggregateRow | undefined,
  previousFromMs: number,
  previousToMs: number,
): Trend {
  const prevN = Number(previous?.n ?? 0);
  const previousScore =
    previous && prevN > 0
      ? roundedMean(num(previous.weighted), num(previous.distance), num(previous.plain), prevN)
      : null;
  let direction: Trend['direction'] = 'insufficient_data';
  let change: number | null = null;
  if (
    current.score !== null &&
    previousScore !== null &&
    current.trips >= TREND_MIN_TRIPS &&
    prevN >= TREND_MIN_TRIPS
  ) {
    change = round1(current.score - previousScore);
    direction = change >= TREND_STABLE_POINTS ? 'improving' : change <= -TREND_STABLE_POINTS ? 'worsening' : 'stable';
  }
  return { direction, change, previousScore, previousWindow: { from: iso(previousFromMs), to: iso(previousToMs) } };
}

/** One roster line's sums: its trips, distance, score sums and last start (a vehicle's drivers, a driver's vehicles). */
export interface RosterSums {
  n: unknown;
  distance: unknown;
  weighted: unknown;
  plain: unknown;
  last: unknown;
}

/**
 * A roster line as profiles show it: trips, distance, distance-weighted score and the tier of the score as
 * shown (so the two never disagree at a band's edge), and the last trip.
 */
export function rosterEntry(r: RosterSums) {
  const score = roundedMean(num(r.weighted), num(r.distance), num(r.plain), Number(r.n));
  return {
    trips: Number(r.n),
    distanceKm: round2(num(r.distance) ?? 0),
    score,
    tier: score === null ? null : tierOf(score),
    lastTripDate: iso(Number(r.last)),
  };
}
