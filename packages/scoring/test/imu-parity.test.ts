import { driverPopulation, simulateTrip } from '@svc/simulator';
import { describe, expect, it } from 'vitest';
import { type ScoredTrip, scoreTrip, type ThemeId } from '../src/index.ts';
import { populationRoute } from './helpers/population-route.ts';

/**
 * A score must mean the same thing whatever sensors the phone had: the same simulated trips (same driver,
 * seed and route, so the same driving and the same GPS) scored once with a 25 Hz IMU and once GPS only
 * (1 Hz fixes with Doppler speed and course).
 */
const { graph, route } = populationRoute();
const MONDAY_8AM_MS = Date.UTC(2025, 2, 3, 8, 0, 0);
const population = driverPopulation({ seed: 11, count: 30, fixed: { nightDriving: 0.3, longStints: 0.3 } });

const themeScore = (trip: ScoredTrip, id: ThemeId) => trip.themes.find((t) => t.id === id)!.themeScore!;

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

describe('the same trips with and without an IMU score alike', () => {
  const trips = population.map((driver, seed) => {
    const sim = (imuHz: number) => simulateTrip({ route, driver, startMs: MONDAY_8AM_MS, seed, imuHz }).batch;
    return { risk: driver.drivingRisk, imu: scoreTrip(sim(25), { graph }), gps: scoreTrip(sim(0), { graph }) };
  });
  const calm = trips.filter((t) => t.risk < 0.35);

  it('records the source of harsh events: IMU in one version, GPS in the other', () => {
    for (const { imu, gps } of trips) {
      expect(imu.events.filter((e) => e.type === 'harsh_braking').every((e) => e.source === 'imu')).toBe(true);
      expect(gps.events.filter((e) => e.type === 'harsh_braking').every((e) => e.source === 'gps')).toBe(true);
    }
  });

  it('scores calm drivers on cornering within 5 points with or without IMU, never below Good', () => {
    expect(calm.length).toBeGreaterThanOrEqual(5);
    for (const { imu, gps } of calm) {
      expect(Math.abs(themeScore(imu, 'cornering') - themeScore(gps, 'cornering'))).toBeLessThanOrEqual(5);
      expect(themeScore(gps, 'cornering')).toBeGreaterThanOrEqual(65);
    }
  });

  it('scores calm drivers within 3 points overall with or without IMU', () => {
    for (const { imu, gps } of calm) expect(Math.abs(imu.overallScore - gps.overallScore)).toBeLessThanOrEqual(3);
  });

  it('shows no systematic gap on braking, acceleration or cornering (median difference within 5 points)', () => {
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
    };
    for (const id of ['braking', 'acceleration', 'cornering'] as ThemeId[]) {
      const gap = median(trips.map((t) => themeScore(t.imu, id) - themeScore(t.gps, id)));
      expect(Math.abs(gap), id).toBeLessThanOrEqual(5);
    }
  });

  it('ranks drivers alike on braking, acceleration and cornering with or without IMU (Spearman >= 0.85)', () => {
    for (const id of ['braking', 'acceleration', 'cornering'] as ThemeId[]) {
      const rho = spearman(
        trips.map((t) => themeScore(t.imu, id)),
        trips.map((t) => themeScore(t.gps, id)),
      );
      expect(rho, id).toBeGreaterThanOrEqual(0.85);
    }
  });

  it('ranks GPS-only drivers on cornering by their true driving risk about as well as with IMU', () => {
    const risk = trips.map((t) => -t.risk);
    const withImu = spearman(
      trips.map((t) => themeScore(t.imu, 'cornering')),
      risk,
    );
    const gpsOnly = spearman(
      trips.map((t) => themeScore(t.gps, 'cornering')),
      risk,
    );
    expect(gpsOnly).toBeGreaterThanOrEqual(withImu - 0.05);
  });
});
