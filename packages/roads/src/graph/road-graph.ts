import Flatbush from 'flatbush';
import { HIGHWAY_CLASSES } from '../highway-class.ts';
import type { BBox, LimitSource, LonLat, NodeControl, RoadEdge } from '../types.ts';
import { controlsAhead } from './controls-ahead.ts';
import {
  CONTROL_KIND_MASK,
  EDGE_ONEWAY,
  EDGE_REVERSED,
  EDGE_ROUNDABOUT,
  EDGE_UNLIMITED,
  EDGE_URBAN,
  type GraphArrays,
  type GraphMeta,
  LIMIT_DEFAULT,
  LIMIT_EXPLICIT,
  NO_STRING,
} from './graph-data.ts';

const CONTROLS: ReadonlyArray<NodeControl | null> = [null, 'signals', 'stop', 'give_way'];

/**
 * A read-only road graph for cars: directed edges with geometry, OSM attributes and speed limits, plus a spatial
 * index over edge geometry. Build one with `buildGraphFromOsm` or `generateCity`, save it with `writeGraph`,
 * load it with `loadGraph`.
 */
export class RoadGraph {
  /** The raw arrays; the matcher and router read them directly in their hot loops. */
  readonly data: GraphArrays;
  readonly meta: GraphMeta;
  /** Flatbush index over geometry pieces (items are piece indices, see `GraphArrays.pieceShape`). */
  readonly index: Flatbush;
  readonly nodeCount: number;
  readonly edgeCount: number;
  readonly wayCount: number;
  readonly geometryCount: number;
  private readonly strings: Array<string | undefined>;
  private readonly decoder = new TextDecoder();
  private ahead: Uint8Array | undefined;

  constructor(data: GraphArrays, meta: GraphMeta, index?: Flatbush) {
    this.data = data;
    this.meta = meta;
    this.index = index ?? Flatbush.from(data.spatialIndex.buffer as ArrayBuffer, data.spatialIndex.byteOffset);
    this.nodeCount = data.nodeLon.length;
    this.edgeCount = data.edgeFrom.length;
    this.wayCount = data.wayOsmId.length;
    this.geometryCount = data.geomForward.length;
    this.strings = new Array(Math.max(0, data.stringOffsets.length - 1));
  }

  /** `[minLon, minLat, maxLon, maxLat]` of all road geometry. */
  get bbox(): BBox {
    return this.meta.bbox;
  }

  /** ISO 3166-1 alpha-2 code of the country covering most of the road length, or null. */
  get country(): string | null {
    return this.meta.country;
  }

  /** A string from the graph's string table, or null for `NO_STRING`. */
  string(index: number): string | null {
    if (index === NO_STRING) return null;
    let value = this.strings[index];
    if (value === undefined) {
      const { stringOffsets, stringBytes } = this.data;
      value = this.decoder.decode(stringBytes.subarray(stringOffsets[index]!, stringOffsets[index + 1]!));
      this.strings[index] = value;
    }
    return value;
  }

  /** All attributes of one directed edge (allocates; use the per-field accessors in loops). */
  edge(i: number): RoadEdge {
    this.checkEdge(i);
    const d = this.data;
    const flags = d.edgeFlags[i]!;
    const way = d.edgeWay[i]!;
    const lanes = d.wayLanes[way]!;
    const reverse = d.edgeReverse[i]!;
    return {
      id: i,
      wayId: d.wayOsmId[way]!,
      name: this.string(d.wayName[way]!),
      ref: this.string(d.wayRef[way]!),
      highway: HIGHWAY_CLASSES[d.wayHighway[way]!] ?? 'road',
      speedLimitKmh: this.edgeSpeedLimitKmh(i),
      limitSource: this.edgeLimitSource(i),
      unlimited: (flags & EDGE_UNLIMITED) !== 0,
      lengthM: d.edgeLengthM[i]!,
      oneway: (flags & EDGE_ONEWAY) !== 0,
      roundabout: (flags & EDGE_ROUNDABOUT) !== 0,
      lanes: lanes === 0 ? null : lanes,
      surface: this.string(d.waySurface[way]!),
      country: this.string(d.edgeCountry[i]!),
      fromNode: d.edgeFrom[i]!,
      toNode: d.edgeTo[i]!,
      reverseEdge: reverse < 0 ? null : reverse,
      coordinates: this.edgeCoordinates(i),
      urban: (flags & EDGE_URBAN) !== 0,
    };
  }

  edgeFrom(i: number): number {
    return this.data.edgeFrom[i]!;
  }

  edgeTo(i: number): number {
    return this.data.edgeTo[i]!;
  }

  edgeLengthM(i: number): number {
    return this.data.edgeLengthM[i]!;
  }

  edgeWayId(i: number): number {
    return this.data.wayOsmId[this.data.edgeWay[i]!]!;
  }

