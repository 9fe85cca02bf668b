/**
 * @svc/simulator: deterministic synthetic fleets for the trip-scoring service. Vehicles, drivers with behaviour
 * profiles (calm .. aggressive, each behaviour on its own dial, with a known true risk), a trip schedule, and trips
 * driven along `@svc/roads` routes with physically consistent speed profiles, GPS, IMU, phone and OBD samples in the
 * telemetry contract of `@svc/scoring`, plus the ground truth of every trip.
 */

export type {
  AccelSample,
  GpsSample,
  GyroSample,
  MachineType,
  ObdSample,
  PhoneSample,
  Sample,
  TelemetryBatch,
} from './contract.ts';
export type { DriveRoute, JunctionControl, LonLat, RouteSegment, WaypointStop } from './drive-route.ts';
export { validateDriveRoute } from './drive-route.ts';
export {
  BEHAVIOURS,
  type Behaviour,
  type BehaviourLevels,
  type DriverParams,
  type DriverProfile,
  type DriverProfileOptions,
  driverProfile,
  paramsForLevels,
  TRIP_BEHAVIOURS,
  TRUE_RISK_WEIGHTS,
  trueRiskOf,
  withLevels,
} from './driver-profile.ts';
export {
  type CreateFleetOptions,
  createFleet,
  type Driver,
  type DriverPopulationOptions,
  drawLevels,
  driverPopulation,
  type Fleet,
  type PopulationOptions,
  randomPlace,
  type Vehicle,
} from './fleet.ts';
export { type FleetTrip, type FleetTripsOptions, simulateFleetTrips } from './fleet-trips.ts';
export { DEFAULT_GPS, type GpsOptions } from './gps-sensor.ts';
export { DEFAULT_IMU, GRAVITY_MPS2, type ImuOptions } from './imu-sensor.ts';
export { localHour, utcOffsetMinutes } from './local-time.ts';
export { batchToNdjson } from './ndjson.ts';
export { PHONE_SESSION_KINDS, type PhoneSessionKind } from './phone-use.ts';
export { Rng, type Seed } from './random.ts';
export { type GraphRoute, NoRouteError, routeThrough } from './road-route.ts';
export { planTrips, type ScheduleOptions, TRIP_KINDS, type TripKind, type TripPlan } from './schedule.ts';
export {
  type SimulatedTrip,
  type SimulateTripOptions,
  simulateTrip,
  simulateTripDetailed,
  type TripDriver,
  type TripInternals,
  type TripVehicle,
} from './simulate-trip.ts';
export {
  type HarshEventType,
  type PhoneTruth,
  type SpeedingBand,
  type SpeedingTruth,
  speedingBand,
  TRUTH_THRESHOLDS,
  type TripTruth,
  type TrueHarshEvent,
} from './truth.ts';
export { MACHINE_SPECS, type MachineSpec } from './vehicle-model.ts';
