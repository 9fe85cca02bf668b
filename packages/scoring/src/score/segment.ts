import { type CleanGps, cleanGps } from '../clean/clean-gps.ts';
import type { ScoredTrip } from '../result.ts';
import type { Sample, TelemetryBatch } from '../telemetry.ts';
import {
  BREAK_MIN,
  MIN_TRIP_DISTANCE_M,
  MIN_TRIP_MOVING_S,
  MOVING_KMH,
  TRIP_END_STOP_S,
  TRIP_MAX_GAP_S,
} from '../thresholds.ts';
import { localClock } from '../time/local-clock.ts';
import { zoneOfPosition } from '../time/zone-of-position.ts';
import { buildTrack } from '../track/track.ts';
import { findTripWindows } from '../track/trip-window.ts';
import { type ScoreOptions, scoreTrip } from './score-trip.ts';
import type { DrivingContext } from './trip-data.ts';

export interface SegmentOptions {
  /** Stopped this long ends a trip, seconds (default 300). */
  endStopS?: number;
  /** A GPS silence this long ends a trip, seconds (default 300). */
  maxGapS?: number;
  /** Minimum scorable distance, metres (default 1000). */
  minDistanceM?: number;
  /** Minimum scorable moving time, seconds (default 120). */
  minMovingS?: number;
}

/** One trip found in a stream of telemetry. */
export interface TripSegment {
  startMs: number;
  endMs: number;
  distanceKm: number;
  movingMin: number;
  /** False when the trip is shorter than the minimum scorable trip; `reason` says how. */
  scorable: boolean;
  reason?: string;
  /** The samples of the trip (phone events from before it are included: they set the phone's state). */
  samples: Sample[];
}

function sliceGps(gps: CleanGps, from: number, to: number): CleanGps {
  return {
    ...gps,
    count: to - from,
    tMs: gps.tMs.subarray(from, to),
    lon: gps.lon.subarray(from, to),
    lat: gps.lat.subarray(from, to),
    xM: gps.xM.subarray(from, to),
    yM: gps.yM.subarray(from, to),
    speedMps: gps.speedMps.subarray(from, to),
    headingDeg: gps.headingDeg.subarray(from, to),
    accuracyM: gps.accuracyM.subarray(from, to),
    breakBefore: gps.breakBefore.subarray(from, to),
  };
}

/**
 * Splits telemetry into trips: a trip starts when the vehicle moves faster than 8 km/h and ends after 5
 * minutes stopped (or 5 minutes without GPS); trips under 1 km or 2 minutes moving are marked unscorable.
 */
export function segmentTrips(input: TelemetryBatch | readonly Sample[], options: SegmentOptions = {}): TripSegment[] {
  const raw = Array.isArray(input) ? (input as readonly Sample[]) : (input as TelemetryBatch).samples;
  const samples = [...raw].sort((a, b) => a.t - b.t);
  const endStopS = options.endStopS ?? TRIP_END_STOP_S;
  const maxGapMs = (options.maxGapS ?? TRIP_MAX_GAP_S) * 1000;
  const minDistanceM = options.minDistanceM ?? MIN_TRIP_DISTANCE_M;
  const minMovingS = options.minMovingS ?? MIN_TRIP_MOVING_S;
  const gps = cleanGps(samples);
  const obd = samples.filter((s) => s.type === 'obd');
  const windows: Array<{ startMs: number; endMs: number; distanceM: number; movingS: number }> = [];
  let chunkStart = 0;
  for (let k = 1; k <= gps.count; k++) {
    if (k < gps.count && gps.tMs[k]! - gps.tMs[k - 1]! <= maxGapMs) continue;
    const chunk = sliceGps(gps, chunkStart, k);
    chunkStart = k;
    if (chunk.count < 2) continue;
    const track = buildTrack(chunk, { obd });
    for (const [s, e] of findTripWindows(track, endStopS)) {
      let distanceM = 0;
      let movingS = 0;
      for (let i = s + 1; i <= e; i++) {
        distanceM += track.stepM[i]!;
        if (track.speedMps[i]! * 3.6 >= MOVING_KMH) movingS++;
      }
      windows.push({ startMs: track.tMs[s]!, endMs: track.tMs[e]!, distanceM, movingS });
    }
  }
  const segments: TripSegment[] = [];
  let cursor = 0;
  let phoneFrom = 0;
  for (const w of windows) {
    const trip: Sample[] = [];
    while (cursor < samples.length && samples[cursor]!.t < w.startMs) cursor++;
    for (let k = phoneFrom; k < cursor; k++) if (samples[k]!.type === 'phone') trip.push(samples[k]!);
    let k = cursor;
    while (k < samples.length && samples[k]!.t <= w.endMs) trip.push(samples[k++]!);
    phoneFrom = k;
    cursor = k;
    const tooShort = w.distanceM < minDistanceM || w.movingS < minMovingS;
    segments.push({
      startMs: w.startMs,
      endMs: w.endMs,
      distanceKm: Math.round(w.distanceM) / 1000,
      movingMin: Math.round((w.movingS / 60) * 100) / 100,
      scorable: !tooShort,
      ...(tooShort
        ? {
            reason: `${(w.distanceM / 1000).toFixed(2)} km and ${Math.round(w.movingS)} s moving; the minimum is ${minDistanceM / 1000} km and ${minMovingS} s`,
          }
        : {}),
      samples: trip,
    });
  }
  return segments;
}

