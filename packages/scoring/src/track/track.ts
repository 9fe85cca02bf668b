import type { CleanGps } from '../clean/clean-gps.ts';
import { angleDiffDeg, bearingDeg, type LocalProjection, lonDeltaDeg } from '../geo.ts';
import type { ObdSample } from '../telemetry.ts';
import { DEFAULT_GPS_ACCURACY_M, MAX_INTERPOLATED_GAP_S } from '../thresholds.ts';
import { estimatePositionNoiseM } from './position-noise.ts';
import { smoothTrack } from './smoother.ts';

export type SpeedSource = 'gps-doppler' | 'obd' | 'gps-position';

/**
 * The trip on a uniform 1 s grid: every GPS-derived measure is computed here, so the same driving sampled
 * at 1 Hz or at 10 Hz yields the same numbers. NaN marks an unknown value.
 */
export interface Track {
  n: number;
  t0Ms: number;
  tMs: Float64Array;
  lon: Float64Array;
  lat: Float64Array;
  xM: Float64Array;
  yM: Float64Array;
  speedMps: Float64Array;
  headingDeg: Float64Array;
  /** Distance driven from the previous grid point to this one. */
  stepM: Float64Array;
  /** 1 inside a GPS gap longer than MAX_INTERPOLATED_GAP_S or across a break: no events come from here. */
  gap: Uint8Array;
  /** 1 inside a break (an unexplained jump): speed and distance there are unknown. */
  broken: Uint8Array;
  /** Longitudinal acceleration from speed over the last second, m/s^2. */
  accel1sMps2: Float64Array;
  /** Longitudinal acceleration over +-1 s (central difference), m/s^2. */
  accelMps2: Float64Array;
  /** Heading rate over +-1 s, degrees/s (positive = turning left), NaN below 2 m/s. */
  yawRateDps: Float64Array;
  speedSource: SpeedSource;
  projection: LocalProjection;
  /** Seconds of GPS gaps bridged by interpolation. */
  gapS: number;
  /** The fixes' white position scatter per axis, metres, estimated from the trace (NaN: too few fixes to judge). */
  positionScatterM: number;
}

export interface TrackOptions {
  /** OBD samples of the trip, used for speed when the receiver gives no Doppler speed. */
  obd?: readonly ObdSample[];
  /**
   * White position noise assumed by the smoother, metres. Default: the scatter estimated from the trace
   * (estimatePositionNoiseM), within MIN_SMOOTHER_NOISE_M and MAX_SMOOTHER_NOISE_M.
   */
  positionNoiseM?: number;
  /** Smoother acceleration noise, m^2/s^3 (default 4). */
  smootherQ?: number;
}

/**
 * The smoother's position noise: the trace's estimated white scatter, but at least MIN_SMOOTHER_NOISE_M, the value it
 * was tuned with (receivers filter their fixes, so real traces mostly scatter far less: 0.1 m on the Munich drive),
 * and at most MAX_SMOOTHER_NOISE_M. Told 3 m where the fixes scatter 8 m, the smoother followed the scatter: a calm 18
 * km drive exported without speeds read 40-50 harsh events (model 1.1.15).
 */
const MIN_SMOOTHER_NOISE_M = 3;
const MAX_SMOOTHER_NOISE_M = 30;

function smootherNoiseM(scatterM: number, coordinateStepM: number): number {
  // A rounded trace's error is up to half a step, and below 40 km/h it stays put for seconds and then jumps: not
  // white, so half the step is taken, not a uniform error's step / sqrt(12). Told 3 m where coordinates were rounded
  // to 11 m, the smoother read the staircase of a vehicle pulling away as harsh starts.
  const floorM = Math.max(MIN_SMOOTHER_NOISE_M, coordinateStepM / 2);
  return Math.min(MAX_SMOOTHER_NOISE_M, Number.isFinite(scatterM) ? Math.max(floorM, scatterM) : floorM);
}

