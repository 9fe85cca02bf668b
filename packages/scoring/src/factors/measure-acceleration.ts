import { toleranceKmh } from '../events/speeding.ts';
import { eventIdsOf, type TripData } from '../score/trip-data.ts';
import { SEVERE_ACCEL_MPS2 } from '../thresholds.ts';
import {
  accelPerSecond,
  addGpsWhereImuSilent,
  gpsPeakWhereImuSilent,
  type Measurer,
  mean,
  nearSeconds,
  per100km,
  per100kmOf,
  percentile,
  secondOfBin,
  sharePct,
  softCount,
  sustainedPeak,
  Values,
} from './measure-util.ts';

const ACCEL = ['harsh_acceleration'];

/** Launches from standstill to 50 km/h within 25 s: mean acceleration of each. */
function launches(d: TripData): number[] {
  const out: number[] = [];
  const n = d.track.n;
  const starts = [0, ...d.stops.map((s) => s.second)];
  for (const s of starts) {
    let i = s;
    while (i < n && d.speedKmh[i]! < 5) i++;
    if (i >= n || i === s) continue;
    const t0 = i - 1;
    let j = i;
    while (j < n && j - t0 <= 25 && d.speedKmh[j]! < 50) {
      if (d.speedKmh[j]! < 2 || d.track.gap[j]) break;
      j++;
    }
    if (j >= n || !(d.speedKmh[j]! >= 50) || j - t0 > 25) continue;
    const v0 = d.speedKmh[j - 1]!;
    const v1 = d.speedKmh[j]!;
    const frac = v1 > v0 ? (50 - v0) / (v1 - v0) : 1;
    const seconds = j - 1 + frac - t0;
    if (seconds > 0) out.push(50 / 3.6 / seconds);
  }
  return out;
}

