import type { MatchOptions, RoadGraph } from '@svc/roads';
import { cleanGps } from '../clean/clean-gps.ts';
import type { FoundEvent } from '../events/found-event.ts';
import { detectHarshEvents } from '../events/harsh-events.ts';
import { analysePhoneUse } from '../events/phone-use.ts';
import { analyseSpeeding } from '../events/speeding.ts';
import { detectContinuousDriving, detectNightEvents } from '../events/time-events.ts';
import type { Need } from '../factors/catalogue.ts';
import { buildImuSeries, type ImuSeries } from '../imu/imu-series.ts';
import { buildPhoneTimeline } from '../phone/phone-state.ts';
import type { EventType, LonLat, ScoredTrip, TripEvent } from '../result.ts';
import { buildRoadContext, unmatchedContext } from '../roads/road-context.ts';
import { splitStreams } from '../streams.ts';
import type { MachineType, Sample, TelemetryBatch } from '../telemetry.ts';
import { MIN_TRIP_DISTANCE_M, MIN_TRIP_MOVING_S, NIGHT_END_H, NIGHT_START_H } from '../thresholds.ts';
import { inHourWindow, localClock } from '../time/local-clock.ts';
import { sunElevationDeg } from '../time/solar.ts';
import { zoneOfPosition } from '../time/zone-of-position.ts';
import { buildTrack } from '../track/track.ts';
import { findTripWindows, sliceTrack } from '../track/trip-window.ts';
import { assembleScores } from './assemble.ts';
import { simplifyLine } from './simplify.ts';
import { type DrivingContext, motionOf, type TripData } from './trip-data.ts';
import { SCORING_MODEL_VERSION } from './version.ts';

export interface ScoreOptions {
  /** Road graph to map-match against; without it the trip is not map-matched. */
  graph?: RoadGraph;
  matchOptions?: MatchOptions;
  /** IANA zone for local time (night driving); overrides the batch's. Default: offset from the longitude. */
  timeZone?: string;
  /** Overrides the batch's machine type. */
  machineType?: MachineType;
  /** Overrides the batch's IMU frame (default `device`). */
  imuFrame?: 'vehicle' | 'device';
  /** Overrides the batch's `phoneMonitored`. */
  phoneMonitored?: boolean;
  /** Driving before this trip (fatigue factors); default none. */
  drivingContext?: Partial<DrivingContext>;
  /** Score a trip below the minimum scorable length instead of rejecting it. */
  allowShortTrip?: boolean;
}

export type NotScorableCode = 'no_gps' | 'not_moving' | 'too_short';

/** The telemetry holds no trip that can be scored; `code` says why. */
export class TripNotScorableError extends Error {
  readonly code: NotScorableCode;
  constructor(code: NotScorableCode, message: string) {
    super(message);
    this.name = 'TripNotScorableError';
    this.code = code;
  }
}

const EVENT_ORDER: EventType[] = [
  'harsh_braking',
  'harsh_acceleration',
  'harsh_cornering',
  'speeding',
  'phone_use',
  'night_driving',
  'late_night_driving',
  'continuous_driving',
];

/**
 * Scores one trip: the samples (or batch) of a single trip, from the first movement to the last. Idle time
 * before and after is trimmed. Throws TripNotScorableError when there is no GPS, no movement, or the trip
 * is shorter than the minimum scorable trip (1 km and 2 min moving) unless `allowShortTrip`.
 */
