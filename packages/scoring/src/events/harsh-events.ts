import { IMU_BIN_MS, type ImuSeries, imuCoveredSeconds } from '../imu/imu-series.ts';
import type { EventType } from '../result.ts';
import {
  ACCEL_MIN_S,
  BRAKING_MIN_S,
  CORNERING_MIN_KMH,
  CORNERING_MIN_S,
  EMERGENCY_BRAKING_MPS2,
  EVENT_MERGE_S,
  EXTREME_ACCEL_MPS2,
  EXTREME_CORNERING_MPS2,
  HARSH_ACCEL_MPS2,
  HARSH_BRAKING_MPS2,
  HARSH_CORNERING_MPS2,
  HARSH_MIN_KMH,
  SEVERE_ACCEL_MPS2,
  SEVERE_BRAKING_MPS2,
  SEVERE_CORNERING_MPS2,
} from '../thresholds.ts';
import type { Track } from '../track/track.ts';
import { type FoundEvent, positionAt, round, secondOf, speedKmhAt } from './found-event.ts';

type HarshType = Extract<EventType, 'harsh_braking' | 'harsh_acceleration' | 'harsh_cornering'>;

interface HarshRule {
  type: HarshType;
  threshold: number;
  severe: number;
  extreme: number;
  minS: number;
  minKmh: number;
}

const RULES: Record<HarshType, HarshRule> = {
  harsh_braking: {
    type: 'harsh_braking',
    threshold: HARSH_BRAKING_MPS2,
    severe: SEVERE_BRAKING_MPS2,
    extreme: EMERGENCY_BRAKING_MPS2,
    minS: BRAKING_MIN_S,
    minKmh: HARSH_MIN_KMH,
  },
  harsh_acceleration: {
    type: 'harsh_acceleration',
    threshold: HARSH_ACCEL_MPS2,
    severe: SEVERE_ACCEL_MPS2,
    extreme: EXTREME_ACCEL_MPS2,
    minS: ACCEL_MIN_S,
    minKmh: 0,
  },
  harsh_cornering: {
    type: 'harsh_cornering',
    threshold: HARSH_CORNERING_MPS2,
    severe: SEVERE_CORNERING_MPS2,
    extreme: EXTREME_CORNERING_MPS2,
    minS: CORNERING_MIN_S,
    minKmh: CORNERING_MIN_KMH,
  },
};

interface Run {
  startMs: number;
  endMs: number;
  peakMs: number;
  peak: number;
  /** Signed value at the peak (cornering: positive = left). */
  signedPeak: number;
  source: 'imu' | 'gps' | 'obd';
}

function severityOf(rule: HarshRule, peak: number): 'low' | 'medium' | 'high' {
  return peak >= rule.extreme ? 'high' : peak >= rule.severe ? 'medium' : 'low';
}

/** Runs of IMU bins whose magnitude stays at or above the threshold for the rule's minimum duration. */
function imuRuns(imu: ImuSeries, track: Track, rule: HarshRule): Run[] {
  const values = rule.type === 'harsh_cornering' ? imu.latMps2 : imu.longMps2;
  const sign = rule.type === 'harsh_braking' ? -1 : 1;
  const absolute = rule.type === 'harsh_cornering';
  const minBins = Math.round((rule.minS * 1000) / IMU_BIN_MS);
  const runs: Run[] = [];
  let start = -1;
  let peak = 0;
  let peakK = 0;
  let signedPeak = 0;
  const close = (end: number) => {
    if (end - start >= minBins) {
      const startMs = imu.t0Ms + start * IMU_BIN_MS;
      if (speedKmhAt(track, startMs) >= rule.minKmh) {
        runs.push({
          startMs,
          endMs: imu.t0Ms + end * IMU_BIN_MS,
          peakMs: imu.t0Ms + peakK * IMU_BIN_MS + IMU_BIN_MS / 2,
          peak,
          signedPeak,
          source: 'imu',
        });
      }
    }
    start = -1;
  };
  for (let k = 0; k < imu.n; k++) {
    const raw = values[k]!;
    const v = absolute ? Math.abs(raw) : sign * raw;
    if (v >= rule.threshold) {
      if (start < 0) {
        start = k;
        peak = v;
        peakK = k;
        signedPeak = raw;
      } else if (v > peak) {
        peak = v;
        peakK = k;
        signedPeak = raw;
      }
    } else if (start >= 0) close(k);
  }
  if (start >= 0) close(imu.n);
  return runs;
}

/**
 * Runs from the GPS (or OBD) speed on the 1 s grid: braking and acceleration from the speed change over
 * 1 s confirmed by a neighbouring second changing the same way (research §5.2); cornering from speed x
 * course rate over +-1 s.
 */
