/**
 * Event thresholds and processing constants of the scoring model. Changing any of them changes scores, so
 * it needs a new SCORING_MODEL_VERSION. Sources: ../shared/research/telematics.md §1.2-1.5 and §5.2; the
 * package README says where the anchors disagree and why these values were chosen.
 */

export const G_MPS2 = 9.80665;

/** Trip segmentation (Samsara: start >= 5 mph, end after 5 min below it). */
export const TRIP_START_KMH = 8;
export const TRIP_END_STOP_S = 300;
/** A GPS silence this long ends a trip: nothing is known about what happened in between. */
export const TRIP_MAX_GAP_S = 300;
export const MIN_TRIP_DISTANCE_M = 1000;
export const MIN_TRIP_MOVING_S = 120;

/** Speed above which the vehicle counts as moving for time shares and rates. */
export const MOVING_KMH = 5;
/** Interpolated seconds inside a GPS gap longer than this carry no events (speed is unknown there). */
export const MAX_INTERPOLATED_GAP_S = 3;

/** GPS clean-up. */
export const MAX_PLAUSIBLE_SPEED_MPS = 75; // 270 km/h: beyond it a fix is a jump, not driving
export const MAX_ACCURACY_M = 65; // fixes reported worse than this are dropped
export const STALE_RUN_ENTRY_MPS = 8; // a frozen position entered or left faster than this is stale
export const DEFAULT_GPS_ACCURACY_M = 5;

/**
 * Harsh longitudinal and lateral events, m/s^2 (insurer mode ~3.0 braking, Sentiance 3.5 cornering).
 * The same values apply to GPS (or OBD) speed changes over 1 s, where research §5.2 proposed 7 mph/s
 * (3.13 m/s^2) for braking and 3.1 for acceleration: a 1 s mean at the IMU threshold means the IMU saw at
 * least that for part of the second, so one magnitude per event type keeps GPS-only trips counting about
 * as many events as IMU trips (README, "Where the anchors disagree"; test/imu-parity.test.ts).
 */
export const HARSH_BRAKING_MPS2 = 3.0;
export const SEVERE_BRAKING_MPS2 = 4.4;
export const EMERGENCY_BRAKING_MPS2 = 6.0;
export const HARSH_ACCEL_MPS2 = 2.5;
export const SEVERE_ACCEL_MPS2 = 3.6;
/** Severity labels only (an event's `severity: high`); no anchor gives an "extreme" tier, these are ours. */
export const EXTREME_ACCEL_MPS2 = 4.5;
export const HARSH_CORNERING_MPS2 = 3.5;
export const SEVERE_CORNERING_MPS2 = 4.9;
export const EXTREME_CORNERING_MPS2 = 6.0;
/** Minimum durations above threshold, seconds, for IMU (GPS works on 1 s differences). */
export const BRAKING_MIN_S = 0.3;
export const ACCEL_MIN_S = 0.5;
export const CORNERING_MIN_S = 0.4;
export const CORNERING_MIN_KMH = 18;
/** Braking must start while moving (the MOVING_KMH speed); research gives no gate for braking. */
export const HARSH_MIN_KMH = 5;
/** Same-type harsh events closer than this merge into one. */
export const EVENT_MERGE_S = 10;
/** A crash candidate: dynamic acceleration magnitude above 2.5 g. */
export const IMPACT_MPS2 = 2.5 * G_MPS2;

/** Speeding: tolerance max(5 km/h, 10 % of the limit), sustained 10 s (MediRoutes, Lightfoot, Greenlight). */
export const SPEEDING_TOLERANCE_KMH = 5;
export const SPEEDING_TOLERANCE_SHARE = 0.1;
export const SPEEDING_MIN_S = 10;
/** Seconds below tolerance that do not end an episode (a brief dip under the limit). */
export const SPEEDING_BRIDGE_S = 3;
export const HIGH_ABSOLUTE_SPEED_KMH = 130;

/** Phone use: a distracting state for >= 3 s at >= 15 km/h counts (MediRoutes 3 s / 11 mph, Damoov 10 km/h). */
export const PHONE_MIN_S = 3;
export const PHONE_MIN_KMH = 15;
/** Distraction-state gaps shorter than this join two episodes. */
export const PHONE_BRIDGE_S = 5;

/** Night 22:00-05:00, late night 00:00-04:00 local (Allstate 23-04/05, Greenlight 00-04, Highway Code). */
export const NIGHT_START_H = 22;
export const NIGHT_END_H = 5;
export const LATE_NIGHT_START_H = 0;
export const LATE_NIGHT_END_H = 4;

/** Fatigue: 2 h driving needs a >= 15 min break (Highway Code rule 91). */
export const MAX_STINT_MIN = 120;
export const BREAK_MIN = 15;
