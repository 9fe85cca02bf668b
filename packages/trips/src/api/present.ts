import type { TripSummary } from '@svc/scoring';

import type { TripListRow } from '../store/trip-item.ts';
import { tripItem } from '../store/trip-item.ts';

export { type TripItem, tripItem } from '../store/trip-item.ts';

/**
 * Response shaping, one place per resource. The list item lives with the store (its JSON is stored
 * with the trip); the single-trip resource extends it here.
 */

/**
 * Paths of a trip's sub-resources, relative to the host the client called (same in both environments). `gps`
 * is null once the trip's location data was deleted.
 */
export function tripLinks(tripId: string, plate: string, routeKept = true) {
  return {
    gps: routeKept ? `/v1/trips/${tripId}/route` : null,
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
  locations_deleted_at_ms: number | string | null;
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
    // When the trip's telemetry and route were deleted (retention or its driver's erasure); the scores stay.
    locationDataDeletedAt:
      row.locations_deleted_at_ms === null ? null : new Date(Number(row.locations_deleted_at_ms)).toISOString(),
    links: tripLinks(row.trip_id, row.plate, row.locations_deleted_at_ms === null),
  };
}
