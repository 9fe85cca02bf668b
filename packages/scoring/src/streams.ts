import type { GpsSample, ObdSample, PhoneSample, Sample } from './telemetry.ts';

/** One IMU stream (accelerometer or gyroscope) as parallel typed arrays in time order. */
export interface VectorStream {
  n: number;
  t: Float64Array;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
}

/** The samples of a trip split by type in one pass, each stream in time order. */
export interface Streams {
  gps: GpsSample[];
  accel: VectorStream;
  gyro: VectorStream;
  phone: PhoneSample[];
  obd: ObdSample[];
}

function emptyStream(capacity: number): VectorStream {
  return {
    n: 0,
    t: new Float64Array(capacity),
    x: new Float64Array(capacity),
    y: new Float64Array(capacity),
    z: new Float64Array(capacity),
  };
}

/** Sorts a stream by time in place (stable); uploads are usually in order, so this rarely runs. */
function sortStream(s: VectorStream): void {
  for (let i = 1; i < s.n; i++) {
    if (s.t[i]! >= s.t[i - 1]!) continue;
    const order = Array.from({ length: s.n }, (_, k) => k).sort((a, b) => s.t[a]! - s.t[b]! || a - b);
    for (const key of ['t', 'x', 'y', 'z'] as const) {
      const src = s[key].slice(0, s.n);
      for (let k = 0; k < s.n; k++) s[key][k] = src[order[k]!]!;
    }
    return;
  }
}

function trim(s: VectorStream): VectorStream {
  return { n: s.n, t: s.t.subarray(0, s.n), x: s.x.subarray(0, s.n), y: s.y.subarray(0, s.n), z: s.z.subarray(0, s.n) };
}

/** Splits samples by stream in one pass, each stream in time order; IMU streams become typed arrays. */
export function splitStreams(samples: readonly Sample[]): Streams {
  const gps: GpsSample[] = [];
  const phone: PhoneSample[] = [];
  const obd: ObdSample[] = [];
  // Sized for the worst case; the unused tail costs a memset, far less than a second pass over objects.
  const accel = emptyStream(samples.length);
  const gyro = emptyStream(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const type = s.type;
    if (type === 'accel' || type === 'gyro') {
      const x = s.x;
      const y = s.y;
      const z = s.z;
      if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) continue;
      const target = type === 'accel' ? accel : gyro;
      const k = target.n++;
      target.t[k] = s.t;
      target.x[k] = x;
      target.y[k] = y;
      target.z[k] = z;
    } else if (type === 'gps') gps.push(s);
    else if (type === 'phone') phone.push(s);
    else if (type === 'obd') obd.push(s);
  }
  sortStream(accel);
  sortStream(gyro);
  const byTime = <T extends { t: number }>(list: T[]) => {
    for (let i = 1; i < list.length; i++) {
      if (list[i]!.t < list[i - 1]!.t) return list.sort((a, b) => a.t - b.t);
    }
    return list;
  };
  return { gps: byTime(gps), accel: trim(accel), gyro: trim(gyro), phone: byTime(phone), obd: byTime(obd) };
}
