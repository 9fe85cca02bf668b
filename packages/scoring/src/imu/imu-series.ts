import type { Sample } from '../telemetry.ts';
import { G_MPS2 } from '../thresholds.ts';
import type { Track } from '../track/track.ts';
import { alignSegment, findMountSegments, type MountSegment } from './imu-align.ts';

/** IMU bins are 100 ms: enough for 0.3 s event durations, and they average away engine vibration. */
export const IMU_BIN_MS = 100;
const BINS_PER_S = 1000 / IMU_BIN_MS;

/** How the IMU was put into the vehicle frame. */
export interface ImuAlignment {
  frame: 'vehicle' | 'device';
  /** `given`: already in the vehicle frame; `gps`: rotation fitted against GPS acceleration; `failed`. */
  method: 'given' | 'gps' | 'failed';
  /** Mounting segments found (a phone moved to a new position starts a new one). */
  segments: number;
  /** Share of moving time with a usable vehicle-frame IMU signal, 0-1. */
  coverage: number;
}

/**
 * Accelerometer and gyroscope in the vehicle frame on a 100 ms grid aligned with the track's 1 s grid
 * (bin k covers [t0 + k*100 ms, t0 + (k+1)*100 ms)). NaN marks a bin without usable data.
 */
export interface ImuSeries {
  /** True when longitudinal and lateral acceleration are usable for events. */
  available: boolean;
  gyroAvailable: boolean;
  t0Ms: number;
  n: number;
  /** Longitudinal acceleration (forward positive), smoothed over 0.3 s, m/s^2. */
  longMps2: Float32Array;
  /** Lateral acceleration (left positive), smoothed over 0.3 s, m/s^2. */
  latMps2: Float32Array;
  /** Yaw rate (left turn positive), degrees/s; NaN without gyroscope. */
  yawRateDps: Float32Array;
  /** Peak dynamic acceleration (|a| - g) of the raw samples in each bin, m/s^2. */
  peakDynamicMps2: Float32Array;
  /** Handling episodes found from the device's orientation (device frame only): [startMs, endMs]. */
  pickups: Array<[number, number]>;
  alignment: ImuAlignment;
}

interface Axes {
  count: Uint16Array;
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
}

function emptyAxes(n: number): Axes {
  return { count: new Uint16Array(n), x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
}

/**
 * Bins accelerometer and gyroscope samples into 100 ms means in one pass over the batch (any order), and
 * records each bin's peak dynamic acceleration.
 */
function binImu(samples: readonly Sample[], t0Ms: number, n: number, peak: Float32Array) {
  const accel = emptyAxes(n);
  const gyro = emptyAxes(n);
  let accelTotal = 0;
  let gyroTotal = 0;
  const endMs = t0Ms + n * IMU_BIN_MS;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const type = s.type;
    if (type !== 'accel' && type !== 'gyro') continue;
    const t = s.t;
    if (!(t >= t0Ms && t < endMs)) continue;
    const x = s.x;
    const y = s.y;
    const z = s.z;
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) continue;
    const k = ((t - t0Ms) / IMU_BIN_MS) | 0;
    const axes = type === 'accel' ? accel : gyro;
    axes.count[k] = axes.count[k]! + 1;
    axes.x[k] = axes.x[k]! + x;
    axes.y[k] = axes.y[k]! + y;
    axes.z[k] = axes.z[k]! + z;
    if (type === 'accel') {
      accelTotal++;
      const dyn = Math.sqrt(x * x + y * y + z * z) - G_MPS2;
      if (!(dyn <= peak[k]!)) peak[k] = dyn;
    } else gyroTotal++;
  }
  for (const axes of [accel, gyro]) {
    for (let k = 0; k < n; k++) {
      const c = axes.count[k]!;
      if (c > 0) {
        axes.x[k] = axes.x[k]! / c;
        axes.y[k] = axes.y[k]! / c;
        axes.z[k] = axes.z[k]! / c;
      } else {
        axes.x[k] = Number.NaN;
        axes.y[k] = Number.NaN;
        axes.z[k] = Number.NaN;
      }
    }
    fillShortHoles(axes, 5);
  }
  return { accel: { axes: accel, total: accelTotal }, gyro: { axes: gyro, total: gyroTotal } };
}

