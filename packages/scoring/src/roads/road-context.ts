import {
  type MatchOptions,
  type MatchResult,
  matchTrace,
  type NodeControl,
  type RoadGraph,
  type TracePoint,
} from '@svc/roads';
import { angleDiffDeg, bearingDeg, eastM } from '../geo.ts';
import type { LonLat } from '../result.ts';
import type { Track } from '../track/track.ts';

/** Road attributes of one matched edge, cached per trip. */
export interface EdgeInfo {
  highway: string;
  /** NaN when unknown; Infinity where there is no general limit. */
  limitKmh: number;
  urban: boolean;
  oneway: boolean;
  roundabout: boolean;
  lanes: number;
  unpaved: boolean;
  link: boolean;
  motorway: boolean;
  /** The edge driving the same road the other way, or -1 for a one-way road. */
  reverseEdge: number;
}

/** A road node passed during the trip. */
export interface NodePass {
  /** Grid second nearest to the node. */
  second: number;
  node: number;
  control: NodeControl | null;
  /**
   * Roads meeting at the node, whichever way they may be driven: a two-way road counts once, a one-way road
   * once whether it leads in or out (`incidentRoadCounts`). Three or more: a junction; two: a road that merely
   * continues (a way split where a name or limit changes, a signalled crossing, a bend).
   */
  roads: number;
  /**
   * Three or more roads meet at the node (`roads >= JUNCTION_MIN_ROADS`): the one definition of a junction for
   * every junction factor (`junctionDensity`, `phoneUseNearJunctions`, `turnEntrySpeedRatio`). Until model
   * 1.1.2 the first two asked for three or more edges *leaving* the node, which missed one-way roads leading in.
   */
  junction: boolean;
}

/** The trip's road context on the 1 s grid: which edge each second was on and what that road is like. */
export interface RoadContext {
  /** True when the trip was matched to a road network (enough of its length). */
  matched: boolean;
  matchedShare: number;
  /** Matched edge per grid second, -1 when unmatched. */
  edge: Int32Array;
  /** Offset along the matched edge, metres. */
  offsetM: Float64Array;
  edges: Map<number, EdgeInfo>;
  nodePasses: NodePass[];
  /** The matched path as lines, one per matched sub-trace. */
  matchedPath: LonLat[][];
  /** Radius of the road's curve at each matched second, metres (Infinity on straight road). */
  curveRadiusM: Float64Array;
  /** Bearing of the matched road in driving direction at each second, degrees (NaN when unmatched). */
  roadBearingDeg: Float64Array;
}

/** A node is a junction where at least this many roads meet (`NodePass.roads`). */
export const JUNCTION_MIN_ROADS = 3;
/** A trip counts as map-matched when at least this share of its length matched. */
export const MIN_MATCHED_SHARE = 0.6;
const UNPAVED = new Set([
  'unpaved',
  'gravel',
  'dirt',
  'ground',
  'earth',
  'grass',
  'sand',
  'mud',
  'fine_gravel',
  'compacted',
]);
const CURVE_HALF_WINDOW_M = 20;

const incidentRoadCache = new WeakMap<RoadGraph, Uint16Array>();

/**
 * Per node of the graph, how many roads meet there: undirected, so a two-way road's two directed edges count
 * once and a one-way road counts at both its ends. One pass over the edges, once per graph. Out-edges alone
 * miss one-way roads leading in: a crossing of two one-way streets has two out-edges but four roads.
 */
export function incidentRoadCounts(graph: RoadGraph): Uint16Array {
  let roads = incidentRoadCache.get(graph);
  if (!roads) {
    const { edgeFrom, edgeTo, edgeReverse } = graph.data;
    roads = new Uint16Array(graph.nodeCount);
    for (let e = 0; e < graph.edgeCount; e++) {
      const from = edgeFrom[e]!;
      const to = edgeTo[e]!;
      if (roads[from]! < 0xffff) roads[from]!++;
      // A two-way road's other direction is counted as an out-edge of `to`; a one-way road only here.
      if (edgeReverse[e]! < 0 && roads[to]! < 0xffff) roads[to]!++;
    }
    incidentRoadCache.set(graph, roads);
  }
  return roads;
}

