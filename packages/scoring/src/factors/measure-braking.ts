import { eventIdsOf, eventsOf, type TripData } from '../score/trip-data.ts';
import { EMERGENCY_BRAKING_MPS2, IMPACT_MPS2, SEVERE_BRAKING_MPS2 } from '../thresholds.ts';
import {
  accelPerSecond,
  addGpsWhereImuSilent,
  gpsPeakWhereImuSilent,
  imuCoveredDistanceM,
  type Measurer,
  mean,
  per100km,
  per100kmOf,
  percentile,
  secondOfBin,
  sharePct,
  softCount,
  sustainedPeak,
  Values,
} from './measure-util.ts';

const BRAKING = ['harsh_braking'];

/** Harsh braking events that end within 3 s of a stop. */
function hardStops(d: TripData) {
  return eventsOf(d, 'harsh_braking').filter((e) =>
    d.stops.some((s) => s.second >= e.startS && s.second <= e.endS + 3),
  );
}

export const BRAKING_MEASURES: Record<string, Measurer> = {
  harshBrakingRate: (d) => {
    const ids = eventIdsOf(d, BRAKING);
    return { value: per100km(d, ids.length), eventIds: ids };
  },
  severeBrakingRate: (d) => {
    const { count, eventIds } = softCount(d, 'harsh_braking', SEVERE_BRAKING_MPS2 - 0.4, SEVERE_BRAKING_MPS2 + 0.4);
    return { value: per100km(d, count), eventIds };
  },
  emergencyBrakingCount: (d) => {
    const { count, eventIds } = softCount(
      d,
      'harsh_braking',
      EMERGENCY_BRAKING_MPS2 - 0.4,
      EMERGENCY_BRAKING_MPS2 + 0.4,
    );
    return { value: count, eventIds };
  },
  peakDeceleration: (d) => {
    // The IMU peak over the seconds it covers, and the GPS (or OBD) 1 s peak over those it does not (all of
    // them without a usable IMU): the larger of the two. A hard stop during an IMU silence now counts as an
    // event, so it must show here too.
    const imuPeak = d.imu?.available ? sustainedPeak(d.imu.longMps2, d, 3, -1) : 0;
    const value = Math.max(
      imuPeak,
      gpsPeakWhereImuSilent(d, 'long', (i) => -d.track.accel1sMps2[i]!),
    );
    let top: string[] = [];
    let best = -1;
    for (const e of eventsOf(d, 'harsh_braking')) {
      if (e.event.value > best) {
        best = e.event.value;
        top = [d.ids.get(e)!];
      }
    }
    return { value, eventIds: top };
  },
  decelerationP95: (d) => {
    // Over moving time: the IMU's bins where it has data, and the GPS (or OBD) +-1 s deceleration for the
    // seconds it does not cover (every second without a usable IMU). Braking lasts seconds, so at the 95th
    // percentile the 2 s GPS mean reads close to the IMU (GPS-only / IMU on the simulated population:
    // median 0.96); with 30-40 % of a trip silent the mixed value lands 0.03 m/s^2 (median) under the
    // full-IMU one, a third of the cornering gap (measure-cornering, lateralAccelerationP95, left IMU-only),
    // and closer on average than the covered seconds alone (mean error 0.046 against 0.056 m/s^2), which
    // also drop whatever hard braking the silence hid (README, model 1.1.2).
    const values = new Values();
    if (d.imu?.available) {
      const long = d.imu.longMps2;
      for (let k = 0; k < long.length; k++)
        if (d.moving[secondOfBin(k)] && !Number.isNaN(long[k]!)) values.push(Math.max(0, -long[k]!));
    }
    addGpsWhereImuSilent(values, d, 'long', (i) => (d.moving[i] ? Math.max(0, -d.track.accelMps2[i]!) : Number.NaN));
    return { value: percentile(values, 95) };
  },
  brakingOnsetJerk: (d) => {
    const long = d.imu!.longMps2;
    const values = new Values();
    for (let k = 1; k < long.length - 1; k++) {
      if (!d.moving[secondOfBin(k)]) continue;
      // Jerk while braking: deceleration building up with the vehicle already slowing. A bin without data
      // (or without a neighbour) is unknown and left out, not counted as no jerk.
      const jerk = (long[k + 1]! - long[k - 1]!) / 0.2;
      if (Number.isNaN(jerk) || Number.isNaN(long[k]!)) continue;
      values.push(long[k]! < -0.5 ? Math.max(0, -jerk) : 0);
    }
    return { value: percentile(values, 95) };
  },
  highSpeedHarshBrakingRate: (d) => {
    const ids = eventIdsOf(d, BRAKING, (e) => Number(e.event.details?.speedKmh) >= 80);
    return { value: per100km(d, ids.length), eventIds: ids };
  },
  hardStopRate: (d) => {
    if (d.stops.length === 0) return { unavailable: 'no stop in the trip' };
    const hard = hardStops(d);
    return { value: (100 * hard.length) / d.stops.length, eventIds: hard.map((e) => d.ids.get(e)!) };
  },
  stopApproachDeceleration: (d) => {
    const decels: number[] = [];
    for (const stop of d.stops) {
      const at = d.cumM[stop.second]!;
      let i = stop.second;
      while (i > 0 && at - d.cumM[i]! < 100 && !d.track.gap[i]) i--;
      const dist = at - d.cumM[i]!;
      const v = d.track.speedMps[i]!;
      if (dist < 50 || !(v * 3.6 >= 20)) continue;
      decels.push((v * v) / (2 * dist));
    }
    if (decels.length === 0) return { unavailable: 'no stop approached faster than 20 km/h' };
    return { value: mean(decels) };
  },
  lateBrakingShare: (d) => {
    let count = 0;
    let late = 0;
    for (const stop of d.stops) {
      let j = stop.second;
      while (j > 0 && stop.second - j <= 30 && d.speedKmh[j]! < 40) j--;
      if (!(d.speedKmh[j]! >= 40) || d.track.gap[j]) continue;
      count++;
      // Fraction of the second in which the speed crossed 40 km/h.
      const v0 = d.speedKmh[j]!;
      const v1 = d.speedKmh[j + 1] ?? v0;
      const frac = v0 > v1 ? (v0 - 40) / (v0 - v1) : 0;
      if (stop.second - (j + frac) < 4) late++;
    }
    if (count === 0) return { unavailable: 'no stop from 40 km/h or more' };
    return { value: sharePct(late, count) };
  },
  harshBrakesPerStop: (d) => {
    if (d.stops.length === 0) return { unavailable: 'no stop in the trip' };
    const ids = eventIdsOf(d, BRAKING);
    return { value: ids.length / d.stops.length, eventIds: ids };
  },
  brakingClusterRate: (d) => {
    const events = eventsOf(d, 'harsh_braking');
    let clusters = 0;
    const ids: string[] = [];
    let size = 1;
    for (let k = 1; k <= events.length; k++) {
      const close = k < events.length && events[k]!.event.startMs - events[k - 1]!.event.startMs <= 60_000;
      if (close) {
        size++;
        continue;
      }
      if (size >= 2) {
        clusters++;
        for (let j = k - size; j < k; j++) ids.push(d.ids.get(events[j]!)!);
      }
      size = 1;
    }
    return { value: per100km(d, clusters), eventIds: ids };
  },
  speedOscillationIndex: (d) => {
    const a = accelPerSecond(d);
    let km = 0;
    let reversals = 0;
    let phase = 0;
    for (let i = 0; i < d.track.n; i++) {
      if (!(d.speedKmh[i]! > 50) || d.track.gap[i]) {
        phase = 0;
        continue;
      }
      km += d.track.stepM[i]! / 1000;
      const v = a[i]!;
      const sign = v > 1 ? 1 : v < -1 ? -1 : 0;
      if (sign !== 0) {
        if (phase !== 0 && sign !== phase) reversals++;
        phase = sign;
      }
    }
    if (km < 1) return { unavailable: 'less than 1 km driven above 50 km/h' };
    return { value: reversals / km };
  },
  brakingWhileTurningRate: (d) => {
    // Only the IMU sees the lateral acceleration: its own events per 100 km it covered. A GPS event from an
    // IMU silence has no lateral reading, and its stretch is not braking-free driving either.
    const lat = d.imu!.latMps2;
    const ids = eventIdsOf(d, BRAKING, (e) => {
      if (e.event.source !== 'imu') return false;
      const k0 = Math.max(0, Math.floor((e.event.startMs - d.imu!.t0Ms) / 100));
      const k1 = Math.min(lat.length, Math.ceil((e.event.endMs - d.imu!.t0Ms) / 100) + 1);
      for (let k = k0; k < k1; k++) if (Math.abs(lat[k]!) >= 2) return true;
      return false;
    });
    return { value: per100kmOf(imuCoveredDistanceM(d, 'lat'), ids.length), eventIds: ids };
  },
  signalApproachHarshBraking: (d) => {
    const signals = d.road.nodePasses.filter((p) => p.control === 'signals');
    if (signals.length === 0) return { unavailable: 'no traffic signal passed' };
    const ids = eventIdsOf(d, BRAKING, (e) =>
      signals.some((s) => {
        const gapM = d.cumM[s.second]! - d.cumM[e.peakS]!;
        return gapM >= -5 && gapM <= 50;
      }),
    );
    return { value: (100 * ids.length) / signals.length, eventIds: ids };
  },
  possibleImpactCount: (d) => {
    const peak = d.imu!.peakDynamicMps2;
    let count = 0;
    let lastK = -1e9;
    for (let k = 0; k < peak.length; k++) {
      if (!(peak[k]! >= IMPACT_MPS2) || k - lastK < 100) continue;
      const i = secondOfBin(k);
      let stopped = false;
      for (let j = i; j < Math.min(d.track.n, i + 10); j++) if (d.speedKmh[j]! < 5) stopped = true;
      if (stopped) {
        count++;
        lastK = k;
      }
    }
    return { value: count };
  },
};