const HEADING_MIN_MPS = 1.5;
const YAW_MIN_MPS = 2;
const STANDSTILL_MPS = 0.3;
/** A Doppler speed below this reports a standing vehicle (receivers read 0-0.5 m/s when parked). */
const STANDING_DOPPLER_MPS = 0.5;
/**
 * Doppler (or OBD) speeds are used only when they agree with the positions: over stretches of 10 s or more, at most
 * this many times the distance the positions cover (dopplerScaleRatio, obdScaleRatio). Beyond it they are in another
 * unit, and OBD or the positions give the speed.
 */
const MAX_SPEED_SCALE = 1.5;
const DOPPLER_SCALE_STRETCH_S = 10;
const DOPPLER_SCALE_MIN_M = 500;
/**
 * Standing from positions alone (standingOnGrid): windows of at least this long and this many fixes, a radius of
 * twice the fixes' median reported accuracy, at least STANDING_MIN_M and at most STANDING_MAX_M, and this many
 * seconds at each end of a standing stretch left to the smoother.
 */
const STANDING_WINDOW_S = 60;
const STANDING_MIN_FIXES = 12;
const STANDING_ACCURACIES = 2;
const STANDING_MIN_M = 15;
const STANDING_MAX_M = 30;
const STANDING_EDGE_S = 5;
const STANDING_FAST_REJECT = 3;

