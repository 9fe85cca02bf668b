import { generateCity } from '@svc/roads';
import { type Sample, scoreTrip } from '@svc/scoring';
import { driverProfile, simulateTrip } from '@svc/simulator';
import { describe, expect, it } from 'vitest';
import { cutAtAntimeridian, routeGeoJson } from './route-geojson.ts';

describe('cutAtAntimeridian', () => {
  it('leaves a line that does not cross the 180° meridian whole', () => {
    const line: Array<[number, number]> = [
      [4.5, 45.5],
      [4.6, 45.6],
      [-0.1, 45.7],
    ];
    expect(cutAtAntimeridian(line)).toEqual([line]);
  });

  it('cuts a line eastwards across it at 180 / -180, at the latitude where it crosses', () => {
    const parts = cutAtAntimeridian([
      [179.8, -16.8],
      [179.9, -16.8],
      [-179.9, -16.6],
      [-179.8, -16.6],
    ]);
    expect(parts).toHaveLength(2);
    expect(parts[0]!.slice(0, 2)).toEqual([
      [179.8, -16.8],
      [179.9, -16.8],
    ]);
    // Half way between 179.9 and -179.9 (the short way), so half way between the latitudes.
    expect(parts[0]![2]![0]).toBe(180);
    expect(parts[0]![2]![1]).toBeCloseTo(-16.7, 9);
    expect(parts[1]![0]![0]).toBe(-180);
    expect(parts[1]![0]![1]).toBeCloseTo(-16.7, 9);
    expect(parts[1]!.slice(1)).toEqual([
      [-179.9, -16.6],
      [-179.8, -16.6],
    ]);
  });

  it('cuts westwards too, and back again', () => {
    const parts = cutAtAntimeridian([
      [-179.95, 65],
      [179.95, 65],
      [179.9, 65],
      [-179.95, 65.1],
    ]);
    expect(parts.map((p) => p.map(([lon]) => lon))).toEqual([
      [-179.95, -180],
      [180, 179.95, 179.9, 180],
      [-180, -179.95],
    ]);
  });
});

describe('the route resource of a trip across the 180° meridian', () => {
  it('serves its GPS trace cut at the meridian, each part drawn the short way', () => {
    const batch = simulateTrip({
      graph: generateCity({ seed: 1 }),
      from: [4.5, 45.49],
      to: [4.52, 45.51],
      driver: driverProfile({ aggressiveness: 0.3 }),
      startMs: Date.UTC(2025, 2, 3, 8),
      seed: 2,
      imuHz: 0,
    }).batch;
    const lons = batch.samples.flatMap((s) => (s.type === 'gps' ? [s.lon] : []));
    const mid = (Math.min(...lons) + Math.max(...lons)) / 2;
    const samples = batch.samples.map((s): Sample => {
      if (s.type !== 'gps') return s;
      const lon = s.lon - mid + 180;
      return { ...s, lon: lon >= 180 ? lon - 360 : lon };
    });
    const geo = JSON.parse(routeGeoJson('trip_x', scoreTrip({ ...batch, samples })));
    const trace = geo.features.find((f: { properties: { kind: string } }) => f.properties.kind === 'gps-trace');
    expect(trace.geometry.type).toBe('MultiLineString');
    const parts = trace.geometry.coordinates as Array<Array<[number, number]>>;
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const part of parts) {
      for (let i = 1; i < part.length; i++) expect(Math.abs(part[i]![0] - part[i - 1]![0])).toBeLessThan(1);
    }
  });
});
