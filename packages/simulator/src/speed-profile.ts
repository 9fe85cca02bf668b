import type { DrivePath } from './drive-path.ts';
import type { DriveRoute } from './drive-route.ts';
import type { DriverParams } from './driver-profile.ts';
import type { Rng } from './random.ts';
import { availableAccelMps2, type MachineSpec } from './vehicle-model.ts';

/**
 * The speed a driver drives at each point of the path (before jerk smoothing): the wish (limit x speed factor,
 * bursts), capped by the vehicle, curves (lateral acceleration), junction controls, traffic and planned stops, then
 * made physically reachable by a forward pass (acceleration) and a backward pass (braking).
 */

/** Assumed free-flow speed where the limit is unknown, by road class, km/h. */
const CLASS_SPEED_KMH: Record<string, number> = {
  motorway: 120,
  trunk: 100,
  primary: 70,
  secondary: 60,
  tertiary: 50,
  unclassified: 50,
  residential: 30,
  living_street: 10,
  service: 20,
  motorway_link: 70,
  trunk_link: 60,
  primary_link: 50,
  secondary_link: 50,
  tertiary_link: 40,
  road: 40,
};

/** Why the vehicle stands still at a point. */
export type StopKind = 'signal' | 'stop_sign' | 'give_way' | 'traffic' | 'waypoint' | 'sudden_brake';

/** A standstill on the path. */
export interface PlannedStop {
  index: number;
  dwellS: number;
  kind: StopKind;
}

/** A manoeuvre the profile injected (for the truth record). */
export interface InjectedManoeuvre {
  kind: 'speeding_burst' | 'sudden_brake' | 'traffic_slowdown' | 'stop_sign_roll';
  startM: number;
  endM: number;
}

/** The speed profile over the path samples. */
export interface SpeedProfile {
  /** Speed at each path sample, m/s. */
  speedMps: Float64Array;
  stops: PlannedStop[];
  manoeuvres: InjectedManoeuvre[];
  /** Count of signals passed on red (stopped) and on green. */
  signalsRed: number;
  signalsGreen: number;
}

/** The random streams the profile draws from, one per concern, so each behaviour stays independent. */
export interface ProfileStreams {
  speeding: Rng;
  braking: Rng;
  acceleration: Rng;
  cornering: Rng;
  traffic: Rng;
}

/** Spread of a driver's manoeuvre intensity around their usual value (log-space sd) and its bounds. */
const MANOEUVRE_SPREAD = 0.15;
const MANOEUVRE_FACTOR_MIN = 0.7;
const MANOEUVRE_FACTOR_MAX = 1.35;

/**
 * A factor per path sample that is constant over stretches of ~250 m: nobody brakes, accelerates or takes curves
 * identically every time, and this variation makes event counts grow smoothly with the behaviour level instead of
 * jumping at one threshold.
 */
function manoeuvreFactors(path: DrivePath, rng: Rng): Float64Array {
  const out = new Float64Array(path.n);
  let nextChangeM = -1;
  let factor = 1;
  for (let i = 0; i < path.n; i++) {
    if (path.sM[i]! >= nextChangeM) {
      factor = Math.min(
        MANOEUVRE_FACTOR_MAX,
        Math.max(MANOEUVRE_FACTOR_MIN, Math.exp(MANOEUVRE_SPREAD * rng.normal())),
      );
      nextChangeM = path.sM[i]! + 50 + rng.exponential(200);
    }
    out[i] = factor;
  }
  return out;
}

/** Free-flow speed the route implies at a segment (limit, else class default), km/h; null = unrestricted. */
function baseSpeedKmh(route: DriveRoute, segment: number): number | null {
  const seg = route.segments[segment]!;
  if (seg.speedLimitKmh !== null && seg.speedLimitKmh > 0) return seg.speedLimitKmh;
  if (seg.unlimited) return null;
  return CLASS_SPEED_KMH[seg.highway] ?? 50;
}

/** Lowers `cap` to at most `v` over [fromM, toM]. */
function capRange(path: DrivePath, cap: Float64Array, fromM: number, toM: number, vMps: number, startIndex = 0): void {
  for (let i = startIndex; i < path.n; i++) {
    const s = path.sM[i]!;
    if (s < fromM) continue;
    if (s > toM) break;
    if (cap[i]! > vMps) cap[i] = vMps;
  }
}