/** Linearly fills holes of up to `maxBins` empty bins (a 10-20 Hz stream leaves some bins empty). */
function fillShortHoles(axes: Axes, maxBins: number): void {
  const n = axes.x.length;
  let last = -1;
  for (let k = 0; k < n; k++) {
    if (Number.isNaN(axes.x[k]!)) continue;
    if (last >= 0 && k - last > 1 && k - last - 1 <= maxBins) {
      for (let j = last + 1; j < k; j++) {
        const f = (j - last) / (k - last);
        axes.x[j] = axes.x[last]! + (axes.x[k]! - axes.x[last]!) * f;
        axes.y[j] = axes.y[last]! + (axes.y[k]! - axes.y[last]!) * f;
        axes.z[j] = axes.z[last]! + (axes.z[k]! - axes.z[last]!) * f;
      }
    }
    last = k;
  }
}

/** How many of grid second i's 100 ms bins have data (bins 10 i .. 10 i + 9), per second of an n-second grid. */
export function imuBinsPerSecond(values: Float32Array, n: number): Uint8Array {
  const counts = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let c = 0;
    for (let k = i * BINS_PER_S; k < (i + 1) * BINS_PER_S && k < values.length; k++) if (!Number.isNaN(values[k]!)) c++;
    counts[i] = c;
  }
  return counts;
}

/**
 * Grid seconds for which an IMU axis has data (at least half of the second's 100 ms bins). An IMU can be
 * usable for the trip and still be silent for part of it: the stream stopped, a mounting segment could not
 * be aligned, or the phone was being handled (those bins are blanked). Harsh events and the peak and
 * percentile factors take GPS (or OBD) speed for the seconds this leaves out.
 */
export function imuCoveredSeconds(values: Float32Array, n: number): Uint8Array {
  const counts = imuBinsPerSecond(values, n);
  const covered = new Uint8Array(n);
  for (let i = 0; i < n; i++) covered[i] = counts[i]! >= BINS_PER_S / 2 ? 1 : 0;
  return covered;
}

/** Builds the vehicle-frame IMU series of a trip, aligning a device-frame IMU against the GPS track. */
export function buildImuSeries(samples: readonly Sample[], track: Track, frame: 'vehicle' | 'device'): ImuSeries {
  const n = track.n * BINS_PER_S;
  const t0Ms = track.t0Ms - IMU_BIN_MS * (BINS_PER_S / 2);
  // NaN until a sample lands in the bin (the binning keeps the larger of NaN and a value).
  const peakDynamicMps2 = new Float32Array(n).fill(Number.NaN);
  const { accel, gyro } = binImu(samples, t0Ms, n, peakDynamicMps2);
  const series: ImuSeries = {
    available: false,
    gyroAvailable: false,
    t0Ms,
    n,
    longMps2: new Float32Array(n).fill(Number.NaN),
    latMps2: new Float32Array(n).fill(Number.NaN),
    yawRateDps: new Float32Array(n).fill(Number.NaN),
    peakDynamicMps2,
    pickups: [],
    alignment: { frame, method: 'failed', segments: 0, coverage: 0 },
  };
  if (accel.total < 10 * track.n * 0.5 || track.n < 10) {
    // Less than ~5 Hz on average over the trip: too sparse for 0.3 s events.
    return series;
  }
  const hasGyro = gyro.total >= 10 * track.n * 0.5;

  const segments: MountSegment[] =
    frame === 'vehicle'
      ? [{ startS: 0, endS: track.n, up: [0, 0, 1], forward: [1, 0, 0], ok: true }]
      : findMountSegments(accel.axes, hasGyro ? gyro.axes : null, track, series.pickups);
  let okSegments = 0;
  for (const segment of segments) {
    if (frame === 'device') alignSegment(segment, accel.axes, track);
    if (!segment.ok) continue;
    okSegments++;
    const [ux, uy, uz] = segment.up;
    const [fx, fy, fz] = segment.forward;
    // left = up x forward (x forward, y left, z up is right-handed).
    const lx = uy * fz - uz * fy;
    const ly = uz * fx - ux * fz;
    const lz = ux * fy - uy * fx;
    for (let k = segment.startS * BINS_PER_S; k < Math.min(n, segment.endS * BINS_PER_S); k++) {
      const ax = accel.axes.x[k]!;
      if (Number.isNaN(ax)) continue;
      const ay = accel.axes.y[k]!;
      const az = accel.axes.z[k]!;
      series.longMps2[k] = ax * fx + ay * fy + az * fz;
      series.latMps2[k] = ax * lx + ay * ly + az * lz;
      if (hasGyro) {
        const gx = gyro.axes.x[k]!;
        if (!Number.isNaN(gx)) {
          series.yawRateDps[k] = ((gx * ux + gyro.axes.y[k]! * uy + gyro.axes.z[k]! * uz) * 180) / Math.PI;
        }
      }
    }
  }
  // Handling the phone is not driving: blank those seconds so they make no harsh events.
  for (const [startMs, endMs] of series.pickups) {
    const k0 = Math.max(0, Math.floor((startMs - t0Ms) / IMU_BIN_MS));
    const k1 = Math.min(n, Math.ceil((endMs - t0Ms) / IMU_BIN_MS));
    for (let k = k0; k < k1; k++) {
      series.longMps2[k] = Number.NaN;
      series.latMps2[k] = Number.NaN;
      series.yawRateDps[k] = Number.NaN;
    }
  }
  correctBias(series.longMps2, track, (i) => track.accelMps2[i]!);
  correctBias(series.latMps2, track, (i) => {
    const v = track.speedMps[i]!;
    const w = track.yawRateDps[i]!;
    return v > 5 ? (v * w * Math.PI) / 180 : Number.NaN;
  });
  if (hasGyro)
    correctBias(series.yawRateDps, track, (i) => (track.speedMps[i]! > 5 ? track.yawRateDps[i]! : Number.NaN));
  series.longMps2 = smooth3(series.longMps2);
  series.latMps2 = smooth3(series.latMps2);
  series.yawRateDps = smooth3(series.yawRateDps);

  let movingS = 0;
  let coveredS = 0;
  for (let i = 0; i < track.n; i++) {
    if (!(track.speedMps[i]! > 1.4)) continue;
    movingS++;
    if (!Number.isNaN(series.longMps2[i * BINS_PER_S + BINS_PER_S / 2]!)) coveredS++;
  }
  const coverage = movingS > 0 ? coveredS / movingS : 0;
  series.alignment = {
    frame,
    method: okSegments === 0 ? 'failed' : frame === 'vehicle' ? 'given' : 'gps',
    segments: segments.length,
    coverage,
  };
  series.available = okSegments > 0 && coverage >= 0.5;
  series.gyroAvailable = series.available && hasGyro;
  if (!series.gyroAvailable) series.yawRateDps.fill(Number.NaN);
  return series;
}

