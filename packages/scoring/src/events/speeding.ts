import type { RoadContext } from '../roads/road-context.ts';
import {
  MOVING_KMH,
  SPEEDING_BRIDGE_S,
  SPEEDING_MIN_S,
  SPEEDING_TOLERANCE_KMH,
  SPEEDING_TOLERANCE_SHARE,
} from '../thresholds.ts';
import type { Track } from '../track/track.ts';
import { type FoundEvent, positionAt, round } from './found-event.ts';

export const BAND_NAMES = ['none', 'minor', 'moderate', 'severe', 'extreme'] as const;
export type SpeedingBand = (typeof BAND_NAMES)[number];

/** Speeding measured against the matched limits, per grid second and as episodes. */
export interface SpeedingAnalysis {
  /** Limit per second: NaN unknown or unmatched, Infinity where the road has no limit. */
  limitKmh: Float64Array;
  /** Excess over the limit, km/h (NaN where the limit is not finite or the second is a gap). */
  excessKmh: Float64Array;
  /** 1-4 (minor..extreme) for seconds inside speeding episodes, else 0. */
  band: Uint8Array;
  /** Moving seconds and distance on roads with a known limit (or no limit). */
  knownLimitMovingS: number;
  knownLimitDistanceM: number;
  episodes: FoundEvent[];
}

/** Tolerance over a limit: max(5 km/h, 10 %). */
export function toleranceKmh(limitKmh: number): number {
  return Math.max(SPEEDING_TOLERANCE_KMH, SPEEDING_TOLERANCE_SHARE * limitKmh);
}

/** Band of an excess at a limit: both absolute and relative excess count (Lightfoot's rule). */
export function speedingBand(excessKmh: number, limitKmh: number): 1 | 2 | 3 | 4 {
  const ratio = excessKmh / limitKmh;
  if (excessKmh > 30 || (ratio > 0.4 && excessKmh > 20)) return 4;
  if (excessKmh > 20 && ratio > 0.25) return 3;
  if (excessKmh > 10) return 2;
  return 1;
}

/** Finds speeding episodes: over limit + tolerance for at least 10 s, dips of up to 3 s bridged. */
export function analyseSpeeding(track: Track, road: RoadContext): SpeedingAnalysis {
  const n = track.n;
  const limitKmh = new Float64Array(n).fill(Number.NaN);
  const excessKmh = new Float64Array(n).fill(Number.NaN);
  const band = new Uint8Array(n);
  const over = new Uint8Array(n);
  let knownLimitMovingS = 0;
  let knownLimitDistanceM = 0;
  for (let i = 0; i < n; i++) {
    const e = road.edge[i]!;
    if (e < 0) continue;
    const limit = road.edges.get(e)?.limitKmh ?? Number.NaN;
    limitKmh[i] = limit;
    if (Number.isNaN(limit)) continue;
    const v = track.speedMps[i]! * 3.6;
    if (v >= MOVING_KMH) {
      knownLimitMovingS++;
      knownLimitDistanceM += track.stepM[i]!;
    }
    if (!Number.isFinite(limit) || track.gap[i] || !Number.isFinite(v)) continue;
    excessKmh[i] = v - limit;
    if (v - limit > toleranceKmh(limit)) over[i] = 1;
  }
  const episodes: FoundEvent[] = [];
  let i = 0;
  while (i < n) {
    if (!over[i]) {
      i++;
      continue;
    }
    let end = i;
    let j = i + 1;
    while (j < n && j - end - 1 <= SPEEDING_BRIDGE_S) {
      if (over[j]) end = j;
      j++;
    }
    let overS = 0;
    for (let k = i; k <= end; k++) overS += over[k]!;
    if (overS >= SPEEDING_MIN_S) episodes.push(episode(track, i, end, over, excessKmh, limitKmh, band));
    i = end + 1;
  }
  return { limitKmh, excessKmh, band, knownLimitMovingS, knownLimitDistanceM, episodes };
}

function episode(
  track: Track,
  start: number,
  end: number,
  over: Uint8Array,
  excessKmh: Float64Array,
  limitKmh: Float64Array,
  band: Uint8Array,
): FoundEvent {
  let sustained = Number.NEGATIVE_INFINITY;
  let peakS = start;
  let distanceM = 0;
  let maxSpeedKmh = 0;
  for (let k = start; k <= end; k++) {
    if (over[k]) band[k] = speedingBand(excessKmh[k]!, limitKmh[k]!);
    distanceM += track.stepM[k]!;
    maxSpeedKmh = Math.max(maxSpeedKmh, track.speedMps[k]! * 3.6);
    // The excess held for 3 s: the smallest of three consecutive seconds.
    if (k + 2 <= end) {
      const held = Math.min(excessKmh[k]!, excessKmh[k + 1]!, excessKmh[k + 2]!);
      if (held > sustained) {
        sustained = held;
        peakS = excessKmh[k + 1]! >= excessKmh[k]! ? k + 1 : k;
      }
    }
  }
  if (!Number.isFinite(sustained)) sustained = excessKmh[start]!;
  const limit = limitKmh[peakS]!;
  const peakBand = speedingBand(sustained, limit);
  return {
    event: {
      type: 'speeding',
      startMs: track.tMs[start]!,
      endMs: track.tMs[end]!,
      position: positionAt(track, peakS),
      severity: peakBand >= 3 ? 'high' : peakBand === 2 ? 'medium' : 'low',
      value: round(sustained, 1),
      unit: 'km/h over limit',
      source: track.speedSource === 'obd' ? 'obd' : 'gps',
      details: {
        speedLimitKmh: limit,
        band: BAND_NAMES[peakBand],
        maxSpeedKmh: round(maxSpeedKmh, 1),
        durationS: end - start + 1,
        distanceM: round(distanceM, 0),
      },
    },
    startS: start,
    peakS,
    endS: end,
  };
}