function indexAtM(path: DrivePath, sM: number): number {
  let lo = 0;
  let hi = path.n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (path.sM[mid]! < sM) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Computes the speed profile of one trip. */
export function buildSpeedProfile(
  path: DrivePath,
  route: DriveRoute,
  params: DriverParams,
  spec: MachineSpec,
  streams: ProfileStreams,
): SpeedProfile {
  const n = path.n;
  const cap = new Float64Array(n);
  const decel = new Float64Array(n);
  const maxSpeed = spec.maxSpeedKmh / 3.6;
  const manoeuvres: InjectedManoeuvre[] = [];
  const stops: PlannedStop[] = [];

  // 1. Wish: limit x speed factor, with a slowly varying personal jitter (AR(1) over ~400 m).
  const jitterRng = streams.speeding.fork('jitter');
  let jitter = 0;
  let lastS = 0;
  for (let i = 0; i < n; i++) {
    const s = path.sM[i]!;
    const phi = Math.exp(-(s - lastS) / 400);
    lastS = s;
    jitter = phi * jitter + Math.sqrt(1 - phi * phi) * 0.035 * jitterRng.normal();
    const base = baseSpeedKmh(route, path.segment[i]!);
    const wishKmh = base === null ? params.unlimitedCruiseKmh : base * params.speedFactor * (1 + jitter);
    cap[i] = Math.min(maxSpeed, wishKmh / 3.6);
  }
  const brakeFactor = manoeuvreFactors(path, streams.braking.fork('variation'));
  const accelFactor = manoeuvreFactors(path, streams.acceleration.fork('variation'));
  const lateralFactor = manoeuvreFactors(path, streams.cornering.fork('variation'));
  for (let i = 0; i < n; i++) decel[i] = Math.min(params.brakeDecelMps2 * brakeFactor[i]!, spec.maxDecelMps2);

  // 2. Speeding bursts: a Poisson process in driving time at the wished speed.
  const burstRng = streams.speeding.fork('bursts');
  if (params.speedingEpisodesPerHour > 0) {
    const meanGapS = 3600 / params.speedingEpisodesPerHour;
    let i = 0;
    let gap = burstRng.exponential(meanGapS);
    while (i < n - 1) {
      const ds = path.sM[i + 1]! - path.sM[i]!;
      gap -= ds / Math.max(cap[i]!, 3);
      i++;
      if (gap > 0) continue;
      const durationS = burstRng.logNormal(params.speedingEpisodeDurationS, 0.4);
      const extraMps = burstRng.logNormal(params.speedingEpisodeExcessKmh, 0.35) / 3.6;
      const startM = path.sM[i]!;
      let j = i;
      let t = 0;
      while (j < n - 1 && t < durationS) {
        t += (path.sM[j + 1]! - path.sM[j]!) / Math.max(cap[j]!, 3);
        cap[j] = Math.min(maxSpeed, cap[j]! + extraMps);
        j++;
      }
      manoeuvres.push({ kind: 'speeding_burst', startM, endM: path.sM[j]! });
      i = j;
      gap = burstRng.exponential(meanGapS);
    }
  }

  // 3. Curves: v <= sqrt(a_lat / |curvature|).
  // The cap is held for half the driver's smoothing window on both sides (drivers settle their curve speed before
  // the curve and keep it to the apex), so the later jerk smoothing cannot lift the speed above it mid-curve.
  const lateral = Math.min(params.lateralAccelMps2, spec.maxLateralMps2);
  const holdS = Math.max(params.brakeOnsetS, params.accelOnsetS) / 2 + 0.1;
  const curveCap = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  for (let i = 0; i < n; i++) {
    const k = Math.abs(path.curvature[i]!);
    if (k <= 1e-5) continue;
    const vCurve = Math.max(1.5, Math.sqrt(Math.min(lateral * lateralFactor[i]!, spec.maxLateralMps2) / k));
    if (vCurve >= cap[i]!) continue;
    const reachM = vCurve * holdS;
    const s = path.sM[i]!;
    for (let j = i; j >= 0 && path.sM[j]! >= s - reachM; j--) if (curveCap[j]! > vCurve) curveCap[j] = vCurve;
    for (let j = i + 1; j < n && path.sM[j]! <= s + reachM; j++) if (curveCap[j]! > vCurve) curveCap[j] = vCurve;
  }
  for (let i = 0; i < n; i++) if (curveCap[i]! < cap[i]!) cap[i] = curveCap[i]!;

  // 4. Traffic (not the driver): slow-downs and queues, more of them in town.
  const trafficRng = streams.traffic.fork('slowdowns');
  {
    let s = trafficRng.exponential(1500);
    while (s < path.lengthM - 50) {
      const i = indexAtM(path, s);
      const base = baseSpeedKmh(route, path.segment[i]!) ?? 130;
      const lengthM = trafficRng.uniform(40, 250);
      const fraction = trafficRng.uniform(0.25, 0.65);
      const queue = trafficRng.chance(0.12);
      const dwell = trafficRng.uniform(3, 20);
      if (queue && s > 30) {
        stops.push({ index: i, dwellS: dwell, kind: 'traffic' });
      }
      capRange(path, cap, s, s + lengthM, (fraction * base) / 3.6, Math.max(0, i - 1));
      manoeuvres.push({ kind: 'traffic_slowdown', startM: s, endM: s + lengthM });
      // Urban roads (<= 50 km/h) see a slow-down every ~1.2 km, faster roads every ~5 km.
      s += lengthM + trafficRng.exponential(base <= 50 ? 1200 : 5000);
    }
  }

  // 5. Junction controls.
  const junctionRng = streams.traffic.fork('junctions');
  const rollRng = streams.speeding.fork('stop-signs');
  let signalsRed = 0;
  let signalsGreen = 0;
  for (const junction of path.junctions) {
    const red = junctionRng.chance(0.45);
    const redWaitS = junctionRng.uniform(4, 50);
    const giveWayStop = junctionRng.chance(0.3);
    const giveWayWaitS = junctionRng.uniform(1, 6);
    const roll = rollRng.chance(params.stopRollThroughProbability);
    const rollSpeed = rollRng.uniform(2.5, 4.2);
    const stopSignWaitS = rollRng.uniform(0.8, 3);
    const lineM = Math.max(0, junction.sM - 6);
    const line = indexAtM(path, lineM);
    if (line <= 0 || line >= n - 1) continue;
    switch (junction.control) {
      case 'signals':
        if (red) {
          stops.push({ index: line, dwellS: redWaitS, kind: 'signal' });
          signalsRed++;
        } else {
          signalsGreen++;
        }
        break;
      case 'stop':
        if (roll) {
          capRange(path, cap, lineM - 3, lineM + 3, rollSpeed, Math.max(0, line - 5));
          manoeuvres.push({ kind: 'stop_sign_roll', startM: lineM - 3, endM: lineM + 3 });
        } else {
          stops.push({ index: line, dwellS: stopSignWaitS, kind: 'stop_sign' });
        }
        break;
      case 'give_way':
        if (giveWayStop) stops.push({ index: line, dwellS: giveWayWaitS, kind: 'give_way' });
        else capRange(path, cap, lineM - 3, junction.sM, 6, Math.max(0, line - 5));
        break;
      default:
        break;
    }
  }

  // 6. Planned stops at waypoints.
  for (const stop of route.waypointStops ?? []) {
    const index = Math.min(n - 2, Math.max(1, indexAtM(path, path.segmentEndM[stop.afterSegment]!)));
    stops.push({ index, dwellS: stop.dwellS, kind: 'waypoint' });
  }

  // 7. Sudden braking: late reactions, at the driver's rate per 100 km, braking hard to a lower speed.
  const brakeRng = streams.braking.fork('sudden');
  if (params.suddenBrakesPer100Km > 0) {
    const meanGapM = 100_000 / params.suddenBrakesPer100Km;
    let s = brakeRng.exponential(meanGapM);
    while (s < path.lengthM - 100) {
      const i = indexAtM(path, s);
      const fraction = brakeRng.uniform(0.25, 0.6);
      const holdM = brakeRng.uniform(15, 60);
      const toStop = brakeRng.chance(0.15);
      const dwell = brakeRng.uniform(1, 4);
      const v0 = cap[i]!;
      // Below ~30 km/h a sudden brake hardly exists; skip (draws are spent either way to keep the stream aligned).
      if (v0 >= 8.5) {
        const vLow = toStop ? 0 : v0 * fraction;
        const hard = Math.min(params.suddenBrakeDecelMps2, spec.maxDecelMps2);
        const approachM = (v0 * v0 - vLow * vLow) / (2 * hard) + 5;
        for (let j = indexAtM(path, s - approachM); j <= i; j++) decel[j] = hard;
        if (toStop) stops.push({ index: i, dwellS: dwell, kind: 'sudden_brake' });
        else capRange(path, cap, s, s + holdM, vLow, i);
        manoeuvres.push({ kind: 'sudden_brake', startM: s - approachM, endM: s + holdM });
      }
      s += holdM + brakeRng.exponential(meanGapM);
    }
  }

  // 8. Standstills.
  stops.sort((a, b) => a.index - b.index);
  const merged: PlannedStop[] = [];
  for (const stop of stops) {
    const last = merged[merged.length - 1];
    if (last && stop.index - last.index < 3) {
      last.dwellS = Math.max(last.dwellS, stop.dwellS);
      continue;
    }
    merged.push({ ...stop });
  }
  cap[0] = 0;
  cap[n - 1] = 0;
  for (const stop of merged) cap[stop.index] = 0;

  // 9. Reachability: forward (acceleration), backward (braking).
  const v = new Float64Array(n);
  for (let i = 0; i < n - 1; i++) {
    const ds = path.sM[i + 1]! - path.sM[i]!;
    const a = availableAccelMps2(spec, params.launchAccelMps2 * accelFactor[i]!, v[i]!);
    v[i + 1] = Math.min(cap[i + 1]!, Math.sqrt(v[i]! * v[i]! + 2 * a * ds));
  }
  for (let i = n - 2; i >= 0; i--) {
    const ds = path.sM[i + 1]! - path.sM[i]!;
    v[i] = Math.min(v[i]!, Math.sqrt(v[i + 1]! * v[i + 1]! + 2 * decel[i]! * ds));
  }
  // Interior zero-speed samples that are not planned stops (e.g. queue ends) become short stops.
  const stopAt = new Set(merged.map((s) => s.index));
  for (let i = 1; i < n - 1; i++) {
    if (v[i] === 0 && !stopAt.has(i)) merged.push({ index: i, dwellS: 0, kind: 'traffic' });
  }
  merged.sort((a, b) => a.index - b.index);
  return { speedMps: v, stops: merged, manoeuvres, signalsRed, signalsGreen };
}
