import { thresholds } from '@svc/scoring';

/**
 * The trip segmentation rule is the scoring engine's (`segmentTrips` and `thresholds` of @svc/scoring): a trip
 * starts with the first speed above 8 km/h and ends once the vehicle has been below it for 5 minutes, or after
 * 5 minutes without GPS; trips under 1 km or 2 minutes moving are not scorable. The SDK applies the start and
 * end live, sample by sample, and asks `segmentTrips` itself whether a finished trip is scorable, so one
 * uploaded batch is what the scorer would have cut from the stream.
 */
export interface TripRules {
  /** Strictly above this speed the vehicle is moving (live detection; the scorer uses its own constant). */
  startSpeedKmh: number;
  /** This long without a moving observation ends the trip. */
  endStopS: number;
  /** A GPS silence this long ends a trip (passed to `segmentTrips`). */
  maxGapS: number;
  /** A finished trip with less moving time than this is discarded (passed to `segmentTrips`). */
  minTripMovingS: number;
  /** A finished trip shorter than this is discarded (passed to `segmentTrips`). */
  minTripDistanceM: number;
}

export const DEFAULT_TRIP_RULES: Readonly<TripRules> = Object.freeze({
  startSpeedKmh: thresholds.TRIP_START_KMH,
  endStopS: thresholds.TRIP_END_STOP_S,
  maxGapS: thresholds.TRIP_MAX_GAP_S,
  minTripMovingS: thresholds.MIN_TRIP_MOVING_S,
  minTripDistanceM: thresholds.MIN_TRIP_DISTANCE_M,
});

/**
 * A speed computed from two fixes above this is a position jump, not motion: it must not start a trip on a
 * parked car.
 */
export const MAX_PLAUSIBLE_SPEED_KMH = thresholds.MAX_PLAUSIBLE_SPEED_MPS * 3.6;

/** Two fixes further apart than this in time say nothing about the speed between them. */
export const MAX_SPEED_DERIVATION_GAP_S = 30;

/**
 * Margin kept around a trip: the scorer's window reaches up to 30 s into the standstill before the start and
 * after the end (`EDGE_REACH_S` in scoring's trip-window.ts, not exported), so the batch carries 30 s on each
 * side and the scorer's own cut falls inside it.
 */
export const TRIP_EDGE_MARGIN_MS = 30_000;
