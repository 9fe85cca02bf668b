import type { RoadGraph } from '../graph/road-graph.ts';
import { HIGHWAY_CLASSES, type HighwayClass, TYPICAL_SPEED_KMH } from '../highway-class.ts';

/**
 * Share of the legal limit drivers reach on average by road class (junctions, bends, traffic). It ranks routes
 * the way drivers choose them: a 50 km/h arterial beats a 50 km/h residential rat run.
 */
const FREE_FLOW_SHARE: Record<HighwayClass, number> = {
  motorway: 0.95,
  motorway_link: 0.8,
  trunk: 0.9,
  trunk_link: 0.75,
  primary: 0.85,
  primary_link: 0.7,
  secondary: 0.8,
  secondary_link: 0.7,
  tertiary: 0.75,
  tertiary_link: 0.65,
  unclassified: 0.65,
  residential: 0.55,
  living_street: 0.5,
  service: 0.4,
  road: 0.5,
};

/** Speed used on roads without a general limit (`maxspeed=none`), km/h. */
const UNLIMITED_CRUISE_KMH = 130;

const cache = new WeakMap<RoadGraph, { seconds: Float64Array; maxSpeedMps: number }>();

/** Expected driving speed on an edge in km/h: the limit (or the class's typical speed) times its free-flow share. */
export function expectedSpeedKmh(graph: RoadGraph, edge: number): number {
  const cls = HIGHWAY_CLASSES[graph.data.wayHighway[graph.data.edgeWay[edge]!]!] ?? 'road';
  const limit = graph.edgeUnlimited(edge)
    ? UNLIMITED_CRUISE_KMH
    : (graph.edgeSpeedLimitKmh(edge) ?? TYPICAL_SPEED_KMH[cls]);
  return Math.max(5, limit * FREE_FLOW_SHARE[cls]);
}

/** Per-edge expected travel time in seconds (cached per graph), and the fastest speed any edge allows. */
export function travelTimes(graph: RoadGraph): { seconds: Float64Array; maxSpeedMps: number } {
  let entry = cache.get(graph);
  if (!entry) {
    const seconds = new Float64Array(graph.edgeCount);
    let maxSpeedMps = 1;
    for (let e = 0; e < graph.edgeCount; e++) {
      const mps = expectedSpeedKmh(graph, e) / 3.6;
      seconds[e] = graph.data.edgeLengthM[e]! / mps;
      if (mps > maxSpeedMps) maxSpeedMps = mps;
    }
    entry = { seconds, maxSpeedMps };
    cache.set(graph, entry);
  }
  return entry;
}
