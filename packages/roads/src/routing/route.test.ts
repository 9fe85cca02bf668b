import { describe, expect, it } from 'vitest';
import { generateCity } from '../synthetic/generate-city.ts';
import { route } from './route.ts';

const city = generateCity({ seed: 2 });

describe('route', () => {
  const from: [number, number] = [4.489, 45.492];
  const to: [number, number] = [4.512, 45.508];

  it('returns a connected route whose parts add up', () => {
    const r = route(city, from, to)!;
    expect(r).not.toBeNull();
    expect(r.edges.length).toBeGreaterThan(3);
    const sum = r.segments.reduce((s, seg) => s + seg.lengthM, 0);
    expect(r.lengthM).toBeCloseTo(sum, 6);
    for (let i = 1; i < r.edges.length; i++) expect(city.edgeFrom(r.edges[i]!)).toBe(city.edgeTo(r.edges[i - 1]!));
    expect(r.durationS).toBeGreaterThan(r.lengthM / 40);
    expect(r.segments.every((s) => s.speedLimitKmh !== null && s.limitSource !== 'unknown')).toBe(true);
    expect(r.start.distanceM).toBeLessThan(200);
  });

  it('lists the traffic controls at the nodes it passes, in order of distance', () => {
    const r = route(city, from, to)!;
    expect(r.controls.length).toBeGreaterThan(0);
    for (let i = 1; i < r.controls.length; i++)
      expect(r.controls[i]!.distanceM).toBeGreaterThanOrEqual(r.controls[i - 1]!.distanceM);
    for (const c of r.controls) expect(city.nodeControl(c.node)).toBe(c.control);
  });

  it('never drives a one-way street against its direction', () => {
    for (let k = 0; k < 20; k++) {
      const a = city.nodeLonLat((k * 37) % city.nodeCount);
      const b = city.nodeLonLat((k * 91 + 13) % city.nodeCount);
      const r = route(city, a, b);
      if (!r) continue;
      for (const e of r.edges) expect(e).toBeLessThan(city.edgeCount);
    }
    // Every directed edge of a one-way street exists in one direction only, so a route can only use it that way.
    let oneway = 0;
    for (let e = 0; e < city.edgeCount; e++) if (city.edgeOneway(e)) oneway++;
    expect(oneway).toBeGreaterThan(0);
  });

  it('prefers the faster road by default and the shorter one when asked', () => {
    const fastest = route(city, from, to)!;
    const shortest = route(city, from, to, { weight: 'distance' })!;
    expect(shortest.lengthM).toBeLessThanOrEqual(fastest.lengthM + 1e-6);
    expect(fastest.durationS).toBeLessThanOrEqual(shortest.durationS + 1e-6);
  });

  it('returns null when a point is too far from any road, and rejects invalid points', () => {
    expect(route(city, [10, 10], to)).toBeNull();
    expect(() => route(city, [Number.NaN, 45], to)).toThrow(/route: from must be \[lon, lat\]/);
  });
});
