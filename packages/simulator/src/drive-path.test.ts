import { describe, expect, it } from 'vitest';
import { buildDrivePath, metresPerDegree } from './drive-path.ts';
import type { DriveRoute, LonLat } from './drive-route.ts';

const origin: LonLat = [11.5, 48.1];
const { kx, ky } = metresPerDegree(origin[1]);
/** A position `east` and `north` metres from the origin. */
const at = (east: number, north: number): LonLat => [origin[0] + east / kx, origin[1] + north / ky];

describe('buildDrivePath', () => {
  it('keeps a straight road straight with its length', () => {
    const route: DriveRoute = {
      segments: [{ coordinates: [at(0, 0), at(1000, 0)], speedLimitKmh: 50, highway: 'primary' }],
    };
    const path = buildDrivePath(route);
    expect(path.lengthM).toBeCloseTo(1000, 6);
    expect(Math.max(...path.curvature.map(Math.abs))).toBe(0);
    for (let i = 1; i < path.n; i++) expect(path.sM[i]! - path.sM[i - 1]!).toBeLessThanOrEqual(2 + 1e-9);
  });

  it('rounds a junction turn into an arc of the road class radius, turning the right way', () => {
    const route: DriveRoute = {
      segments: [
        { coordinates: [at(0, 0), at(200, 0)], speedLimitKmh: 50, highway: 'residential', endControl: 'stop' },
        { coordinates: [at(200, 0), at(200, 200)], speedLimitKmh: 50, highway: 'residential' },
      ],
    };
    const path = buildDrivePath(route, 7);
    // Left turn (east then north): positive curvature peaking at 1/9 m (residential radius).
    const peak = Math.max(...path.curvature);
    expect(peak).toBeGreaterThan(0.08);
    expect(peak).toBeLessThanOrEqual(1 / 9 + 1e-9);
    // The arc shortens the corner by (2 - pi/2) R.
    // (The arc is sampled as chords, a few centimetres shorter than the true arc.)
    expect(path.lengthM).toBeCloseTo(400 - (2 - Math.PI / 2) * 9, 1);
    expect(path.junctions).toHaveLength(1);
    expect(path.junctions[0]!.control).toBe('stop');
    expect(path.junctions[0]!.turnRad).toBeCloseTo(Math.PI / 2, 6);
    expect(path.junctions[0]!.sM).toBeCloseTo(200 - 9 + (9 * Math.PI) / 4, 0);
  });

  it('turns right with negative curvature and widens turns for long vehicles', () => {
    const route: DriveRoute = {
      segments: [
        { coordinates: [at(0, 0), at(200, 0)], speedLimitKmh: 50, highway: 'residential' },
        { coordinates: [at(200, 0), at(200, -200)], speedLimitKmh: 50, highway: 'residential' },
      ],
    };
    expect(Math.min(...buildDrivePath(route, 7).curvature)).toBeLessThan(-0.08);
    expect(Math.min(...buildDrivePath(route, 12).curvature)).toBeGreaterThanOrEqual(-1 / 12 - 1e-9);
  });

  it('refuses a route without length', () => {
    const route: DriveRoute = {
      segments: [{ coordinates: [at(0, 0), at(0, 0)], speedLimitKmh: 50, highway: 'primary' }],
    };
    expect(() => buildDrivePath(route)).toThrow(/no length/);
  });
});
