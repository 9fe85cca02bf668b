import Flatbush from 'flatbush';
import { metresPerDegree } from '../geo.ts';
import { highwayClassIndex } from '../highway-class.ts';
import type { BBox, ControlScope, LimitSource, NodeControl } from '../types.ts';
import {
  CONTROL_GIVE_WAY,
  CONTROL_NONE,
  CONTROL_SCOPE_ALL,
  CONTROL_SCOPE_BACKWARD,
  CONTROL_SCOPE_FORWARD,
  CONTROL_SCOPE_SHIFT,
  CONTROL_SCOPE_UNSET,
  CONTROL_SIGNALS,
  CONTROL_STOP,
  EDGE_ONEWAY,
  EDGE_REVERSED,
  EDGE_ROUNDABOUT,
  EDGE_UNLIMITED,
  EDGE_URBAN,
  type GraphArrays,
  type GraphMeta,
  LIMIT_DEFAULT,
  LIMIT_EXPLICIT,
  LIMIT_UNKNOWN,
  NO_STRING,
} from './graph-data.ts';
import { RoadGraph } from './road-graph.ts';

/** A speed limit for one direction of a road. */
export interface SpeedLimit {
  /** km/h, or null when unknown or unlimited. */
  kmh: number | null;
  source: LimitSource;
  /** True for `maxspeed=none`. */
  unlimited?: boolean;
}

/** Attributes shared by all edges cut from one way. */
export interface NetworkWay {
  wayId: number;
  highway: string;
  name?: string | null;
  ref?: string | null;
  lanes?: number | null;
  surface?: string | null;
}

/**
 * A stretch of road between two graph nodes: the first and last entries of `nodes` become graph nodes, the
 * ones between are shape points.
 */
export interface NetworkSegment {
  /** Index into `RoadNetwork.ways`. */
  way: number;
  /** Indices into `RoadNetwork.nodes`. */
  nodes: number[];
  forward: boolean;
  backward: boolean;
  forwardLimit: SpeedLimit;
  backwardLimit: SpeedLimit;
  urban: boolean;
  roundabout?: boolean;
  country?: string | null;
}

/** Points referenced by segments; only segment end points become graph nodes. */
export interface NetworkNodes {
  lon: ArrayLike<number>;
  lat: ArrayLike<number>;
  /** Source ids (OSM node ids); defaults to the index. */
  id?: ArrayLike<number>;
  /** Traffic control per point. */
  control?: ArrayLike<NodeControl | null> | ((index: number) => NodeControl | null);
  /** Which traffic each point's control applies to, where its tags say (ControlScope); absent: not said. */
  controlScope?: (index: number) => ControlScope | null;
}

/** Input of `buildGraph`: a road network already cut into segments. */
export interface RoadNetwork {
  nodes: NetworkNodes;
  ways: NetworkWay[];
  segments: NetworkSegment[];
  source: string;
  /** Overrides the country derived from the segments' countries. */
  country?: string | null;
  stats?: Record<string, number>;
}

const CONTROL_CODES: Record<NodeControl, number> = {
  signals: CONTROL_SIGNALS,
  stop: CONTROL_STOP,
  give_way: CONTROL_GIVE_WAY,
};

const SCOPE_CODES: Record<ControlScope, number> = {
  forward: CONTROL_SCOPE_FORWARD,
  backward: CONTROL_SCOPE_BACKWARD,
  all: CONTROL_SCOPE_ALL,
};

const LIMIT_CODES: Record<LimitSource, number> = {
  unknown: LIMIT_UNKNOWN,
  explicit: LIMIT_EXPLICIT,
  default: LIMIT_DEFAULT,
};

class StringTable {
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [];

  id(value: string | null | undefined): number {
    if (value === null || value === undefined || value === '') return NO_STRING;
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
    }
    return id;
  }

  encode(): { offsets: Uint32Array; bytes: Uint8Array } {
    const encoder = new TextEncoder();
    const chunks = this.values.map((v) => encoder.encode(v));
    const offsets = new Uint32Array(chunks.length + 1);
    let total = 0;
    chunks.forEach((chunk, i) => {
      offsets[i] = total;
      total += chunk.length;
    });
    offsets[chunks.length] = total;
    const bytes = new Uint8Array(total);
    chunks.forEach((chunk, i) => {
      bytes.set(chunk, offsets[i]!);
    });
    return { offsets, bytes };
  }
}

