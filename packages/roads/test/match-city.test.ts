import { describe, expect, it } from 'vitest';
import { generateCity, matchTrace, type RoadGraph, route, type TracePoint } from '../src/index.ts';
import { accuracyOf, driveRoute, gaussian, randomRoutes, seededRandom } from './support/synthetic-trace.ts';

const city: RoadGraph = generateCity({ seed: 1 });

/** Length-weighted recall and precision of matches of traces driven along random routes. */
function evaluate(intervalS: number, count: number, minM: number, signalStopS: number) {
  const routes = randomRoutes(city, count, 42, minM, 8000);
  let length = 0;
  let recall = 0;
  let precision = 0;
  routes.forEach((r, i) => {
    const trace = driveRoute(city, r, { intervalS, noiseM: 10, seed: i + 1, signalStopS });
    const accuracy = accuracyOf(r, trace, matchTrace(city, trace.points));
    length += r.lengthM;
    recall += accuracy.routeRecall * r.lengthM;
    precision += accuracy.pathPrecision * r.lengthM;
  });
  return { routes: routes.length, recall: recall / length, precision: precision / length };
}

describe('matching traces through the synthetic city (sigma 10 m GPS noise)', () => {
  it('puts at least 98 % of the route length on the right edges at 1 Hz, waiting at signals', () => {
    const { routes, recall, precision } = evaluate(1, 12, 1500, 20);
    expect(routes).toBe(12);
    expect(recall).toBeGreaterThanOrEqual(0.98);
    expect(precision).toBeGreaterThanOrEqual(0.95);
  });

  it('puts at least 95 % of the route length on the right edges at one fix per 30 s', () => {
    const { routes, recall } = evaluate(30, 12, 3000, 20);
    expect(routes).toBe(12);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });
});

