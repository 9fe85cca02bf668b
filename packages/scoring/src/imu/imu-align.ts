import type { Track } from '../track/track.ts';

type Vec3 = [number, number, number];

/** A stretch of the trip during which the device kept one mounting orientation. */
export interface MountSegment {
  /** Grid seconds [startS, endS). */
  startS: number;
  endS: number;
  /** Unit vectors in device coordinates. */
  up: Vec3;
  forward: Vec3;
  ok: boolean;
}

interface BinnedAxes {
  count: Uint16Array;
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
}

const BINS_PER_S = 10;
const QUIET_MPS2 = 1.0;
const TILT_EXCURSION_DEG = 25;
const TILT_BACK_DEG = 15;
const STABLE_DEG = 10;
const NEW_MOUNT_S = 30;
const PICKUP_MIN_S = 2;
/** Device rotation about a horizontal axis this fast means it was picked up or turned (deg/s). */
const TUMBLE_DPS = 30;
/** Without a gyroscope, only a tilt this large counts as handling. */
const UNCONFIRMED_TILT_DEG = 45;

function unit(v: Vec3): Vec3 {
  const m = Math.hypot(v[0], v[1], v[2]);
  return m > 0 ? [v[0] / m, v[1] / m, v[2] / m] : [0, 0, 1];
}

function angleDeg(a: Vec3, b: Vec3): number {
  const d = Math.max(-1, Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]));
  return (Math.acos(d) * 180) / Math.PI;
}

/** Mean accelerometer vector of grid second i (bins 10 i .. 10 i + 9), or null without data. */
function secondVector(axes: BinnedAxes, i: number): Vec3 | null {
  let x = 0;
  let y = 0;
  let z = 0;
  let c = 0;
  for (let k = i * BINS_PER_S; k < (i + 1) * BINS_PER_S && k < axes.x.length; k++) {
    if (Number.isNaN(axes.x[k]!)) continue;
    x += axes.x[k]!;
    y += axes.y[k]!;
    z += axes.z[k]!;
    c++;
  }
  return c >= BINS_PER_S / 2 ? [x / c, y / c, z / c] : null;
}

/** A second without much dynamic acceleration: the accelerometer then points along gravity. */
function isQuiet(track: Track, i: number): boolean {
  const v = track.speedMps[i]!;
  if (!Number.isFinite(v) || track.gap[i]) return false;
  if (v < 0.5) return true;
  const a = track.accelMps2[i]!;
  const w = track.yawRateDps[i]!;
  const lat = Number.isFinite(w) ? (v * w * Math.PI) / 180 : 0;
  return Number.isFinite(a) && Math.abs(a) < QUIET_MPS2 && Math.abs(lat) < QUIET_MPS2;
}

/** Fastest rotation of the device about an axis perpendicular to `up` during grid second i, degrees/s. */
function tumbleRateDps(gyro: BinnedAxes | null, i: number, up: Vec3): number {
  if (!gyro) return 0;
  let best = 0;
  for (let k = i * BINS_PER_S; k < (i + 1) * BINS_PER_S && k < gyro.x.length; k++) {
    const x = gyro.x[k]!;
    if (Number.isNaN(x)) continue;
    const y = gyro.y[k]!;
    const z = gyro.z[k]!;
    const along = x * up[0] + y * up[1] + z * up[2];
    const perp = Math.hypot(x - along * up[0], y - along * up[1], z - along * up[2]);
    if (perp > best) best = perp;
  }
  return (best * 180) / Math.PI;
}

/**
 * Splits a device-frame trip into mounting segments by following the gravity direction in device
 * coordinates: a brief excursion is the phone being handled (recorded in `pickups`, ms), a lasting new
 * direction is a new mounting position. An excursion only counts when the device visibly turned over (the
 * gyroscope saw it tumble, or without a gyroscope the tilt passed 45 degrees): hard driving also tilts the
 * apparent gravity, but does not rotate the phone.
 */
export function findMountSegments(
  axes: BinnedAxes,
  gyro: BinnedAxes | null,
  track: Track,
  pickups: Array<[number, number]>,
): MountSegment[] {
  const n = track.n;
  const segments: MountSegment[] = [];
  let ref: Vec3 | null = null;
  const seed: Vec3 = [0, 0, 0];
  let seedCount = 0;
  let segmentStart = 0;
  let excursionStart = -1;
  let confirmed = false;
  let stableRef: Vec3 | null = null;
  let stableSince = -1;
  const tMs = (i: number) => track.t0Ms + i * 1000;
  const turnedOver = (from: number, to: number, up: Vec3, tilt: number) => {
    if (!gyro) return tilt >= UNCONFIRMED_TILT_DEG;
    for (let k = Math.max(0, from); k <= to; k++) if (tumbleRateDps(gyro, k, up) >= TUMBLE_DPS) return true;
    return false;
  };
  for (let i = 0; i < n; i++) {
    const raw = secondVector(axes, i);
    if (raw === null || !isQuiet(track, i)) continue;
    const g = unit(raw);
    if (ref === null) {
      seed[0] += g[0];
      seed[1] += g[1];
      seed[2] += g[2];
      seedCount++;
      if (seedCount >= 10) ref = unit(seed);
      continue;
    }
    const tilt = angleDeg(g, ref);
    if (excursionStart < 0) {
      if (tilt >= TILT_EXCURSION_DEG) {
        excursionStart = i;
        confirmed = turnedOver(i - 3, i, ref, tilt);
        stableRef = g;
        stableSince = i;
      } else {
        // Follow slow drift (the phone settling in its holder).
        ref = unit([ref[0] * 0.98 + g[0] * 0.02, ref[1] * 0.98 + g[1] * 0.02, ref[2] * 0.98 + g[2] * 0.02]);
      }
      continue;
    }
    confirmed ||= turnedOver(i, i, ref, tilt);
    if (tilt < TILT_BACK_DEG) {
      if (confirmed && i - excursionStart >= PICKUP_MIN_S) pickups.push([tMs(excursionStart), tMs(i)]);
      excursionStart = -1;
      continue;
    }
    if (stableRef !== null && angleDeg(g, stableRef) < STABLE_DEG) {
      if (i - stableSince >= NEW_MOUNT_S && confirmed) {
        pickups.push([tMs(excursionStart), tMs(stableSince)]);
        segments.push({ startS: segmentStart, endS: excursionStart, up: [0, 0, 1], forward: [1, 0, 0], ok: false });
        segmentStart = stableSince;
        ref = stableRef;
        excursionStart = -1;
      }
    } else {
      stableRef = g;
      stableSince = i;
    }
  }
  if (excursionStart >= 0 && confirmed && n - excursionStart >= PICKUP_MIN_S) {
    pickups.push([tMs(excursionStart), tMs(n)]);
  }
  segments.push({ startS: segmentStart, endS: n, up: [0, 0, 1], forward: [1, 0, 0], ok: false });
  return segments;
}

