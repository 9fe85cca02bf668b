import {
  expectedSpeedKmh,
  type LonLat,
  type MatchResult,
  type RoadGraph,
  type RouteResult,
  route,
  type TracePoint,
} from '../../src/index.ts';

/** Deterministic PRNG (mulberry32) so every synthetic trace is reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal deviate (Box-Muller). */
export function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

export interface DriveOptions {
  /** Seconds between fixes (1 for 1 Hz). */
  intervalS: number;
  /** Standard deviation of the GPS noise on each axis, metres. */
  noiseM: number;
  seed: number;
  /** Seconds to wait at each signal-controlled node passed (default 0). */
  signalStopS?: number;
  startTimeMs?: number;
}

export interface SyntheticTrace {
  points: TracePoint[];
  /** The edge the vehicle was really on at each fix. */
  truthEdges: number[];
  /** The vehicle's true velocity at each fix, east and north, m/s (0, 0 while it waits and at the last fix). */
  truthVelocityMps: [number, number][];
}

/**
 * Drives a route at the expected free-flow speed of each edge (waiting at signals if asked) and samples noisy fixes
 * every `intervalS` seconds, the way Mapzen and Newson-Krumm validate matchers: ground truth is the route itself.
 */
export function driveRoute(graph: RoadGraph, r: RouteResult, options: DriveOptions): SyntheticTrace {
  const random = seededRandom(options.seed);
  const { kx, ky } = { kx: 111_320 * Math.cos((r.coordinates[0]![1] * Math.PI) / 180), ky: 110_574 };
  const points: TracePoint[] = [];
  const truthEdges: number[] = [];
  const truthVelocityMps: [number, number][] = [];
  const t0 = options.startTimeMs ?? Date.UTC(2024, 0, 1, 8);
  let clockS = 0;
  let nextSampleS = 0;
  const emit = (edge: number, position: LonLat, velocityMps: [number, number] = [0, 0]) => {
    points.push({
      lon: position[0] + (gaussian(random) * options.noiseM) / kx,
      lat: position[1] + (gaussian(random) * options.noiseM) / ky,
      timeMs: t0 + Math.round(nextSampleS * 1000),
    });
    truthEdges.push(edge);
    truthVelocityMps.push(velocityMps);
    nextSampleS += options.intervalS;
  };
  r.segments.forEach((segment, k) => {
    const speedMps = expectedSpeedKmh(graph, segment.edge) / 3.6;
    const line = segment.coordinates;
    for (let i = 1; i < line.length; i++) {
      const a = line[i - 1]!;
      const b = line[i]!;
      const lengthM = Math.hypot((b[0] - a[0]) * kx, (b[1] - a[1]) * ky);
      const durationS = lengthM / speedMps;
      const velocity: [number, number] =
        lengthM > 0
          ? [(((b[0] - a[0]) * kx) / lengthM) * speedMps, (((b[1] - a[1]) * ky) / lengthM) * speedMps]
          : [0, 0];
      while (nextSampleS <= clockS + durationS) {
        const f = durationS > 0 ? (nextSampleS - clockS) / durationS : 0;
        emit(segment.edge, [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f], velocity);
      }
      clockS += durationS;
    }
    const next = r.segments[k + 1];
    if (next && options.signalStopS && graph.controlAhead(segment.edge) === 'signals') {
      const at = line[line.length - 1]!;
      while (nextSampleS <= clockS + options.signalStopS) emit(segment.edge, at);
      clockS += options.signalStopS;
    }
  });
  // Recorders log a last fix when the trip ends, so the whole route is observable.
  const last = r.segments[r.segments.length - 1]!;
  if (nextSampleS - options.intervalS < clockS - 0.5) {
    nextSampleS = clockS;
    emit(last.edge, last.coordinates[last.coordinates.length - 1]!);
  }
  return { points, truthEdges, truthVelocityMps };
}

