import { type DrivePath, toLonLat } from './drive-path.ts';
import type { DriveRoute, LonLat } from './drive-route.ts';
import type { Kinematics } from './kinematics.ts';
import { inHourWindow, utcOffsetMinutes } from './local-time.ts';
import type { PhoneSession, PhoneSessionKind } from './phone-use.ts';
import type { InjectedManoeuvre, SpeedProfile } from './speed-profile.ts';

/**
 * The ground truth of a simulated trip, measured on the noise-free motion with the thresholds of
 * research/telematics.md §5.2, so a scorer's output can be checked against what really happened.
 */

/** Event thresholds of the truth record (research/telematics.md §5.2). */
export const TRUTH_THRESHOLDS = Object.freeze({
  harshBrakingMps2: 3.0,
  harshBrakingMinS: 0.3,
  severeBrakingMps2: 4.4,
  harshAccelerationMps2: 2.5,
  harshAccelerationMinS: 0.5,
  severeAccelerationMps2: 3.6,
  harshCorneringMps2: 3.5,
  harshCorneringMinS: 0.4,
  harshCorneringMinSpeedKmh: 18,
  severeCorneringMps2: 4.9,
  /** Same-type events closer than this are one event. */
  mergeWithinS: 10,
  /** Phone use counts while moving at least this fast. */
  phoneMinSpeedKmh: 15,
  /** Moving means faster than this. */
  movingMinSpeedKmh: 1,
  nightFromH: 22,
  nightToH: 5,
  lateNightFromH: 0,
  lateNightToH: 4,
});

export type HarshEventType = 'harsh_braking' | 'harsh_acceleration' | 'harsh_cornering';

/** One harsh event in the true motion. */
export interface TrueHarshEvent {
  type: HarshEventType;
  startMs: number;
  endMs: number;
  /** Largest magnitude reached, m/s^2 (deceleration and lateral as positive numbers). */
  peakMps2: number;
  severe: boolean;
  speedKmh: number;
  position: LonLat;
}

export type SpeedingBand = 'minor' | 'moderate' | 'severe' | 'extreme';

/** Speeding against the posted limits of the route. */
export interface SpeedingTruth {
  /** Moving seconds on roads with a known limit. */
  limitKnownS: number;
  /** Seconds above the limit at all. */
  overLimitS: number;
  /** Seconds above limit + tolerance (max(5 km/h, 10 %)), split by band below. */
  speedingS: number;
  bandS: Record<SpeedingBand, number>;
  speedingDistanceM: number;
  /** Sum of (v - limit)+ x distance over sum of limit x distance, on known-limit roads. */
  intensity: number;
  maxExcessKmh: number;
}

/** Phone use while driving. */
export interface PhoneTruth {
  sessions: Array<{ kind: PhoneSessionKind; handheld: boolean; startMs: number; endMs: number; movingS: number }>;
  /** Handheld seconds (screen, typing, handheld calls), any speed. */
  handheldS: number;
  /** Handheld seconds at >= 15 km/h: what distraction scoring counts. */
  handheldMovingS: number;
  handsFreeCallS: number;
  handsFreeCallMovingS: number;
  /** Screen-on glances without unlock. */
  glances: number;
}

/** The ground truth of one simulated trip. */
export interface TripTruth {
  /** Graph edges driven, in order (empty when the route did not come from a graph). */
  routeEdges: number[];
  startMs: number;
  endMs: number;
  durationS: number;
  movingS: number;
  distanceM: number;
  meanMovingSpeedKmh: number;
  maxSpeedKmh: number;
  maxAccelMps2: number;
  maxDecelMps2: number;
  maxLateralMps2: number;
  harshEvents: TrueHarshEvent[];
  harshCounts: Record<HarshEventType, number>;
  speeding: SpeedingTruth;
  phone: PhoneTruth;
  /** Moving seconds in local night (22:00-05:00) and late night (00:00-04:00). */
  nightS: number;
  lateNightS: number;
  timeZone: string;
  /** Standstills (of at least 1 s) while the engine runs, start and end excluded. */
  stops: number;
  signalsRed: number;
  signalsGreen: number;
  stopSignRollThroughs: number;
  manoeuvres: InjectedManoeuvre[];
}

/** Band of an excess over a limit (both km/h), or null within tolerance. */
export function speedingBand(speedKmh: number, limitKmh: number): SpeedingBand | null {
  const excess = speedKmh - limitKmh;
  if (excess <= Math.max(5, 0.1 * limitKmh)) return null;
  const ratio = excess / limitKmh;
  if (excess > 30 || ratio > 0.4) return 'extreme';
  if (excess > 20 && ratio > 0.25) return 'severe';
  if (excess > 10) return 'moderate';
  return 'minor';
}

interface TruthInput {
  path: DrivePath;
  route: DriveRoute;
  routeEdges: number[];
  profile: SpeedProfile;
  kin: Kinematics;
  startMs: number;
  sessions: PhoneSession[];
  timeZone: string;
}

