import type { RoadGraph } from '@svc/roads';
import {
  MACHINE_TYPES,
  type MachineType,
  type Sample,
  TELEMETRY_SCHEMA_VERSION,
  type TelemetryBatch,
} from './contract.ts';
import { buildDrivePath, type DrivePath } from './drive-path.ts';
import { type DriveRoute, type LonLat, validateDriveRoute } from './drive-route.ts';
import type { DriverProfile } from './driver-profile.ts';
import { DEFAULT_GPS, type GpsOptions, synthesizeGps } from './gps-sensor.ts';
import { DEFAULT_IMU, type ImuOptions, synthesizeImu } from './imu-sensor.ts';
import { buildKinematics, type Kinematics } from './kinematics.ts';
import { checkTimeZone } from './local-time.ts';
import { synthesizeObd } from './obd-sensor.ts';
import { phoneSamples, planPhoneSessions } from './phone-use.ts';
import { Rng, type Seed } from './random.ts';
import { routeThrough } from './road-route.ts';
import { buildSpeedProfile } from './speed-profile.ts';
import { measureTruth, type TripTruth } from './truth.ts';
import { MACHINE_SPECS } from './vehicle-model.ts';

/** The vehicle a trip is driven in (a fleet `Vehicle` fits). */
export interface TripVehicle {
  machineType: MachineType;
  id?: string;
  plate?: string;
  deviceId?: string;
  /** Frame of the IMU (`vehicle` for a mounted unit, `device` for a loose phone); default from the trip options. */
  imuFrame?: 'vehicle' | 'device';
  /** Position error of the vehicle's GPS, metres (overrides the trip's `gps.sigmaM` default). */
  gpsSigmaM?: number;
}

/** The driver of a trip: a profile, or a fleet `Driver` (which carries one). */
export type TripDriver = DriverProfile | { id: string; profile: DriverProfile };

/** Options of {@link simulateTrip}. Give either `route`, or `graph` with `from` and `to` (and optional `via`). */
export interface SimulateTripOptions {
  driver: TripDriver;
  /** Default: a car. */
  vehicle?: TripVehicle;
  /** Epoch milliseconds of the first sample. */
  startMs: number;
  seed: Seed;
  graph?: RoadGraph;
  from?: LonLat;
  to?: LonLat;
  /** Intermediate stops (deliveries, bus stops), each held for `viaDwellS` seconds (default 60). */
  via?: LonLat[];
  viaDwellS?: number | number[];
  /** A ready route instead of graph routing (hand-made geometry, tests). */
  route?: DriveRoute;
  /** GPS fixes per second (default 1; 0 = no GPS). */
  gpsHz?: number;
  /** IMU samples per second (default 25; 0 = no accelerometer/gyroscope). */
  imuHz?: number;
  /** Fine GPS settings (noise, correlation, outliers). */
  gps?: Partial<Omit<GpsOptions, 'hz'>>;
  /** Fine IMU settings (frame, noise). */
  imu?: Partial<Omit<ImuOptions, 'hz'>>;
  /** Emit phone events (default true). */
  phone?: boolean;
  /** OBD readings per second (default 0 = none). */
  obdHz?: number;
  /** IANA zone of the trip, written to the batch and used for night driving (default UTC). */
  timeZone?: string;
  /** Batch metadata. */
  clientTripId?: string;
  /** Internal motion grid, seconds (default 0.04, i.e. 25 Hz; IMU samples at 25 Hz fall on it exactly). */
  stepS?: number;
}

/** A simulated trip: the telemetry as uploaded, and what really happened. */
export interface SimulatedTrip {
  batch: TelemetryBatch;
  truth: TripTruth;
}

/** Internals of a simulated trip, for tests and tools that need the motion itself. */
export interface TripInternals {
  route: DriveRoute;
  path: DrivePath;
  kinematics: Kinematics;
}

function checkRate(name: string, value: number, max: number): number {
  if (!Number.isFinite(value) || value < 0 || value > max) {
    throw new RangeError(`simulateTrip: ${name} must be between 0 and ${max} (got ${String(value)})`);
  }
  return value;
}

function resolveRoute(options: SimulateTripOptions): { route: DriveRoute; edges: number[] } {
  if (options.route) {
    validateDriveRoute(options.route);
    const edges = options.route.segments.flatMap((s) => (s.edge === undefined ? [] : [s.edge]));
    return { route: options.route, edges };
  }
  const { graph, from, to } = options;
  if (!graph || !from || !to) throw new TypeError('simulateTrip: give either route, or graph with from and to');
  const via = options.via ?? [];
  const dwell = Array.isArray(options.viaDwellS)
    ? options.viaDwellS
    : via.map(() => (options.viaDwellS as number | undefined) ?? 60);
  const r = routeThrough(graph, [from, ...via, to], dwell);
  return { route: r, edges: r.edges };
}

const MIN_START_MS = Date.UTC(2000, 0, 1);
const MAX_START_MS = Date.UTC(2099, 11, 31);