/** The context of a trip that was not matched (no graph, or no road near it). */
export function unmatchedContext(n: number, matchedShare = 0): RoadContext {
  return {
    matched: false,
    matchedShare,
    edge: new Int32Array(n).fill(-1),
    offsetM: new Float64Array(n).fill(Number.NaN),
    edges: new Map(),
    nodePasses: [],
    matchedPath: [],
    curveRadiusM: new Float64Array(n).fill(Number.NaN),
    roadBearingDeg: new Float64Array(n).fill(Number.NaN),
  };
}

/** Map-matches the track's measured grid points and derives the per-second road context. */
export function buildRoadContext(graph: RoadGraph, track: Track, matchOptions: MatchOptions = {}): RoadContext {
  const n = track.n;
  const gridOf: number[] = [];
  const points: TracePoint[] = [];
  // A measured speed (Doppler or OBD) lets the matcher tell a stop from a vehicle creeping or turning round
  // slowly, and the heading one carriageway from the other; smoothed from the positions they carry the
  // positions' noise, so the matcher judges by positions then.
  const measuredSpeed = track.speedSource !== 'gps-position';
  for (let i = 0; i < n; i++) {
    if (track.gap[i]) continue;
    gridOf.push(i);
    const point: TracePoint = { lon: track.lon[i]!, lat: track.lat[i]!, timeMs: track.tMs[i]! };
    if (measuredSpeed && Number.isFinite(track.speedMps[i])) {
      point.speedMps = Math.max(0, track.speedMps[i]!);
      if (Number.isFinite(track.headingDeg[i])) point.courseDeg = track.headingDeg[i]!;
    }
    points.push(point);
  }
  if (points.length < 2) return unmatchedContext(n);
  const result: MatchResult = matchTrace(graph, points, matchOptions);
  const context = unmatchedContext(n, result.matchedShare);
  context.matched = result.matchedShare >= MIN_MATCHED_SHARE;
  const edgeInfo = (e: number): EdgeInfo => {
    let info = context.edges.get(e);
    if (!info) {
      const edge = graph.edge(e);
      info = {
        highway: edge.highway,
        limitKmh: edge.unlimited ? Number.POSITIVE_INFINITY : (edge.speedLimitKmh ?? Number.NaN),
        urban: edge.urban,
        oneway: edge.oneway,
        roundabout: edge.roundabout,
        lanes: edge.lanes ?? 1,
        unpaved: edge.surface !== null && UNPAVED.has(edge.surface),
        link: edge.highway.endsWith('_link'),
        motorway: edge.highway === 'motorway' || edge.highway === 'trunk',
        reverseEdge: edge.reverseEdge ?? -1,
      };
      context.edges.set(e, info);
    }
    return info;
  };
  const geometry = new EdgeGeometryCache(graph);
  const incident = incidentRoadCounts(graph);
  for (let k = 0; k < result.points.length; k++) {
    const p = result.points[k]!;
    if (!p.matched || p.edge === null) continue;
    const i = gridOf[k]!;
    context.edge[i] = p.edge;
    context.offsetM[i] = p.offsetM ?? 0;
    edgeInfo(p.edge);
    const curve = geometry.at(p.edge, p.offsetM ?? 0);
    context.curveRadiusM[i] = curve.radiusM;
    context.roadBearingDeg[i] = curve.bearingDeg;
  }
  // Short gaps inside one edge inherit it, so per-second road shares do not lose the bridged seconds.
  for (let i = 1; i < n - 1; i++) {
    if (context.edge[i] !== -1 || !track.gap[i] || track.broken[i]) continue;
    let j = i;
    while (j < n && context.edge[j] === -1 && track.gap[j]) j++;
    if (j < n && i > 0 && context.edge[i - 1] === context.edge[j] && context.edge[j] !== -1) {
      for (let k = i; k < j; k++) context.edge[k] = context.edge[j]!;
    }
    i = j;
  }
  // Nodes passed: between consecutive path segments of one sub-trace on different edges.
  const path = result.path;
  let line: LonLat[] = [];
  for (let s = 0; s < path.length; s++) {
    const seg = path[s]!;
    const prev = s > 0 ? path[s - 1]! : undefined;
    if (!prev || prev.subTrace !== seg.subTrace) {
      if (line.length > 1) context.matchedPath.push(line);
      line = [];
    }
    for (const c of seg.coordinates) {
      const last = line[line.length - 1];
      if (!last || last[0] !== c[0] || last[1] !== c[1]) line.push(c);
    }
    edgeInfo(seg.edge);
    if (prev && prev.subTrace === seg.subTrace && prev.edge !== seg.edge) {
      const node = graph.edgeTo(prev.edge);
      const [lon, lat] = graph.nodeLonLat(node);
      const from = gridOf[prev.fromPoint] ?? 0;
      const to = gridOf[Math.min(seg.toPoint, gridOf.length - 1)] ?? n - 1;
      const nx = eastM(track.projection, lon);
      const ny = (lat - track.projection.lat0) * track.projection.ky;
      let best = from;
      let bestD = Number.POSITIVE_INFINITY;
      for (let i = from; i <= to && i < n; i++) {
        const d = Math.hypot(track.xM[i]! - nx, track.yM[i]! - ny);
        if (d < bestD) {
          bestD = d;
          best = i;
        }
      }
      const roads = incident[node]!;
      context.nodePasses.push({
        second: best,
        node,
        // What the vehicle had to obey there, arriving on prev.edge: a sign for the crossing minor road, or on
        // the other side of the road, is not one it passed (RoadGraph.controlAhead).
        control: graph.controlAhead(prev.edge),
        roads,
        junction: roads >= JUNCTION_MIN_ROADS,
      });
    }
  }
  if (line.length > 1) context.matchedPath.push(line);
  return context;
}