/** Resamples cleaned fixes onto the 1 s grid and derives speed, heading, acceleration and yaw rate. */
export function buildTrack(gps: CleanGps, options: TrackOptions = {}): Track {
  const m = gps.count;
  const t0Ms = m > 0 ? gps.tMs[0]! : 0;
  const n = m > 0 ? Math.floor((gps.tMs[m - 1]! - t0Ms) / 1000) + 1 : 0;
  const track: Track = {
    n,
    t0Ms,
    tMs: new Float64Array(n),
    lon: new Float64Array(n),
    lat: new Float64Array(n),
    xM: new Float64Array(n),
    yM: new Float64Array(n),
    speedMps: new Float64Array(n),
    headingDeg: new Float64Array(n),
    stepM: new Float64Array(n),
    gap: new Uint8Array(n),
    broken: new Uint8Array(n),
    accel1sMps2: new Float64Array(n).fill(Number.NaN),
    accelMps2: new Float64Array(n).fill(Number.NaN),
    yawRateDps: new Float64Array(n).fill(Number.NaN),
    speedSource: 'gps-position',
    projection: gps.projection,
    gapS: 0,
    positionScatterM: Number.NaN,
  };
  if (n === 0) return track;

  let dopplerCount = 0;
  for (let k = 0; k < m; k++) if (Number.isFinite(gps.speedMps[k]!)) dopplerCount++;
  // A ratio of NaN (too little driving to judge) keeps the Doppler speeds.
  const useDoppler = dopplerCount >= 0.8 * m && !(dopplerScaleRatio(gps) > MAX_SPEED_SCALE);
  const doppler = new Float64Array(n).fill(Number.NaN);
  const dopplerHeading = new Float64Array(n).fill(Number.NaN);
  const measured = new Uint8Array(n);
  // 1 where the grid second is on the track (no gap), fix of its own or not: what course outliers are judged over.
  const onTrack = new Uint8Array(n);
  const reset = new Uint8Array(n);
  // Inside a gap: the speed that covers the straight line between the fixes around it in their interval.
  const bridgeMps = new Float64Array(n).fill(Number.NaN);

  // Linear interpolation of the fixes at each grid time.
  let a = 0;
  let breakPending = false;
  for (let i = 0; i < n; i++) {
    const tg = t0Ms + i * 1000;
    track.tMs[i] = tg;
    while (a < m - 2 && gps.tMs[a + 1]! <= tg) {
      a++;
      if (gps.breakBefore[a]) breakPending = true;
    }
    const b = Math.min(a + 1, m - 1);
    const ta = gps.tMs[a]!;
    const tb = gps.tMs[b]!;
    const f = tb > ta ? Math.min(1, Math.max(0, (tg - ta) / (tb - ta))) : 0;
    const atFix = f === 0 || f === 1;
    const intervalS = (tb - ta) / 1000;
    const isBreak = gps.breakBefore[b] === 1 && b !== a;
    track.xM[i] = gps.xM[a]! + (gps.xM[b]! - gps.xM[a]!) * f;
    track.yM[i] = gps.yM[a]! + (gps.yM[b]! - gps.yM[a]!) * f;
    track.lon[i] = gps.lon[a]! + (gps.lon[b]! - gps.lon[a]!) * f;
    track.lat[i] = gps.lat[a]! + (gps.lat[b]! - gps.lat[a]!) * f;
    if (isBreak && f > 0 && f < 1) {
      track.gap[i] = 1;
      track.broken[i] = 1;
      track.gapS++;
    } else if (intervalS > MAX_INTERPOLATED_GAP_S && !atFix) {
      track.gap[i] = 1;
      track.gapS++;
      const chordM = Math.hypot(gps.xM[b]! - gps.xM[a]!, gps.yM[b]! - gps.yM[a]!);
      bridgeMps[i] = standingAcross(gps, a, b, chordM) ? 0 : chordM / intervalS;
    }
    // Only a grid second with a fix of its own measures the position: between fixes more than 1 s apart the grid is
    // their interpolation, and the smoother would count the same two fixes again at every second between them.
    onTrack[i] = track.gap[i] ? 0 : 1;
    measured[i] = onTrack[i] && Math.min(tg - ta, tb - tg) <= 500 ? 1 : 0;
    if (breakPending && !track.broken[i]) {
      reset[i] = 1;
      breakPending = false;
    }
    if (useDoppler) {
      const sa = gps.speedMps[a]!;
      const sb = gps.speedMps[b]!;
      doppler[i] = Number.isFinite(sa) && Number.isFinite(sb) ? sa + (sb - sa) * f : f < 0.5 ? sa : sb;
      const ha = gps.headingDeg[a]!;
      const hb = gps.headingDeg[b]!;
      if (Number.isFinite(ha) && Number.isFinite(hb)) {
        let h = ha + angleDiffDeg(ha, hb) * f;
        if (h < 0) h += 360;
        else if (h >= 360) h -= 360;
        dopplerHeading[i] = h;
      } else dopplerHeading[i] = f < 0.5 ? ha : hb;
    }
  }

  // Over every second on the track, not only those with a fix: at 0.5 Hz a fix's neighbours on the grid are
  // interpolated, and judged against them its wild course is still pulled back (before model 1.1.15's `measured`
  // left it alone there, a 90-degree glitch read 45 deg/s of yaw instead of 22.5).
  if (useDoppler) rejectCourseOutliers(dopplerHeading, onTrack);

  // Positions alone: where the fixes stay put, the vehicle stands; the smoother would read their scatter as motion.
  // OBD speeds that disagree with the positions as a wrong unit does are not used (see dopplerScaleRatio).
  const obdOnGrid = options.obd && options.obd.length > 0 ? obdSpeedOnGrid(options.obd, t0Ms, n) : null;
  const obdGrid = obdOnGrid && !(obdScaleRatio(gps, obdOnGrid, t0Ms) > MAX_SPEED_SCALE) ? obdOnGrid : null;
  const standing = useDoppler || obdGrid ? null : standingOnGrid(gps, t0Ms, n);
  if (standing) {
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(standing.xM[i]!)) continue;
      track.xM[i] = standing.xM[i]!;
      track.yM[i] = standing.yM[i]!;
      track.lon[i] = lonOf(gps.projection, standing.xM[i]!);
      track.lat[i] = gps.projection.lat0 + standing.yM[i]! / gps.projection.ky;
      if (Number.isFinite(bridgeMps[i]!)) bridgeMps[i] = 0;
    }
  }

  track.positionScatterM = estimatePositionNoiseM(gps);
  const smooth = smoothTrack({
    n,
    xM: track.xM,
    yM: track.yM,
    measured,
    reset,
    sigmaM: options.positionNoiseM ?? smootherNoiseM(track.positionScatterM, gps.coordinateStepM),
    q: options.smootherQ ?? 4,
  });
  // OBD speed is a measurement in a GPS gap too, Doppler or not.
  const obdSpeed = useDoppler ? null : obdGrid;
  track.speedSource = useDoppler ? 'gps-doppler' : obdSpeed ? 'obd' : 'gps-position';

  for (let i = 0; i < n; i++) {
    const vSmooth = Math.hypot(smooth.vxMps[i]!, smooth.vyMps[i]!);
    let v = vSmooth;
    if (obdGrid && Number.isFinite(obdGrid[i]!) && track.gap[i]) v = obdGrid[i]!;
    else if (Number.isFinite(bridgeMps[i]!)) {
      // Nothing measured the speed here: neither the Doppler speeds at the gap's ends (the vehicle may have
      // stopped in between: a garage, a parked phone's sleeping receiver) nor the smoother, whose velocity
      // wanders over a long gap. The straight line between the fixes is what the gap certainly covered.
      v = bridgeMps[i]!;
    } else if (useDoppler && Number.isFinite(doppler[i]!)) v = doppler[i]!;
    else if (obdSpeed && Number.isFinite(obdSpeed[i]!)) v = obdSpeed[i]!;
    const stands = standing !== null && !Number.isNaN(standing.xM[i]!);
    if (v < STANDSTILL_MPS || stands) v = 0;
    track.speedMps[i] = track.broken[i] ? Number.NaN : v;
    let h = Number.NaN;
    if (useDoppler && Number.isFinite(dopplerHeading[i]!) && v >= HEADING_MIN_MPS) h = dopplerHeading[i]!;
    else if (vSmooth >= HEADING_MIN_MPS && !stands) h = bearingDeg(smooth.vxMps[i]!, smooth.vyMps[i]!);
    track.headingDeg[i] = track.broken[i] ? Number.NaN : h;
  }
  for (let i = 1; i < n; i++) {
    const v0 = track.speedMps[i - 1]!;
    const v1 = track.speedMps[i]!;
    track.stepM[i] = Number.isFinite(v0) && Number.isFinite(v1) ? (v0 + v1) / 2 : 0;
    if (!track.gap[i] && !track.gap[i - 1]) track.accel1sMps2[i] = v1 - v0;
  }
  for (let i = 1; i < n - 1; i++) {
    if (track.gap[i - 1] || track.gap[i] || track.gap[i + 1]) continue;
    const vp = track.speedMps[i - 1]!;
    const vn = track.speedMps[i + 1]!;
    track.accelMps2[i] = (vn - vp) / 2;
    const hp = track.headingDeg[i - 1]!;
    const hn = track.headingDeg[i + 1]!;
    if (vp >= YAW_MIN_MPS && vn >= YAW_MIN_MPS && Number.isFinite(hp) && Number.isFinite(hn)) {
      // Compass bearings grow clockwise; yaw rate is positive counter-clockwise (a left turn).
      track.yawRateDps[i] = -angleDiffDeg(hp, hn) / 2;
    }
  }
  return track;
}

