import { angleDiffDeg } from '../geo.ts';
import { eventIdsOf, memo, type TripData } from '../score/trip-data.ts';
import { CORNERING_MIN_KMH, SEVERE_CORNERING_MPS2 } from '../thresholds.ts';
import {
  countBinEpisodes,
  type Measurer,
  mean,
  per100km,
  percentile,
  secondOfBin,
  sharePct,
  softCount,
  sustainedPeak,
  Values,
} from './measure-util.ts';

const CORNERING = ['harsh_cornering'];
const COMFORT_LATERAL_MPS2 = 3;
const CURVE_MAX_RADIUS_M = 300;

/** Heading unwrapped into a continuous angle (degrees), NaN where unknown. */
function unwrappedHeading(d: TripData): Float64Array {
  const n = d.track.n;
  const out = new Float64Array(n).fill(Number.NaN);
  let last = Number.NaN;
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const h = d.track.headingDeg[i]!;
    if (!Number.isFinite(h) || d.track.gap[i]) continue;
    acc = Number.isNaN(last) ? h : acc + angleDiffDeg(last, h);
    last = h;
    out[i] = acc;
  }
  return out;
}

interface Turn {
  startS: number;
  endS: number;
  entryKmh: number;
  minKmh: number;
}

/** Turns of more than `minDeg` within `windowS` while moving, non-overlapping, strongest window first. */
function findTurns(d: TripData, windowS: number, minDeg: number): Turn[] {
  return memo(d, `turns:${windowS}:${minDeg}`, () => computeTurns(d, windowS, minDeg));
}

function computeTurns(d: TripData, windowS: number, minDeg: number): Turn[] {
  const h = memo(d, 'unwrappedHeading', () => unwrappedHeading(d));
  const n = d.track.n;
  const turns: Turn[] = [];
  let i = 0;
  while (i + windowS < n) {
    const change = Math.abs(h[i + windowS]! - h[i]!);
    if (!(change > minDeg)) {
      i++;
      continue;
    }
    // Slide while the change keeps growing, to centre the window on the turn.
    let best = i;
    let bestChange = change;
    for (let k = i + 1; k + windowS < n && k <= i + windowS; k++) {
      const c = Math.abs(h[k + windowS]! - h[k]!);
      if (c > bestChange) {
        bestChange = c;
        best = k;
      }
    }
    let minKmh = Number.POSITIVE_INFINITY;
    let ok = true;
    for (let k = best; k <= best + windowS; k++) {
      const v = d.speedKmh[k]!;
      if (!(v >= 5)) ok = false;
      minKmh = Math.min(minKmh, v);
    }
    if (ok) turns.push({ startS: best, endS: best + windowS, entryKmh: d.speedKmh[best]!, minKmh });
    i = best + windowS + 1;
  }
  return turns;
}

function lateralJerks(d: TripData, minKmh: number, where: (i: number) => boolean = () => true): Values {
  const lat = d.imu!.latMps2;
  const values = new Values();
  for (let k = 1; k < lat.length - 1; k++) {
    const i = secondOfBin(k);
    if (!(d.speedKmh[i]! > minKmh) || !where(i)) continue;
    const jerk = Math.abs((lat[k + 1]! - lat[k - 1]!) / 0.2);
    if (!Number.isNaN(jerk)) values.push(jerk);
  }
  return values;
}

/** Comfortable speed on a curve of radius R: sqrt(a_c R), in km/h. */
function comfortKmh(radiusM: number): number {
  return Math.sqrt(COMFORT_LATERAL_MPS2 * radiusM) * 3.6;
}

