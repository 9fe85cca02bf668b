import { isValidLonLat, metresPerDegree } from '../geo.ts';
import { appendLine, edgeOffsetOfGeometryOffset, sliceEdge } from '../graph/edge-geometry.ts';
import type { RoadGraph } from '../graph/road-graph.ts';
import { type GeometryHit, roadsNear } from '../spatial/nearby-roads.ts';
import type { LimitSource, LonLat, NodeControl } from '../types.ts';
import { PathSearch, type Seed } from './path-search.ts';
import { travelTimes } from './travel-time.ts';

/** One edge (or the driven part of it) along a route or a matched path. */
export interface RouteSegment {
  edge: number;
  wayId: number;
  name: string | null;
  ref: string | null;
  highway: string;
  speedLimitKmh: number | null;
  limitSource: LimitSource;
  unlimited: boolean;
  urban: boolean;
  lengthM: number;
  coordinates: LonLat[];
}

/** A traffic control the route passes, at the node where it applies. */
export interface RouteControl {
  node: number;
  control: NodeControl;
  position: LonLat;
  /** Distance from the route's start to the node, metres. */
  distanceM: number;
}

export interface RouteResult {
  /** Directed edges in driving order (the first and last may be driven partly). */
  edges: number[];
  coordinates: LonLat[];
  lengthM: number;
  /** Expected driving time at free-flow speed (see `expectedSpeedKmh`), seconds. */
  durationS: number;
  segments: RouteSegment[];
  controls: RouteControl[];
  /** Where the requested end points were snapped to, and how far they were from the road. */
  start: { position: LonLat; distanceM: number };
  end: { position: LonLat; distanceM: number };
}

export interface RouteOptions {
  /** What to minimise: expected driving time (default) or distance. */
  weight?: 'time' | 'distance';
  /** How far from a road the end points may be, metres (default 1000). */
  maxSnapDistanceM?: number;
}

/** A position on a directed edge. */
interface EdgePosition {
  edge: number;
  offsetM: number;
}

const searches = new WeakMap<RoadGraph, PathSearch>();

/** One reusable search state per graph (routing is synchronous, so sharing it is safe). */
export function pathSearchFor(graph: RoadGraph): PathSearch {
  let search = searches.get(graph);
  if (!search) {
    search = new PathSearch(graph);
    searches.set(graph, search);
  }
  return search;
}

/** Nearest road to a point within `maxDistanceM`, searching outwards so close points stay cheap. */
export function snapToRoad(graph: RoadGraph, point: LonLat, maxDistanceM: number): GeometryHit | null {
  const { kx, ky } = metresPerDegree(point[1]);
  for (let radius = Math.min(50, maxDistanceM); ; radius = Math.min(radius * 4, maxDistanceM)) {
    const hits = roadsNear(graph, point[0], point[1], radius, kx, ky);
    if (hits.length > 0) return hits[0]!;
    if (radius >= maxDistanceM) return null;
  }
}

function positionsOn(graph: RoadGraph, hit: GeometryHit): EdgePosition[] {
  const out: EdgePosition[] = [];
  for (const edge of [graph.data.geomForward[hit.geom]!, graph.data.geomBackward[hit.geom]!]) {
    if (edge >= 0) out.push({ edge, offsetM: edgeOffsetOfGeometryOffset(graph, edge, hit.offsetM) });
  }
  return out;
}

/** Builds the segments, geometry and controls of a path of edges driven from `startM` on the first to `endM` on the last. */
export function describePath(
  graph: RoadGraph,
  edges: readonly number[],
  startM: number,
  endM: number,
): { segments: RouteSegment[]; coordinates: LonLat[]; lengthM: number; controls: RouteControl[] } {
  const segments: RouteSegment[] = [];
  const coordinates: LonLat[] = [];
  const controls: RouteControl[] = [];
  let lengthM = 0;
  edges.forEach((edge, i) => {
    const from = i === 0 ? startM : 0;
    const to = i === edges.length - 1 ? endM : graph.data.edgeLengthM[edge]!;
    const part = sliceEdge(graph, edge, from, to);
    const driven = Math.max(0, Math.min(to, graph.data.edgeLengthM[edge]!) - Math.max(from, 0));
    if (i > 0) {
      const node = graph.data.edgeFrom[edge]!;
      // What this route's vehicle must obey there (a sign for the crossing road is not on its way).
      const control = graph.controlAhead(edges[i - 1]!);
      if (control) controls.push({ node, control, position: graph.nodeLonLat(node), distanceM: lengthM });
    }
    lengthM += driven;
    appendLine(coordinates, part);
    segments.push({
      edge,
      wayId: graph.edgeWayId(edge),
      name: graph.edgeName(edge),
      ref: graph.edgeRef(edge),
      highway: graph.edgeHighway(edge),
      speedLimitKmh: graph.edgeSpeedLimitKmh(edge),
      limitSource: graph.edgeLimitSource(edge),
      unlimited: graph.edgeUnlimited(edge),
      urban: graph.edgeUrban(edge),
      lengthM: driven,
      coordinates: part,
    });
  });
  return { segments, coordinates, lengthM, controls };
}

