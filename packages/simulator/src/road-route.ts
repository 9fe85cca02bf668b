import { type RoadGraph, route as routeOnGraph } from '@svc/roads';
import type { DriveRoute, JunctionControl, LonLat, RouteSegment, WaypointStop } from './drive-route.ts';

/**
 * Routes on a `@svc/roads` graph, turned into the simulator's {@link DriveRoute}: each route segment keeps its
 * edge, way, class and limit, and gets the traffic control of the node where it ends. Several legs (via points)
 * are joined with a planned stop between them.
 */

/** A road-graph route with the edges it drives, ready to simulate. */
export interface GraphRoute extends DriveRoute {
  edges: number[];
  lengthM: number;
}

/** Why a route could not be built. */
export class NoRouteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoRouteError';
  }
}

/**
 * The route through `points` (from, via..., to) on a graph; `dwellS[i]` is the stop at the i-th via point.
 * Throws {@link NoRouteError} when a leg has no route.
 */
export function routeThrough(graph: RoadGraph, points: readonly LonLat[], dwellS: readonly number[] = []): GraphRoute {
  if (points.length < 2) throw new NoRouteError('a route needs at least a start and an end');
  const segments: RouteSegment[] = [];
  const waypointStops: WaypointStop[] = [];
  const edges: number[] = [];
  let lengthM = 0;
  for (let leg = 0; leg < points.length - 1; leg++) {
    const from = points[leg]!;
    const to = points[leg + 1]!;
    const result = routeOnGraph(graph, from, to);
    if (!result || result.segments.length === 0) {
      throw new NoRouteError(`no route from [${from.join(', ')}] to [${to.join(', ')}] on the road graph`);
    }
    // A via point on top of the previous one adds no road; its stop still happens where the vehicle is.
    if (result.lengthM < 1) continue;
    if (leg > 0 && segments.length > 0) {
      waypointStops.push({ afterSegment: segments.length - 1, dwellS: dwellS[leg - 1] ?? 60 });
    }
    result.segments.forEach((segment, i) => {
      const next = result.segments[i + 1];
      // The control this vehicle must obey at the segment's end, not every control of the node: a stop sign for
      // the minor road does not stop the main road's traffic (RoadGraph.controlAhead).
      const control: JunctionControl | null = next ? graph.controlAhead(segment.edge) : null;
      segments.push({
        coordinates: segment.coordinates,
        speedLimitKmh: segment.speedLimitKmh,
        highway: segment.highway,
        unlimited: segment.unlimited,
        roundabout: graph.edge(segment.edge).roundabout,
        edge: segment.edge,
        wayId: segment.wayId,
        name: segment.name,
        endControl: control,
      });
    });
    edges.push(...result.edges);
    lengthM += result.lengthM;
  }
  if (segments.length === 0) throw new NoRouteError('the route has no length: start and end are the same place');
  return { segments, waypointStops, edges, lengthM };
}
