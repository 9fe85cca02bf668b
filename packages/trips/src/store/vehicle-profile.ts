import type { ThemeId } from '@svc/scoring';
import { type Kysely, sql } from 'kysely';
import { tierOf } from '../scoring/tiers.ts';
import type { TripsSchema } from './schema.ts';
import { themeLabels } from './trip-reads.ts';
import { findVehicleInFleets } from './vehicles.ts';

const DAY_MS = 86_400_000;
const THEMES: ThemeId[] = ['speeding', 'braking', 'acceleration', 'cornering', 'distraction', 'exposure'];
/** A window needs this many trips before its score is compared with the previous window's. */
export const TREND_MIN_TRIPS = 3;
/** Score points of change below which the trend is `stable`. */
export const TREND_STABLE_POINTS = 2;

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
  trend: {
    direction: 'improving' | 'worsening' | 'stable' | 'insufficient_data';
    change: number | null;
    previousScore: number | null;
    previousWindow: { from: string; to: string };
  };
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

const round1 = (v: number) => Math.round(v * 10) / 10;
const round2 = (v: number) => Math.round(v * 100) / 100;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Distance-weighted mean: a 100 km trip says more about a vehicle than a 1 km one. When every trip has
 * zero distance the plain mean is used instead of dividing by zero.
 */
function weightedMean(weightedSum: number | null, weight: number | null, plainSum: number | null, n: number) {
  if (n === 0) return null;
  if (weight && weight > 0 && weightedSum !== null) return weightedSum / weight;
  return plainSum !== null ? plainSum / n : null;
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
  const vehicle = await findVehicleInFleets(db, plate, fleets);
  if (!vehicle) return null;
  const to = options.nowMs;
  const from = to - options.windowDays * DAY_MS;
  const prevFrom = from - options.windowDays * DAY_MS;

  const base = () =>
    db.selectFrom('trips').where('trips.fleet_id', 'in', fleets).where('trips.plate', '=', vehicle.plate);

  const aggregate = (lo: number, hi: number) =>
    base()
      .where('start_ms', '>=', lo)
      .where('start_ms', '<', hi)
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number | null>('distance_km').as('distance'),
        eb.fn.sum<number | null>('duration_min').as('duration'),
        eb.fn.sum<number | null>(sql`overall_score * distance_km`).as('weighted'),
        eb.fn.sum<number | null>('overall_score').as('plain'),
        eb.fn.max<number | null>('start_ms').as('last'),
        ...THEMES.flatMap((t) => {
          const col = sql.ref(`theme_${t}`);
          return [
            eb.fn.sum<number | null>(sql`${col} * distance_km`).as(`${t}_w`),
            eb.fn.sum<number | null>(sql`case when ${col} is not null then distance_km end`).as(`${t}_d`),
            eb.fn.sum<number | null>(col).as(`${t}_s`),
            eb.fn.count<number>(col).as(`${t}_n`),
          ];
        }),
      ])
      .executeTakeFirstOrThrow();

  const [current, previous, lifetime, roster, labels] = await Promise.all([
    aggregate(from, to),
    aggregate(prevFrom, from),
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

  const n = Number(current.n);
  const mean = weightedMean(num(current.weighted), num(current.distance), num(current.plain), n);
  const score = mean === null ? null : round1(mean);
  const prevN = Number(previous.n);
  const previousMean = weightedMean(num(previous.weighted), num(previous.distance), num(previous.plain), prevN);
  const previousScore = previousMean === null ? null : round1(previousMean);
  const row = current as unknown as Record<string, unknown>;
  const themes = THEMES.map((id) => {
    const themeScore = weightedMean(
      num(row[`${id}_w`]),
      num(row[`${id}_d`]),
      num(row[`${id}_s`]),
      Number(row[`${id}_n`] ?? 0),
    );
    return { id, label: labels.get(id) ?? id, score: themeScore === null ? null : round1(themeScore) };
  });
  const weakest = themes
    .filter((t): t is typeof t & { score: number } => t.score !== null)
    .sort((a, b) => a.score - b.score)[0];

  let direction: VehicleProfile['trend']['direction'] = 'insufficient_data';
  let change: number | null = null;
  if (score !== null && previousScore !== null && n >= TREND_MIN_TRIPS && prevN >= TREND_MIN_TRIPS) {
    change = round1(score - previousScore);
    direction = change >= TREND_STABLE_POINTS ? 'improving' : change <= -TREND_STABLE_POINTS ? 'worsening' : 'stable';
  }

  const drivers = roster
    .map((r) => {
      const mean = weightedMean(num(r.weighted), num(r.distance), num(r.plain), Number(r.n));
      // The tier is derived from the score as shown, so the two never disagree at a band's edge.
      const driverScore = mean === null ? null : round1(mean);
      return {
        driverId: r.driver_id,
        name: (r.name as string | null) ?? null,
        trips: Number(r.n),
        distanceKm: round2(num(r.distance) ?? 0),
        score: driverScore,
        tier: driverScore === null ? null : tierOf(driverScore),
        lastTripDate: iso(Number(r.last)),
      };
    })
    .sort((a, b) => b.distanceKm - a.distanceKm || String(a.driverId).localeCompare(String(b.driverId)));

  return {
    plate: vehicle.plate,
    fleetId: vehicle.fleetId,
    machineType: vehicle.machineType,
    make: vehicle.make,
    model: vehicle.model,
    window: { days: options.windowDays, from: iso(from), to: iso(to) },
    score,
    tier: score === null ? null : tierOf(score),
    themes,
    weakestTheme: weakest ? { id: weakest.id, label: weakest.label } : null,
    trend: {
      direction,
      change,
      previousScore,
      previousWindow: { from: iso(prevFrom), to: iso(from) },
    },
    trips: n,
    distanceKm: round2(num(current.distance) ?? 0),
    durationMin: round1(num(current.duration) ?? 0),
    lastTripDate: current.last !== null ? iso(Number(current.last)) : null,
    lifetime: {
      trips: Number(lifetime.n),
      distanceKm: round2(num(lifetime.distance) ?? 0),
      firstTripDate: lifetime.first !== null ? iso(Number(lifetime.first)) : null,
      lastTripDate: lifetime.last !== null ? iso(Number(lifetime.last)) : null,
    },
    drivers,
  };
}

function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
