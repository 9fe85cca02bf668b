import type { TripSummary } from '@svc/scoring';
import type { TripListRow } from '../store/trip-list.ts';

/**
 * Response shaping, one place per resource. A Trip carries the spec's eight fields plus documented
 * extensions (`endDate`, `fleetId`, `driverId`).
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

/** A list row as a Trip item. */
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

/** Paths of a trip's sub-resources, relative to the host the client called (same in both environments). */
export function tripLinks(tripId: string, plate: string) {
  return {
    gps: `/v1/trips/${tripId}/route`,
    scoreBreakdown: `/v1/trips/${tripId}/score-breakdown`,
    vehicle: `/v1/vehicles/${encodeURIComponent(plate)}`,
  };
}

interface TripDetailRow extends TripListRow {
  matched_share: number;
  machine_type: string | null;
  model_version: string;
  scored_at_ms: number;
  weakest_theme: string;
  summary_json: string;
}

/** The single-trip resource: the Trip fields, the engine's summary metrics, and links (the GPS link first). */
export function tripDetail(row: TripDetailRow, themeLabel: (id: string) => string) {
  const summary = JSON.parse(row.summary_json) as TripSummary;
  return {
    ...tripItem(row),
    matchedShare: row.matched_share,
    machineType: row.machine_type,
    modelVersion: row.model_version,
    scoredAt: new Date(Number(row.scored_at_ms)).toISOString(),
    weakestTheme: { id: row.weakest_theme, label: themeLabel(row.weakest_theme) },
    summary,
    links: tripLinks(row.trip_id, row.plate),
  };
}
