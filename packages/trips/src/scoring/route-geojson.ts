import type { LonLat, ScoredTrip } from '@svc/scoring';

/** Six decimals is about 0.1 m: finer than GPS, and it keeps the stored route small. */
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const roundPoint = ([lon, lat]: LonLat): LonLat => [round6(lon), round6(lat)];

/**
 * A line cut where it crosses the 180° meridian, as RFC 7946 (3.1.9) asks, so that maps do not draw it the long
 * way round the world: each step of more than 180° of longitude ends one part at ±180 and starts the next at the
 * other side, at the latitude where the step crosses. A line that does not cross is returned whole.
 */
export function cutAtAntimeridian(line: readonly LonLat[]): LonLat[][] {
  const parts: LonLat[][] = [];
  let part: LonLat[] = [];
  for (const point of line) {
    const last = part.at(-1);
    if (last && Math.abs(point[0] - last[0]) > 180) {
      const edge = last[0] > 0 ? 180 : -180;
      // The step taken the short way: the point's longitude moved by 360° to the side of the last one.
      const lon = point[0] + (edge > 0 ? 360 : -360);
      const lat = last[1] + ((edge - last[0]) / (lon - last[0])) * (point[1] - last[1]);
      part.push([edge, lat]);
      parts.push(part);
      part = [[-edge, lat]];
    }
    part.push(point);
  }
  if (part.length > 0) parts.push(part);
  return parts.filter((p) => p.length >= 2);
}

/**
 * The route resource served at `/v1/trips/{id}/route`: a GeoJSON FeatureCollection with the matched
 * path (MultiLineString, one line per matched run), the cleaned GPS trace (LineString) and one Point
 * per event. `ok` and `tripId` are GeoJSON foreign members, so map libraries read it as is.
 */
export function routeGeoJson(tripId: string, scored: ScoredTrip): string {
  const features: unknown[] = [];
  const matched = scored.route.matched
    .flatMap((line) => cutAtAntimeridian(line))
    .filter((line) => line.length >= 2)
    .map((line) => line.map(roundPoint));
  if (matched.length > 0) {
    features.push({
      type: 'Feature',
      geometry: { type: 'MultiLineString', coordinates: matched },
      properties: { kind: 'matched-path' },
    });
  }
  const trace = cutAtAntimeridian(scored.route.raw).map((line) => line.map(roundPoint));
  if (trace.length > 0) {
    features.push({
      type: 'Feature',
      // A trace across the 180° meridian is cut there (RFC 7946), into a MultiLineString.
      geometry:
        trace.length === 1
          ? { type: 'LineString', coordinates: trace[0] }
          : { type: 'MultiLineString', coordinates: trace },
      properties: { kind: 'gps-trace' },
    });
  }
  for (const e of scored.events) {
    features.push({
      type: 'Feature',
      id: e.id,
      geometry: { type: 'Point', coordinates: roundPoint(e.position) },
      properties: {
        kind: 'event',
        eventType: e.type,
        severity: e.severity,
        value: e.value,
        unit: e.unit,
        source: e.source,
        startDate: new Date(e.startMs).toISOString(),
        endDate: new Date(e.endMs).toISOString(),
        ...(e.details ? { details: e.details } : {}),
      },
    });
  }
  return JSON.stringify({ tripId, mapMatched: scored.mapMatched, type: 'FeatureCollection', features });
}
