import { TRIP_END_STOP_S, TRIP_START_KMH } from '../thresholds.ts';
import type { Track } from './track.ts';

const STANDSTILL_KMH = 1;
/** How far a trip's start and end reach into the surrounding standstill, seconds. */
const EDGE_REACH_S = 30;
/** Seconds above the start speed within a 5 s window before a trip starts (ignores single noisy fixes). */
const START_CONFIRM_S = 3;

/** Grid seconds [start, end] of trips in a track, by the start/end rules of the segmentation. */
export function findTripWindows(track: Track, endStopS = TRIP_END_STOP_S): Array<[number, number]> {
  const n = track.n;
  const fast = new Uint8Array(n);
  for (let i = 0; i < n; i++) fast[i] = track.speedMps[i]! * 3.6 > TRIP_START_KMH ? 1 : 0;
  const windows: Array<[number, number]> = [];
  let i = 0;
  while (i < n) {
    // Start: the vehicle is above the start speed for most of a 5 s window.
    let count = 0;
    for (let k = i; k < Math.min(n, i + 5); k++) count += fast[k]!;
    if (!fast[i] || count < Math.min(START_CONFIRM_S, n - i)) {
      i++;
      continue;
    }
    let start = i;
    while (start > 0 && i - start < EDGE_REACH_S && track.speedMps[start - 1]! * 3.6 >= STANDSTILL_KMH) start--;
    if (start > 0 && i - start < EDGE_REACH_S) start--;
    // End: the last fast second followed by endStopS seconds without one.
    let lastFast = i;
    let j = i + 1;
    while (j < n && j - lastFast <= endStopS) {
      if (fast[j]) lastFast = j;
      j++;
    }
    let end = lastFast;
    while (end < n - 1 && end - lastFast < EDGE_REACH_S && track.speedMps[end]! * 3.6 >= STANDSTILL_KMH) end++;
    windows.push([start, end]);
    i = Math.max(end + 1, lastFast + 1);
  }
  return windows;
}

/** A view of grid seconds [start, end] of a track (shares memory except the per-step distance). */
export function sliceTrack(track: Track, start: number, end: number): Track {
  const s = Math.max(0, start);
  const e = Math.min(track.n - 1, end) + 1;
  const stepM = track.stepM.slice(s, e);
  if (stepM.length > 0) stepM[0] = 0;
  const gap = track.gap.subarray(s, e);
  let gapS = 0;
  for (const g of gap) gapS += g;
  return {
    ...track,
    n: e - s,
    t0Ms: track.tMs[s] ?? track.t0Ms,
    tMs: track.tMs.subarray(s, e),
    lon: track.lon.subarray(s, e),
    lat: track.lat.subarray(s, e),
    xM: track.xM.subarray(s, e),
    yM: track.yM.subarray(s, e),
    speedMps: track.speedMps.subarray(s, e),
    headingDeg: track.headingDeg.subarray(s, e),
    stepM,
    gap,
    broken: track.broken.subarray(s, e),
    accel1sMps2: track.accel1sMps2.subarray(s, e),
    accelMps2: track.accelMps2.subarray(s, e),
    yawRateDps: track.yawRateDps.subarray(s, e),
    gapS,
  };
}
