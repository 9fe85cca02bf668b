/** A position as `[longitude, latitude]` in WGS84 degrees. */
export type LonLat = [number, number];

/** Bounding box `[minLon, minLat, maxLon, maxLat]` in degrees. */
export type BBox = [number, number, number, number];

/** Where an edge's speed limit comes from. */
export type LimitSource = 'explicit' | 'default' | 'unknown';

/** Traffic control at a graph node. */
export type NodeControl = 'signals' | 'stop' | 'give_way';

/**
 * Which traffic a node's control applies to, as tagged: along the way's direction, against it, or every approach.
 * Absent (null) when the tags do not say (see RoadGraph.controlAhead).
 */
export type ControlScope = 'forward' | 'backward' | 'all';

/** One directed road edge, as returned by `RoadGraph.edge(i)`. */
export interface RoadEdge {
  /** Index of the directed edge in the graph (0 .. edgeCount-1). */
  id: number;
  /** OSM way id (or the generator's / source's way id). */
  wayId: number;
  name: string | null;
  ref: string | null;
  /** OSM `highway` class, e.g. `residential`, `motorway_link`. */
  highway: string;
  /** Legal limit in km/h; `null` when unknown or when there is no limit (`unlimited`). */
  speedLimitKmh: number | null;
  limitSource: LimitSource;
  /** True where the road has no general limit (`maxspeed=none`, e.g. parts of German motorways). */
  unlimited: boolean;
  lengthM: number;
  /** True when the underlying way can only be driven in one direction. */
  oneway: boolean;
  roundabout: boolean;
  lanes: number | null;
  surface: string | null;
  /** ISO 3166-1 alpha-2 code the edge's default limit was taken from, when known. */
  country: string | null;
  fromNode: number;
  toNode: number;
  /** Id of the edge driving the same road the other way, or `null` for one-way roads. */
  reverseEdge: number | null;
  /** Geometry in driving direction, from `fromNode` to `toNode`. */
  coordinates: LonLat[];
  /** Built-up area (urban) or not (rural), which selects the default limit. */
  urban: boolean;
}

/**
 * One GPS fix of a trace. `timeMs` is epoch milliseconds; `accuracyM` the reported horizontal accuracy;
 * `speedMps` the receiver's (Doppler) or the vehicle's speed when known, which tells a stop from slow driving;
 * `courseDeg` the direction of travel (degrees clockwise from north) when known, used while `speedMps` is at
 * least 2 m/s to tell a road's two directions, or two carriageways, apart.
 */
export interface TracePoint {
  lon: number;
  lat: number;
  timeMs?: number;
  accuracyM?: number;
  speedMps?: number;
  courseDeg?: number;
}
