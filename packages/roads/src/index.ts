/**
 * @svc/roads: OpenStreetMap road graphs for cars, speed limits, routing and HMM map matching.
 *
 * Build a graph with `buildGraphFromOsm` (or `generateCity` for a synthetic one), save and load it with
 * `writeGraph` / `loadGraph`, route with `route`, and match GPS traces with `matchTrace` (read them with
 * `readTrace`).
 */

export { haversineM } from './geo.ts';
export {
  buildGraph,
  type NetworkNodes,
  type NetworkSegment,
  type NetworkWay,
  type RoadNetwork,
  type SpeedLimit,
} from './graph/graph-builder.ts';
export {
  GRAPH_FILE_VERSION,
  GRAPH_MAGIC,
  loadGraph,
  parseGraph,
  serialiseGraph,
  writeGraph,
} from './graph/graph-file.ts';
export { RoadGraph } from './graph/road-graph.ts';
export { HIGHWAY_CLASSES, type HighwayClass } from './highway-class.ts';
export { DEFAULT_MATCH_OPTIONS, type MatchOptions } from './matching/match-options.ts';
export type { MatchedPoint, MatchedSegment, MatchResult, SubTrace, UnmatchedReason } from './matching/match-result.ts';
export { matchTrace } from './matching/match-trace.ts';
export { validateTrace } from './matching/validate-trace.ts';
export { buildGraphFromOsm, type OsmBuildOptions } from './osm/build-from-osm.ts';
export { OsmInputError } from './osm/osm-reader.ts';
export { type RouteControl, type RouteOptions, type RouteResult, type RouteSegment, route } from './routing/route.ts';
export { expectedSpeedKmh } from './routing/travel-time.ts';
export { COUNTRY_BBOXES, countryAt } from './speed/country-bbox.ts';
export { defaultSpeedLimit, type RoadContext } from './speed/default-speed-limit.ts';
export { DEFAULT_SPEED_TABLE } from './speed/default-speed-table.ts';
export { type Maxspeed, parseMaxspeed } from './speed/maxspeed.ts';
export { type CityOptions, generateCity } from './synthetic/generate-city.ts';
export { parseCsvTrace } from './trace/csv-trace.ts';
export { parseGeoJsonTrace } from './trace/geojson-trace.ts';
export { parseGpxTrace } from './trace/gpx-trace.ts';
export { parseTime } from './trace/parse-time.ts';
export { detectTraceFormat, parseTrace, readTrace, type TraceFormat } from './trace/read-trace.ts';
export { parseNdjsonTrace, parseSampleArray } from './trace/sample-trace.ts';
export { TraceInputError } from './trace/trace-input-error.ts';
export type { BBox, ControlScope, LimitSource, LonLat, NodeControl, RoadEdge, TracePoint } from './types.ts';
