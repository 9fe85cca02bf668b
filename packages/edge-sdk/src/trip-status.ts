import type { TripRow, TripState } from './buffer-store.ts';
import type { TripEndReason } from './recorder.ts';

/** Where one trip stands, from its start in the vehicle to the server's acknowledgement. */
export interface TripStatus {
  /** The SDK's trip id, sent as the Idempotency-Key and `clientTripId`. */
  tripId: string;
  /**
   * `recording` (open), `pending` (finished, waiting to upload or retry), `sending` (upload in flight),
   * `sent` (server acknowledged, samples deleted), `failed` (permanent answer, or evicted; see `reason`).
   */
  state: TripState;
  startMs: number;
  endMs: number | null;
  endReason: TripEndReason | null;
  sampleCount: number;
  distanceM: number | null;
  deviceId: string;
  vehicle: string | null;
  driverId: string | null;
  /** Upload attempts so far. */
  attempts: number;
  /** Last transient error (network, 5xx, 429...), kept while the trip waits for a retry. */
  lastError: string | null;
  /** Why the trip failed, when `state` is `failed`. */
  reason: string | null;
  /** HTTP status of the last answer, if there was one. */
  httpStatus: number | null;
  /** The server's trip id once acknowledged (for `GET /ingest/v1/trips/{id}` and `/v1/trips/{id}`). */
  serverTripId: string | null;
  /** `queued` on first delivery, `duplicate` when the server already had it. */
  serverStatus: string | null;
  sentAt: number | null;
  /** Whether the samples are still in the buffer (a failed trip keeps them so it can be retried). */
  buffered: boolean;
}

/** Maps a stored row to the public status. */
export function toTripStatus(row: TripRow, liveSampleCount?: number): TripStatus {
  return {
    tripId: row.id,
    state: row.state,
    startMs: row.start_ms,
    endMs: row.end_ms,
    endReason: row.end_reason as TripEndReason | null,
    sampleCount: liveSampleCount ?? row.sample_count,
    distanceM: row.distance_m,
    deviceId: row.device_id,
    vehicle: row.vehicle,
    driverId: row.driver_id,
    attempts: row.attempts,
    lastError: row.last_error,
    reason: row.state === 'failed' ? row.failure_reason : null,
    httpStatus: row.http_status,
    serverTripId: row.server_trip_id,
    serverStatus: row.server_status,
    sentAt: row.sent_at,
    buffered: row.state === 'recording' || row.bytes > 0,
  };
}
