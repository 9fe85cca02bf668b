import { beforeAll, describe, expect, it } from 'vitest';
import { generateCity, type MatchResult, matchTrace, type RoadGraph } from '../src/index.ts';
import { driveRoute, randomRoutes, type SyntheticTrace, withDoppler } from './support/synthetic-trace.ts';

/**
 * Vehicles that wait 20 s at each signal of the synthetic city and drive on, their fixes carrying the Doppler speed
 * and course a receiver reports (none while standing). Turning round where a vehicle stands is free in the matcher,
 * but only where the courses around the wait allow it: before, the decoder put 48 of the waits of these 40 routes a
 * few metres onto the reverse direction (or a cross street) and came back, each a U-turn pair in the matched path.
 */
type Run = { edges: number[]; trace: SyntheticTrace; m: MatchResult };

/** The 40 routes through the city, driven with 20 s signal waits, with or without Doppler speed and course. */
function cityRuns(graph: RoadGraph, motion: boolean): Run[] {
  return randomRoutes(graph, 40, 42, 1500, 10_000).map((route, i) => {
    const driven = driveRoute(graph, route, { intervalS: 1, noiseM: 10, seed: i + 1, signalStopS: 20 });
    const trace = motion ? withDoppler(driven, { sigmaMps: 0.15, seed: 1000 + i }) : driven;
    return { edges: route.edges, trace, m: matchTrace(graph, trace.points) };
  });
}

/**
 * The U-turn pairs of the matched paths (an edge followed by its reverse) that the route does not make, leaving out
 * those at a trace's end: a trace that ends standing has nothing after its last stop to say which way it faced.
 */
function uTurnsOnTheWay(graph: RoadGraph, runs: Run[]): string[] {
  const d = graph.data;
  const turns: string[] = [];
  runs.forEach(({ edges, trace, m }, r) => {
    const lastMoving = lastMovingFix(trace);
    for (let k = 1; k < m.path.length; k++) {
      const a = m.path[k - 1]!.edge;
      const b = m.path[k]!.edge;
      if (d.edgeFrom[a] !== d.edgeTo[b] || d.edgeTo[a] !== d.edgeFrom[b]) continue;
      if (edges.some((e, j) => j > 0 && e === b && edges[j - 1] === a)) continue; // the route itself turns there
      const onReverse = m.points.filter((p) => p.matched && p.edge === b).map((p) => p.index);
      if (onReverse.length > 0 && Math.min(...onReverse) > lastMoving) continue;
      turns.push(`route ${r}: edge ${a} then ${b}`);
    }
  });
  return turns;
}

describe('waiting at signals with speed and course', () => {
  let graph: RoadGraph;
  let runs: Run[] = [];
  beforeAll(() => {
    graph = generateCity({ seed: 1 });
    runs = cityRuns(graph, true);
  });

  it('has signal waits to test: the routes stop at many signals on the way', () => {
    let waits = 0;
    for (const { trace } of runs) {
      const lastMoving = lastMovingFix(trace);
      for (let i = 1; i < lastMoving; i++) {
        if ((trace.points[i]!.speedMps ?? 0) < 0.5 && (trace.points[i - 1]!.speedMps ?? 0) >= 0.5) waits++;
      }
    }
    expect(waits).toBeGreaterThan(100);
  });

  it('never turns round at a wait and comes back on the way', () => {
    expect(uTurnsOnTheWay(graph, runs)).toEqual([]);
  });

  it('drives no road twice where the route drives it once', () => {
    // Pulling away from a wait whose centroid lay past the stop line, the first moving fixes fall behind it:
    // stationary jitter for the decoder, and the path must not drive the road into the junction again.
    const twice: string[] = [];
    runs.forEach(({ edges, trace, m }, r) => {
      const driven = new Map<number, number>();
      // At the destination, where a trace ends standing, nothing after says which way the vehicle faced.
      const lastMoving = lastMovingFix(trace);
      for (const s of m.path) {
        if (s.fromPoint <= lastMoving) driven.set(s.edge, (driven.get(s.edge) ?? 0) + s.lengthM);
      }
      for (const [edge, metres] of driven) {
        const times = edges.filter((e) => e === edge).length;
        const allowed = Math.max(1, times) * graph.data.edgeLengthM[edge]! + 0.5;
        if (metres > allowed) twice.push(`route ${r}: edge ${edge} ${metres.toFixed(1)} of ${allowed.toFixed(1)} m`);
      }
    });
    expect(twice).toEqual([]);
  });

  it('puts the fixes standing at a signal on the road driven into it or out of it', () => {
    let standing = 0;
    let onRoute = 0;
    for (const { edges, trace, m } of runs) {
      const route = new Set(edges);
      const lastMoving = lastMovingFix(trace);
      for (let i = 0; i < lastMoving; i++) {
        if ((trace.points[i]!.speedMps ?? 0) >= 0.5) continue;
        standing++;
        const edge = m.points[i]!.edge;
        if (edge !== null && route.has(edge)) onRoute++;
      }
    }
    // 95.9 % of 3,585; 79.9 % with a free turn at every wait and the path driven again after jitter back (the
    // fixes then went to the reverse direction, to a cross street at the node, or to a spur the path took there).
    expect(onRoute / standing).toBeGreaterThan(0.93);
  });
});

/** The last fix of a trace where the vehicle really moved (it ends standing at its destination). */
function lastMovingFix(trace: SyntheticTrace): number {
  for (let i = trace.truthVelocityMps.length - 1; i >= 0; i--) {
    const [east, north] = trace.truthVelocityMps[i]!;
    if (east !== 0 || north !== 0) return i;
  }
  return -1;
}

/**
 * The same waits without speeds and courses (a GPX import): which way the vehicle faced before and after comes from
 * the positions alone, the fixes some 40 m before and after (`droveOnBetween`). Before, every transition could turn
 * round for free: 27 U-turn pairs on the way on these routes; now 8 (not looked at one by one).
 */
describe('waiting at signals, positions only', () => {
  let graph: RoadGraph;
  let runs: Run[] = [];
  beforeAll(() => {
    graph = generateCity({ seed: 1 });
    runs = cityRuns(graph, false);
  });

  it('turns round at few of the waits', () => {
    expect(uTurnsOnTheWay(graph, runs).length).toBeLessThanOrEqual(8);
  });
});