/** Simulates one trip and returns its telemetry batch and ground truth (and, on request, the motion). */
export function simulateTripDetailed(options: SimulateTripOptions): SimulatedTrip & { internals: TripInternals } {
  const driver = options.driver;
  if (!driver || typeof driver !== 'object') throw new TypeError('simulateTrip: driver is required');
  const profile: DriverProfile = 'profile' in driver ? driver.profile : driver;
  const driverId = 'profile' in driver ? driver.id : undefined;
  if (!profile?.params || !profile.levels)
    throw new TypeError('simulateTrip: driver must be a DriverProfile or carry one');
  const vehicle: TripVehicle = options.vehicle ?? { machineType: 'car' };
  if (!MACHINE_TYPES.includes(vehicle.machineType)) {
    throw new RangeError(`simulateTrip: vehicle.machineType must be one of ${MACHINE_TYPES.join(', ')}`);
  }
  if (!Number.isFinite(options.startMs)) throw new TypeError('simulateTrip: startMs must be epoch milliseconds');
  const gpsHz = checkRate('gpsHz', options.gpsHz ?? 1, 100);
  const imuHz = checkRate('imuHz', options.imuHz ?? 25, 1000);
  const obdHz = checkRate('obdHz', options.obdHz ?? 0, 100);
  const timeZone = options.timeZone ?? 'UTC';
  checkTimeZone(timeZone);
  const stepS = options.stepS ?? 0.04;
  const spec = MACHINE_SPECS[vehicle.machineType];
  const params = profile.params;
  const rng = Rng.from(options.seed, 'trip');

  const { route, edges } = resolveRoute(options);
  // The telemetry contract (validateTelemetry of @svc/scoring) takes sample times from 2000 to 2100 only.
  if (options.startMs < MIN_START_MS || options.startMs >= MAX_START_MS) {
    throw new RangeError(`simulateTrip: startMs must be epoch milliseconds from 2000 to 2100 (got ${options.startMs})`);
  }
  const path = buildDrivePath(route, spec.minTurnRadiusM);
  const speed = buildSpeedProfile(path, route, params, spec, {
    speeding: rng.fork('speeding'),
    braking: rng.fork('braking'),
    acceleration: rng.fork('acceleration'),
    cornering: rng.fork('cornering'),
    traffic: rng.fork('traffic'),
  });
  const idle = rng.fork('idle');
  const kinematics = buildKinematics(path, speed, {
    dtS: stepS,
    brakeOnsetS: params.brakeOnsetS,
    accelOnsetS: params.accelOnsetS,
    startIdleS: idle.uniform(4, 20),
    endIdleS: idle.uniform(3, 12),
  });
  const startMs = Math.round(options.startMs);
  const sessions = options.phone === false ? [] : planPhoneSessions(kinematics.durationS, params, rng.fork('phone'));
  const imuFrame = vehicle.imuFrame ?? options.imu?.frame ?? DEFAULT_IMU.frame;

  const streams: Sample[][] = [];
  if (gpsHz > 0) {
    const gps: GpsOptions = { ...DEFAULT_GPS, ...options.gps, hz: gpsHz };
    if (vehicle.gpsSigmaM !== undefined && options.gps?.sigmaM === undefined) gps.sigmaM = vehicle.gpsSigmaM;
    streams.push(synthesizeGps(path, kinematics, startMs, gps, rng.fork('gps')));
  }
  if (imuHz > 0) {
    const imu: ImuOptions = { ...DEFAULT_IMU, ...options.imu, frame: imuFrame, hz: imuHz };
    const handling = sessions.filter((s) => s.handheld).map((s) => ({ startS: s.startS, endS: s.endS }));
    const { accel, gyro } = synthesizeImu(path, kinematics, startMs, imu, rng.fork('imu'), handling);
    streams.push(accel, gyro);
  }
  if (obdHz > 0) streams.push(synthesizeObd(kinematics, startMs, obdHz, spec, params, rng.fork('obd')));
  if (sessions.length > 0) streams.push(phoneSamples(sessions, startMs));

  const batch: TelemetryBatch = {
    schemaVersion: TELEMETRY_SCHEMA_VERSION,
    machineType: vehicle.machineType,
    timeZone,
    phoneMonitored: options.phone !== false,
    samples: mergeByTime(streams),
  };
  if (imuHz > 0) batch.imuFrame = imuFrame;
  if (options.clientTripId !== undefined) batch.clientTripId = options.clientTripId;
  if (vehicle.deviceId !== undefined) batch.deviceId = vehicle.deviceId;
  if (vehicle.plate !== undefined) batch.vehicle = vehicle.plate;
  else if (vehicle.id !== undefined) batch.vehicle = vehicle.id;
  if (driverId !== undefined) batch.driverId = driverId;

  const truth = measureTruth({
    path,
    route,
    routeEdges: edges,
    profile: speed,
    kin: kinematics,
    startMs,
    sessions,
    timeZone,
  });
  return { batch, truth, internals: { route, path, kinematics } };
}

/** Simulates one trip: its telemetry batch (the ingest contract) and its ground truth. */
export function simulateTrip(options: SimulateTripOptions): SimulatedTrip {
  const { batch, truth } = simulateTripDetailed(options);
  return { batch, truth };
}

/** Merges time-sorted streams into one time-sorted list; ties keep stream order (gps, accel, gyro, obd, phone). */
function mergeByTime(streams: Sample[][]): Sample[] {
  const total = streams.reduce((n, s) => n + s.length, 0);
  const out: Sample[] = new Array(total);
  const pos = streams.map(() => 0);
  for (let i = 0; i < total; i++) {
    let best = -1;
    let bestT = Number.POSITIVE_INFINITY;
    for (let j = 0; j < streams.length; j++) {
      const sample = streams[j]![pos[j]!];
      if (sample && sample.t < bestT) {
        best = j;
        bestT = sample.t;
      }
    }
    out[i] = streams[best]![pos[best]!++]!;
  }
  return out;
}