/**
 * Distance by the Doppler speeds over distance by the positions, fix to fix over stretches of 10 to 30 s without a
 * break (the straight line between a stretch's ends; NaN when the stretches cover under 500 m by Doppler: too little
 * to judge). Driving reads about 1: a straight line cuts bends a little (above 1, at most 1.12 on 120 simulated
 * trips over Monaco, Andorra and the synthetic city), position scatter adds a little (below 1). A speed in another
 * unit in the m/s field reads that unit's factor (km/h 3.6, mph 2.24, knots 1.94): a file's bare "speed" column.
 */
function dopplerScaleRatio(gps: CleanGps): number {
  return speedScaleRatio(gps, (q) => gps.speedMps[q]!);
}

/**
 * The same measure for OBD speeds (their grid values at the fixes' times): an adapter reporting another unit, or a
 * wrong scaling of the speed PID, read a 10 km drive as 20 km. NaN when too little to judge.
 */
function obdScaleRatio(gps: CleanGps, obdGrid: Float64Array, t0Ms: number): number {
  return speedScaleRatio(gps, (q) => obdGrid[Math.round((gps.tMs[q]! - t0Ms) / 1000)] ?? Number.NaN);
}

/** Distance by the given speeds at the fixes over distance by the positions (see dopplerScaleRatio). */
function speedScaleRatio(gps: CleanGps, speedAt: (fix: number) => number): number {
  let dopplerM = 0;
  let chordM = 0;
  let a = 0;
  while (a < gps.count - 1) {
    let b = a;
    let stretchM = 0;
    while (b + 1 < gps.count && gps.tMs[b]! - gps.tMs[a]! < DOPPLER_SCALE_STRETCH_S * 1000) {
      if (gps.breakBefore[b + 1]) break;
      stretchM += ((speedAt(b) + speedAt(b + 1)) / 2) * ((gps.tMs[b + 1]! - gps.tMs[b]!) / 1000);
      b++;
    }
    const spanS = (gps.tMs[b]! - gps.tMs[a]!) / 1000;
    if (spanS >= DOPPLER_SCALE_STRETCH_S && spanS <= 3 * DOPPLER_SCALE_STRETCH_S && Number.isFinite(stretchM)) {
      dopplerM += stretchM;
      chordM += Math.hypot(gps.xM[b]! - gps.xM[a]!, gps.yM[b]! - gps.yM[a]!);
    }
    a = Math.max(b, a + 1);
  }
  return dopplerM < DOPPLER_SCALE_MIN_M ? Number.NaN : dopplerM / Math.max(chordM, 1);
}

