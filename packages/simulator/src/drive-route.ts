/**
 * The route a trip drives, as the simulator needs it: consecutive road segments with their limits and the traffic
 * control at the node where each segment ends. It is built from `@svc/roads` routes (see road-route.ts) or given
 * directly, which lets the physics be tested on hand-made geometry.
 */

/** A position as `[longitude, latitude]` in WGS84 degrees. */
export type LonLat = [number, number];

/** Traffic control at a junction node. */
export type JunctionControl = 'signals' | 'stop' | 'give_way';

/** One stretch of road along the route, in driving direction. */
export interface RouteSegment {
  /** Geometry, at least two points, in driving direction. */
  coordinates: LonLat[];
  /** Posted limit, km/h; null when unknown or unlimited. */
  speedLimitKmh: number | null;
  /** OSM `highway` class (`residential`, `primary`, `motorway_link`, ...). */
  highway: string;
  /** True where the road has no general limit (unrestricted motorway). */
  unlimited?: boolean;
  roundabout?: boolean;
  /** Graph edge id, when the segment comes from a road graph. */
  edge?: number;
  wayId?: number;
  name?: string | null;
  /** Traffic control at the segment's end node (ignored for the last segment of the route). */
  endControl?: JunctionControl | null;
}

/** A planned stop on the route (delivery, bus stop, passenger pick-up) after a segment. */
export interface WaypointStop {
  /** Index of the segment at whose end the vehicle stops. */
  afterSegment: number;
  dwellS: number;
}

/** A drivable route: segments, planned stops and the graph edges it uses. */
export interface DriveRoute {
  segments: RouteSegment[];
  waypointStops?: WaypointStop[];
}

/** Checks a route and names the first bad segment or field. */
export function validateDriveRoute(route: DriveRoute): void {
  if (!route || !Array.isArray(route.segments) || route.segments.length === 0) {
    throw new TypeError('route: segments must be a non-empty array');
  }
  route.segments.forEach((segment, i) => {
    const coords = segment?.coordinates;
    if (!Array.isArray(coords) || coords.length < 2) {
      throw new TypeError(`route: segments[${i}].coordinates must have at least two positions`);
    }
    coords.forEach((c, j) => {
      if (
        !Array.isArray(c) ||
        !Number.isFinite(c[0]) ||
        !Number.isFinite(c[1]) ||
        Math.abs(c[0]) > 180 ||
        Math.abs(c[1]) > 90
      ) {
        throw new TypeError(`route: segments[${i}].coordinates[${j}] must be [lon, lat] in degrees`);
      }
    });
    const limit = segment.speedLimitKmh;
    if (limit !== null && (typeof limit !== 'number' || !(limit > 0))) {
      throw new TypeError(`route: segments[${i}].speedLimitKmh must be a positive number or null`);
    }
  });
  for (const [i, stop] of (route.waypointStops ?? []).entries()) {
    if (!Number.isInteger(stop.afterSegment) || stop.afterSegment < 0 || stop.afterSegment >= route.segments.length) {
      throw new TypeError(`route: waypointStops[${i}].afterSegment must be a segment index`);
    }
    if (!Number.isFinite(stop.dwellS) || stop.dwellS < 0) {
      throw new TypeError(`route: waypointStops[${i}].dwellS must be a non-negative number of seconds`);
    }
  }
}
