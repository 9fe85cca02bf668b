import { describe, expect, it } from 'vitest';
import { driverPopulation, Rng, randomPlace, routeThrough, simulateTrip } from '../src/index.ts';
import { MONDAY_8AM_MS, testCity } from './city.ts';

/** Spearman rank correlation (no ties expected in these continuous values). */
function spearman(a: number[], b: number[]): number {
  const rank = (xs: number[]) => {
    const order = xs.map((x, i) => [x, i] as const).sort((p, q) => p[0] - q[0]);
    const r = new Array<number>(xs.length);
    order.forEach(([, i], k) => {
      r[i] = k;
    });
    return r;
  };
  const ra = rank(a);
  const rb = rank(b);
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += (ra[i]! - rb[i]!) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
}

describe('a simulated population carries its true risk in its trips', () => {
  const graph = testCity();
  const rng = Rng.from('population-test');
  const points = Array.from({ length: 8 }, () => randomPlace(graph, rng, 'work'));
  const route = routeThrough(
    graph,
    points,
    points.slice(1, -1).map(() => 0),
  );
  const population = driverPopulation({ seed: 3, count: 40, fixed: { nightDriving: 0.3, longStints: 0.3 } });
  const rows = population.map((profile, i) => {
    const { truth } = simulateTrip({ route, driver: profile, startMs: MONDAY_8AM_MS, seed: i, imuHz: 0 });
    const km = truth.distanceM / 1000;
    return {
      profile,
      speeding: truth.speeding.intensity,
      braking: truth.harshCounts.harsh_braking / km,
      acceleration: truth.harshCounts.harsh_acceleration / km,
      cornering: truth.harshCounts.harsh_cornering / km,
      phoneUse: truth.phone.handheldMovingS / truth.movingS,
    };
  });
  const dims = ['speeding', 'braking', 'acceleration', 'cornering', 'phoneUse'] as const;

  it.each(dims)('ranks drivers by their %s level through the matching truth signal', (dim) => {
    const rho = spearman(
      rows.map((r) => r[dim]),
      rows.map((r) => r.profile.levels[dim]),
    );
    expect(rho).toBeGreaterThan(0.75);
  });

  it('ranks drivers by driving risk through a naive weighted penalty (Spearman >= 0.9)', () => {
    const weights = { speeding: 0.25, braking: 0.17, acceleration: 0.1, cornering: 0.1, phoneUse: 0.2 };
    const max = Object.fromEntries(dims.map((d) => [d, Math.max(...rows.map((r) => r[d])) || 1]));
    const penalty = rows.map((r) => dims.reduce((sum, d) => sum + (weights[d] * r[d]) / max[d]!, 0));
    expect(
      spearman(
        penalty,
        rows.map((r) => r.profile.drivingRisk),
      ),
    ).toBeGreaterThanOrEqual(0.9);
  });

  it('draws the same population for the same seed and holds fixed levels', () => {
    const again = driverPopulation({ seed: 3, count: 40, fixed: { nightDriving: 0.3, longStints: 0.3 } });
    expect(again).toEqual(population);
    expect(new Set(population.map((p) => p.levels.nightDriving))).toEqual(new Set([0.3]));
    expect(driverPopulation({ seed: 4, count: 40 })).not.toEqual(population);
  });
});