export const ACCELERATION_MEASURES: Record<string, Measurer> = {
  harshAccelerationRate: (d) => {
    const ids = eventIdsOf(d, ACCEL);
    return { value: per100km(d, ids.length), eventIds: ids };
  },
  severeAccelerationRate: (d) => {
    const { count, eventIds } = softCount(d, 'harsh_acceleration', SEVERE_ACCEL_MPS2 - 0.3, SEVERE_ACCEL_MPS2 + 0.3);
    return { value: per100km(d, count), eventIds };
  },
  peakAcceleration: (d) => {
    // As peakDeceleration: the IMU peak over covered seconds, the GPS 1 s peak over the others.
    const imuPeak = d.imu?.available ? sustainedPeak(d.imu.longMps2, d, 5, 1) : 0;
    return {
      value: Math.max(
        imuPeak,
        gpsPeakWhereImuSilent(d, 'long', (i) => d.track.accel1sMps2[i]!),
      ),
    };
  },
  accelerationP95: (d) => {
    // As decelerationP95: IMU bins where it has data, GPS +-1 s acceleration for the seconds it does not
    // (GPS-only / IMU median 0.96 here too; mixed 0.03 m/s^2 under the full-IMU value with 30-40 % silent).
    const values = new Values();
    if (d.imu?.available) {
      const long = d.imu.longMps2;
      for (let k = 0; k < long.length; k++)
        if (d.moving[secondOfBin(k)] && !Number.isNaN(long[k]!)) values.push(Math.max(0, long[k]!));
    }
    addGpsWhereImuSilent(values, d, 'long', (i) => (d.moving[i] ? Math.max(0, d.track.accelMps2[i]!) : Number.NaN));
    return { value: percentile(values, 95) };
  },
  launchIntensity: (d) => {
    const values = launches(d);
    if (values.length === 0) return { unavailable: 'no launch from standstill to 50 km/h' };
    return { value: mean(values) };
  },
  accelerationOnsetJerk: (d) => {
    const long = d.imu!.longMps2;
    const values = new Values();
    for (let k = 1; k < long.length - 1; k++) {
      if (!d.moving[secondOfBin(k)]) continue;
      // Jerk while accelerating: rising acceleration with the vehicle already speeding up. A bin without
      // data (or without a neighbour) is unknown and left out, not counted as no jerk.
      const jerk = (long[k + 1]! - long[k - 1]!) / 0.2;
      if (Number.isNaN(jerk) || Number.isNaN(long[k]!)) continue;
      values.push(long[k]! > 0.5 ? Math.max(0, jerk) : 0);
    }
    return { value: percentile(values, 95) };
  },
  highSpeedAccelerationRate: (d) => {
    const ids = eventIdsOf(d, ACCEL, (e) => Number(e.event.details?.speedKmh) >= 80);
    return { value: per100km(d, ids.length), eventIds: ids };
  },
  accelerationIntoSpeedingRate: (d) => {
    const a = accelPerSecond(d);
    const { limitKmh } = d.speeding;
    let count = 0;
    let run = 0;
    for (let i = 0; i <= d.track.n; i++) {
      if (i < d.track.n && a[i]! > 0.5 && d.moving[i]) {
        run++;
        continue;
      }
      if (run >= 3) {
        const end = i - 1;
        const limit = limitKmh[end]!;
        if (Number.isFinite(limit) && d.speedKmh[end]! > limit + toleranceKmh(limit)) count++;
      }
      run = 0;
    }
    return { value: per100kmOf(d.speeding.knownLimitDistanceM, count) };
  },
  cruiseThrottleVariability: (d) => {
    const a = accelPerSecond(d);
    const n = d.track.n;
    // 30 s centred moving average of speed, via prefix sums.
    const prefix = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + (Number.isFinite(d.speedKmh[i]!) ? d.speedKmh[i]! : 0);
    const values = new Values();
    for (let i = 0; i < n; i++) {
      const v = d.speedKmh[i]!;
      if (!(v > 50) || d.track.gap[i] || !Number.isFinite(a[i]!)) continue;
      const lo = Math.max(0, i - 15);
      const hi = Math.min(n, i + 16);
      const avg = (prefix[hi]! - prefix[lo]!) / (hi - lo);
      if (Math.abs(v - avg) <= 0.1 * avg) values.push(a[i]!);
    }
    if (values.length < 60) return { unavailable: 'less than 60 s of steady cruising above 50 km/h' };
    const view = values.view();
    const m = mean(view);
    let s = 0;
    for (const v of view) s += (v - m) ** 2;
    return { value: Math.sqrt(s / view.length) };
  },
  stopGoCycleRate: (d) => {
    // A cycle: speed rises by 8 km/h from a low, then falls by 8 km/h from the following high, all below
    // 30 km/h. Counting on speed with hysteresis keeps GPS noise from making cycles.
    const swing = 8;
    let km = 0;
    let cycles = 0;
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    let rising = false;
    for (let i = 0; i < d.track.n; i++) {
      const v = d.speedKmh[i]!;
      if (!(v < 30) || d.track.gap[i]) {
        low = Number.POSITIVE_INFINITY;
        rising = false;
        continue;
      }
      km += d.track.stepM[i]! / 1000;
      if (!rising) {
        low = Math.min(low, v);
        if (v - low >= swing) {
          rising = true;
          high = v;
        }
      } else {
        high = Math.max(high, v);
        if (high - v >= swing) {
          cycles++;
          rising = false;
          low = v;
        }
      }
    }
    if (km < 0.5) return { unavailable: 'less than 0.5 km driven below 30 km/h' };
    return { value: cycles / km };
  },
  signalLaunchHarshRate: (d) => {
    const signals = d.road.nodePasses.filter((p) => p.control === 'signals');
    if (signals.length === 0) return { unavailable: 'no traffic signal passed' };
    const ids = eventIdsOf(d, ACCEL, (e) =>
      signals.some((s) => {
        const afterM = d.cumM[e.startS]! - d.cumM[s.second]!;
        return afterM >= -10 && afterM <= 50;
      }),
    );
    return { value: (100 * ids.length) / signals.length, eventIds: ids };
  },
  mergeAccelerationIntensity: (d) => {
    const a = accelPerSecond(d);
    const values = new Values();
    for (let i = 0; i < d.track.n; i++) {
      const e = d.road.edge[i]!;
      const info = e >= 0 ? d.road.edges.get(e) : undefined;
      if (!info || (info.highway !== 'motorway_link' && info.highway !== 'trunk_link')) continue;
      if (d.moving[i] && Number.isFinite(a[i]!)) values.push(a[i]!);
    }
    if (values.length < 10) return { unavailable: 'less than 10 s on motorway or trunk slip roads' };
    return { value: Math.max(0, percentile(values, 95)) };
  },
  engineHighRpmShare: (d) => {
    const limit = d.machineType && d.machineType !== 'car' && d.machineType !== 'motorcycle' ? 3000 : 4000;
    const high = new Uint8Array(d.track.n);
    const seen = new Uint8Array(d.track.n);
    for (const s of d.obd) {
      if (s.rpm === undefined) continue;
      const i = Math.round((s.t - d.track.t0Ms) / 1000);
      if (i < 0 || i >= d.track.n) continue;
      seen[i] = 1;
      if (s.rpm > limit) high[i] = 1;
    }
    let moving = 0;
    let count = 0;
    for (let i = 0; i < d.track.n; i++) {
      if (!d.moving[i] || !seen[i]) continue;
      moving++;
      count += high[i]!;
    }
    if (moving < 60) return { unavailable: 'less than 60 s of engine speed readings while moving' };
    return { value: sharePct(count, moving) };
  },
  throttleKickdownRate: (d) => {
    let episodes = 0;
    let inEpisode = false;
    let readings = 0;
    for (const s of d.obd) {
      if (s.throttlePct === undefined) continue;
      readings++;
      if (s.throttlePct > 80 && !inEpisode) episodes++;
      inEpisode = s.throttlePct > 80;
    }
    if (readings < 60) return { unavailable: 'less than 60 throttle readings' };
    return { value: per100km(d, episodes) };
  },
  longitudinalJerkRms: (d) => {
    const long = d.imu!.longMps2;
    let s = 0;
    let c = 0;
    for (let k = 1; k < long.length - 1; k++) {
      if (!d.moving[secondOfBin(k)]) continue;
      const jerk = (long[k + 1]! - long[k - 1]!) / 0.2;
      if (Number.isNaN(jerk)) continue;
      s += jerk * jerk;
      c++;
    }
    return { value: c > 0 ? Math.sqrt(s / c) : 0 };
  },
};

/**
 * Seconds within `radiusM` of driving of a junction (three or more roads meet, `NodePass.junction`, as for the
 * other junction factors) or a signalled node (exported for the distraction measures).
 */
export function nearJunctions(d: TripData, radiusM: number): Uint8Array {
  const seconds = d.road.nodePasses.filter((p) => p.junction || p.control === 'signals').map((p) => p.second);
  return nearSeconds(d, seconds, radiusM, radiusM);
}
