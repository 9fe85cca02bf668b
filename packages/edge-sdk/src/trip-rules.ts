/**
 * The trip segmentation rule, the same one the scoring engine applies to a sample stream
 * (research/telematics.md, "Trip segmentation"): a trip starts with the first speed above 8 km/h and ends
 * once the vehicle has been below it for 5 minutes; trips shorter than a minimum are noise (a car moved
 * in a car park, GPS drift) and are not uploaded. The SDK cuts trips where the scorer would, so one
 * uploaded batch scores as one trip.
 */
export interface TripRules {
  /** Strictly above this speed the vehicle is moving. */
  startSpeedKmh: number;
  /** This long without a moving observation ends the trip. */
  endStopS: number;
  /** A finished trip with less moving time than this is discarded. */
  minTripMovingS: number;
  /** A finished trip that covered less than this (along its GPS fixes) is discarded. */
  minTripDistanceM: number;
  /** Above this speed a stretch between two fixes counts as moving time. */
  movingSpeedKmh: number;
}

// The scoring engine's values (packages/scoring/src/thresholds.ts: TRIP_START_KMH, TRIP_END_STOP_S,
// MIN_TRIP_MOVING_S, MIN_TRIP_DISTANCE_M, MOVING_KMH). Its package entry does not export them yet, so they are
// repeated here; keep the two in step.
export const DEFAULT_TRIP_RULES: Readonly<TripRules> = Object.freeze({
  startSpeedKmh: 8,
  endStopS: 300,
  minTripMovingS: 120,
  minTripDistanceM: 1000,
  movingSpeedKmh: 5,
});

/**
 * A speed computed from two fixes above this is a position jump, not motion: it must not start a trip on a
 * parked car.
 */
export const MAX_PLAUSIBLE_SPEED_KMH = 270;

/** Two fixes further apart than this in time say nothing about the speed between them. */
export const MAX_SPEED_DERIVATION_GAP_S = 30;