/**
 * Removes slow biases (road grade, mounting tilt, sensor offset) by comparing the IMU with the GPS over a
 * +-15 s window: harsh events are much shorter than the window, so they survive.
 */
function correctBias(values: Float32Array, track: Track, reference: (i: number) => number): void {
  const n = track.n;
  const diff = new Float32Array(n).fill(Number.NaN);
  for (let i = 1; i < n - 1; i++) {
    const ref = reference(i);
    if (!Number.isFinite(ref)) continue;
    // The 1 s grid point i sits at bin 10 i + 5; +-1 s are bins 10 (i-1) + 5 .. 10 (i+1) + 4.
    let sum = 0;
    let count = 0;
    for (let k = (i - 1) * BINS_PER_S + 5; k < (i + 1) * BINS_PER_S + 5; k++) {
      const v = values[k]!;
      if (Number.isNaN(v)) continue;
      sum += v;
      count++;
    }
    if (count >= BINS_PER_S) diff[i] = sum / count - ref;
  }
  const window = 15;
  const bias = new Float32Array(n);
  let sum = 0;
  let count = 0;
  let totalSum = 0;
  let totalCount = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isNaN(diff[i]!)) {
      totalSum += diff[i]!;
      totalCount++;
    }
  }
  const fallback = totalCount > 0 ? totalSum / totalCount : 0;
  for (let i = -window; i < n; i++) {
    const add = i + window;
    if (add < n && !Number.isNaN(diff[add]!)) {
      sum += diff[add]!;
      count++;
    }
    const drop = i - window - 1;
    if (drop >= 0 && !Number.isNaN(diff[drop]!)) {
      sum -= diff[drop]!;
      count--;
    }
    if (i >= 0) bias[i] = count >= 5 ? sum / count : fallback;
  }
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!;
    if (Number.isNaN(v)) continue;
    const i = Math.min(n - 1, Math.floor(k / BINS_PER_S));
    values[k] = v - bias[i]!;
  }
}

function smooth3(values: Float32Array): Float32Array {
  const n = values.length;
  const out = new Float32Array(n).fill(Number.NaN);
  for (let k = 1; k < n - 1; k++) {
    const a = values[k - 1]!;
    const b = values[k]!;
    const c = values[k + 1]!;
    if (Number.isNaN(b)) continue;
    if (Number.isNaN(a) || Number.isNaN(c)) out[k] = b;
    else out[k] = (a + b + c) / 3;
  }
  return out;
}