/** Position of a point on a Hilbert curve over a 2^16 grid: sorting nodes by it keeps neighbours close in memory. */
function hilbertIndex(x: number, y: number): number {
  let d = 0;
  for (let s = 1 << 15; s > 0; s >>= 1) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      const t = x;
      x = y;
      y = t;
    }
  }
  return d;
}

/** Builds the compact, indexed graph from a segmented road network. */
export function buildGraph(network: RoadNetwork): RoadGraph {
  const { nodes, ways, segments } = network;
  const controlOf =
    typeof nodes.control === 'function'
      ? nodes.control
      : (i: number) => (nodes.control ? ((nodes.control as ArrayLike<NodeControl | null>)[i] ?? null) : null);

  const usable = segments.filter((s) => s.nodes.length >= 2 && (s.forward || s.backward));
  if (usable.length === 0) throw new Error(`${network.source}: no drivable roads found`);

  // Graph nodes: segment end points, renumbered along a Hilbert curve.
  const vertexOf = new Map<number, number>();
  const vertexPoints: number[] = [];
  for (const s of usable) {
    for (const p of [s.nodes[0]!, s.nodes[s.nodes.length - 1]!]) {
      if (!vertexOf.has(p)) {
        vertexOf.set(p, vertexPoints.length);
        vertexPoints.push(p);
      }
    }
  }
  let minLon = Infinity;
  let minLat = Infinity;
  let maxLon = -Infinity;
  let maxLat = -Infinity;
  for (const s of usable) {
    for (const p of s.nodes) {
      const lon = nodes.lon[p]!;
      const lat = nodes.lat[p]!;
      if (lon < minLon) minLon = lon;
      if (lon > maxLon) maxLon = lon;
      if (lat < minLat) minLat = lat;
      if (lat > maxLat) maxLat = lat;
    }
  }
  const spanLon = Math.max(maxLon - minLon, 1e-9);
  const spanLat = Math.max(maxLat - minLat, 1e-9);
  const order = vertexPoints.map((p, i) => ({
    i,
    h: hilbertIndex(
      Math.floor(((nodes.lon[p]! - minLon) / spanLon) * 65535),
      Math.floor(((nodes.lat[p]! - minLat) / spanLat) * 65535),
    ),
  }));
  order.sort((a, b) => a.h - b.h);
  const renumber = new Uint32Array(vertexPoints.length);
  order.forEach((o, newId) => {
    renumber[o.i] = newId;
  });
  for (const [p, v] of vertexOf) vertexOf.set(p, renumber[v]!);

  const nodeCount = vertexPoints.length;
  const nodeLon = new Float64Array(nodeCount);
  const nodeLat = new Float64Array(nodeCount);
  const nodeOsmId = new Float64Array(nodeCount);
  const nodeControl = new Uint8Array(nodeCount);
  for (const [p, v] of vertexOf) {
    nodeLon[v] = nodes.lon[p]!;
    nodeLat[v] = nodes.lat[p]!;
    nodeOsmId[v] = nodes.id ? nodes.id[p]! : p;
    const control = controlOf(p);
    const scope = control ? (nodes.controlScope?.(p) ?? null) : null;
    nodeControl[v] = control
      ? CONTROL_CODES[control] | ((scope ? SCOPE_CODES[scope] : CONTROL_SCOPE_UNSET) << CONTROL_SCOPE_SHIFT)
      : CONTROL_NONE;
  }

  const strings = new StringTable();

  // Ways.
  const wayOsmId = new Float64Array(ways.length);
  const wayName = new Uint32Array(ways.length);
  const wayRef = new Uint32Array(ways.length);
  const wayHighway = new Uint8Array(ways.length);
  const wayLanes = new Uint8Array(ways.length);
  const waySurface = new Uint32Array(ways.length);
  ways.forEach((w, i) => {
    const cls = highwayClassIndex(w.highway);
    if (cls < 0) throw new Error(`${network.source}: way ${w.wayId} has a non-drivable highway class "${w.highway}"`);
    wayOsmId[i] = w.wayId;
    wayName[i] = strings.id(w.name);
    wayRef[i] = strings.id(w.ref);
    wayHighway[i] = cls;
    wayLanes[i] = w.lanes && w.lanes > 0 ? Math.min(255, Math.round(w.lanes)) : 0;
    waySurface[i] = strings.id(w.surface);
  });

  // Geometries (one per segment) and their shape points.
  const geomCount = usable.length;
  let shapeCount = 0;
  for (const s of usable) shapeCount += s.nodes.length;
  const geomStart = new Uint32Array(geomCount + 1);
  const shapeLon = new Float64Array(shapeCount);
  const shapeLat = new Float64Array(shapeCount);
  const shapeCumM = new Float64Array(shapeCount);
  const shapeGeom = new Uint32Array(shapeCount);
  let k = 0;
  usable.forEach((s, g) => {
    geomStart[g] = k;
    const { kx, ky } = metresPerDegree(nodes.lat[s.nodes[0]!]!);
    let cum = 0;
    s.nodes.forEach((p, j) => {
      const lon = nodes.lon[p]!;
      const lat = nodes.lat[p]!;
      if (j > 0) cum += Math.hypot((lon - shapeLon[k - 1]!) * kx, (lat - shapeLat[k - 1]!) * ky);
      shapeLon[k] = lon;
      shapeLat[k] = lat;
      shapeCumM[k] = cum;
      shapeGeom[k] = g;
      k++;
    });
  });
  geomStart[geomCount] = k;

  // Directed edges, sorted by from-node (counting sort).
  interface PendingEdge {
    geom: number;
    reversed: boolean;
  }
  const pending: PendingEdge[] = [];
  usable.forEach((s, g) => {
    if (s.forward) pending.push({ geom: g, reversed: false });
    if (s.backward) pending.push({ geom: g, reversed: true });
  });
  const fromOf = (e: PendingEdge) => {
    const s = usable[e.geom]!;
    return vertexOf.get(e.reversed ? s.nodes[s.nodes.length - 1]! : s.nodes[0]!)!;
  };
  const nodeOutStart = new Uint32Array(nodeCount + 1);
  for (const e of pending) nodeOutStart[fromOf(e) + 1]!++;
  for (let n = 0; n < nodeCount; n++) nodeOutStart[n + 1]! += nodeOutStart[n]!;
  const cursor = nodeOutStart.slice(0, nodeCount);
  const edgeCount = pending.length;
  const sorted: PendingEdge[] = new Array(edgeCount);
  for (const e of pending) sorted[cursor[fromOf(e)]!++] = e;

  const edgeFrom = new Uint32Array(edgeCount);
  const edgeTo = new Uint32Array(edgeCount);
  const edgeLengthM = new Float64Array(edgeCount);
  const edgeGeom = new Uint32Array(edgeCount);
  const edgeFlags = new Uint8Array(edgeCount);
  const edgeReverse = new Int32Array(edgeCount).fill(-1);
  const edgeSpeedKmh = new Float32Array(edgeCount);
  const edgeLimitSource = new Uint8Array(edgeCount);
  const edgeWay = new Uint32Array(edgeCount);
  const edgeCountry = new Uint32Array(edgeCount);
  const geomForward = new Int32Array(geomCount).fill(-1);
  const geomBackward = new Int32Array(geomCount).fill(-1);
  const countryLengthM = new Map<string, number>();
  sorted.forEach((e, i) => {
    const s = usable[e.geom]!;
    const first = vertexOf.get(s.nodes[0]!)!;
    const last = vertexOf.get(s.nodes[s.nodes.length - 1]!)!;
    edgeFrom[i] = e.reversed ? last : first;
    edgeTo[i] = e.reversed ? first : last;
    const length = shapeCumM[geomStart[e.geom + 1]! - 1]!;
    edgeLengthM[i] = length;
    edgeGeom[i] = e.geom;
    const limit = e.reversed ? s.backwardLimit : s.forwardLimit;
    let flags = 0;
    if (e.reversed) flags |= EDGE_REVERSED;
    if (!(s.forward && s.backward)) flags |= EDGE_ONEWAY;
    if (s.urban) flags |= EDGE_URBAN;
    if (s.roundabout) flags |= EDGE_ROUNDABOUT;
    if (limit.unlimited) flags |= EDGE_UNLIMITED;
    edgeFlags[i] = flags;
    edgeSpeedKmh[i] = limit.kmh === null || limit.unlimited ? Number.NaN : limit.kmh;
    edgeLimitSource[i] = LIMIT_CODES[limit.source];
    edgeWay[i] = s.way;
    edgeCountry[i] = strings.id(s.country);
    if (e.reversed) geomBackward[e.geom] = i;
    else geomForward[e.geom] = i;
    if (s.country && !e.reversed) countryLengthM.set(s.country, (countryLengthM.get(s.country) ?? 0) + length);
  });
  for (let g = 0; g < geomCount; g++) {
    const f = geomForward[g]!;
    const b = geomBackward[g]!;
    if (f >= 0 && b >= 0) {
      edgeReverse[f] = b;
      edgeReverse[b] = f;
    }
  }

  // Spatial index over pieces (straight parts of geometries).
  const pieceCount = shapeCount - geomCount;
  const pieceShape = new Uint32Array(pieceCount);
  const index = new Flatbush(Math.max(1, pieceCount));
  let piece = 0;
  for (let g = 0; g < geomCount; g++) {
    for (let s = geomStart[g]!; s < geomStart[g + 1]! - 1; s++) {
      const ax = shapeLon[s]!;
      const ay = shapeLat[s]!;
      const bx = shapeLon[s + 1]!;
      const by = shapeLat[s + 1]!;
      index.add(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by));
      pieceShape[piece++] = s;
    }
  }
  if (pieceCount === 0) index.add(minLon, minLat, minLon, minLat);
  index.finish();

  const { offsets: stringOffsets, bytes: stringBytes } = strings.encode();
  let country: string | null = network.country ?? null;
  if (network.country === undefined) {
    let best = 0;
    for (const [c, len] of countryLengthM) {
      if (len > best) {
        best = len;
        country = c;
      }
    }
  }
  const data: GraphArrays = {
    nodeLon,
    nodeLat,
    nodeOsmId,
    nodeControl,
    nodeOutStart,
    edgeFrom,
    edgeTo,
    edgeLengthM,
    edgeGeom,
    edgeFlags,
    edgeReverse,
    edgeSpeedKmh,
    edgeLimitSource,
    edgeWay,
    edgeCountry,
    wayOsmId,
    wayName,
    wayRef,
    wayHighway,
    wayLanes,
    waySurface,
    geomStart,
    geomForward,
    geomBackward,
    shapeLon,
    shapeLat,
    shapeCumM,
    shapeGeom,
    pieceShape,
    stringOffsets,
    stringBytes,
    spatialIndex: new Uint8Array(index.data),
  };
  const bbox: BBox = [minLon, minLat, maxLon, maxLat];
  const meta: GraphMeta = {
    country,
    bbox,
    source: network.source,
    builtAt: new Date().toISOString(),
    stats: { ...summarise(data), ...(network.stats ?? {}) },
  };
  return new RoadGraph(data, meta, index);
}