export interface DopplerOptions {
  /** Standard deviation of the receiver's velocity error on each axis, m/s (about 0.15 for phone GNSS). */
  sigmaMps: number;
  seed: number;
  /** Below this reported speed the course is left out, as receivers do (default 0.5 m/s). */
  minCourseMps?: number;
}

/**
 * The same trace with each fix's Doppler speed and course, as a GNSS receiver reports them: the true velocity plus
 * independent Gaussian noise on each axis, so the course error grows as the speed falls (about 4 degrees at 2 m/s,
 * 1 at 10) and a vehicle standing still reports a small speed (0.19 m/s on average at 0.15 m/s per axis) and no
 * course. Its own random stream: the positions stay those of the trace given.
 */
export function withDoppler(trace: SyntheticTrace, options: DopplerOptions): SyntheticTrace {
  const random = seededRandom(options.seed);
  const minCourseMps = options.minCourseMps ?? 0.5;
  const points = trace.points.map((p, i) => {
    const [east, north] = trace.truthVelocityMps[i]!;
    const ve = east + gaussian(random) * options.sigmaMps;
    const vn = north + gaussian(random) * options.sigmaMps;
    const speedMps = Math.round(Math.hypot(ve, vn) * 100) / 100;
    // Built as literals of two fixed shapes, as a parser or the scoring engine builds its points: a spread copy
    // with a field added afterwards gave nearly every point its own object shape, and the matcher's reads of them
    // cost about a third of its throughput on the city's traces (roads README, "Accuracy and speed").
    const { lon, lat, timeMs } = p;
    if (speedMps < minCourseMps) return { lon, lat, timeMs, speedMps } as TracePoint;
    const course = Math.round((((Math.atan2(ve, vn) * 180) / Math.PI + 360) % 360) * 10) / 10;
    return { lon, lat, timeMs, speedMps, courseDeg: course >= 360 ? 0 : course } as TracePoint;
  });
  return { ...trace, points };
}

/** Random routes between graph nodes, fastest by time, with lengths in [minM, maxM]. */
export function randomRoutes(graph: RoadGraph, count: number, seed: number, minM = 1500, maxM = 8000): RouteResult[] {
  const random = seededRandom(seed);
  const routes: RouteResult[] = [];
  for (let attempt = 0; routes.length < count && attempt < count * 50; attempt++) {
    const a = graph.nodeLonLat(Math.floor(random() * graph.nodeCount));
    const b = graph.nodeLonLat(Math.floor(random() * graph.nodeCount));
    const r = route(graph, a, b);
    if (r && r.lengthM >= minM && r.lengthM <= maxM) routes.push(r);
  }
  return routes;
}

export interface Accuracy {
  /** Share of the true route's length on edges the matcher put in its path. */
  routeRecall: number;
  /** Share of the matched path's length on edges of the true route. */
  pathPrecision: number;
  /** Share of fixes matched to the edge they were really on. */
  pointAccuracy: number;
}

/** Compares a match with the route that produced the trace. */
export function accuracyOf(r: RouteResult, trace: SyntheticTrace, m: MatchResult): Accuracy {
  const truth = new Map<number, number>();
  for (const s of r.segments) truth.set(s.edge, (truth.get(s.edge) ?? 0) + s.lengthM);
  const matched = new Map<number, number>();
  for (const s of m.path) matched.set(s.edge, (matched.get(s.edge) ?? 0) + s.lengthM);
  let truthTotal = 0;
  let matchedTotal = 0;
  let common = 0;
  for (const [edge, length] of truth) {
    truthTotal += length;
    common += Math.min(length, matched.get(edge) ?? 0);
  }
  for (const length of matched.values()) matchedTotal += length;
  let right = 0;
  m.points.forEach((p, i) => {
    if (p.edge === trace.truthEdges[i]) right++;
  });
  return {
    routeRecall: truthTotal > 0 ? common / truthTotal : 1,
    pathPrecision: matchedTotal > 0 ? common / matchedTotal : 0,
    pointAccuracy: m.points.length > 0 ? right / m.points.length : 0,
  };
}
