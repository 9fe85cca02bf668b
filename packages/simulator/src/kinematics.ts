import type { DrivePath } from './drive-path.ts';
import type { SpeedProfile } from './speed-profile.ts';

/**
 * Turns a speed profile over distance into the vehicle's motion over time on a uniform grid. The profile's
 * piecewise-constant accelerations would mean infinite jerk, so speed is averaged over a moving window whose width
 * is the driver's onset time (braking or accelerating): a step in acceleration becomes a ramp over that time, which
 * is the profile-dependent jerk. The window never raises speed above the profile's local maximum, stays at zero
 * through standstills, and distance is re-anchored at every standstill so stops happen where they were planned.
 */

/** The motion on a uniform time grid starting at the trip's first sample. */
export interface Kinematics {
  dtS: number;
  count: number;
  /** Distance along the path, metres. */
  sM: Float64Array;
  speedMps: Float64Array;
  /** Longitudinal acceleration, m/s^2. */
  accelMps2: Float64Array;
  durationS: number;
}

export interface KinematicsOptions {
  dtS: number;
  brakeOnsetS: number;
  accelOnsetS: number;
  /** Standing time before moving off and after arriving, seconds. */
  startIdleS: number;
  endIdleS: number;
}

interface Knot {
  t: number;
  s: number;
  v: number;
  a: number;
}

/**
 * Piecewise-constant-acceleration timeline of the profile, with standstills as knots of zero speed. Each planned
 * standstill is lengthened by the smoothing window, which eats half a window at each end of it: that way the
 * vehicle really stands still for the planned dwell.
 */
function timeline(
  path: DrivePath,
  profile: SpeedProfile,
  startIdleS: number,
  endIdleS: number,
  windowS: number,
): Knot[] {
  const v = profile.speedMps;
  const dwellAt = new Map<number, number>();
  for (const stop of profile.stops) dwellAt.set(stop.index, (dwellAt.get(stop.index) ?? 0) + stop.dwellS);
  const knots: Knot[] = [{ t: 0, s: 0, v: 0, a: 0 }];
  let t = startIdleS;
  for (let i = 0; i < path.n - 1; i++) {
    const dwell = dwellAt.get(i);
    if (dwell !== undefined && dwell > 0 && i > 0) {
      knots.push({ t, s: path.sM[i]!, v: 0, a: 0 });
      t += dwell + windowS;
    }
    const ds = path.sM[i + 1]! - path.sM[i]!;
    const v0 = v[i]!;
    const v1 = v[i + 1]!;
    const dt = (2 * ds) / (v0 + v1);
    knots.push({ t, s: path.sM[i]!, v: v0, a: (v1 - v0) / dt });
    t += dt;
  }
  knots.push({ t, s: path.lengthM, v: 0, a: 0 });
  knots.push({ t: t + endIdleS, s: path.lengthM, v: 0, a: 0 });
  return knots;
}

