import { eastM, type LocalProjection, localProjection, lonDeltaDeg, meanLonDeg } from '../geo.ts';
import type { GpsSample, Sample } from '../telemetry.ts';
import { DEFAULT_GPS_ACCURACY_M, MAX_ACCURACY_M, MAX_PLAUSIBLE_SPEED_MPS, STALE_RUN_ENTRY_MPS } from '../thresholds.ts';

/** What the GPS clean-up removed or repaired, for the trip's data-quality block. */
export interface GpsCleanReport {
  inputFixes: number;
  keptFixes: number;
  duplicateTimes: number;
  inaccurate: number;
  /** Fixes that repeated a position while the vehicle was evidently moving (receiver hold, tunnel). */
  staleFixes: number;
  /** Single fixes far off the track that the next fix contradicts. */
  spikes: number;
  /** Position jumps that persist and cannot be explained by driving: the track is broken there. */
  jumps: number;
}

/** Cleaned GPS fixes in time order, as parallel typed arrays. NaN marks an absent optional value. */
export interface CleanGps {
  count: number;
  tMs: Float64Array;
  lon: Float64Array;
  lat: Float64Array;
  /** Metres east/north of `projection`'s origin. */
  xM: Float64Array;
  yM: Float64Array;
  speedMps: Float64Array;
  headingDeg: Float64Array;
  accuracyM: Float64Array;
  /** 1 where the track is broken before this fix (an unexplained jump): nothing is derived across it. */
  breakBefore: Uint8Array;
  /**
   * The north-south step of the coordinates in metres when the trace is rounded to 4 decimals or fewer (11.1 m at
   * 4), else 0 (see roundedStepM).
   */
  coordinateStepM: number;
  projection: LocalProjection;
  report: GpsCleanReport;
}

const SAME_POSITION_M = 0.05;

/**
 * Cleans the GPS fixes among `samples`: sorts them, keeps one fix per timestamp (see pickDuplicate), drops fixes
 * reported as inaccurate, drops stale repeated positions (a receiver holding its last fix while the car
 * moves on, as in a tunnel), drops single-fix spikes and marks persistent jumps as breaks.
 */
export function cleanGps(samples: readonly Sample[]): CleanGps {
  const fixes: GpsSample[] = [];
  let sorted = true;
  for (const s of samples) {
    if (s.type !== 'gps' || !Number.isFinite(s.lon) || !Number.isFinite(s.lat) || !Number.isFinite(s.t)) continue;
    if (fixes.length > 0 && s.t < fixes[fixes.length - 1]!.t) sorted = false;
    fixes.push(s);
  }
  if (!sorted) fixes.sort((a, b) => a.t - b.t);
  const report: GpsCleanReport = {
    inputFixes: fixes.length,
    keptFixes: 0,
    duplicateTimes: 0,
    inaccurate: 0,
    staleFixes: 0,
    spikes: 0,
    jumps: 0,
  };

  // 1. One fix per timestamp, none reported worse than MAX_ACCURACY_M.
  const accurate: GpsSample[] = [];
  for (const fix of fixes) {
    if ((fix.accuracyM ?? DEFAULT_GPS_ACCURACY_M) > MAX_ACCURACY_M) report.inaccurate++;
    else accurate.push(fix);
  }
  const kept: GpsSample[] = [];
  for (let i = 0; i < accurate.length; ) {
    let end = i + 1;
    while (end < accurate.length && accurate[end]!.t === accurate[i]!.t) end++;
    if (end - i === 1) kept.push(accurate[i]!);
    else {
      report.duplicateTimes += end - i - 1;
      let nextEnd = end + 1;
      while (nextEnd < accurate.length && accurate[nextEnd]!.t === accurate[end]!.t) nextEnd++;
      const next = end < accurate.length ? accurate.slice(end, nextEnd) : [];
      kept.push(pickDuplicate(accurate.slice(i, end), kept[kept.length - 1], next));
    }
    i = end;
  }
  const n = kept.length;
  let latSum = 0;
  for (const f of kept) latSum += f.lat;
  const projection = localProjection(meanLonDeg(kept.map((f) => f.lon)), n > 0 ? latSum / n : 0);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const t = new Float64Array(n);
  const acc = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const f = kept[i]!;
    x[i] = eastM(projection, f.lon);
    y[i] = (f.lat - projection.lat0) * projection.ky;
    t[i] = f.t;
    acc[i] = f.accuracyM ?? DEFAULT_GPS_ACCURACY_M;
  }
  const keep = new Uint8Array(n).fill(1);
  const dist = (a: number, b: number) => Math.hypot(x[b]! - x[a]!, y[b]! - y[a]!);

  // 2. Stale runs: a position repeated exactly while the speed into or out of it says the car was moving. On a
  // rounded trace a slow vehicle repeats its rounded position and then steps on by a whole step: the step is
  // taken off the distance into and out of a run before its speed is judged.
  const stepM = roundedStepM(kept);
  const moved = (a: number, b: number) => Math.max(0, dist(a, b) - stepM);
  markStaleRuns(n, t, dist, moved, kept, keep, report);

  // 3. Spikes and jumps, judged by the speed implied between consecutive surviving fixes (with the
  // reported accuracies as slack, so noisy fixes at 10 Hz are not mistaken for jumps).
  const breakBefore = new Uint8Array(n);
  const implied = (a: number, b: number) => {
    const dtS = (t[b]! - t[a]!) / 1000;
    return Math.max(0, dist(a, b) - acc[a]! - acc[b]!) / Math.max(dtS, 0.001);
  };
  let last = -1;
  for (let j = 0; j < n; j++) {
    if (keep[j] === 0) continue;
    if (last < 0 || implied(last, j) <= MAX_PLAUSIBLE_SPEED_MPS) {
      last = j;
      continue;
    }
    let next = j + 1;
    while (next < n && keep[next] === 0) next++;
    if (next < n && implied(last, next) <= MAX_PLAUSIBLE_SPEED_MPS) {
      keep[j] = 0;
      report.spikes++;
      continue;
    }
    breakBefore[j] = 1;
    report.jumps++;
    last = j;
  }
  // A fix cut off from the track on both sides (a jump into it and one out of it, or the trace's end) is a spike
  // that no next fix could contradict: a receiver's (0,0) or stale fix as the last of the trace, or as the first.
  // Kept, the track would run to it and back (a (0,0) fix at a trip's end read as 4,000 km of driving).
  dropLoneFixes(n, keep, breakBefore, report);

  let m = 0;
  for (let i = 0; i < n; i++) if (keep[i]) m++;
  const out: CleanGps = {
    count: m,
    tMs: new Float64Array(m),
    lon: new Float64Array(m),
    lat: new Float64Array(m),
    xM: new Float64Array(m),
    yM: new Float64Array(m),
    speedMps: new Float64Array(m),
    headingDeg: new Float64Array(m),
    accuracyM: new Float64Array(m),
    breakBefore: new Uint8Array(m),
    coordinateStepM: stepM,
    projection,
    report,
  };
  let k = 0;
  let pendingBreak = 0;
  for (let i = 0; i < n; i++) {
    if (!keep[i]) continue;
    const f = kept[i]!;
    out.tMs[k] = t[i]!;
    out.lon[k] = f.lon;
    out.lat[k] = f.lat;
    out.xM[k] = x[i]!;
    out.yM[k] = y[i]!;
    out.speedMps[k] = f.speedMps ?? Number.NaN;
    out.headingDeg[k] = f.headingDeg ?? Number.NaN;
    out.accuracyM[k] = acc[i]!;
    out.breakBefore[k] = breakBefore[i]! | pendingBreak;
    pendingBreak = 0;
    k++;
  }
  report.keptFixes = m;
  return out;
}

