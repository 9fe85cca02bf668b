/**
 * The telemetry format: what the edge SDK records, the simulator emits, the connectors produce from
 * files, and the private ingest endpoint accepts. One format from the vehicle to the scorer.
 *
 * Times are epoch milliseconds (UTC). Positions are WGS84 degrees. Units are in the field names.
 * This is a shared contract: extend it compatibly (new optional fields), never rename.
 */

export const TELEMETRY_SCHEMA_VERSION = 1;

/** One GPS fix. `speedMps`/`headingDeg` are the receiver's Doppler values when it reports them. */
export interface GpsSample {
  type: 'gps';
  t: number;
  lon: number;
  lat: number;
  speedMps?: number;
  headingDeg?: number;
  accuracyM?: number;
  altitudeM?: number;
}

/**
 * One accelerometer reading in m/s^2, gravity included. In the `vehicle` frame x points forward,
 * y to the left, z up; in the `device` frame the axes are the phone's and must be aligned first.
 */
export interface AccelSample {
  type: 'accel';
  t: number;
  x: number;
  y: number;
  z: number;
}

/** One gyroscope reading in rad/s, same frames as {@link AccelSample}. */
export interface GyroSample {
  type: 'gyro';
  t: number;
  x: number;
  y: number;
  z: number;
}

export const PHONE_EVENT_TYPES = [
  'screen_on',
  'screen_off',
  'unlock',
  'lock',
  'call_start',
  'call_end',
  'handling_start',
  'handling_end',
  'typing_start',
  'typing_end',
] as const;
export type PhoneEventType = (typeof PHONE_EVENT_TYPES)[number];

/** A phone-use event reported by the host app (screen, unlock, call, handling, typing). */
export interface PhoneSample {
  type: 'phone';
  t: number;
  event: PhoneEventType;
  /** For calls: whether it was hands-free (Bluetooth/CarPlay), which distracts less. */
  handsFree?: boolean;
}

/** An OBD-II reading. */
export interface ObdSample {
  type: 'obd';
  t: number;
  speedKmh?: number;
  rpm?: number;
  /** Absolute throttle position, 0-100 % (PID 0x11). */
  throttlePct?: number;
}

export type Sample = GpsSample | AccelSample | GyroSample | PhoneSample | ObdSample;

export const MACHINE_TYPES = ['car', 'van', 'truck', 'motorcycle', 'bus'] as const;
export type MachineType = (typeof MACHINE_TYPES)[number];

/**
 * A batch of telemetry for (usually) one trip, as uploaded. NDJSON files carry the same samples one per
 * line, optionally preceded by a header line `{ "type": "header", ...TelemetryMeta }`.
 */
export interface TelemetryBatch extends TelemetryMeta {
  schemaVersion: typeof TELEMETRY_SCHEMA_VERSION;
  samples: Sample[];
}

export interface TelemetryMeta {
  /** Client-chosen idempotency key for the trip (the edge SDK's trip id); same key = same trip. */
  clientTripId?: string;
  deviceId?: string;
  /** Vehicle plate or unit identifier. */
  vehicle?: string;
  driverId?: string;
  machineType?: MachineType;
  /** Frame of the IMU samples; `device` when the phone is loose in the car. Default `device`. */
  imuFrame?: 'vehicle' | 'device';
  /** IANA time zone of the trip (for night driving); default UTC offset from the position. */
  timeZone?: string;
  /**
   * True when the recorder watched the phone's state for the whole batch, so that the absence of phone
   * samples means "no phone use" rather than "not measured". Phone samples present imply it.
   */
  phoneMonitored?: boolean;
}