function gpsRuns(track: Track, rule: HarshRule): Run[] {
  const runs: Run[] = [];
  const source = track.speedSource === 'obd' ? 'obd' : 'gps';
  const n = track.n;
  const magnitude = (i: number): number => {
    if (track.gap[i]) return Number.NaN;
    if (rule.type === 'harsh_cornering') {
      const v = track.speedMps[i]!;
      const w = track.yawRateDps[i]!;
      if (!(v * 3.6 >= rule.minKmh) || !Number.isFinite(w)) return Number.NaN;
      return Math.abs((v * w * Math.PI) / 180);
    }
    const a = track.accel1sMps2[i]!;
    return rule.type === 'harsh_braking' ? -a : a;
  };
  const confirmed = (i: number): boolean => {
    if (rule.type === 'harsh_cornering') return true;
    const before = i > 0 ? magnitude(i - 1) : Number.NaN;
    const after = i < n - 1 ? magnitude(i + 1) : Number.NaN;
    return before > 0 || after > 0;
  };
  let start = -1;
  let peak = 0;
  let peakI = 0;
  let signedPeak = 0;
  const close = (end: number) => {
    // A 1 s difference at second i measures [i-1, i]; a lateral value at i spans [i-1, i+1].
    const startS = rule.type === 'harsh_cornering' ? start : start - 1;
    const startMs = track.t0Ms + Math.max(0, startS) * 1000;
    if (speedKmhAt(track, startMs) >= rule.minKmh) {
      runs.push({
        startMs,
        endMs: track.t0Ms + (end - 1) * 1000,
        peakMs: track.t0Ms + peakI * 1000,
        peak,
        signedPeak,
        source,
      });
    }
    start = -1;
  };
  for (let i = 1; i < n; i++) {
    const m = magnitude(i);
    if (m >= rule.threshold && confirmed(i)) {
      if (start < 0) {
        start = i;
        peak = m;
        peakI = i;
      } else if (m > peak) {
        peak = m;
        peakI = i;
      }
      if (peakI === i) signedPeak = rule.type === 'harsh_cornering' ? Math.sign(track.yawRateDps[i]!) * m : m;
    } else if (start >= 0) close(i);
  }
  if (start >= 0) close(n);
  return runs;
}

/** Joins same-type runs closer than EVENT_MERGE_S (one manoeuvre, counted once). */
function mergeRuns(runs: Run[]): Run[] {
  const out: Run[] = [];
  for (const run of runs) {
    const last = out[out.length - 1];
    if (last && run.startMs - last.endMs < EVENT_MERGE_S * 1000) {
      last.endMs = Math.max(last.endMs, run.endMs);
      if (run.peak > last.peak) {
        last.peak = run.peak;
        last.peakMs = run.peakMs;
        last.signedPeak = run.signedPeak;
      }
    } else out.push({ ...run });
  }
  return out;
}

/**
 * The runs of a rule: from the IMU when it is usable, and from GPS (or OBD) speed over the stretches the
 * IMU does not cover, so a trip whose accelerometer stopped half-way still has its later events.
 */
function runsOf(track: Track, imu: ImuSeries | null, rule: HarshRule): Run[] {
  if (!imu?.available) return gpsRuns(track, rule);
  const covered = imuCoveredSeconds(rule.type === 'harsh_cornering' ? imu.latMps2 : imu.longMps2, track.n);
  const uncovered = gpsRuns(track, rule).filter((run) => {
    for (let i = secondOf(track, run.startMs); i <= secondOf(track, run.endMs); i++) if (covered[i]) return false;
    return true;
  });
  return [...imuRuns(imu, track, rule), ...uncovered].sort((a, b) => a.startMs - b.startMs);
}

/**
 * Harsh braking, acceleration and cornering events: from the IMU when it is usable, otherwise (and where
 * the IMU has no data) from GPS (or OBD) speed, with the source recorded on each event.
 */
export function detectHarshEvents(track: Track, imu: ImuSeries | null): FoundEvent[] {
  const found: FoundEvent[] = [];
  for (const rule of Object.values(RULES)) {
    const runs = mergeRuns(runsOf(track, imu, rule));
    for (const run of runs) {
      const peakS = secondOf(track, run.peakMs);
      const details: Record<string, unknown> = {
        speedKmh: round(speedKmhAt(track, run.startMs), 1),
        endSpeedKmh: round(speedKmhAt(track, run.endMs), 1),
        durationS: round((run.endMs - run.startMs) / 1000, 1),
      };
      if (rule.type === 'harsh_cornering') details.direction = run.signedPeak >= 0 ? 'left' : 'right';
      found.push({
        event: {
          type: rule.type,
          startMs: run.startMs,
          endMs: run.endMs,
          position: positionAt(track, peakS),
          severity: severityOf(rule, run.peak),
          value: round(run.peak, 2),
          unit: 'm/s^2',
          source: run.source,
          details,
        },
        startS: secondOf(track, run.startMs),
        peakS,
        endS: secondOf(track, run.endMs),
      });
    }
  }
  return found;
}