/** An earlier trip of the same driver, for fatigue context. */
export interface PreviousTrip {
  startMs: number;
  endMs: number;
}

/**
 * The driving before a trip that counts for fatigue: the current stint (trips chained by breaks shorter
 * than 15 min) and the driving earlier the same local day. `previous` may be in any order.
 */
export function drivingContextFor(
  previous: readonly PreviousTrip[],
  tripStartMs: number,
  clock: { timeZone?: string; lon?: number } = {},
): DrivingContext {
  const trips = previous.filter((p) => p.endMs <= tripStartMs).sort((a, b) => a.startMs - b.startMs);
  const local = localClock(clock.timeZone, clock.lon ?? 0);
  // Local midnight before the trip: back by the wall-clock hours, corrected when the offset changed since.
  const guessMs = tripStartMs - local.at(tripStartMs).hour * 3_600_000;
  const dayStartMs = guessMs + (local.offsetMin(tripStartMs) - local.offsetMin(guessMs)) * 60_000;
  let priorDayDrivingMin = 0;
  // An earlier trip that crossed midnight counts with its part after midnight only.
  for (const p of trips) priorDayDrivingMin += Math.max(0, p.endMs - Math.max(p.startMs, dayStartMs)) / 60_000;
  let priorStintMin = 0;
  let chainStart = tripStartMs;
  for (let k = trips.length - 1; k >= 0; k--) {
    const p = trips[k]!;
    if (chainStart - p.endMs >= BREAK_MIN * 60_000) break;
    priorStintMin += (p.endMs - p.startMs) / 60_000;
    chainStart = p.startMs;
  }
  return { priorStintMin, priorDayDrivingMin };
}

/**
 * Scores every scorable trip in an upload that may hold several: segments it, then scores each trip with
 * the fatigue context of `previousTrips` (the driver's earlier trips) and the trips before it in the upload.
 */
export function scoreTelemetry(
  input: TelemetryBatch | readonly Sample[],
  options: ScoreOptions & SegmentOptions & { previousTrips?: readonly PreviousTrip[] } = {},
): ScoredTrip[] {
  const batch = Array.isArray(input) ? undefined : (input as TelemetryBatch);
  const segments = segmentTrips(input, options);
  const scored: ScoredTrip[] = [];
  const previous: PreviousTrip[] = [...(options.previousTrips ?? [])];
  for (const segment of segments) {
    if (!segment.scorable) continue;
    const firstFix = segment.samples.find((s) => s.type === 'gps');
    const lon = firstFix?.type === 'gps' ? firstFix.lon : 0;
    const lat = firstFix?.type === 'gps' ? firstFix.lat : 0;
    const context = drivingContextFor(previous, segment.startMs, {
      timeZone: options.timeZone ?? batch?.timeZone ?? zoneOfPosition(lon, lat),
      lon,
    });
    const trip = scoreTrip(batch ? { ...batch, samples: segment.samples } : segment.samples, {
      ...options,
      drivingContext: context,
      allowShortTrip: true,
    });
    scored.push(trip);
    previous.push({ startMs: trip.startMs, endMs: trip.endMs });
  }
  return scored;
}