/** Measures the truth of a simulated trip. */
export function measureTruth(input: TruthInput): TripTruth {
  const { path, route, kin, startMs, timeZone } = input;
  const T = TRUTH_THRESHOLDS;
  const dt = kin.dtS;
  const n = kin.count;
  const lateral = new Float64Array(n);
  const limitKmh = new Float64Array(n);
  let p = 0;
  for (let k = 0; k < n; k++) {
    const s = kin.sM[k]!;
    while (p < path.n - 2 && path.sM[p + 1]! <= s) p++;
    const v = kin.speedMps[k]!;
    const s0 = path.sM[p]!;
    const s1 = path.sM[p + 1]!;
    const g = s1 > s0 ? Math.min(1, Math.max(0, (s - s0) / (s1 - s0))) : 0;
    const curvature = path.curvature[p]! + (path.curvature[p + 1]! - path.curvature[p]!) * g;
    lateral[k] = v * v * curvature;
    limitKmh[k] = route.segments[path.segment[p]!]!.speedLimitKmh ?? Number.NaN;
  }

  // Harsh events: runs above threshold long enough, merged when close.
  const harshEvents: TrueHarshEvent[] = [];
  const detect = (
    type: HarshEventType,
    value: (k: number) => number,
    threshold: number,
    minS: number,
    severeAt: number,
    minSpeedMps = 0,
  ) => {
    const found: TrueHarshEvent[] = [];
    let start = -1;
    let peak = 0;
    for (let k = 0; k <= n; k++) {
      const x = k < n ? value(k) : 0;
      const on = k < n && x >= threshold && kin.speedMps[k]! >= minSpeedMps;
      if (on) {
        if (start < 0) {
          start = k;
          peak = 0;
        }
        peak = Math.max(peak, x);
      } else if (start >= 0) {
        if ((k - start) * dt >= minS) {
          const [lon, lat] = toLonLat(path, ...xyAt(path, kin.sM[start]!));
          const event: TrueHarshEvent = {
            type,
            startMs: startMs + Math.round(start * dt * 1000),
            endMs: startMs + Math.round(k * dt * 1000),
            peakMps2: Math.round(peak * 100) / 100,
            severe: peak >= severeAt,
            speedKmh: Math.round(kin.speedMps[start]! * 36) / 10,
            position: [Math.round(lon * 1e7) / 1e7, Math.round(lat * 1e7) / 1e7],
          };
          const last = found[found.length - 1];
          if (last && event.startMs - last.endMs < T.mergeWithinS * 1000) {
            last.endMs = event.endMs;
            last.peakMps2 = Math.max(last.peakMps2, event.peakMps2);
            last.severe = last.severe || event.severe;
          } else {
            found.push(event);
          }
        }
        start = -1;
      }
    }
    harshEvents.push(...found);
  };
  detect('harsh_braking', (k) => -kin.accelMps2[k]!, T.harshBrakingMps2, T.harshBrakingMinS, T.severeBrakingMps2);
  detect(
    'harsh_acceleration',
    (k) => kin.accelMps2[k]!,
    T.harshAccelerationMps2,
    T.harshAccelerationMinS,
    T.severeAccelerationMps2,
  );
  detect(
    'harsh_cornering',
    (k) => Math.abs(lateral[k]!),
    T.harshCorneringMps2,
    T.harshCorneringMinS,
    T.severeCorneringMps2,
    T.harshCorneringMinSpeedKmh / 3.6,
  );
  harshEvents.sort((a, b) => a.startMs - b.startMs || a.type.localeCompare(b.type));

  // Speeding, motion statistics and night driving, per grid step.
  const bandS: Record<SpeedingBand, number> = { minor: 0, moderate: 0, severe: 0, extreme: 0 };
  let limitKnownS = 0;
  let overLimitS = 0;
  let speedingS = 0;
  let speedingDistanceM = 0;
  let excessDist = 0;
  let limitDist = 0;
  let maxExcessKmh = 0;
  let movingS = 0;
  let maxSpeed = 0;
  let maxAccel = 0;
  let maxDecel = 0;
  let maxLateral = 0;
  let nightS = 0;
  let lateNightS = 0;
  let stops = 0;
  let standing = 0;
  let everMoved = false;
  const movingMin = T.movingMinSpeedKmh / 3.6;
  // Local hour from the offset at each minute (DST changes move it at most once a trip).
  let offsetMinute = -1;
  let offsetMs = 0;
  for (let k = 0; k < n; k++) {
    const v = kin.speedMps[k]!;
    const a = kin.accelMps2[k]!;
    maxSpeed = Math.max(maxSpeed, v);
    maxAccel = Math.max(maxAccel, a);
    maxDecel = Math.max(maxDecel, -a);
    if (v >= T.harshCorneringMinSpeedKmh / 3.6) maxLateral = Math.max(maxLateral, Math.abs(lateral[k]!));
    if (v < movingMin) {
      standing += dt;
      continue;
    }
    if (everMoved && standing >= 1) stops++;
    standing = 0;
    everMoved = true;
    movingS += dt;
    const tMs = startMs + k * dt * 1000;
    const minute = Math.floor((k * dt) / 60);
    if (minute !== offsetMinute) {
      offsetMinute = minute;
      offsetMs = utcOffsetMinutes(tMs, timeZone) * 60_000;
    }
    const hour = ((((tMs + offsetMs) % 86_400_000) + 86_400_000) % 86_400_000) / 3_600_000;
    if (inHourWindow(hour, T.nightFromH, T.nightToH)) nightS += dt;
    if (inHourWindow(hour, T.lateNightFromH, T.lateNightToH)) lateNightS += dt;
    const limit = limitKmh[k]!;
    if (Number.isNaN(limit)) continue;
    const kmh = v * 3.6;
    limitKnownS += dt;
    const ds = v * dt;
    limitDist += limit * ds;
    if (kmh > limit) {
      overLimitS += dt;
      excessDist += (kmh - limit) * ds;
      maxExcessKmh = Math.max(maxExcessKmh, kmh - limit);
    }
    const band = speedingBand(kmh, limit);
    if (band) {
      bandS[band] += dt;
      speedingS += dt;
      speedingDistanceM += ds;
    }
  }

  const phone: PhoneTruth = {
    sessions: [],
    handheldS: 0,
    handheldMovingS: 0,
    handsFreeCallS: 0,
    handsFreeCallMovingS: 0,
    glances: 0,
  };
  const phoneMin = T.phoneMinSpeedKmh / 3.6;
  for (const session of input.sessions) {
    let moving = 0;
    const k0 = Math.max(0, Math.ceil(session.startS / dt));
    const k1 = Math.min(n - 1, Math.floor(session.endS / dt));
    for (let k = k0; k < k1; k++) if (kin.speedMps[k]! >= phoneMin) moving += dt;
    const length = session.endS - session.startS;
    if (session.handheld) {
      phone.handheldS += length;
      phone.handheldMovingS += moving;
    } else if (session.kind === 'hands_free_call') {
      phone.handsFreeCallS += length;
      phone.handsFreeCallMovingS += moving;
    } else {
      phone.glances++;
    }
    phone.sessions.push({
      kind: session.kind,
      handheld: session.handheld,
      startMs: startMs + Math.round(session.startS * 1000),
      endMs: startMs + Math.round(session.endS * 1000),
      movingS: round1(moving),
    });
  }
  phone.handheldS = round1(phone.handheldS);
  phone.handheldMovingS = round1(phone.handheldMovingS);
  phone.handsFreeCallS = round1(phone.handsFreeCallS);
  phone.handsFreeCallMovingS = round1(phone.handsFreeCallMovingS);

  const harshCounts: Record<HarshEventType, number> = { harsh_braking: 0, harsh_acceleration: 0, harsh_cornering: 0 };
  for (const e of harshEvents) harshCounts[e.type]++;
  const distanceM = kin.sM[n - 1]!;
  return {
    routeEdges: input.routeEdges,
    startMs,
    endMs: startMs + Math.round(kin.durationS * 1000),
    durationS: round1(kin.durationS),
    movingS: round1(movingS),
    distanceM: round1(distanceM),
    meanMovingSpeedKmh: movingS > 0 ? round1((distanceM / movingS) * 3.6) : 0,
    maxSpeedKmh: round1(maxSpeed * 3.6),
    maxAccelMps2: round2(maxAccel),
    maxDecelMps2: round2(maxDecel),
    maxLateralMps2: round2(maxLateral),
    harshEvents,
    harshCounts,
    speeding: {
      limitKnownS: round1(limitKnownS),
      overLimitS: round1(overLimitS),
      speedingS: round1(speedingS),
      bandS: {
        minor: round1(bandS.minor),
        moderate: round1(bandS.moderate),
        severe: round1(bandS.severe),
        extreme: round1(bandS.extreme),
      },
      speedingDistanceM: round1(speedingDistanceM),
      intensity: limitDist > 0 ? Math.round((excessDist / limitDist) * 1e5) / 1e5 : 0,
      maxExcessKmh: round1(maxExcessKmh),
    },
    phone,
    nightS: round1(nightS),
    lateNightS: round1(lateNightS),
    timeZone,
    stops,
    signalsRed: input.profile.signalsRed,
    signalsGreen: input.profile.signalsGreen,
    stopSignRollThroughs: input.profile.manoeuvres.filter((m) => m.kind === 'stop_sign_roll').length,
    manoeuvres: input.profile.manoeuvres,
  };
}

const round1 = (v: number) => Math.round(v * 10) / 10;
const round2 = (v: number) => Math.round(v * 100) / 100;

function xyAt(path: DrivePath, sM: number): [number, number] {
  let lo = 0;
  let hi = path.n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (path.sM[mid]! <= sM) lo = mid;
    else hi = mid - 1;
  }
  return [path.x[lo]!, path.y[lo]!];
}