/**
 * Fits the device-to-vehicle rotation of one mounting segment: `up` from the mean of the quiet seconds'
 * accelerometer vectors, `forward` as the horizontal direction whose acceleration best explains the GPS
 * speed changes (least squares with an intercept for road grade). Sets `ok` when the fit is credible.
 */
export function alignSegment(segment: MountSegment, axes: BinnedAxes, track: Track): void {
  const sum: Vec3 = [0, 0, 0];
  let count = 0;
  for (let i = segment.startS; i < segment.endS; i++) {
    if (!isQuiet(track, i)) continue;
    const v = secondVector(axes, i);
    if (v === null) continue;
    sum[0] += v[0];
    sum[1] += v[1];
    sum[2] += v[2];
    count++;
  }
  if (count < 10) {
    segment.ok = false;
    return;
  }
  const up = unit(sum);
  // Any horizontal basis (e1, e2): start from the device axis least aligned with gravity.
  const absX = Math.abs(up[0]);
  const absY = Math.abs(up[1]);
  const absZ = Math.abs(up[2]);
  const seed: Vec3 = absX <= absY && absX <= absZ ? [1, 0, 0] : absY <= absZ ? [0, 1, 0] : [0, 0, 1];
  const dot = seed[0] * up[0] + seed[1] * up[1] + seed[2] * up[2];
  const e1 = unit([seed[0] - dot * up[0], seed[1] - dot * up[1], seed[2] - dot * up[2]]);
  const e2: Vec3 = [up[1] * e1[2] - up[2] * e1[1], up[2] * e1[0] - up[0] * e1[2], up[0] * e1[1] - up[1] * e1[0]];

  // Normal equations of a = c0 + c1 h1 + c2 h2 over seconds with a GPS acceleration.
  let s1 = 0;
  let s11 = 0;
  let s12 = 0;
  let s2 = 0;
  let s22 = 0;
  let sa = 0;
  let sa1 = 0;
  let sa2 = 0;
  let saa = 0;
  let m = 0;
  for (let i = Math.max(1, segment.startS); i < Math.min(segment.endS, track.n - 1); i++) {
    const a = track.accelMps2[i]!;
    if (!Number.isFinite(a) || !(track.speedMps[i]! >= 2)) continue;
    let h1 = 0;
    let h2 = 0;
    let c = 0;
    for (let k = (i - 1) * BINS_PER_S + 5; k < (i + 1) * BINS_PER_S + 5; k++) {
      const x = axes.x[k];
      if (x === undefined || Number.isNaN(x)) continue;
      const y = axes.y[k]!;
      const z = axes.z[k]!;
      h1 += x * e1[0] + y * e1[1] + z * e1[2];
      h2 += x * e2[0] + y * e2[1] + z * e2[2];
      c++;
    }
    if (c < BINS_PER_S) continue;
    h1 /= c;
    h2 /= c;
    s1 += h1;
    s2 += h2;
    s11 += h1 * h1;
    s12 += h1 * h2;
    s22 += h2 * h2;
    sa += a;
    sa1 += a * h1;
    sa2 += a * h2;
    saa += a * a;
    m++;
  }
  if (m < 20) {
    segment.ok = false;
    return;
  }
  // Centre to drop the intercept, then solve the 2x2 system.
  const c11 = s11 - (s1 * s1) / m;
  const c12 = s12 - (s1 * s2) / m;
  const c22 = s22 - (s2 * s2) / m;
  const ca1 = sa1 - (sa * s1) / m;
  const ca2 = sa2 - (sa * s2) / m;
  const caa = saa - (sa * sa) / m;
  const det = c11 * c22 - c12 * c12;
  if (!(det > 1e-9) || caa / m < 0.04) {
    segment.ok = false;
    return;
  }
  const k1 = (c22 * ca1 - c12 * ca2) / det;
  const k2 = (c11 * ca2 - c12 * ca1) / det;
  const gain = Math.hypot(k1, k2);
  const explained = (k1 * ca1 + k2 * ca2) / caa;
  if (gain < 0.5 || gain > 2 || explained < 0.25) {
    segment.ok = false;
    return;
  }
  const cos = k1 / gain;
  const sin = k2 / gain;
  segment.up = up;
  segment.forward = [cos * e1[0] + sin * e2[0], cos * e1[1] + sin * e2[1], cos * e1[2] + sin * e2[2]];
  segment.ok = true;
}