export function scoreTrip(input: TelemetryBatch | readonly Sample[], options: ScoreOptions = {}): ScoredTrip {
  const batch = Array.isArray(input) ? undefined : (input as TelemetryBatch);
  const raw = batch ? batch.samples : (input as readonly Sample[]);
  const streams = splitStreams(raw);
  const machineType = options.machineType ?? batch?.machineType;
  const imuFrame = options.imuFrame ?? batch?.imuFrame ?? 'device';
  const { obd } = streams;

  const gps = cleanGps(streams.gps);
  if (gps.count < 2)
    throw new TripNotScorableError('no_gps', `the trip has ${gps.count} usable GPS fixes; 2 or more are needed`);
  const full = buildTrack(gps, { obd });
  const windows = findTripWindows(full, Number.POSITIVE_INFINITY);
  if (windows.length === 0) throw new TripNotScorableError('not_moving', 'the vehicle never moved faster than 8 km/h');
  const track = sliceTrack(full, windows[0]![0], windows[windows.length - 1]![1]);
  const motion = motionOf(track);
  if (!options.allowShortTrip && (motion.distanceM < MIN_TRIP_DISTANCE_M || motion.movingS < MIN_TRIP_MOVING_S)) {
    throw new TripNotScorableError(
      'too_short',
      `the trip is ${(motion.distanceM / 1000).toFixed(2)} km and ${Math.round(motion.movingS)} s moving; ` +
        `a scorable trip needs ${MIN_TRIP_DISTANCE_M / 1000} km and ${MIN_TRIP_MOVING_S} s moving`,
    );
  }

  const imu: ImuSeries | null = streams.accelCount > 0 ? buildImuSeries(raw, track, imuFrame) : null;
  const road = options.graph ? buildRoadContext(options.graph, track, options.matchOptions) : unmatchedContext(track.n);
  const phoneMonitored = options.phoneMonitored ?? batch?.phoneMonitored ?? false;
  const phone = buildPhoneTimeline(streams.phone, track.t0Ms, track.n, phoneMonitored);
  const midLon = track.lon[Math.floor(track.n / 2)]!;
  const midLat = track.lat[Math.floor(track.n / 2)]!;
  const clock = localClock(options.timeZone ?? batch?.timeZone ?? zoneOfPosition(midLon, midLat), midLon);
  const localHour = new Float64Array(track.n);
  const weekday = new Uint8Array(track.n);
  const sun = new Float64Array(track.n);
  for (let i = 0; i < track.n; i++) {
    const t = track.tMs[i]!;
    // The sun moves slowly: once a minute is enough. The wall clock is read every second, so the day
    // changes at midnight and the hour at a summer-time change exactly (not up to a minute late).
    sun[i] = i % 60 === 0 ? sunElevationDeg(t, track.lon[i]!, track.lat[i]!) : sun[i - (i % 60)]!;
    const local = localHourAndWeekday(t + clock.offsetMin(t) * 60_000);
    localHour[i] = local.hour;
    weekday[i] = local.weekday;
  }
  const context: DrivingContext = {
    priorStintMin: options.drivingContext?.priorStintMin ?? 0,
    priorDayDrivingMin: options.drivingContext?.priorDayDrivingMin ?? 0,
  };

  const speeding = analyseSpeeding(track, road);
  const phoneUse = analysePhoneUse(track, phone);
  const found: FoundEvent[] = [
    ...detectHarshEvents(track, imu),
    ...speeding.episodes,
    ...phoneUse.episodes,
    ...detectNightEvents(track, localHour),
    ...detectContinuousDriving(track, context.priorStintMin),
  ];
  found.sort(
    (a, b) =>
      a.event.startMs - b.event.startMs || EVENT_ORDER.indexOf(a.event.type) - EVENT_ORDER.indexOf(b.event.type),
  );
  const ids = new Map<FoundEvent, string>();
  for (const [k, e] of found.entries()) ids.set(e, `e${k + 1}`);

  const limitsKnown =
    road.matched && speeding.knownLimitDistanceM >= 500 && speeding.knownLimitDistanceM >= 0.5 * motion.distanceM;
  const sensors: Record<Need, boolean> = {
    gps: true,
    imu: imu?.available === true,
    gyro: imu?.gyroAvailable === true,
    deviceImu: imu?.available === true && imuFrame === 'device',
    phone: phone.available,
    obdRpm: obd.some((s) => s.rpm !== undefined),
    obdThrottle: obd.some((s) => s.throttlePct !== undefined),
    map: road.matched,
    limits: limitsKnown,
  };
  const data: TripData = {
    track,
    imu,
    road,
    phone,
    speeding,
    phoneUse,
    events: found,
    ids,
    localHour,
    weekday,
    sunElevationDeg: sun,
    obd,
    machineType,
    context,
    ...motion,
    sensors,
    memo: new Map(),
  };
  const scores = assembleScores(data);
  return buildResult(data, scores, gps.report, clock.zone, phoneMonitored || phone.available);
}