export const CORNERING_MEASURES: Record<string, Measurer> = {
  harshCorneringRate: (d) => {
    const ids = eventIdsOf(d, CORNERING);
    return { value: per100km(d, ids.length), eventIds: ids };
  },
  severeCorneringRate: (d) => {
    const { count, eventIds } = softCount(
      d,
      'harsh_cornering',
      SEVERE_CORNERING_MPS2 - 0.4,
      SEVERE_CORNERING_MPS2 + 0.4,
    );
    return { value: per100km(d, count), eventIds };
  },
  peakLateralAcceleration: (d) => {
    let value = 0;
    if (d.imu?.available) value = sustainedPeak(d.imu.latMps2, d, 4, 0);
    else {
      for (let i = 0; i < d.track.n; i++) {
        const v = d.track.speedMps[i]!;
        const w = d.track.yawRateDps[i]!;
        if (!(v * 3.6 >= CORNERING_MIN_KMH) || !Number.isFinite(w)) continue;
        value = Math.max(value, Math.abs((v * w * Math.PI) / 180));
      }
    }
    return { value };
  },
  lateralAccelerationP95: (d) => {
    const values = new Values();
    if (d.imu?.available) {
      const lat = d.imu.latMps2;
      for (let k = 0; k < lat.length; k++) {
        const v = Math.abs(lat[k]!);
        if (d.speedKmh[secondOfBin(k)]! > CORNERING_MIN_KMH && !Number.isNaN(v)) values.push(v);
      }
    } else {
      for (let i = 0; i < d.track.n; i++) {
        const w = d.track.yawRateDps[i]!;
        const v = Math.abs((d.track.speedMps[i]! * w * Math.PI) / 180);
        if (d.speedKmh[i]! > CORNERING_MIN_KMH && Number.isFinite(v)) values.push(v);
      }
    }
    return { value: percentile(values, 95) };
  },
  curveSpeedExcess: (d) => {
    const excess: number[] = [];
    for (let i = 0; i < d.track.n; i++) {
      const r = d.road.curveRadiusM[i]!;
      if (!(r < CURVE_MAX_RADIUS_M) || !d.moving[i] || d.track.gap[i]) continue;
      excess.push(Math.max(0, d.speedKmh[i]! - comfortKmh(r)));
    }
    if (excess.length < 5) return { unavailable: 'less than 5 s on curves of radius under 300 m' };
    return { value: mean(excess) };
  },
  curveOverspeedShare: (d) => {
    let total = 0;
    let over = 0;
    for (let i = 0; i < d.track.n; i++) {
      const r = d.road.curveRadiusM[i]!;
      if (!(r < CURVE_MAX_RADIUS_M) || !d.moving[i] || d.track.gap[i]) continue;
      total += d.track.stepM[i]!;
      if (d.speedKmh[i]! > comfortKmh(r)) over += d.track.stepM[i]!;
    }
    if (total < 50) return { unavailable: 'less than 50 m on curves of radius under 300 m' };
    return { value: sharePct(over, total) };
  },
  yawRateP95: (d) => {
    const values = new Values();
    if (d.imu?.gyroAvailable) {
      const yaw = d.imu.yawRateDps;
      for (let k = 0; k < yaw.length; k++)
        if (d.speedKmh[secondOfBin(k)]! > 20 && !Number.isNaN(yaw[k]!)) values.push(Math.abs(yaw[k]!));
    } else {
      for (let i = 0; i < d.track.n; i++) {
        const w = d.track.yawRateDps[i]!;
        if (d.speedKmh[i]! > 20 && Number.isFinite(w)) values.push(Math.abs(w));
      }
    }
    if (values.length < 30) return { unavailable: 'less than 30 s above 20 km/h' };
    return { value: percentile(values, 95) };
  },
  combinedGExceedanceRate: (d) => {
    const { longMps2, latMps2 } = d.imu!;
    const count = countBinEpisodes(
      longMps2.length,
      (k) => d.moving[secondOfBin(k)] === 1 && Math.hypot(longMps2[k]!, latMps2[k]!) > 4,
      3,
      20,
    );
    return { value: per100km(d, count) };
  },
  swervingRate: (d) => {
    const yaw = d.imu!.yawRateDps;
    let count = 0;
    let lastSign = 0;
    let lastK = -1e9;
    for (let k = 0; k < yaw.length; k++) {
      const w = yaw[k]!;
      if (!(d.speedKmh[secondOfBin(k)]! > 50) || Number.isNaN(w)) continue;
      const sign = w > 10 ? 1 : w < -10 ? -1 : 0;
      if (sign === 0) continue;
      if (lastSign !== 0 && sign !== lastSign && k - lastK <= 30) count++;
      lastSign = sign;
      lastK = k;
    }
    return { value: per100km(d, count) };
  },
  laneChangeIntensity: (d) => {
    const multiLane = (i: number) => {
      const e = d.road.edge[i]!;
      const info = e >= 0 ? d.road.edges.get(e) : undefined;
      return info !== undefined && (info.oneway ? info.lanes >= 2 : info.lanes >= 4);
    };
    const values = lateralJerks(d, 50, multiLane);
    if (values.length < 300) return { unavailable: 'less than 30 s above 50 km/h on multi-lane roads' };
    return { value: percentile(values, 95) };
  },
  turnEntrySpeedRatio: (d) => {
    const turns = findTurns(d, 6, 60);
    if (turns.length === 0) return { unavailable: 'no turn of more than 60 degrees' };
    return { value: mean(turns.map((t) => t.entryKmh)) / 25 };
  },
  roundaboutEntrySpeed: (d) => {
    const speeds: number[] = [];
    let previous = false;
    for (let i = 0; i < d.track.n; i++) {
      const e = d.road.edge[i]!;
      if (e < 0) continue;
      const inside = d.road.edges.get(e)?.roundabout === true;
      if (inside && !previous && i > 0) speeds.push(d.speedKmh[i]!);
      previous = inside;
    }
    if (speeds.length === 0) return { unavailable: 'no roundabout entered' };
    return { value: mean(speeds) };
  },
  uTurnCount: (d) => ({ value: findTurns(d, 15, 160).length }),
  accelerationInCurvesRate: (d) => {
    const { longMps2, latMps2 } = d.imu!;
    const count = countBinEpisodes(
      longMps2.length,
      (k) => d.moving[secondOfBin(k)] === 1 && longMps2[k]! >= 2 && Math.abs(latMps2[k]!) >= 2,
      3,
      20,
    );
    return { value: per100km(d, count) };
  },
  lateralJerkP95: (d) => ({ value: percentile(lateralJerks(d, CORNERING_MIN_KMH), 95) }),
  sharpTurnRate: (d) => {
    const sharp = findTurns(d, 5, 60).filter((t) => t.minKmh > 30);
    return { value: per100km(d, sharp.length) };
  },
};
