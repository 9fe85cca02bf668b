import { driverProfile, simulateTrip } from '@svc/simulator';
import { describe, expect, it } from 'vitest';
import { lonDeltaDeg, meanLonDeg } from '../src/geo.ts';
import { type Sample, scoreTrip } from '../src/index.ts';
import { populationRoute } from './helpers/population-route.ts';

/**
 * A trip across the 180° meridian (Fiji, Chukotka, the Aleutians) goes from longitude 179.99 to -179.99 in a
 * second. Scored, it must be the same trip as one a degree further west: no jump round the Earth, the same
 * distance, speeds and scores.
 */
describe('trips across the 180° meridian', () => {
  const { route } = populationRoute();
  const driver = driverProfile({ aggressiveness: 0.4 });
  const batch = simulateTrip({ route, driver, startMs: Date.UTC(2025, 2, 3, 8), seed: 3, imuHz: 0 }).batch;
  const gps = batch.samples.filter((s) => s.type === 'gps');
  const mid = (Math.min(...gps.map((s) => s.lon)) + Math.max(...gps.map((s) => s.lon))) / 2;

  /** The trip moved east so that its middle is at `lon` (longitudes written in [-180, 180), as devices send them). */
  const movedTo = (lon: number) => ({
    ...batch,
    samples: batch.samples.map((s): Sample => {
      if (s.type !== 'gps') return s;
      const moved = s.lon - mid + lon;
      return { ...s, lon: moved >= 180 ? moved - 360 : moved };
    }),
  });

  it('scores a trip crossing it as the same trip a degree west', () => {
    const across = movedTo(180);
    const lons = across.samples.flatMap((s) => (s.type === 'gps' ? [s.lon] : []));
    // The test's premise: the trip really crosses, from positive to negative longitudes.
    expect(Math.max(...lons)).toBeGreaterThan(179.9);
    expect(Math.min(...lons)).toBeLessThan(-179.9);

    const crossing = scoreTrip(across);
    const west = scoreTrip(movedTo(179));
    expect(crossing.dataQuality?.positionJumps).toBe(0);
    expect(crossing.distanceKm).toBeCloseTo(west.distanceKm, 2);
    expect(crossing.distanceKm).toBeGreaterThan(1);
    expect(crossing.overallScore).toBeCloseTo(west.overallScore!, 0);
    for (const theme of crossing.themes) {
      const other = west.themes.find((t) => t.id === theme.id)!;
      expect(theme.themeScore ?? -1, theme.id).toBeCloseTo(other.themeScore ?? -1, 0);
    }
  });

  it('takes longitude differences and means the short way round', () => {
    expect(lonDeltaDeg(-179.9, 179.9)).toBeCloseTo(0.2, 9);
    expect(lonDeltaDeg(179.9, -179.9)).toBeCloseTo(-0.2, 9);
    expect(lonDeltaDeg(4.5, 4.2)).toBeCloseTo(0.3, 9);
    expect(Math.abs(meanLonDeg([179.9, -179.9]))).toBeCloseTo(180, 9);
    expect(Math.abs(meanLonDeg([179.8, -179.9, 179.95]))).toBeGreaterThan(179.9);
    expect(meanLonDeg([4.2, 4.4])).toBeCloseTo(4.3, 9);
  });
});
