import { angleDiffDeg } from '../geo.ts';
import { eventIdsOf, memo, type TripData } from '../score/trip-data.ts';
import { CORNERING_MIN_KMH, SEVERE_CORNERING_MPS2 } from '../thresholds.ts';
import {
  countBinEpisodes,
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

/** Seconds around a heading reversal searched for the road driven both ways. */
const U_TURN_MARGIN_S = 5;

/**
 * Whether a heading reversal (`uTurnCount`) turned back on the road: the matched edges around it include a road
 * driven one way and then the other (a turn mid-road, at a junction, through a side road or round a roundabout).
 * A hairpin bend reverses the heading as much, but the vehicle follows the road: on the Monaco and Andorra
 * extracts hairpins made most of the U-turns counted on simulated trips, which never turn back on their route
 * there. Without the map, every reversal counts (`uTurnCount` needs GPS only).
 */
function turnsBackOnRoad(d: TripData, turn: Turn): boolean {
  const seen = new Set<number>();
  const from = Math.max(0, turn.startS - U_TURN_MARGIN_S);
  const to = Math.min(d.track.n - 1, turn.endS + U_TURN_MARGIN_S);
  for (let k = from; k <= to; k++) {
    const e = d.road.edge[k]!;
    if (e >= 0) seen.add(e);
  }
  for (const e of seen) {
    const reverse = d.road.edges.get(e)?.reverseEdge ?? -1;
    if (reverse >= 0 && seen.has(reverse)) return true;
  }
  return false;
}

/** Reference speed of `turnEntrySpeedRatio` (research/telematics.md §5.3: "÷ 25 km/h reference"). */
const TURN_REFERENCE_KMH = 25;
/** A junction counts for a turn when the path passes its node within this distance of the turn's apex. */
const JUNCTION_APEX_M = 30;

/** The grid second of a turn's apex: where its heading has changed by half the turn's change. */
function turnApex(d: TripData, turn: Turn): number {
  const h = memo(d, 'unwrappedHeading', () => unwrappedHeading(d));
  const h0 = h[turn.startS]!;
  const half = Math.abs(h[turn.endS]! - h0) / 2;
  for (let k = turn.startS; k <= turn.endS; k++) if (Math.abs(h[k]! - h0) >= half) return k;
  return Math.round((turn.startS + turn.endS) / 2);
}

/**
 * Turns made at a junction (`turnEntrySpeedRatio`, research/telematics.md §5.3: "mean speed at junction turns
 * (heading change > 60°)"). A turn is a heading change of more than 60 degrees within 6 s while moving
 * (`findTurns`); it is made at a junction when the matched path passes a road node where three or more roads
 * meet (`NodePass.junction`, from `NodePass.roads`: undirected, so one-way legs count; the same junctions as
 * `junctionDensity` and `phoneUseNearJunctions`) within 30 m of driving (along the track) of the turn's apex, the
 * second by which half the heading change is done.
 *
 * - A node pass is the second the track comes nearest the node, the centre of the junction. A kerbside turn is
 *   symmetric about it, so its apex is a few metres away; a wide junction, a turn begun early, the 1 Hz grid and
 *   GPS noise (the track, not the snapped positions) add some more. 30 m (2 s at 50 km/h) holds them, and holds
 *   the second node of a turn across a dual carriageway; it does not reach a side road half a block from a bend.
 * - Distance, not time: a driver who waits at the stop line and then turns has its node pass among the waiting
 *   seconds, up to 15 s before the turn but 10-15 m from it (the simulated city has many of these).
 * - Mid-road turns (a U-turn at a destination, which `findTurns` sees as two turns) are more than 30 m from a
 *   junction and not counted; `uTurnCount` reports them.
 * - Where only two roads meet, the road goes on: a way split because a name or limit changes, a signalled
 *   crossing, an extract's edge. A bend there is a bend, even where the matched edge changes at the node.
 * - A bend within 30 m of a side road's mouth counts as a junction turn: the traffic of that road is what makes
 *   speed into junction turns risky.
 * - Roundabouts are not junction turns here: a turn during which the matched path is on a roundabout edge for
 *   any second is left to `roundaboutEntrySpeed` (the ring's nodes have three roads, and going round one
 *   turns the heading by far more than 60 degrees; counting it here would score the same manoeuvre twice).
 * - Seconds not matched to a road (car parks, roads missing from the map) have no node passes: turns there are
 *   not counted.
 */
function junctionTurns(d: TripData): Turn[] {
  return memo(d, 'junctionTurns', () => {
    const junctions = d.road.nodePasses.filter((p) => p.junction);
    const onRoundabout = (t: Turn) => {
      for (let k = t.startS; k <= t.endS; k++) {
        const e = d.road.edge[k]!;
        if (e >= 0 && d.road.edges.get(e)?.roundabout === true) return true;
      }
      return false;
    };
    return findTurns(d, 6, 60).filter((t) => {
      if (onRoundabout(t)) return false;
      const apexM = d.cumM[turnApex(d, t)]!;
      return junctions.some((p) => Math.abs(d.cumM[p.second]! - apexM) <= JUNCTION_APEX_M);
    });
  });
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

/** GPS lateral acceleration at grid second i (speed x course rate over +-1 s), m/s^2; NaN below 18 km/h. */
function gpsLateralMps2(d: TripData, i: number): number {
  const v = d.track.speedMps[i]!;
  const w = d.track.yawRateDps[i]!;
  if (!(v * 3.6 >= CORNERING_MIN_KMH) || !Number.isFinite(w)) return Number.NaN;
  return Math.abs((v * w * Math.PI) / 180);
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
    // The IMU peak over the seconds it covers, the GPS speed x course rate (over +-1 s) over the others:
    // the larger of the two, as for braking (measure-util, gpsPeakWhereImuSilent).
    const imuPeak = d.imu?.available ? sustainedPeak(d.imu.latMps2, d, 4, 0) : 0;
    return {
      value: Math.max(
        imuPeak,
        gpsPeakWhereImuSilent(d, 'lat', (i) => gpsLateralMps2(d, i)),
      ),
    };
  },
  lateralAccelerationP95: (d) => {
    // With a usable IMU, over the bins that have data only: not filled with GPS where the IMU is silent,
    // unlike the braking and acceleration percentiles. Speed x course rate over +-1 s blunts the few-second
    // turns that make this percentile: GPS-only / IMU is 0.90 (median, 0.79-0.96) on the simulated
    // population, and with 30-40 % of a trip silent a mixed value came out under the full-IMU one on 58 of
    // 60 trips (median -0.1 m/s^2): mixing would flatter exactly the drivers whose phone stops recording. The
    // covered seconds alone are an unbiased sample of the trip (median error +0.06..+0.09, either sign),
    // and the silence is not read as straight driving: its bins are left out, not counted as 0.
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
    // Gyroscope-only where it is usable, over its bins with data (silent ones left out, not read as 0), for
    // the reason given at lateralAccelerationP95: the GPS course rate reads 12 % under the gyroscope here
    // (median; up to 2.4 times over it through course glitches), so mixing would bias the percentile.
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
    // Only the IMU sees these: per 100 km it covered, so a silent stretch is not episode-free driving.
    return { value: per100kmOf(imuCoveredDistanceM(d, 'long'), count) };
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
    // Per 100 km the gyroscope covered (combinedGExceedanceRate).
    return { value: per100kmOf(imuCoveredDistanceM(d, 'yaw'), count) };
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
    // Needs the map (catalogue): without a matched road network a junction turn cannot be told from a bend,
    // so the factor is unavailable ('not map-matched to a road network') rather than counting bends.
    const turns = junctionTurns(d);
    if (turns.length === 0) return { unavailable: 'no turn of more than 60 degrees at a junction' };
    return { value: mean(turns.map((t) => t.entryKmh)) / TURN_REFERENCE_KMH };
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
  uTurnCount: (d) => {
    const turns = findTurns(d, 15, 160);
    return { value: d.road.matched ? turns.filter((t) => turnsBackOnRoad(d, t)).length : turns.length };
  },
  accelerationInCurvesRate: (d) => {
    const { longMps2, latMps2 } = d.imu!;
    const count = countBinEpisodes(
      longMps2.length,
      (k) => d.moving[secondOfBin(k)] === 1 && longMps2[k]! >= 2 && Math.abs(latMps2[k]!) >= 2,
      3,
      20,
    );
    // Per 100 km the IMU covered (combinedGExceedanceRate).
    return { value: per100kmOf(imuCoveredDistanceM(d, 'long'), count) };
  },
  lateralJerkP95: (d) => ({ value: percentile(lateralJerks(d, CORNERING_MIN_KMH), 95) }),
  sharpTurnRate: (d) => {
    const sharp = findTurns(d, 5, 60).filter((t) => t.minKmh > 30);
    return { value: per100km(d, sharp.length) };
  },
};