/**
 * Drops every kept fix that forms a piece of track on its own: a jump (or the trace's start) before it, and a jump
 * (or the trace's end) after it. Such a fix is counted as a spike instead of a jump; a piece of two fixes or more
 * is kept, with its jumps. A trace that is one fix long is left alone (it is too short to score either way).
 */
function dropLoneFixes(n: number, keep: Uint8Array, breakBefore: Uint8Array, report: GpsCleanReport): void {
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) kept.push(i);
  if (kept.length < 2) return;
  let dropped = false;
  for (let k = 0; k < kept.length; k++) {
    const cutBefore = k === 0 || breakBefore[kept[k]!] === 1;
    const cutAfter = k === kept.length - 1 || breakBefore[kept[k + 1]!] === 1;
    if (cutBefore && cutAfter) {
      keep[kept[k]!] = 0;
      report.spikes++;
      dropped = true;
    }
  }
  if (!dropped) return;
  // The breaks between the fixes left: one wherever a jump lay between two of them; none before the first.
  let jumpSince = false;
  let first = true;
  report.jumps = 0;
  for (const i of kept) {
    jumpSince ||= breakBefore[i] === 1;
    breakBefore[i] = 0;
    if (!keep[i]) continue;
    if (jumpSince && !first) {
      breakBefore[i] = 1;
      report.jumps++;
    }
    jumpSince = false;
    first = false;
  }
}

/**
 * The fix kept of several sharing a timestamp (a device re-sending a buffer, two location providers): the most
 * accurate; among equally accurate ones, the one nearest to where the neighbouring timestamps put the vehicle
 * (between the fix kept before and the mean of the fixes after, by time), then by position, speed, heading, altitude.
 * So the choice does not depend on the order the fixes were sent in, and a stray duplicate does not displace the
 * fix consistent with the track (which the spike check would then drop as well, leaving a gap).
 */