/**
 * True when the fixes around a gap both report the vehicle standing (Doppler speed) and lie within their reported
 * accuracies of each other: nothing says it moved in between, and the straight line between them is the receiver's
 * scatter. A tracker sending a fix every 5-10 s makes every interval such a gap; parked with the ignition on, its
 * scatter of a few metres bridged as driving added 1-3 km and 10-20 min of moving time per half hour.
 */
function standingAcross(gps: CleanGps, a: number, b: number, chordM: number): boolean {
  const sa = gps.speedMps[a]!;
  const sb = gps.speedMps[b]!;
  return sa < STANDING_DOPPLER_MPS && sb < STANDING_DOPPLER_MPS && chordM <= gps.accuracyM[a]! + gps.accuracyM[b]!;
}

/**
 * Replaces a Doppler course that contradicts both its neighbours on the grid by their mean. Receivers report
 * the odd course far off the track (multipath, a short velocity vector, sometimes the reverse direction); a
 * 1 s yaw rate through such a fix times the speed reads as a lateral acceleration of 10-20 m/s^2, far
 * beyond what tyres allow. A course is an outlier when it lies outside the shorter arc between its
 * neighbours and both neighbours are closer to each other than to it. A course between its neighbours is
 * never moved, so every real turn sampled at 1 Hz (a monotone run of courses) stays exactly as it was, and
 * the neighbours of a glitch are judged against the original values so they stay too.
 */
export function rejectCourseOutliers(headingDeg: Float64Array, measured: Uint8Array): void {
  const n = headingDeg.length;
  const original = Float64Array.from(headingDeg);
  for (let i = 1; i < n - 1; i++) {
    const h = original[i]!;
    const hp = original[i - 1]!;
    const hn = original[i + 1]!;
    if (!measured[i - 1] || !measured[i] || !measured[i + 1]) continue;
    if (!Number.isFinite(h) || !Number.isFinite(hp) || !Number.isFinite(hn)) continue;
    const span = angleDiffDeg(hp, hn);
    const x = angleDiffDeg(hp, h);
    if (x >= Math.min(0, span) && x <= Math.max(0, span)) continue;
    if (Math.abs(span) >= Math.min(Math.abs(x), Math.abs(angleDiffDeg(hn, h)))) continue;
    let mid = hp + span / 2;
    if (mid < 0) mid += 360;
    else if (mid >= 360) mid -= 360;
    headingDeg[i] = mid;
  }
}

