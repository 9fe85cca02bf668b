import type { LonLat, ScoredTrip } from '@svc/scoring';

/** Six decimals is about 0.1 m: finer than GPS, and it keeps the stored route small. */
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const roundPoint = ([lon, lat]: LonLat): LonLat => [round6(lon), round6(lat)];

/**
 * The route resource served at `/v1/trips/{id}/route`: a GeoJSON FeatureCollection with the matched
 * path (MultiLineString, one line per matched run), the cleaned GPS trace (LineString) and one Point
 * per event. `ok` and `tripId` are GeoJSON foreign members, so map libraries read it as is.
 */
export function routeGeoJson(tripId: string, scored: ScoredTrip): string {
  const features: unknown[] = [];
  const matched = scored.route.matched.filter((line) => line.length >= 2).map((line) => line.map(roundPoint));
  if (matched.length > 0) {
    features.push({
      type: 'Feature',
      geometry: { type: 'MultiLineString', coordinates: matched },
      properties: { kind: 'matched-path' },
    });
  }
  if (scored.route.raw.length >= 2) {
    features.push({
      type: 'Feature',
      geometry: { type: 'LineString', coordinates: scored.route.raw.map(roundPoint) },
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