function pickDuplicate(group: readonly GpsSample[], before: GpsSample | undefined, after: readonly GpsSample[]) {
  const accuracy = (f: GpsSample) => f.accuracyM ?? DEFAULT_GPS_ACCURACY_M;
  // A loop, not Math.min(...): a device whose clock stuck stamps every fix with one time, and 200,000 arguments
  // overflowed the stack (the trip failed to score with "Maximum call stack size exceeded").
  let best = Number.POSITIVE_INFINITY;
  for (const f of group) best = Math.min(best, accuracy(f));
  const candidates = group.filter((f) => accuracy(f) === best);
  const t = candidates[0]!.t;
  let reference: { lon: number; lat: number } | undefined;
  if (after.length > 0) {
    const next = {
      t: after[0]!.t,
      lon: meanLonDeg(after.map((f) => f.lon)),
      lat: after.reduce((sum, f) => sum + f.lat, 0) / after.length,
    };
    const w = before !== undefined ? (t - before.t) / (next.t - before.t) : 1;
    reference =
      before !== undefined
        ? {
            lon: before.lon + w * lonDeltaDeg(next.lon, before.lon),
            lat: before.lat + w * (next.lat - before.lat),
          }
        : next;
  } else if (before !== undefined) reference = before;
  const kx = Math.cos((candidates[0]!.lat * Math.PI) / 180);
  const offset = (f: GpsSample) =>
    reference === undefined ? 0 : Math.hypot(lonDeltaDeg(f.lon, reference.lon) * kx, f.lat - reference.lat);
  let pick = candidates[0]!;
  for (const f of candidates.slice(1)) {
    const order =
      offset(f) - offset(pick) ||
      f.lon - pick.lon ||
      f.lat - pick.lat ||
      (f.speedMps ?? -1) - (pick.speedMps ?? -1) ||
      (f.headingDeg ?? -1) - (pick.headingDeg ?? -1) ||
      (f.altitudeM ?? -1e6) - (pick.altitudeM ?? -1e6);
    if (order < 0) pick = f;
  }
  return pick;
}

/** Metres per degree of latitude (as the local projection takes it). */
const M_PER_DEG_LAT = 111_132;
/** A trace is rounded to a number of decimals when this share of its fixes lie on that grid, both coordinates. */
const ROUNDED_SHARE = 0.9;

/**
 * The north-south step of the fixes' coordinates in metres when they are rounded to 4 decimals or fewer (11.1 m at
 * 4, the coarsest grid most of them lie on), else 0: a CSV or spreadsheet export that kept 4 decimals. At 5 decimals
 * (1.1 m) and more, as phones and GPX files give them, the rounding is far below a receiver's own scatter. Rounded to
 * 11 m, a vehicle's fixes do not scatter around its path: below 40 km/h they repeat a point for a second or more and
 * then step on by a whole step. A fix lies on a 4-decimal grid by chance once in 10,000.
 */
function roundedStepM(fixes: readonly GpsSample[]): number {
  if (fixes.length === 0) return 0;
  for (const decimals of [2, 3, 4]) {
    const scale = 10 ** decimals;
    let onGrid = 0;
    for (const f of fixes) {
      const lon = f.lon * scale;
      const lat = f.lat * scale;
      if (Math.abs(lon - Math.round(lon)) < 1e-6 && Math.abs(lat - Math.round(lat)) < 1e-6) onGrid++;
    }
    if (onGrid >= ROUNDED_SHARE * fixes.length) return M_PER_DEG_LAT / scale;
  }
  return 0;
}

/**
 * Drops the repeats of a position held while the vehicle moved (see cleanGps, step 2). `moved` is the distance
 * between two fixes that counts as movement (less the rounding step on a rounded trace); `dist` tells a repeat.
 */
function markStaleRuns(
  n: number,
  t: Float64Array,
  dist: (a: number, b: number) => number,
  moved: (a: number, b: number) => number,
  fixes: readonly GpsSample[],
  keep: Uint8Array,
  report: GpsCleanReport,
): void {
  let i = 0;
  while (i < n - 1) {
    let end = i;
    while (end + 1 < n && dist(i, end + 1) < SAME_POSITION_M) end++;
    if (end === i) {
      i++;
      continue;
    }
    // Speeds over at least one second into the run's first fix and out of its last one.
    let before = i - 1;
    while (before > 0 && t[i]! - t[before]! < 1000) before--;
    let after = end + 1;
    while (after < n - 1 && t[after]! - t[end]! < 1000) after++;
    const inMps = before >= 0 ? moved(before, i) / ((t[i]! - t[before]!) / 1000) : 0;
    const outMps = after < n ? moved(end, after) / ((t[after]! - t[end]!) / 1000) : 0;
    let receiverSaysMoving = false;
    for (let k = i + 1; k <= end; k++) {
      if ((fixes[k]!.speedMps ?? 0) > STALE_RUN_ENTRY_MPS / 2) receiverSaysMoving = true;
    }
    if (inMps > STALE_RUN_ENTRY_MPS || outMps > STALE_RUN_ENTRY_MPS || receiverSaysMoving) {
      for (let k = i + 1; k <= end; k++) keep[k] = 0;
      report.staleFixes += end - i;
    }
    i = end + 1;
  }
}