/** Counts and shares reported by `roads build` and stored in the file header. */
export function summarise(data: GraphArrays): Record<string, number> {
  let roadLengthM = 0;
  let explicitM = 0;
  let defaultM = 0;
  let urbanM = 0;
  const geomCount = data.geomForward.length;
  for (let g = 0; g < geomCount; g++) {
    const e = data.geomForward[g]! >= 0 ? data.geomForward[g]! : data.geomBackward[g]!;
    const length = data.edgeLengthM[e]!;
    roadLengthM += length;
    if (data.edgeLimitSource[e] === LIMIT_EXPLICIT) explicitM += length;
    else if (data.edgeLimitSource[e] === LIMIT_DEFAULT) defaultM += length;
    if ((data.edgeFlags[e]! & EDGE_URBAN) !== 0) urbanM += length;
  }
  let signals = 0;
  for (const c of data.nodeControl) if (c !== CONTROL_NONE) signals++;
  return {
    nodes: data.nodeLon.length,
    edges: data.edgeFrom.length,
    ways: data.wayOsmId.length,
    roadKm: roadLengthM / 1000,
    explicitLimitShare: roadLengthM > 0 ? explicitM / roadLengthM : 0,
    defaultLimitShare: roadLengthM > 0 ? defaultM / roadLengthM : 0,
    urbanShare: roadLengthM > 0 ? urbanM / roadLengthM : 0,
    controlledNodes: signals,
  };
}
