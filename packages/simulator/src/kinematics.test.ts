import { describe, expect, it } from 'vitest';
import { buildDrivePath, metresPerDegree } from './drive-path.ts';
import type { DriveRoute, LonLat } from './drive-route.ts';
import { driverProfile } from './driver-profile.ts';
import { buildKinematics } from './kinematics.ts';
import { Rng } from './random.ts';
import { buildSpeedProfile } from './speed-profile.ts';
import { MACHINE_SPECS } from './vehicle-model.ts';

const origin: LonLat = [11.5, 48.1];
const { kx, ky } = metresPerDegree(origin[1]);
const at = (east: number, north: number): LonLat => [origin[0] + east / kx, origin[1] + north / ky];

// 600 m east to a stop sign, left turn, 600 m north.
const route: DriveRoute = {
  segments: [
    { coordinates: [at(0, 0), at(600, 0)], speedLimitKmh: 50, highway: 'tertiary', endControl: 'stop' },
    { coordinates: [at(600, 0), at(600, 600)], speedLimitKmh: 50, highway: 'tertiary' },
  ],
};

function motion(aggressiveness: number, seed = 1) {
  const profile = driverProfile({ aggressiveness, speeding: 0 });
  const p = { ...profile.params, suddenBrakesPer100Km: 0 };
  const path = buildDrivePath(route);
  const rng = Rng.from(seed);
  const speed = buildSpeedProfile(path, route, p, MACHINE_SPECS.car, {
    speeding: rng.fork('s'),
    braking: rng.fork('b'),
    acceleration: rng.fork('a'),
    cornering: rng.fork('c'),
    traffic: Rng.from('no-traffic-draws-matter'),
  });
  const kin = buildKinematics(path, speed, {
    dtS: 0.04,
    brakeOnsetS: p.brakeOnsetS,
    accelOnsetS: p.accelOnsetS,
    startIdleS: 3,
    endIdleS: 3,
  });
  return { path, speed, kin, params: p };
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * 0.99)]!;
}

describe('speed profile and motion', () => {
  it('stops at the stop line, 6 m before the junction, and ends at the end of the route', () => {
    const { path, speed, kin } = motion(0);
    expect(speed.stops.some((s) => s.kind === 'stop_sign')).toBe(true);
    const junction = path.junctions[0]!;
    // Standstill samples away from the start and the end of the trip.
    const stopped: number[] = [];
    for (let k = 0; k < kin.count; k++) {
      if (kin.speedMps[k] === 0 && kin.sM[k]! > 10 && kin.sM[k]! < path.lengthM - 10) stopped.push(kin.sM[k]!);
    }
    expect(stopped.length).toBeGreaterThan(0);
    for (const s of stopped) expect(Math.abs(s - (junction.sM - 6))).toBeLessThan(1);
    expect(kin.sM[kin.count - 1]).toBeCloseTo(path.lengthM, 6);
    expect(kin.speedMps[0]).toBe(0);
    expect(kin.speedMps[kin.count - 1]).toBe(0);
  });

  it('never exceeds the wished speed and keeps distance and speed consistent', () => {
    const { kin, params } = motion(0.3);
    const wish = (50 * params.speedFactor * 1.2) / 3.6;
    for (let k = 1; k < kin.count; k++) {
      expect(kin.speedMps[k]!).toBeLessThanOrEqual(wish);
      const ds = kin.sM[k]! - kin.sM[k - 1]!;
      expect(ds).toBeGreaterThanOrEqual(0);
      expect(Math.abs(ds - 0.5 * (kin.speedMps[k]! + kin.speedMps[k - 1]!) * kin.dtS)).toBeLessThan(1e-9);
    }
  });

  it('builds acceleration up gently for calm drivers and sharply for aggressive ones', () => {
    const jerk = (aggressiveness: number) => {
      const { kin } = motion(aggressiveness);
      const values: number[] = [];
      for (let k = 1; k < kin.count; k++) values.push(Math.abs(kin.accelMps2[k]! - kin.accelMps2[k - 1]!) / kin.dtS);
      return p99(values);
    };
    const calm = jerk(0);
    const wild = jerk(1);
    expect(calm).toBeLessThan(2);
    expect(wild).toBeGreaterThan(2 * calm);
  });
});
