import { describe, expect, it } from 'vitest';
import { serialiseGraph } from '../graph/graph-file.ts';
import { route } from '../routing/route.ts';
import { generateCity } from './generate-city.ts';

describe('generateCity', () => {
  const city = generateCity({ seed: 42 });
  const edges = Array.from({ length: city.edgeCount }, (_, e) => city.edge(e));

  it('is deterministic for a seed and differs between seeds', () => {
    const strip = (bytes: Buffer) => bytes.toString('latin1').replace(/"builtAt":"[^"]+"/, '');
    expect(strip(serialiseGraph(generateCity({ seed: 42 })))).toBe(strip(serialiseGraph(city)));
    expect(strip(serialiseGraph(generateCity({ seed: 43 })))).not.toBe(strip(serialiseGraph(city)));
  });

  it('has the road classes of a small city, named streets, one-way streets and roundabouts', () => {
    const classes = new Set(edges.map((e) => e.highway));
    for (const c of ['motorway', 'motorway_link', 'trunk', 'primary', 'secondary', 'tertiary', 'residential']) {
      expect(classes).toContain(c);
    }
    expect(edges.some((e) => e.roundabout && e.oneway)).toBe(true);
    expect(edges.some((e) => e.highway === 'residential' && e.oneway)).toBe(true);
    expect(new Set(edges.filter((e) => e.highway === 'residential').map((e) => e.name)).size).toBeGreaterThan(5);
  });

  it('sets explicit and default limits, urban inside the ring and rural outside', () => {
    expect(edges.every((e) => e.speedLimitKmh !== null && e.limitSource !== 'unknown')).toBe(true);
    expect(edges.some((e) => e.limitSource === 'explicit' && e.speedLimitKmh === 30)).toBe(true);
    expect(edges.find((e) => e.highway === 'motorway')!.speedLimitKmh).toBe(130);
    expect(edges.find((e) => e.highway === 'trunk')!.urban).toBe(false);
    expect(edges.find((e) => e.highway === 'residential')!.urban).toBe(true);
  });

  it('has signals, stop and give-way signs', () => {
    const controls = new Set(Array.from({ length: city.nodeCount }, (_, n) => city.nodeControl(n)));
    expect(controls).toContain('signals');
    expect(controls).toContain('stop');
    expect(controls).toContain('give_way');
  });

  it('connects every part: the motorway can be reached from the grid and back', () => {
    const motorway = edges.find((e) => e.highway === 'motorway')!;
    const centre: [number, number] = [4.5, 45.5];
    const there = route(city, centre, motorway.coordinates[1]!);
    const back = route(city, motorway.coordinates[1]!, centre);
    expect(there?.segments.some((s) => s.highway === 'motorway_link')).toBe(true);
    expect(back?.segments.some((s) => s.highway === 'motorway_link')).toBe(true);
  });

  it('rejects a seed that is not an integer', () => {
    expect(() => generateCity({ seed: 1.5 })).toThrow(/seed must be an integer/);
  });
});