describe('trace behaviours', () => {
  const [r] = randomRoutes(city, 1, 7, 2500, 6000);
  const base = driveRoute(city, r!, { intervalS: 1, noiseM: 5, seed: 3 });

  it('matches every fix of a clean trace and reports where and how sure', () => {
    const result = matchTrace(city, base.points);
    expect(result.matchedShare).toBeGreaterThan(0.99);
    expect(result.subTraces).toHaveLength(1);
    for (const p of result.points) {
      expect(p.matched).toBe(true);
      expect(p.snapped).not.toBeNull();
      expect(p.confidence).toBeGreaterThan(0);
      expect(p.confidence).toBeLessThanOrEqual(1);
      expect(p.speedLimitKmh).not.toBeNull();
      expect(p.distanceM).toBeLessThan(30);
    }
    // The path is made of consecutive segments: each starts where the previous ended.
    for (let i = 1; i < result.path.length; i++) {
      const before = result.path[i - 1]!.coordinates.at(-1)!;
      const after = result.path[i]!.coordinates[0]!;
      expect(Math.abs(before[0] - after[0]) + Math.abs(before[1] - after[1])).toBeLessThan(1e-4);
    }
  });

  it('gives duplicate fixes the match of the fix they repeat', () => {
    const points = base.points.flatMap((p, i) => (i % 10 === 0 ? [p, { ...p }, { ...p }] : [p]));
    const result = matchTrace(city, points);
    expect(result.points).toHaveLength(points.length);
    for (let i = 1; i < points.length; i++) {
      if (points[i]!.lon === points[i - 1]!.lon && points[i]!.lat === points[i - 1]!.lat) {
        expect(result.points[i]!.edge).toBe(result.points[i - 1]!.edge);
        expect(result.points[i]!.snapped).toEqual(result.points[i - 1]!.snapped);
      }
    }
    expect(result.matchedShare).toBeGreaterThan(0.99);
  });

  it('drops a position jump as an outlier and keeps the drive in one piece', () => {
    const points = base.points.map((p) => ({ ...p }));
    const k = Math.floor(points.length / 2);
    points[k] = { ...points[k]!, lon: points[k]!.lon + 0.004 }; // about 300 m east, one second later
    const result = matchTrace(city, points);
    expect(result.points[k]!.matched).toBe(false);
    expect(['outlier', 'no-road']).toContain(result.points[k]!.reason);
    expect(result.subTraces).toHaveLength(1);
    expect(result.points.filter((p) => p.matched)).toHaveLength(points.length - 1);
  });

  it('splits the trace at a gap of more than 60 s', () => {
    const k = Math.floor(base.points.length / 2);
    const points = base.points.map((p, i) => (i >= k ? { ...p, timeMs: p.timeMs! + 120_000 } : p));
    const result = matchTrace(city, points);
    expect(result.subTraces).toHaveLength(2);
    expect(result.subTraces[1]!.fromPoint).toBe(k);
    expect(result.path.some((s) => s.subTrace === 1)).toBe(true);
  });

  it('stays on the road while the vehicle waits at a junction', () => {
    const waitAt = base.points[Math.floor(base.points.length / 3)]!;
    const random = seededRandom(11);
    const kx = 111_320 * Math.cos((waitAt.lat * Math.PI) / 180);
    const wait: TracePoint[] = Array.from({ length: 90 }, (_, i) => ({
      lon: waitAt.lon + (gaussian(random) * 10) / kx,
      lat: waitAt.lat + (gaussian(random) * 10) / 110_574,
      timeMs: waitAt.timeMs! + (i + 1) * 1000,
    }));
    const k = base.points.indexOf(waitAt);
    const points = [
      ...base.points.slice(0, k + 1),
      ...wait,
      ...base.points.slice(k + 1).map((p) => ({ ...p, timeMs: p.timeMs! + 90_000 })),
    ];
    const still = matchTrace(city, points);
    const moving = matchTrace(city, base.points);
    const length = (m: typeof still) => m.path.reduce((sum, s) => sum + s.lengthM, 0);
    // Waiting adds no driving: the matched path is as long as without the wait, give or take a few metres.
    expect(Math.abs(length(still) - length(moving))).toBeLessThan(40);
    expect(still.subTraces).toHaveLength(1);
  });

  it('reads each fix of a long standstill a bounded number of times (no quadratic stop detection)', () => {
    // Two hours parked with the logger on: 7,200 jittering 1 Hz fixes (3 m noise) at one place.
    const at = base.points[0]!;
    const random = seededRandom(5);
    const kx = 111_320 * Math.cos((at.lat * Math.PI) / 180);
    const parked: TracePoint[] = Array.from({ length: 7200 }, (_, i) => ({
      lon: at.lon + (gaussian(random) * 3) / kx,
      lat: at.lat + (gaussian(random) * 3) / 110_574,
      timeMs: at.timeMs! + i * 1000,
    }));
    let reads = 0;
    const counted = new Proxy(parked, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const result = matchTrace(city, counted);
    expect(result.points.every((p) => p.matched)).toBe(true);
    expect(result.subTraces).toHaveLength(1);
    expect(reads / parked.length).toBeLessThan(100);
  });

  it("keeps a fix that falls back along a one-way road by the two fixes' combined error, not dropping it", () => {
    // A long straight one-way carriageway, driven at 50 km/h; fixes on the road line, two of them with
    // along-track errors of 2.4 and 2.2 sigma in opposite directions: the second lands 32 m behind the first.
    let edge = -1;
    for (let e = 0; e < city.edgeCount && edge < 0; e++) {
      if (city.edge(e).oneway && city.edgeLengthM(e) > 1000) edge = e;
    }
    expect(edge).toBeGreaterThanOrEqual(0);
    const errorM = new Map([
      [10, 24],
      [11, -22],
    ]);
    const points: TracePoint[] = Array.from({ length: 30 }, (_, i) => {
      const [lon, lat] = city.edgePointAt(edge, 100 + 14 * i + (errorM.get(i) ?? 0));
      return { lon, lat, timeMs: Date.UTC(2024, 0, 1, 8) + i * 1000 };
    });
    const result = matchTrace(city, points);
    expect(result.points[11]).toMatchObject({ matched: true, edge });
    expect(result.points.every((p) => p.matched && p.edge === edge)).toBe(true);
    expect(result.subTraces).toHaveLength(1);
  });

  it('follows a U-turn in the middle of a street', () => {
    // Drive 120 m along a long street, turn, drive back.
    const edge =
      base.points.length > 0
        ? matchTrace(city, base.points).path.find((s) => s.lengthM > 140 && s.highway !== 'motorway')!
        : null;
    expect(edge).not.toBeNull();
    const there = city.edgeCoordinates(edge!.edge);
    const from = there[0]!;
    const to = city.edgePointAt(edge!.edge, 120);
    const out = route(city, from, to)!;
    const back = route(city, to, from)!;
    expect(city.edgeReverse(edge!.edge)).toBeGreaterThanOrEqual(0);
    const a = driveRoute(city, out, { intervalS: 1, noiseM: 5, seed: 5 });
    const b = driveRoute(city, back, {
      intervalS: 1,
      noiseM: 5,
      seed: 6,
      startTimeMs: a.points.at(-1)!.timeMs! + 5000,
    });
    const result = matchTrace(city, [...a.points, ...b.points]);
    const edges = new Set(result.path.map((s) => s.edge));
    expect(edges.has(edge!.edge)).toBe(true);
    expect(edges.has(city.edgeReverse(edge!.edge))).toBe(true);
    expect(result.matchedShare).toBeGreaterThan(0.95);
  });

  it('follows a loop around a block and back to the start', () => {
    const start = base.points[0]!;
    const result0 = matchTrace(city, base.points);
    const mid = result0.points[Math.floor(base.points.length / 4)]!.snapped!;
    const go = route(city, [start.lon, start.lat], mid)!;
    const ret = route(city, mid, [start.lon, start.lat])!;
    const a = driveRoute(city, go, { intervalS: 1, noiseM: 8, seed: 8 });
    const b = driveRoute(city, ret, { intervalS: 1, noiseM: 8, seed: 9, startTimeMs: a.points.at(-1)!.timeMs! + 1000 });
    const result = matchTrace(city, [...a.points, ...b.points]);
    const drivenM = result.path.reduce((sum, s) => sum + s.lengthM, 0);
    expect(drivenM).toBeGreaterThan(0.95 * (go.lengthM + ret.lengthM));
    expect(drivenM).toBeLessThan(1.05 * (go.lengthM + ret.lengthM));
  });

  it('reports fixes far from any road as unmatched', () => {
    const points = [
      { lon: 4.0, lat: 46.0, timeMs: 0 },
      { lon: 4.0001, lat: 46.0, timeMs: 1000 },
    ];
    const result = matchTrace(city, points);
    expect(result.matchedShare).toBe(0);
    expect(result.points.every((p) => !p.matched && p.reason === 'no-road')).toBe(true);
  });

  it('returns an empty match for an empty trace', () => {
    expect(matchTrace(city, [])).toMatchObject({ matchedShare: 0, path: [], points: [], subTraces: [] });
  });

  it('rejects NaN, out-of-range coordinates and time going backwards, naming the point', () => {
    expect(() => matchTrace(city, [{ lon: 4.5, lat: Number.NaN }])).toThrow(
      /point 0 has invalid coordinates lon=4.5 lat=NaN/,
    );
    expect(() =>
      matchTrace(city, [
        { lon: 4.5, lat: 45.5 },
        { lon: 200, lat: 45.5 },
      ]),
    ).toThrow(/point 1 has invalid coordinates/);
    expect(() =>
      matchTrace(city, [
        { lon: 4.5, lat: 45.5, timeMs: 2000 },
        { lon: 4.5, lat: 45.5, timeMs: 1000 },
      ]),
    ).toThrow(/time goes backwards at point 1/);
    expect(() => matchTrace(city, base.points, { sigmaM: -1 })).toThrow(/option sigmaM must be a positive number/);
  });
});
