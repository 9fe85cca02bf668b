import type { CleanGps } from '../clean/clean-gps.ts';

/** Fixes further apart than this are not used: the vehicle's own manoeuvres would read as scatter (0.5 Hz and up). */
const MAX_SPACING_S = 2.5;
/** Fewer usable fixes than this (a minute at 1 Hz) leave the estimate unknown. */
const MIN_FIXES = 60;
/** At most this many fixes are judged, evenly spread over the trace: a 12 h trace at 10 Hz has 432,000. */
const MAX_JUDGED = 20_000;
/** A normal distribution's standard deviation over its median absolute deviation. */
const MAD_TO_SIGMA = 1.4826;

/**
 * The white part of the trace's position error, per axis in metres, estimated from the fixes themselves (NaN when
 * too few fixes can be judged). Each fix is compared with the straight line between its neighbours, taken at its own
 * time: for fixes 1-2.5 s apart with no break between them, what a vehicle's motion puts there is small (a = 2 m/s^2
 * moves a fix 0.5 m off that line at 1 Hz, 2 m at 0.5 Hz), while white noise of sigma puts it off by
 * sigma * sqrt(1 + w1^2 + w2^2), where w1 and w2 are the neighbours' weights. The median of those normalised
 * offsets, over both axes, gives sigma with the manoeuvres and the odd bad fix outvoted. A slow drift (a receiver's
 * own filter) barely moves a fix off its neighbours' line and is not counted; it is slow enough not to read as
 * harsh driving either. Reported accuracies are not used: receivers and exports report them on scales of their own.
 */
export function estimatePositionNoiseM(gps: CleanGps): number {
  const m = gps.count;
  if (m < 3) return Number.NaN;
  const stride = Math.max(1, Math.floor((m - 2) / MAX_JUDGED));
  const offsets = new Float64Array(2 * Math.ceil((m - 2) / stride));
  let k = 0;
  for (let b = 1; b < m - 1; b += stride) {
    if (gps.breakBefore[b] || gps.breakBefore[b + 1]) continue;
    const dt1 = (gps.tMs[b]! - gps.tMs[b - 1]!) / 1000;
    const dt2 = (gps.tMs[b + 1]! - gps.tMs[b]!) / 1000;
    if (!(dt1 > 0 && dt2 > 0 && dt1 <= MAX_SPACING_S && dt2 <= MAX_SPACING_S)) continue;
    const w1 = dt2 / (dt1 + dt2);
    const w2 = dt1 / (dt1 + dt2);
    const scale = Math.sqrt(1 + w1 * w1 + w2 * w2);
    offsets[k++] = Math.abs(gps.xM[b]! - (w1 * gps.xM[b - 1]! + w2 * gps.xM[b + 1]!)) / scale;
    offsets[k++] = Math.abs(gps.yM[b]! - (w1 * gps.yM[b - 1]! + w2 * gps.yM[b + 1]!)) / scale;
  }
  if (k < 2 * MIN_FIXES) return Number.NaN;
  const used = offsets.subarray(0, k).sort();
  const mid = k >> 1;
  const median = k % 2 === 1 ? used[mid]! : (used[mid - 1]! + used[mid]!) / 2;
  return MAD_TO_SIGMA * median;
}