/**
 * Standing from positions alone, for a trace without Doppler or OBD speed (a GPX or CSV export). A window of fixes,
 * STANDING_WINDOW_S long and STANDING_MIN_FIXES or more without a break, stands when the median positions of its
 * thirds lie within a radius of each other and half its fixes lie within the radius of its median; the radius is
 * twice the median reported accuracy (DEFAULT_GPS_ACCURACY_M where none is reported), within STANDING_MIN_M and
 * STANDING_MAX_M. Driving at 5 km/h moves 55 m between the first and last thirds; a receiver's scatter, white or a
 * slow drift, stays within the radius. The fixes from the first to the last within the radius of the window's median
 * stand (a median ignores the vehicle still rolling to its stop). Returns, per grid second, the position that
 * standing second is pinned to, NaN where the vehicle is not known to stand: the median of the stretch's fixes within
 * half a window of it, so the receiver's slow drift is followed and the stretch meets the positions around it without
 * a step the smoother would read as a harsh start. STANDING_EDGE_S seconds at each end of a stretch are left to the
 * smoother: the vehicle may still be rolling there, and a speed cut to 0 there read as a harsh stop.
 */
function standingOnGrid(gps: CleanGps, t0Ms: number, n: number): { xM: Float64Array; yM: Float64Array } {
  // At most a fix a second: at 10 Hz a window of every fix took a second per hour of trace, and finds no more.
  const tMs: number[] = [];
  const xM: number[] = [];
  const yM: number[] = [];
  const accuracyM: number[] = [];
  const breakBefore: boolean[] = [];
  let pendingBreak = false;
  for (let q = 0; q < gps.count; q++) {
    if (gps.breakBefore[q]) pendingBreak = true;
    if (tMs.length > 0 && gps.tMs[q]! - tMs[tMs.length - 1]! < 1000) continue;
    tMs.push(gps.tMs[q]!);
    xM.push(gps.xM[q]!);
    yM.push(gps.yM[q]!);
    const a = gps.accuracyM[q]!;
    accuracyM.push(Number.isFinite(a) ? a : DEFAULT_GPS_ACCURACY_M);
    breakBefore.push(pendingBreak);
    pendingBreak = false;
  }
  const m = tMs.length;
  const windowMs = STANDING_WINDOW_S * 1000;
  // Running sums, for the thirds' means: a window whose first and last thirds' means lie further apart than
  // STANDING_FAST_REJECT radii is moving, with no median taken (the medians of every window of a 20-minute trace
  // doubled its scoring time). The slack keeps a standing window whose mean a stray fix pulls off.
  const sumX = new Float64Array(m + 1);
  const sumY = new Float64Array(m + 1);
  for (let q = 0; q < m; q++) {
    sumX[q + 1] = sumX[q]! + xM[q]!;
    sumY[q + 1] = sumY[q]! + yM[q]!;
  }
  const meanApart = (a0: number, a1: number, b0: number, b1: number) =>
    Math.hypot(
      (sumX[a1 + 1]! - sumX[a0]!) / (a1 - a0 + 1) - (sumX[b1 + 1]! - sumX[b0]!) / (b1 - b0 + 1),
      (sumY[a1 + 1]! - sumY[a0]!) / (a1 - a0 + 1) - (sumY[b1 + 1]! - sumY[b0]!) / (b1 - b0 + 1),
    );
  const centre = (from: number, to: number): [number, number] => [
    median(xM.slice(from, to + 1)),
    median(yM.slice(from, to + 1)),
  ];
  const apart = (p: [number, number], r: [number, number]) => Math.hypot(p[0] - r[0], p[1] - r[1]);
  // +1 where a standing window starts covering grid seconds, -1 after it ends.
  const cover = new Int32Array(n + 1);
  let any = false;
  let lastBreak = -1;
  for (let j = 0, k = 0; j < m; j++) {
    if (k < j) k = j;
    while (k + 1 < m && (tMs[k]! - tMs[j]! < windowMs || k - j + 1 < STANDING_MIN_FIXES)) {
      k++;
      if (breakBefore[k]) lastBreak = k;
    }
    if (tMs[k]! - tMs[j]! < windowMs || k - j + 1 < STANDING_MIN_FIXES) break;
    if (lastBreak > j) continue;
    const third = Math.floor((k - j + 1) / 3);
    const radiusM = Math.min(
      STANDING_MAX_M,
      Math.max(STANDING_MIN_M, STANDING_ACCURACIES * median(accuracyM.slice(j, k + 1))),
    );
    if (meanApart(j, j + third - 1, k - third + 1, k) > STANDING_FAST_REJECT * radiusM) continue;
    const first = centre(j, j + third - 1);
    const middle = centre(j + third, k - third);
    const last = centre(k - third + 1, k);
    if (apart(first, last) > radiusM || apart(first, middle) > radiusM || apart(middle, last) > radiusM) continue;
    const all = centre(j, k);
    const offM: number[] = [];
    for (let q = j; q <= k; q++) offM.push(Math.hypot(xM[q]! - all[0], yM[q]! - all[1]));
    if (median(offM) > radiusM) continue;
    let lo = j;
    while (offM[lo - j]! > radiusM) lo++;
    let hi = k;
    while (offM[hi - j]! > radiusM) hi--;
    cover[Math.ceil((tMs[lo]! - t0Ms) / 1000)]!++;
    cover[Math.floor((tMs[hi]! - t0Ms) / 1000) + 1]!--;
    any = true;
  }
  const out = { xM: new Float64Array(n).fill(Number.NaN), yM: new Float64Array(n).fill(Number.NaN) };
  if (!any) return out;
  let depth = 0;
  let start = -1;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i <= n; i++) {
    if (i < n) depth += cover[i]!;
    if (i < n && depth > 0) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    const firstMs = t0Ms + start * 1000;
    const lastMs = t0Ms + (i - 1) * 1000;
    for (let s = start + STANDING_EDGE_S; s < i - STANDING_EDGE_S; s++) {
      const t = t0Ms + s * 1000;
      while (lo < m && tMs[lo]! < Math.max(firstMs, t - windowMs / 2)) lo++;
      if (hi < lo) hi = lo;
      while (hi < m && tMs[hi]! <= Math.min(lastMs, t + windowMs / 2)) hi++;
      if (hi === lo) continue;
      out.xM[s] = median(xM.slice(lo, hi));
      out.yM[s] = median(yM.slice(lo, hi));
    }
    start = -1;
  }
  return out;
}