/** Samples the motion of a profile on a grid of `dtS` seconds. */
export function buildKinematics(path: DrivePath, profile: SpeedProfile, options: KinematicsOptions): Kinematics {
  const { dtS } = options;
  const maxWindowS = Math.max(options.brakeOnsetS, options.accelOnsetS);
  const knots = timeline(
    path,
    profile,
    Math.max(options.startIdleS, maxWindowS),
    Math.max(options.endIdleS, maxWindowS),
    maxWindowS,
  );
  const durationS = knots[knots.length - 1]!.t;
  const count = Math.floor(durationS / dtS + 1e-9) + 1;

  // Raw motion on the grid.
  const sRaw = new Float64Array(count);
  const vRaw = new Float64Array(count);
  const aRaw = new Float64Array(count);
  let j = 0;
  for (let k = 0; k < count; k++) {
    const t = k * dtS;
    while (j < knots.length - 2 && knots[j + 1]!.t <= t) j++;
    const knot = knots[j]!;
    const tau = Math.min(t - knot.t, knots[j + 1]!.t - knot.t);
    const vk = Math.max(0, knot.v + knot.a * tau);
    vRaw[k] = vk;
    aRaw[k] = knot.a;
    sRaw[k] = knot.s + knot.v * tau + 0.5 * knot.a * tau * tau;
  }

  // Window width per grid point from the sign of the mean raw acceleration around it, slew-limited.
  const prefixA = new Float64Array(count + 1);
  for (let k = 0; k < count; k++) prefixA[k + 1] = prefixA[k]! + aRaw[k]!;
  const lookSteps = Math.max(1, Math.round(1.1 / dtS));
  const width = new Float64Array(count);
  let w = options.accelOnsetS;
  const slew = 1.0 * dtS;
  for (let k = 0; k < count; k++) {
    const lo = Math.max(0, k - lookSteps);
    const hi = Math.min(count, k + lookSteps + 1);
    const meanA = (prefixA[hi]! - prefixA[lo]!) / (hi - lo);
    const target = meanA < -0.05 ? options.brakeOnsetS : meanA > 0.05 ? options.accelOnsetS : w;
    w += Math.max(-slew, Math.min(slew, target - w));
    width[k] = w;
  }

  // Moving average of speed through the integral of speed.
  const V = new Float64Array(count);
  for (let k = 1; k < count; k++) V[k] = V[k - 1]! + 0.5 * (vRaw[k - 1]! + vRaw[k]!) * dtS;
  const vAt = (pos: number): number => {
    if (pos <= 0) return 0;
    if (pos >= count - 1) return V[count - 1]!;
    const i = Math.floor(pos);
    return V[i]! + (V[i + 1]! - V[i]!) * (pos - i);
  };
  const speed = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    const h = width[k]! / 2 / dtS;
    speed[k] = Math.max(0, (vAt(k + h) - vAt(k - h)) / (2 * h * dtS));
  }

  // Re-anchor distance at standstills: scale each moving stretch so it covers exactly the planned distance.
  const s = new Float64Array(count);
  for (let k = 1; k < count; k++) s[k] = s[k - 1]! + 0.5 * (speed[k - 1]! + speed[k]!) * dtS;
  let restEnd = 0; // last index of the previous standstill
  let k = 0;
  while (k < count) {
    if (speed[k] !== 0) {
      k++;
      continue;
    }
    // speed[k] is a standstill sample; the moving stretch is (restEnd, k).
    if (k - restEnd > 1) {
      const want = sRaw[k]! - sRaw[restEnd]!;
      const got = s[k]! - s[restEnd]!;
      const scale = got > 0 ? want / got : 1;
      for (let q = restEnd + 1; q < k; q++) speed[q] = speed[q]! * scale;
    }
    restEnd = k;
    k++;
  }
  for (let q = 1; q < count; q++) s[q] = s[q - 1]! + 0.5 * (speed[q - 1]! + speed[q]!) * dtS;

  const accel = new Float64Array(count);
  for (let q = 0; q < count; q++) {
    const a = q > 0 ? q - 1 : 0;
    const b = q < count - 1 ? q + 1 : count - 1;
    accel[q] = b > a ? (speed[b]! - speed[a]!) / ((b - a) * dtS) : 0;
  }
  return { dtS, count, sM: s, speedMps: speed, accelMps2: accel, durationS: (count - 1) * dtS };
}

/** The vehicle's state at one instant (reused between calls to avoid allocation in sensor loops). */
export interface MotionState {
  sM: number;
  speedMps: number;
  accelMps2: number;
  x: number;
  y: number;
  /** Direction of travel, radians counter-clockwise from east. */
  headingRad: number;
  /** Signed path curvature, 1/m (positive = left). */
  curvature: number;
  /** Path sample at or before the position (a hint for the next lookup). */
  pathIndex: number;
}

/** A reusable {@link MotionState}. */
export function newMotionState(): MotionState {
  return { sM: 0, speedMps: 0, accelMps2: 0, x: 0, y: 0, headingRad: 0, curvature: 0, pathIndex: 0 };
}

/** The motion at `tS` seconds after the first sample, interpolated from the grid and the path. */
export function motionAt(kin: Kinematics, path: DrivePath, tS: number, out: MotionState): MotionState {
  const pos = Math.min(Math.max(tS / kin.dtS, 0), kin.count - 1);
  const k = Math.min(Math.floor(pos), kin.count - 2);
  const f = pos - k;
  const s = kin.sM[k]! + (kin.sM[k + 1]! - kin.sM[k]!) * f;
  out.sM = s;
  out.speedMps = kin.speedMps[k]! + (kin.speedMps[k + 1]! - kin.speedMps[k]!) * f;
  out.accelMps2 = kin.accelMps2[k]! + (kin.accelMps2[k + 1]! - kin.accelMps2[k]!) * f;
  let i = out.pathIndex;
  if (i > path.n - 2 || path.sM[i]! > s) i = 0;
  while (i < path.n - 2 && path.sM[i + 1]! <= s) i++;
  out.pathIndex = i;
  const s0 = path.sM[i]!;
  const s1 = path.sM[i + 1]!;
  const g = s1 > s0 ? Math.min(1, Math.max(0, (s - s0) / (s1 - s0))) : 0;
  out.x = path.x[i]! + (path.x[i + 1]! - path.x[i]!) * g;
  out.y = path.y[i]! + (path.y[i + 1]! - path.y[i]!) * g;
  // Headings are angles: interpolate the shorter way round, or a seam at +-pi (an arc's heading runs past it,
  // the next straight piece's is wrapped) would swing the heading through the opposite direction.
  let dh = path.headingRad[i + 1]! - path.headingRad[i]!;
  dh -= 2 * Math.PI * Math.round(dh / (2 * Math.PI));
  out.headingRad = path.headingRad[i]! + dh * g;
  out.curvature = path.curvature[i]! + (path.curvature[i + 1]! - path.curvature[i]!) * g;
  return out;
}