function buildResult(
  d: TripData,
  scores: ReturnType<typeof assembleScores>,
  report: ReturnType<typeof cleanGps>['report'],
  zone: string,
  phoneMonitored: boolean,
): ScoredTrip {
  const { track } = d;
  const startMs = track.tMs[0]!;
  const endMs = track.tMs[track.n - 1]!;
  const events: TripEvent[] = d.events.map((e) => ({ id: d.ids.get(e)!, ...e.event }));
  const eventCounts: Partial<Record<EventType, number>> = {};
  for (const e of events) eventCounts[e.type] = (eventCounts[e.type] ?? 0) + 1;
  let maxKmh = 0;
  let nightM = 0;
  for (let i = 0; i < track.n; i++) {
    if (!track.gap[i] && d.speedKmh[i]! > maxKmh) maxKmh = d.speedKmh[i]!;
    if (inHourWindow(d.localHour[i]!, NIGHT_START_H, NIGHT_END_H)) nightM += track.stepM[i]!;
  }
  const roadClassM: Record<string, number> = {};
  let matchedM = 0;
  for (let i = 0; i < track.n; i++) {
    const e = d.road.edge[i]!;
    if (e < 0) continue;
    const cls = d.road.edges.get(e)!.highway;
    roadClassM[cls] = (roadClassM[cls] ?? 0) + track.stepM[i]!;
    matchedM += track.stepM[i]!;
  }
  const roadClassShares: Record<string, number> = {};
  for (const [cls, m] of Object.entries(roadClassM)) roadClassShares[cls] = round(m / (matchedM || 1), 3);
  const durationMin = (endMs - startMs) / 60_000;
  const movingMin = d.movingS / 60;
  const distanceKm = d.distanceM / 1000;
  const raw: LonLat[] = [];
  for (let i = 0; i < track.n; i++) if (!track.broken[i]) raw.push([round(track.lon[i]!, 6), round(track.lat[i]!, 6)]);
  return {
    modelVersion: SCORING_MODEL_VERSION,
    startMs,
    endMs,
    overallScore: scores.overallScore,
    tier: scores.tier,
    mapMatched: d.road.matched,
    matchedShare: round(d.road.matchedShare, 3),
    distanceKm: round(distanceKm, 3),
    durationMin: round(durationMin, 2),
    ...(d.machineType ? { machineType: d.machineType } : {}),
    summary: {
      distanceKm: round(distanceKm, 3),
      durationMin: round(durationMin, 2),
      movingMin: round(movingMin, 2),
      idleMin: round(Math.max(0, durationMin - movingMin), 2),
      avgSpeedKmh: round(durationMin > 0 ? distanceKm / (durationMin / 60) : 0, 1),
      avgMovingSpeedKmh: round(movingMin > 0 ? distanceKm / (movingMin / 60) : 0, 1),
      maxSpeedKmh: round(maxKmh, 1),
      nightShare: round(d.distanceM > 0 ? nightM / d.distanceM : 0, 3),
      roadClassShares,
      knownLimitShare: round(d.distanceM > 0 ? Math.min(1, d.speeding.knownLimitDistanceM / d.distanceM) : 0, 3),
      eventCounts,
      gpsSamples: report.keptFixes,
      imuAvailable: d.imu?.available === true,
      phoneDataAvailable: d.phone.available,
    },
    themes: scores.themes,
    weakestTheme: scores.weakestTheme,
    events,
    route: { raw: simplifyLine(raw, track.projection, 2), matched: d.road.matchedPath },
    reasons: scores.reasons,
    dataQuality: {
      gpsFixes: report.inputFixes,
      droppedFixes: {
        duplicateTimes: report.duplicateTimes,
        inaccurate: report.inaccurate,
        stale: report.staleFixes,
        spikes: report.spikes,
      },
      positionJumps: report.jumps,
      gapS: track.gapS,
      speedSource: track.speedSource,
      positionScatterM: Number.isFinite(track.positionScatterM) ? round(track.positionScatterM, 1) : null,
      imu: d.imu
        ? {
            available: d.imu.available,
            frame: d.imu.alignment.frame,
            alignment: d.imu.alignment.method,
            mountSegments: d.imu.alignment.segments,
            coverage: round(d.imu.alignment.coverage, 3),
          }
        : null,
      phoneMonitored,
      timeZone: zone,
    },
  };
}

const DAY_MS = 86_400_000;

/** Hour of day (with fraction) and weekday (0 = Sunday) of an instant already shifted to local time. */
function localHourAndWeekday(shiftedMs: number): { hour: number; weekday: number } {
  const day = Math.floor(shiftedMs / DAY_MS);
  // 1970-01-01 was a Thursday.
  return { hour: (shiftedMs - day * DAY_MS) / 3_600_000, weekday: (((day + 4) % 7) + 7) % 7 };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
