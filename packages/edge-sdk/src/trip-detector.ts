import type { Sample } from '@svc/scoring';
import { haversineM } from './geo.ts';
import { MAX_PLAUSIBLE_SPEED_KMH, MAX_SPEED_DERIVATION_GAP_S, type TripRules } from './trip-rules.ts';

/**
 * Live trip start/end detection. Pure: the state is a plain JSON value that the recorder persists in the same
 * transaction as the sample, so a restarted SDK resumes the very same decision it was in the middle of.
 *
 * Speed comes from the receiver's Doppler speed when the fix has one, else from the distance to the previous
 * fix, and from OBD when present. A trip starts on the first observation above `startSpeedKmh`, and ends
 * when a sample arrives `endStopS` after the vehicle was last seen moving (stationary, or no speed at all:
 * no evidence of motion). The trip then ends where the vehicle stopped, not 5 minutes later; when it was never
 * seen stopping (the data just ended), it ends with the last samples recorded while its motion still held.
 */
export interface DetectorState {
  inTrip: boolean;
  tripStartMs: number | null;
  /** Newest observation above the start speed in the current trip. */
  lastMovingMs: number | null;
  /** First stationary observation since `lastMovingMs`; null while moving. */
  stopStartMs: number | null;
  /**
   * Newest sample time within {@link MOTION_HOLD_MS} of a moving observation, while no stop is seen: where
   * the trip ends if the data simply stops (the IMU readings just after the last fix still belong to it).
   */
  tailMs: number | null;
  /** Previous GPS fix, for speeds derived from positions. */
  prevFix: { t: number; lon: number; lat: number } | null;
}

/** How long a moving observation vouches for the samples after it when no later speed is known. */
export const MOTION_HOLD_MS = 5_000;

export const IDLE_DETECTOR: Readonly<DetectorState> = Object.freeze({
  inTrip: false,
  tripStartMs: null,
  lastMovingMs: null,
  stopStartMs: null,
  tailMs: null,
  prevFix: null,
});

export interface DetectorStep {
  state: DetectorState;
  /** The open trip ended before this sample, at `endMs`. */
  ended?: { endMs: number };
  /** A trip started with this sample. */
  started?: { startMs: number };
}

/** Feeds one validated sample to the detector; returns the next state and any boundary it crossed. */
export function observeSample(previous: DetectorState, sample: Sample, rules: TripRules): DetectorStep {
  let state: DetectorState = { ...previous };
  const step: DetectorStep = { state };

  if (state.inTrip) {
    const stoppedSinceMs = state.stopStartMs ?? state.lastMovingMs ?? state.tripStartMs ?? sample.t;
    if (sample.t - stoppedSinceMs >= rules.endStopS * 1000) {
      step.ended = { endMs: tripEndMs(state) };
      state = { ...IDLE_DETECTOR, prevFix: state.prevFix };
    }
  }

  const speedKmh = observedSpeedKmh(sample, state.prevFix);
  if (sample.type === 'gps' && (state.prevFix === null || sample.t > state.prevFix.t)) {
    state.prevFix = { t: sample.t, lon: sample.lon, lat: sample.lat };
  }

  if (speedKmh !== undefined) {
    const moving = speedKmh > rules.startSpeedKmh;
    if (!state.inTrip) {
      if (moving) {
        state = {
          ...state,
          inTrip: true,
          tripStartMs: sample.t,
          lastMovingMs: sample.t,
          stopStartMs: null,
          tailMs: sample.t,
        };
        step.started = { startMs: sample.t };
      }
    } else if (moving) {
      // Samples of different streams may arrive slightly out of order: never move backwards.
      if (state.lastMovingMs === null || sample.t > state.lastMovingMs) state.lastMovingMs = sample.t;
      if (state.stopStartMs !== null && sample.t >= state.stopStartMs) state.stopStartMs = null;
    } else if (state.stopStartMs === null && (state.lastMovingMs === null || sample.t > state.lastMovingMs)) {
      state.stopStartMs = sample.t;
    }
  }
  if (
    state.inTrip &&
    state.stopStartMs === null &&
    state.lastMovingMs !== null &&
    sample.t <= state.lastMovingMs + MOTION_HOLD_MS &&
    (state.tailMs === null || sample.t > state.tailMs)
  ) {
    state.tailMs = sample.t;
  }
  step.state = state;
  return step;
}

/** Where the open trip ends if it ended now for lack of motion: where the vehicle stopped, or its data ran out. */
export function tripEndMs(state: DetectorState): number {
  return state.stopStartMs ?? state.tailMs ?? state.lastMovingMs ?? state.tripStartMs ?? 0;
}

/** The speed a sample tells about, or undefined when it tells nothing (IMU, phone, first fix, long gap, jump). */
export function observedSpeedKmh(sample: Sample, prevFix: DetectorState['prevFix']): number | undefined {
  if (sample.type === 'obd') return sample.speedKmh;
  if (sample.type !== 'gps') return undefined;
  if (sample.speedMps !== undefined) return sample.speedMps * 3.6;
  if (prevFix === null) return undefined;
  const dtS = (sample.t - prevFix.t) / 1000;
  if (dtS <= 0 || dtS > MAX_SPEED_DERIVATION_GAP_S) return undefined;
  const speedKmh = (haversineM(prevFix.lon, prevFix.lat, sample.lon, sample.lat) / dtS) * 3.6;
  return speedKmh > MAX_PLAUSIBLE_SPEED_KMH ? undefined : speedKmh;
}