function lonOf(projection: LocalProjection, xM: number): number {
  return lonDeltaDeg(projection.lon0 + xM / projection.kx, 0);
}

function median(values: readonly number[]): number {
  const sorted = Float64Array.from(values).sort();
  const h = sorted.length >> 1;
  return sorted.length % 2 ? sorted[h]! : (sorted[h - 1]! + sorted[h]!) / 2;
}

/** OBD speed on the grid, or null when OBD covers less than 80 % of it. */
function obdSpeedOnGrid(obd: readonly ObdSample[], t0Ms: number, n: number): Float64Array | null {
  const times: number[] = [];
  const speeds: number[] = [];
  for (const s of obd) {
    if (s.speedKmh === undefined || !Number.isFinite(s.speedKmh)) continue;
    times.push(s.t);
    speeds.push(s.speedKmh / 3.6);
  }
  if (times.length < 2) return null;
  const out = new Float64Array(n).fill(Number.NaN);
  let covered = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const tg = t0Ms + i * 1000;
    while (k < times.length - 2 && times[k + 1]! <= tg) k++;
    const ta = times[k]!;
    const tb = times[k + 1]!;
    if (tg < ta - 2000 || tg > tb + 2000 || tb - ta > 5000) continue;
    const f = tb > ta ? Math.min(1, Math.max(0, (tg - ta) / (tb - ta))) : 0;
    out[i] = speeds[k]! + (speeds[k + 1]! - speeds[k]!) * f;
    covered++;
  }
  return covered >= 0.8 * n ? out : null;
}
