/**
 * A Trip as `GET /v1/trips` lists it: the spec's eight fields plus documented extensions (`endDate`,
 * `fleetId`, `driverId`). Its JSON is computed once, when the trip is stored (column `item_json`), so a
 * page of the list is a hundred stored strings joined, not eleven hundred column values converted and
 * re-serialised on every request.
 */
export interface TripItem {
  tripId: string;
  overallScore: number;
  tier: string;
  mapMatched: boolean;
  distanceKm: number;
  durationMin: number;
  startDate: string;
  vehicle: string;
  endDate: string;
  fleetId: string;
  driverId: string | null;
}

/** The trip columns a list item is made of. */
export interface TripListRow {
  trip_id: string;
  fleet_id: string;
  plate: string;
  driver_id: string | null;
  start_ms: number;
  end_ms: number;
  overall_score: number;
  tier: string;
  map_matched: number;
  distance_km: number;
  duration_min: number;
}

export const LIST_COLUMNS = [
  'trip_id',
  'fleet_id',
  'plate',
  'driver_id',
  'start_ms',
  'end_ms',
  'overall_score',
  'tier',
  'map_matched',
  'distance_km',
  'duration_min',
] as const;

/** A trips row as a Trip item. */
export function tripItem(row: TripListRow): TripItem {
  return {
    tripId: row.trip_id,
    overallScore: row.overall_score,
    tier: row.tier,
    mapMatched: row.map_matched === 1,
    distanceKm: row.distance_km,
    durationMin: row.duration_min,
    startDate: new Date(Number(row.start_ms)).toISOString(),
    vehicle: row.plate,
    endDate: new Date(Number(row.end_ms)).toISOString(),
    fleetId: row.fleet_id,
    driverId: row.driver_id,
  };
}

/** The stored JSON of a trip's list item (the `item_json` column). */
export function tripItemJson(row: TripListRow): string {
  return JSON.stringify(tripItem(row));
}