  edgeName(i: number): string | null {
    return this.string(this.data.wayName[this.data.edgeWay[i]!]!);
  }

  edgeRef(i: number): string | null {
    return this.string(this.data.wayRef[this.data.edgeWay[i]!]!);
  }

  edgeHighway(i: number): string {
    return HIGHWAY_CLASSES[this.data.wayHighway[this.data.edgeWay[i]!]!] ?? 'road';
  }

  /** The legal limit in km/h, or null when unknown or unlimited. */
  edgeSpeedLimitKmh(i: number): number | null {
    const v = this.data.edgeSpeedKmh[i]!;
    return Number.isNaN(v) ? null : Math.round(v * 100) / 100;
  }

  edgeLimitSource(i: number): LimitSource {
    const source = this.data.edgeLimitSource[i]!;
    return source === LIMIT_EXPLICIT ? 'explicit' : source === LIMIT_DEFAULT ? 'default' : 'unknown';
  }

  edgeUnlimited(i: number): boolean {
    return (this.data.edgeFlags[i]! & EDGE_UNLIMITED) !== 0;
  }

  edgeUrban(i: number): boolean {
    return (this.data.edgeFlags[i]! & EDGE_URBAN) !== 0;
  }

  edgeOneway(i: number): boolean {
    return (this.data.edgeFlags[i]! & EDGE_ONEWAY) !== 0;
  }

  /** The opposite-direction edge of the same road, or -1. */
  edgeReverse(i: number): number {
    return this.data.edgeReverse[i]!;
  }

  /** Geometry of an edge in its driving direction. */
  edgeCoordinates(i: number): LonLat[] {
    const d = this.data;
    const g = d.edgeGeom[i]!;
    const start = d.geomStart[g]!;
    const end = d.geomStart[g + 1]!;
    const out: LonLat[] = new Array(end - start);
    const reversed = (d.edgeFlags[i]! & EDGE_REVERSED) !== 0;
    for (let s = start; s < end; s++) {
      const k = reversed ? end - 1 - s : s - start;
      out[k] = [d.shapeLon[s]!, d.shapeLat[s]!];
    }
    return out;
  }

  /** The point `offsetM` metres from the start of an edge, along its geometry (clamped to the edge). */
  edgePointAt(i: number, offsetM: number): LonLat {
    const d = this.data;
    const g = d.edgeGeom[i]!;
    const start = d.geomStart[g]!;
    const end = d.geomStart[g + 1]!;
    const length = d.shapeCumM[end - 1]!;
    let along = Math.min(Math.max(offsetM, 0), length);
    if ((d.edgeFlags[i]! & EDGE_REVERSED) !== 0) along = length - along;
    let s = start;
    while (s < end - 2 && d.shapeCumM[s + 1]! < along) s++;
    const a = d.shapeCumM[s]!;
    const b = d.shapeCumM[s + 1] ?? a;
    const t = b > a ? (along - a) / (b - a) : 0;
    return [
      d.shapeLon[s]! + (d.shapeLon[s + 1]! - d.shapeLon[s]!) * t,
      d.shapeLat[s]! + (d.shapeLat[s + 1]! - d.shapeLat[s]!) * t,
    ];
  }

  /** First and one-past-last id of the edges leaving node n (edges are sorted by their from-node). */
  outEdgeRange(n: number): [number, number] {
    return [this.data.nodeOutStart[n]!, this.data.nodeOutStart[n + 1]!];
  }

  nodeLonLat(n: number): LonLat {
    return [this.data.nodeLon[n]!, this.data.nodeLat[n]!];
  }

  /** OSM node id (or the generator's node id). */
  nodeOsmId(n: number): number {
    return this.data.nodeOsmId[n]!;
  }

  /**
   * Traffic signals, stop or give-way sign at node n, or null, whichever traffic it binds: what a vehicle passing
   * the node must obey is controlAhead of the edge it arrives on.
   */
  nodeControl(n: number): NodeControl | null {
    return CONTROLS[this.data.nodeControl[n]! & CONTROL_KIND_MASK] ?? null;
  }

  /**
   * The control a vehicle on edge `e` must obey at the node where the edge ends, or null: the node's control where
   * it binds this approach (a sign for the minor road of a junction does not bind the main road; a sign on the
   * approach to a junction does not bind the traffic leaving it). The rules are in controls-ahead.ts; computed for
   * all edges on the first call.
   */
  controlAhead(e: number): NodeControl | null {
    this.ahead ??= controlsAhead(this.data);
    return CONTROLS[this.ahead[e]!] ?? null;
  }

  private checkEdge(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.edgeCount) {
      throw new RangeError(`edge ${i} does not exist (the graph has ${this.edgeCount} edges)`);
    }
  }
}