/** Bearing and curve radius of edge geometry at an offset, from the heading change over +-20 m. */
class EdgeGeometryCache {
  private readonly cache = new Map<number, { cum: Float64Array; bearing: Float64Array }>();
  constructor(private readonly graph: RoadGraph) {}

  private shape(edge: number) {
    let s = this.cache.get(edge);
    if (!s) {
      const coords = this.graph.edgeCoordinates(edge);
      const m = Math.max(1, coords.length - 1);
      const cum = new Float64Array(m + 1);
      const bearing = new Float64Array(m);
      const lat0 = coords[0]?.[1] ?? 0;
      const kx = 111_320 * Math.cos((lat0 * Math.PI) / 180);
      const ky = 110_574;
      for (let k = 0; k < coords.length - 1; k++) {
        const dx = (coords[k + 1]![0] - coords[k]![0]) * kx;
        const dy = (coords[k + 1]![1] - coords[k]![1]) * ky;
        cum[k + 1] = cum[k]! + Math.hypot(dx, dy);
        bearing[k] = bearingDeg(dx, dy);
      }
      s = { cum, bearing };
      this.cache.set(edge, s);
    }
    return s;
  }

  private bearingAt(s: { cum: Float64Array; bearing: Float64Array }, offsetM: number): number {
    const { cum, bearing } = s;
    let k = 0;
    while (k < bearing.length - 1 && cum[k + 1]! < offsetM) k++;
    return bearing[k] ?? 0;
  }

  at(edge: number, offsetM: number): { radiusM: number; bearingDeg: number } {
    const s = this.shape(edge);
    const length = s.cum[s.cum.length - 1]!;
    const a = Math.max(0, offsetM - CURVE_HALF_WINDOW_M);
    const b = Math.min(length, offsetM + CURVE_HALF_WINDOW_M);
    const here = this.bearingAt(s, offsetM);
    if (b - a < 5) return { radiusM: Number.POSITIVE_INFINITY, bearingDeg: here };
    const turnRad = (Math.abs(angleDiffDeg(this.bearingAt(s, a), this.bearingAt(s, b))) * Math.PI) / 180;
    return { radiusM: turnRad > 1e-3 ? (b - a) / turnRad : Number.POSITIVE_INFINITY, bearingDeg: here };
  }
}
