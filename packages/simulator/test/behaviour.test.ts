import { describe, expect, it } from 'vitest';
import {
  BEHAVIOURS,
  type BehaviourLevels,
  driverProfile,
  Rng,
  randomPlace,
  routeThrough,
  type Sample,
  simulateTrip,
  type TripTruth,
} from '../src/index.ts';
import { MONDAY_8AM_MS, testCity } from './city.ts';

// A route of a few kilometres through town with turns, signals and stop signs.
const graph = testCity();
const rng = Rng.from('behaviour-test');
const points = Array.from({ length: 5 }, () => randomPlace(graph, rng, 'work'));
const route = routeThrough(graph, points, [0, 0, 0]);

const calm: BehaviourLevels = {
  speeding: 0.1,
  braking: 0.1,
  acceleration: 0.1,
  cornering: 0.1,
  phoneUse: 0.1,
  nightDriving: 0.1,
  longStints: 0.1,
};

function drive(levels: BehaviourLevels) {
  return simulateTrip({ route, driver: driverProfile(levels), startMs: MONDAY_8AM_MS, seed: 5 });
}

const ofType = (samples: Sample[], type: Sample['type']) => samples.filter((s) => s.type === type);
const before = (samples: Sample[], endMs: number) => samples.filter((s) => s.t < endMs - 15_000);
const baseline = drive(calm);

/** The truth fields that belong to each scoring theme. */
function themes(truth: TripTruth) {
  return {
    speeding: truth.speeding.speedingS,
    braking: truth.harshCounts.harsh_braking,
    acceleration: truth.harshCounts.harsh_acceleration,
    cornering: truth.harshCounts.harsh_cornering,
    phone: truth.phone.handheldMovingS,
  };
}

describe('behaviour dimensions are independent', () => {
  it('has a calm baseline without speeding or harsh events', () => {
    expect(route.lengthM).toBeGreaterThan(3000);
    const t = themes(baseline.truth);
    expect(t.speeding).toBeLessThan(5);
    expect(t.braking + t.acceleration + t.cornering).toBeLessThanOrEqual(1);
  });

  it('raising phone use changes only the phone events', () => {
    const phone = drive({ ...calm, phoneUse: 0.9 });
    for (const type of ['gps', 'accel', 'gyro'] as const) {
      expect(ofType(phone.batch.samples, type)).toEqual(ofType(baseline.batch.samples, type));
    }
    expect(ofType(phone.batch.samples, 'phone').length).toBeGreaterThan(ofType(baseline.batch.samples, 'phone').length);
    expect(phone.truth.phone.handheldMovingS).toBeGreaterThan(baseline.truth.phone.handheldMovingS + 30);
    expect({ ...themes(phone.truth), phone: 0 }).toEqual({ ...themes(baseline.truth), phone: 0 });
  });

  it('raising speeding raises only the speeding signal', () => {
    const fast = drive({ ...calm, speeding: 0.9 });
    expect(fast.truth.speeding.speedingS).toBeGreaterThan(baseline.truth.speeding.speedingS + 30);
    expect(fast.truth.speeding.intensity).toBeGreaterThan(baseline.truth.speeding.intensity);
    const end = Math.min(fast.truth.endMs, baseline.truth.endMs);
    expect(before(ofType(fast.batch.samples, 'phone'), end)).toEqual(
      before(ofType(baseline.batch.samples, 'phone'), end),
    );
    expect(fast.truth.harshCounts.harsh_acceleration).toBe(baseline.truth.harshCounts.harsh_acceleration);
  });

  it.each([
    ['braking', 'harsh_braking'],
    ['acceleration', 'harsh_acceleration'],
    ['cornering', 'harsh_cornering'],
  ] as const)('raising %s raises %s and leaves the other harsh events and phone use alone', (behaviour, event) => {
    const rough = drive({ ...calm, [behaviour]: 0.9 });
    expect(rough.truth.harshCounts[event]).toBeGreaterThanOrEqual(baseline.truth.harshCounts[event] + 3);
    for (const other of ['harsh_braking', 'harsh_acceleration', 'harsh_cornering'] as const) {
      if (other !== event) expect(rough.truth.harshCounts[other]).toBe(baseline.truth.harshCounts[other]);
    }
    const end = Math.min(rough.truth.endMs, baseline.truth.endMs);
    expect(before(ofType(rough.batch.samples, 'phone'), end)).toEqual(
      before(ofType(baseline.batch.samples, 'phone'), end),
    );
    // Speeding moves a little at most (harsher driving changes the time spent near the limit, not the speed choice).
    expect(Math.abs(rough.truth.speeding.speedingS - baseline.truth.speeding.speedingS)).toBeLessThan(15);
  });

  it('night driving and long stints do not change a given trip (they shape the schedule)', () => {
    const tired = drive({ ...calm, nightDriving: 0.9, longStints: 0.9 });
    expect(tired.batch).toEqual(baseline.batch);
  });

  it('orders the true risk by the levels', () => {
    const risks = [0, 0.25, 0.5, 0.75, 1].map((a) => driverProfile({ aggressiveness: a }).trueRisk);
    expect(risks).toEqual([...risks].sort((a, b) => a - b));
    expect(risks[0]).toBe(0);
    expect(risks[4]).toBeCloseTo(1, 10);
    for (const b of BEHAVIOURS) {
      expect(driverProfile({ ...calm, [b]: 0.9 }).trueRisk).toBeGreaterThan(driverProfile(calm).trueRisk);
    }
  });
});
