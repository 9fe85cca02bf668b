import { validateTelemetry } from '@svc/scoring';
import { describe, expect, it } from 'vitest';
import {
  type AccelSample,
  batchToNdjson,
  driverProfile,
  type GpsSample,
  MACHINE_SPECS,
  simulateTrip,
  simulateTripDetailed,
} from '../src/index.ts';
import { cityPoint, MONDAY_8AM_MS, testCity } from './city.ts';

const graph = testCity();
const from = cityPoint(0.1, 0.15);
const to = cityPoint(0.9, 0.85);
const base = { graph, from, to, startMs: MONDAY_8AM_MS, seed: 42 };

describe('simulateTrip', () => {
  it('gives byte-identical output for the same seed and different output for another seed', () => {
    const a = simulateTrip({ ...base, driver: driverProfile({ aggressiveness: 0.6 }) });
    const b = simulateTrip({ ...base, driver: driverProfile({ aggressiveness: 0.6 }) });
    const c = simulateTrip({ ...base, seed: 43, driver: driverProfile({ aggressiveness: 0.6 }) });
    expect(batchToNdjson(a.batch)).toBe(batchToNdjson(b.batch));
    expect(JSON.stringify(a.truth)).toBe(JSON.stringify(b.truth));
    expect(batchToNdjson(a.batch)).not.toBe(batchToNdjson(c.batch));
  });

  it('emits a batch that the scoring contract validates', () => {
    const { batch } = simulateTrip({ ...base, driver: driverProfile({ aggressiveness: 0.9 }), obdHz: 1 });
    const result = validateTelemetry(batch);
    expect(result.ok ? [] : result.errors.slice(0, 3)).toEqual([]);
    expect(batch.machineType).toBe('car');
    expect(batch.imuFrame).toBe('vehicle');
    const types = new Set(batch.samples.map((s) => s.type));
    expect([...types].sort()).toEqual(['accel', 'gps', 'gyro', 'obd', 'phone']);
  });

  it('samples GPS at exactly 1 Hz and the IMU at exactly 25 Hz, in time order', () => {
    const { batch, truth } = simulateTrip({ ...base, driver: driverProfile() });
    const gps = batch.samples.filter((s) => s.type === 'gps');
    const accel = batch.samples.filter((s) => s.type === 'accel');
    expect(new Set(gps.slice(1).map((s, i) => s.t - gps[i]!.t))).toEqual(new Set([1000]));
    expect(new Set(accel.slice(1).map((s, i) => s.t - accel[i]!.t))).toEqual(new Set([40]));
    expect(gps[0]!.t).toBe(MONDAY_8AM_MS);
    expect(gps.length).toBe(Math.floor(truth.durationS) + 1);
    for (let i = 1; i < batch.samples.length; i++) {
      expect(batch.samples[i]!.t).toBeGreaterThanOrEqual(batch.samples[i - 1]!.t);
    }
  });

  it('samples GPS at 10 Hz on request', () => {
    const { batch } = simulateTrip({ ...base, driver: driverProfile(), gpsHz: 10, imuHz: 0 });
    const gps = batch.samples.filter((s) => s.type === 'gps');
    expect(new Set(gps.slice(1).map((s, i) => s.t - gps[i]!.t))).toEqual(new Set([100]));
    expect(batch.samples.some((s) => s.type === 'accel')).toBe(false);
  });

  it('keeps speeds and accelerations within what the driver and the vehicle allow', () => {
    for (const aggressiveness of [0, 0.5, 1]) {
      const driver = driverProfile({ aggressiveness });
      const { truth } = simulateTrip({ ...base, driver });
      const spec = MACHINE_SPECS.car;
      expect(truth.maxSpeedKmh).toBeLessThanOrEqual(spec.maxSpeedKmh);
      // Each manoeuvre varies around the driver's usual value by a factor of at most 1.35.
      expect(truth.maxAccelMps2).toBeLessThanOrEqual(
        Math.min(spec.maxAccelMps2, driver.params.launchAccelMps2 * 1.35) + 0.05,
      );
      expect(truth.maxDecelMps2).toBeLessThanOrEqual(
        Math.max(driver.params.brakeDecelMps2 * 1.35, driver.params.suddenBrakeDecelMps2) + 0.05,
      );
      expect(truth.maxLateralMps2).toBeLessThanOrEqual(driver.params.lateralAccelMps2 * 1.35 * 1.1);
    }
  });

  it('keeps a calm driver within the posted limits plus tolerance everywhere', () => {
    const driver = driverProfile({ aggressiveness: 0 });
    const { truth, internals } = simulateTripDetailed({ ...base, driver });
    expect(truth.speeding.speedingS).toBe(0);
    const { kinematics: kin, path, route } = internals;
    let p = 0;
    for (let k = 0; k < kin.count; k++) {
      while (p < path.n - 2 && path.sM[p + 1]! <= kin.sM[k]!) p++;
      const limit = route.segments[path.segment[p]!]!.speedLimitKmh;
      if (limit !== null) expect(kin.speedMps[k]! * 3.6).toBeLessThanOrEqual(limit * 1.1);
    }
  });

  it('produces an IMU longitudinal acceleration that agrees with the GPS Doppler speed', () => {
    const { batch } = simulateTrip({ ...base, driver: driverProfile({ aggressiveness: 0.8 }) });
    const gps = batch.samples.filter((s): s is GpsSample => s.type === 'gps');
    const accel = batch.samples.filter((s): s is AccelSample => s.type === 'accel');
    // Mean IMU x over each GPS second against the Doppler speed change over that second.
    let sumErr = 0;
    let sumSq = 0;
    let count = 0;
    let a = 0;
    for (let i = 1; i < gps.length; i++) {
      const dvdt = (gps[i]!.speedMps! - gps[i - 1]!.speedMps!) / ((gps[i]!.t - gps[i - 1]!.t) / 1000);
      let sum = 0;
      let n = 0;
      while (a < accel.length && accel[a]!.t < gps[i]!.t) {
        if (accel[a]!.t >= gps[i - 1]!.t) {
          sum += accel[a]!.x;
          n++;
        }
        a++;
      }
      if (n === 0) continue;
      sumErr += Math.abs(sum / n - dvdt);
      sumSq += dvdt * dvdt;
      count++;
    }
    expect(sumErr / count).toBeLessThan(0.25);
    expect(Math.sqrt(sumSq / count)).toBeGreaterThan(0.3);
  });

  it('rejects bad options with a message naming the field', () => {
    expect(() => simulateTrip({ ...base, driver: driverProfile(), gpsHz: -1 })).toThrow(/gpsHz/);
    expect(() => simulateTrip({ ...base, driver: driverProfile(), timeZone: 'Mars/Olympus' })).toThrow(/time zone/);
    expect(() => simulateTrip({ driver: driverProfile(), startMs: 0, seed: 1 })).toThrow(/route, or graph/);
    expect(() => driverProfile({ phoneUse: 2 })).toThrow(/phoneUse/);
  });

  it('refuses start times the telemetry contract does not accept (before 2000, after 2100)', () => {
    for (const startMs of [Date.UTC(1900, 0, 1), -1, Date.UTC(2200, 0, 1)]) {
      expect(() => simulateTrip({ ...base, driver: driverProfile(), startMs })).toThrow(/startMs/);
    }
  });
});
