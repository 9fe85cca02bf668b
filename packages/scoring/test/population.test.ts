import { type DriverProfile, driverPopulation, driverProfile, simulateTrip } from '@svc/simulator';
import { describe, expect, it } from 'vitest';
import { type ScoredTrip, scoreTrip, type ThemeId } from '../src/index.ts';
import { populationRoute } from './helpers/population-route.ts';

/**
 * The score must mean something: simulated drivers with known behaviour (@svc/simulator) drive the same
 * route through a synthetic city at the same time; the score must rank them by their true risk.
 */
const { graph, route } = populationRoute();
const MONDAY_8AM_MS = Date.UTC(2025, 2, 3, 8, 0, 0);

function drive(profile: DriverProfile, seed: number, gpsHz = 1): ScoredTrip {
  const { batch } = simulateTrip({ route, driver: profile, startMs: MONDAY_8AM_MS, seed, gpsHz });
  return scoreTrip(batch, { graph });
}

function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let k = 0; k < order.length; ) {
    let j = k;
    while (j + 1 < order.length && order[j + 1]![0] === order[k]![0]) j++;
    for (let m = k; m <= j; m++) r[order[m]![1]] = (k + j) / 2;
    k = j + 1;
  }
  return r;
}

function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (ra.length - 1) / 2;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i]! - mean) * (rb[i]! - mean);
    da += (ra[i]! - mean) ** 2;
    db += (rb[i]! - mean) ** 2;
  }
  return num / Math.sqrt(da * db);
}

/** Probability that a random aggressive driver scores below a random calm one (ties count half). */
function auc(aggressive: number[], calm: number[]): number {
  let wins = 0;
  for (const a of aggressive) for (const c of calm) wins += a < c ? 1 : a === c ? 0.5 : 0;
  return wins / (aggressive.length * calm.length);
}

const themeScore = (trip: ScoredTrip, id: ThemeId) => trip.themes.find((t) => t.id === id)!.themeScore!;

describe('population: the score ranks simulated drivers by their true risk', () => {
  const population = driverPopulation({ seed: 11, count: 30, fixed: { nightDriving: 0.3, longStints: 0.3 } });
  const trips = population.map((profile, i) => drive(profile, i));

  it('is map-matched on the simulated city, with speeding measured against the limits', () => {
    for (const trip of trips) {
      expect(trip.mapMatched).toBe(true);
      expect(trip.themes.find((t) => t.id === 'speeding')!.available).toBe(true);
    }
  });

  it('ranks drivers like their true risk (Spearman >= 0.9)', () => {
    const rho = spearman(
      trips.map((t) => -t.overallScore),
      population.map((p) => p.drivingRisk),
    );
    expect(rho).toBeGreaterThanOrEqual(0.9);
  });

  it('separates aggressive from calm drivers (AUC >= 0.95)', () => {
    const calm = trips.filter((_, i) => population[i]!.drivingRisk < 0.35).map((t) => t.overallScore);
    const aggressive = trips.filter((_, i) => population[i]!.drivingRisk > 0.6).map((t) => t.overallScore);
    expect(calm.length).toBeGreaterThan(4);
    expect(aggressive.length).toBeGreaterThan(4);
    expect(auc(aggressive, calm)).toBeGreaterThanOrEqual(0.95);
  });

  it.each([
    ['speeding', 'speeding'],
    ['braking', 'braking'],
    ['acceleration', 'acceleration'],
    ['cornering', 'cornering'],
    ['phoneUse', 'distraction'],
  ] as const)('ranks drivers by their %s level in the %s theme', (behaviour, themeId) => {
    const rho = spearman(
      trips.map((t) => -themeScore(t, themeId)),
      population.map((p) => p.levels[behaviour]),
    );
    expect(rho).toBeGreaterThanOrEqual(0.75);
  });
});

describe('each theme responds to its own behaviour', () => {
  const base = driverProfile({ aggressiveness: 0.2 });
  const reference = drive(base, 1);
  const cases = [
    ['speeding', 'speeding'],
    ['braking', 'braking'],
    ['acceleration', 'acceleration'],
    ['cornering', 'cornering'],
    ['phoneUse', 'distraction'],
  ] as const;

  it.each(cases)('more %s lowers %s and leaves the unrelated themes alone', (behaviour, themeId) => {
    const changed = drive(driverProfile({ aggressiveness: 0.2, [behaviour]: 0.95 }), 1);
    expect(themeScore(changed, themeId)).toBeLessThan(themeScore(reference, themeId) - 15);
    expect(changed.overallScore).toBeLessThan(reference.overallScore);
    // Phone use must not move the driving-dynamics themes, and driving style must not move distraction.
    const unrelated: ThemeId[] =
      themeId === 'distraction' ? ['cornering', 'braking', 'acceleration'] : ['distraction', 'exposure'];
    for (const other of unrelated) {
      expect(Math.abs(themeScore(changed, other) - themeScore(reference, other)), other).toBeLessThanOrEqual(5);
    }
  });
});

describe('sampling rate', () => {
  it('scores the same simulated driving at 1 Hz and 10 Hz GPS within 2 points', () => {
    for (const [k, aggressiveness] of [0.15, 0.5, 0.85].entries()) {
      const profile = driverProfile({ aggressiveness });
      const at1 = drive(profile, 100 + k, 1);
      const at10 = drive(profile, 100 + k, 10);
      expect(Math.abs(at1.overallScore - at10.overallScore), `aggressiveness ${aggressiveness}`).toBeLessThanOrEqual(2);
    }
  });
});
