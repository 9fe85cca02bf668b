import type { RoadGraph } from '../graph/road-graph.ts';
import type { LimitSource, LonLat } from '../types.ts';

/**
 * Why a point has no match: `no-road` (no road within the search radius), `outlier` (no road route from the fixes
 * around it could reach it: a position jump), `isolated` (it repeats or sits beside fixes that did not match).
 */
export type UnmatchedReason = 'no-road' | 'outlier' | 'isolated';

/** The match of one input point. */
export interface MatchedPoint {
  /** Index of the point in the input. */
  index: number;
  matched: boolean;
  /** Directed edge the point was matched to, or null. */
  edge: number | null;
  /** The point's position on that edge, or null. */
  snapped: LonLat | null;
  /** Distance from the start of the edge to `snapped`, metres. */
  offsetM: number | null;
  /** Distance from the fix to `snapped`, metres. */
  distanceM: number | null;
  /** How sure the matcher is of this edge, 0..1 (0 when unmatched). */
  confidence: number;
  /** Index into `MatchResult.subTraces`, or null. */
  subTrace: number | null;
  wayId: number | null;
  name: string | null;
  highway: string | null;
  speedLimitKmh: number | null;
  limitSource: LimitSource | null;
  /** True when the matched road has no general limit. */
  unlimited: boolean;
  urban: boolean | null;
  /** Set when `matched` is false. */
  reason?: UnmatchedReason;
}

/** A driven stretch of one edge in the matched path. */
export interface MatchedSegment {
  edge: number;
  wayId: number;
  name: string | null;
  ref: string | null;
  highway: string;
  speedLimitKmh: number | null;
  limitSource: LimitSource;
  unlimited: boolean;
  urban: boolean;
  /** Length driven on this edge, metres. */
  lengthM: number;
  /** Offsets on the edge where driving started and ended, metres. */
  startM: number;
  endM: number;
  coordinates: LonLat[];
  subTrace: number;
  /** Input points between which this stretch was driven. */
  fromPoint: number;
  toPoint: number;
}

/** A run of points matched as one connected drive; the trace splits on gaps, breaks and long outlier runs. */
export interface SubTrace {
  fromPoint: number;
  toPoint: number;
  /** Length of the matched path, metres. */
  lengthM: number;
  meanConfidence: number;
}

export interface MatchResult {
  /** Share of the trace's length (sum of distances between consecutive fixes) lying between matched fixes. */
  matchedShare: number;
  traceLengthM: number;
  matchedTraceLengthM: number;
  /** Mean confidence over matched points (0 when none matched). */
  meanConfidence: number;
  /** Consecutive road segments driven, in order. */
  path: MatchedSegment[];
  /** Same array as `path`. */
  segments: MatchedSegment[];
  subTraces: SubTrace[];
  points: MatchedPoint[];
}

/** A matched position on a directed edge. */
export interface EdgePosition {
  edge: number;
  offsetM: number;
  lon: number;
  lat: number;
  distanceM: number;
}

/** The result entry of a fix that did not match. */
export function unmatchedPoint(index: number, reason: UnmatchedReason): MatchedPoint {
  return {
    index,
    matched: false,
    edge: null,
    snapped: null,
    offsetM: null,
    distanceM: null,
    confidence: 0,
    subTrace: null,
    wayId: null,
    name: null,
    highway: null,
    speedLimitKmh: null,
    limitSource: null,
    unlimited: false,
    urban: null,
    reason,
  };
}

/** The result entry of a fix matched at a position, with the attributes of its road. */
export function matchedPoint(
  graph: RoadGraph,
  index: number,
  c: EdgePosition,
  confidence: number,
  subTrace: number,
): MatchedPoint {
  return {
    index,
    matched: true,
    edge: c.edge,
    snapped: [c.lon, c.lat],
    offsetM: c.offsetM,
    distanceM: c.distanceM,
    confidence,
    subTrace,
    wayId: graph.edgeWayId(c.edge),
    name: graph.edgeName(c.edge),
    highway: graph.edgeHighway(c.edge),
    speedLimitKmh: graph.edgeSpeedLimitKmh(c.edge),
    limitSource: graph.edgeLimitSource(c.edge),
    unlimited: graph.edgeUnlimited(c.edge),
    urban: graph.edgeUrban(c.edge),
  };
}
