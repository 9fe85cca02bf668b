import type { BBox } from '../types.ts';

/** Bits of `edgeFlags`. */
export const EDGE_REVERSED = 1; // the edge runs its geometry backwards
export const EDGE_ONEWAY = 2;
export const EDGE_URBAN = 4;
export const EDGE_ROUNDABOUT = 8;
export const EDGE_UNLIMITED = 16;

/** `edgeLimitSource` values. */
export const LIMIT_UNKNOWN = 0;
export const LIMIT_EXPLICIT = 1;
export const LIMIT_DEFAULT = 2;

/** `nodeControl` values: the control in the low two bits (CONTROL_KIND_MASK), its scope in the two above. */
export const CONTROL_NONE = 0;
export const CONTROL_SIGNALS = 1;
export const CONTROL_STOP = 2;
export const CONTROL_GIVE_WAY = 3;
export const CONTROL_KIND_MASK = 3;
export const CONTROL_SCOPE_SHIFT = 2;
/**
 * Scopes of a node's control (`nodeControl >> CONTROL_SCOPE_SHIFT`). Unset: tagged without a direction, the
 * graph decides which approaches it applies to (RoadGraph.controlAhead). Graph files written before scopes were
 * recorded hold 0 there, which reads as unset: no new file version was needed.
 */
export const CONTROL_SCOPE_UNSET = 0;
/** Traffic along the way's direction only (OSM `direction=forward`). */
export const CONTROL_SCOPE_FORWARD = 1;
/** Traffic against the way's direction only (`direction=backward`). */
export const CONTROL_SCOPE_BACKWARD = 2;
/** Every approach (`stop=all`, `direction=both`). */
export const CONTROL_SCOPE_ALL = 3;

/** Marks an absent string (name, ref, surface, country) in the string-index arrays. */
export const NO_STRING = 0xffffffff;

/**
 * Everything a road graph is made of, as flat typed arrays, so the graph file is the arrays' bytes and
 * loading it is a handful of views over one buffer.
 *
 * Nodes are graph vertices (junctions, dead ends, controlled nodes). Directed edges are sorted by `edgeFrom`,
 * so the out-edges of node n are `nodeOutStart[n] .. nodeOutStart[n+1]-1`. Each edge drives a geometry
 * (a polyline shared by the two directions of a two-way road) forwards or backwards. A "piece" is one straight
 * part of a geometry; the spatial index holds pieces.
 */
export interface GraphArrays {
  nodeLon: Float64Array;
  nodeLat: Float64Array;
  nodeOsmId: Float64Array;
  nodeControl: Uint8Array;
  nodeOutStart: Uint32Array;

  edgeFrom: Uint32Array;
  edgeTo: Uint32Array;
  edgeLengthM: Float64Array;
  edgeGeom: Uint32Array;
  edgeFlags: Uint8Array;
  edgeReverse: Int32Array;
  /** NaN when unknown or unlimited. */
  edgeSpeedKmh: Float32Array;
  edgeLimitSource: Uint8Array;
  edgeWay: Uint32Array;
  edgeCountry: Uint32Array;

  wayOsmId: Float64Array;
  wayName: Uint32Array;
  wayRef: Uint32Array;
  wayHighway: Uint8Array;
  /** 0 when not tagged. */
  wayLanes: Uint8Array;
  waySurface: Uint32Array;

  /** Shape points of geometry g are `geomStart[g] .. geomStart[g+1]-1`. */
  geomStart: Uint32Array;
  /** Directed edge driving geometry g forwards / backwards, or -1. */
  geomForward: Int32Array;
  geomBackward: Int32Array;
  shapeLon: Float64Array;
  shapeLat: Float64Array;
  /** Distance from the start of its geometry to each shape point, metres. */
  shapeCumM: Float64Array;
  /** Geometry of each shape point. */
  shapeGeom: Uint32Array;
  /** First shape point of each piece, in spatial-index item order. */
  pieceShape: Uint32Array;

  stringOffsets: Uint32Array;
  stringBytes: Uint8Array;
  /** The serialised flatbush index over pieces. */
  spatialIndex: Uint8Array;
}

/** Descriptive data stored in the graph file's JSON header. */
export interface GraphMeta {
  /** Country covering most of the road length (ISO 3166-1 alpha-2), or null. */
  country: string | null;
  bbox: BBox;
  /** What the graph was built from: an OSM file name, `synthetic-city seed=N`, ... */
  source: string;
  builtAt: string;
  /** Free-form build statistics (counts, explicit-limit share, ...). */
  stats: Record<string, number>;
}

type TypedArrayName = 'Float64Array' | 'Float32Array' | 'Uint32Array' | 'Int32Array' | 'Uint16Array' | 'Uint8Array';

/** Section names and element types, in file order. Changing this list requires a new file version. */
export const GRAPH_SECTIONS: ReadonlyArray<readonly [keyof GraphArrays, TypedArrayName]> = [
  ['nodeLon', 'Float64Array'],
  ['nodeLat', 'Float64Array'],
  ['nodeOsmId', 'Float64Array'],
  ['nodeControl', 'Uint8Array'],
  ['nodeOutStart', 'Uint32Array'],
  ['edgeFrom', 'Uint32Array'],
  ['edgeTo', 'Uint32Array'],
  ['edgeLengthM', 'Float64Array'],
  ['edgeGeom', 'Uint32Array'],
  ['edgeFlags', 'Uint8Array'],
  ['edgeReverse', 'Int32Array'],
  ['edgeSpeedKmh', 'Float32Array'],
  ['edgeLimitSource', 'Uint8Array'],
  ['edgeWay', 'Uint32Array'],
  ['edgeCountry', 'Uint32Array'],
  ['wayOsmId', 'Float64Array'],
  ['wayName', 'Uint32Array'],
  ['wayRef', 'Uint32Array'],
  ['wayHighway', 'Uint8Array'],
  ['wayLanes', 'Uint8Array'],
  ['waySurface', 'Uint32Array'],
  ['geomStart', 'Uint32Array'],
  ['geomForward', 'Int32Array'],
  ['geomBackward', 'Int32Array'],
  ['shapeLon', 'Float64Array'],
  ['shapeLat', 'Float64Array'],
  ['shapeCumM', 'Float64Array'],
  ['shapeGeom', 'Uint32Array'],
  ['pieceShape', 'Uint32Array'],
  ['stringOffsets', 'Uint32Array'],
  ['stringBytes', 'Uint8Array'],
  ['spatialIndex', 'Uint8Array'],
];