/**
 * The fastest (default) or shortest driving route between two points, each snapped to the nearest road, obeying
 * one-way streets. Returns null when either point is too far from a road or no route connects them.
 */
export function route(graph: RoadGraph, from: LonLat, to: LonLat, options: RouteOptions = {}): RouteResult | null {
  for (const [name, p] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!Array.isArray(p) || !isValidLonLat(p[0], p[1])) {
      throw new RangeError(`route: ${name} must be [lon, lat] within range, got ${JSON.stringify(p)}`);
    }
  }
  const maxSnap = options.maxSnapDistanceM ?? 1000;
  const a = snapToRoad(graph, from, maxSnap);
  const b = snapToRoad(graph, to, maxSnap);
  if (!a || !b) return null;
  const byTime = (options.weight ?? 'time') === 'time';
  const { seconds, maxSpeedMps } = travelTimes(graph);
  const weights = byTime ? seconds : graph.data.edgeLengthM;
  const share = (edge: number, metres: number) =>
    (weights[edge]! * metres) / Math.max(graph.data.edgeLengthM[edge]!, 1e-9);

  const starts = positionsOn(graph, a);
  const ends = positionsOn(graph, b);
  let best: { cost: number; edges: number[]; startM: number; endM: number } | null = null;

  // Both points on the same edge, the end ahead of the start: no search needed.
  for (const s of starts) {
    for (const e of ends) {
      if (s.edge === e.edge && e.offsetM >= s.offsetM) {
        const cost = share(s.edge, e.offsetM - s.offsetM);
        if (!best || cost < best.cost) best = { cost, edges: [s.edge], startM: s.offsetM, endM: e.offsetM };
      }
    }
  }

  const search = pathSearchFor(graph);
  const seeds: Seed[] = starts.map((s) => ({
    node: graph.data.edgeTo[s.edge]!,
    cost: share(s.edge, graph.data.edgeLengthM[s.edge]! - s.offsetM),
  }));
  const goals = [...new Set(ends.map((e) => graph.data.edgeFrom[e.edge]!))];
  const { kx, ky } = metresPerDegree(to[1]);
  const [tx, ty] = [b.lon, b.lat];
  const heuristic = (node: number) => {
    const metres = Math.hypot((graph.data.nodeLon[node]! - tx) * kx, (graph.data.nodeLat[node]! - ty) * ky);
    // Under-estimate slightly so cheap-ruler's approximation never makes the heuristic inadmissible.
    return (byTime ? metres / maxSpeedMps : metres) * 0.99;
  };
  search.run(seeds, weights, Infinity, goals, heuristic);
  for (const e of ends) {
    const node = graph.data.edgeFrom[e.edge]!;
    const reach = search.costTo(node);
    if (reach === Infinity) continue;
    const cost = reach + share(e.edge, e.offsetM);
    if (best && cost >= best.cost) continue;
    const middle = search.edgesTo(node);
    // The seed that the path starts from is the edge whose end node begins the middle part.
    const first = middle.length > 0 ? graph.data.edgeFrom[middle[0]!]! : node;
    const start = starts
      .filter((s) => graph.data.edgeTo[s.edge] === first)
      .sort(
        (x, y) =>
          share(x.edge, graph.data.edgeLengthM[x.edge]! - x.offsetM) -
          share(y.edge, graph.data.edgeLengthM[y.edge]! - y.offsetM),
      )[0];
    if (!start) continue;
    best = { cost, edges: [start.edge, ...middle, e.edge], startM: start.offsetM, endM: e.offsetM };
  }
  if (!best) return null;

  const described = describePath(graph, best.edges, best.startM, best.endM);
  let durationS = 0;
  described.segments.forEach((s) => {
    durationS += (seconds[s.edge]! * s.lengthM) / Math.max(graph.data.edgeLengthM[s.edge]!, 1e-9);
  });
  return {
    edges: best.edges,
    coordinates: described.coordinates,
    lengthM: described.lengthM,
    durationS,
    segments: described.segments,
    controls: described.controls,
    start: { position: [a.lon, a.lat], distanceM: a.distanceM },
    end: { position: [b.lon, b.lat], distanceM: b.distanceM },
  };
}
