import { PHONE_EVENT_TYPES, type PhoneEventType, type Sample } from '@svc/scoring';
import { SampleRejectedError } from './errors.ts';

/**
 * Checks one sample from the host app and returns a clean copy in the telemetry format. Everything that is
 * not a plausible measurement is refused here, at the call, so that nothing the scorer would reject (or
 * worse, score) ever reaches the buffer. Ordering in time is checked by the recorder, which knows the history.
 */

/** Earliest and latest accepted sample time: anything outside is a clock that was never set, or garbage. */
export const MIN_SAMPLE_TIME_MS = Date.UTC(2000, 0, 1);
export const MAX_SAMPLE_TIME_MS = Date.UTC(2100, 0, 1);

const SAMPLE_TYPES = ['gps', 'accel', 'gyro', 'phone', 'obd'] as const;

// Bounds wide enough for any road vehicle and any phone sensor, narrow enough to catch unit mistakes
// (km/h passed as m/s, degrees passed as radians, milliseconds passed as seconds).
const MAX_GPS_SPEED_MPS = 150;
const MAX_ACCEL_MPS2 = 200;
const MAX_GYRO_RADPS = 50;
const MAX_OBD_SPEED_KMH = 400;
const MAX_RPM = 20_000;
const MIN_ALTITUDE_M = -1_000;
const MAX_ALTITUDE_M = 20_000;
const MAX_ACCURACY_M = 100_000;

const FIELDS: Record<Sample['type'], readonly string[]> = {
  gps: ['type', 't', 'lon', 'lat', 'speedMps', 'headingDeg', 'accuracyM', 'altitudeM'],
  accel: ['type', 't', 'x', 'y', 'z'],
  gyro: ['type', 't', 'x', 'y', 'z'],
  phone: ['type', 't', 'event', 'handsFree'],
  obd: ['type', 't', 'speedKmh', 'rpm', 'throttlePct'],
};

type Input = Record<string, unknown>;

/** Validates one sample (with its `type`) and returns a normalised copy; throws {@link SampleRejectedError}. */
export function validateSample(input: unknown, index?: number): Sample {
  const where = index === undefined ? '' : `sample ${index}: `;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new SampleRejectedError('invalid_sample', `${where}a sample must be an object`, undefined, index);
  }
  const sample = input as Input;
  const type = sample.type;
  if (typeof type !== 'string' || !(SAMPLE_TYPES as readonly string[]).includes(type)) {
    throw new SampleRejectedError(
      'unknown_sample_type',
      `${where}unknown sample type ${JSON.stringify(type)} (expected one of ${SAMPLE_TYPES.join(', ')})`,
      'type',
      index,
    );
  }
  const kind = type as Sample['type'];
  const label = `${where}${kind} sample`;
  const fail = (code: 'invalid_sample' | 'out_of_range', field: string, message: string): never => {
    throw new SampleRejectedError(code, `${label}: ${field} ${message}`, field, index);
  };

  for (const key of Object.keys(sample)) {
    if (!FIELDS[kind].includes(key) && sample[key] !== undefined) {
      throw new SampleRejectedError(
        'unknown_field',
        `${label}: unknown field "${key}" (allowed: ${FIELDS[kind].join(', ')})`,
        key,
        index,
      );
    }
  }

  const num = (field: string, min: number, max: number, required: boolean): number | undefined => {
    const value = sample[field];
    if (value === undefined) {
      if (required) fail('invalid_sample', field, 'is required');
      return undefined;
    }
    if (typeof value !== 'number') return fail('invalid_sample', field, `must be a number, got ${describe(value)}`);
    if (!Number.isFinite(value)) return fail('invalid_sample', field, `must be a finite number, got ${value}`);
    if (value < min || value > max) return fail('out_of_range', field, `${value} is outside [${min}, ${max}]`);
    return value;
  };

  const t = num('t', MIN_SAMPLE_TIME_MS, MAX_SAMPLE_TIME_MS, true) as number;

  switch (kind) {
    case 'gps': {
      const lon = num('lon', -180, 180, true) as number;
      const lat = num('lat', -90, 90, true) as number;
      // Receivers report (0, 0) before their first fix; no road vehicle drives there.
      if (lon === 0 && lat === 0) fail('out_of_range', 'lon/lat', '(0, 0) is a receiver placeholder, not a fix');
      const out: Sample = { type: 'gps', t, lon, lat };
      const speedMps = num('speedMps', 0, MAX_GPS_SPEED_MPS, false);
      const headingDeg = num('headingDeg', 0, 360, false);
      const accuracyM = num('accuracyM', 0, MAX_ACCURACY_M, false);
      const altitudeM = num('altitudeM', MIN_ALTITUDE_M, MAX_ALTITUDE_M, false);
      if (speedMps !== undefined) out.speedMps = speedMps;
      if (headingDeg !== undefined) out.headingDeg = headingDeg === 360 ? 0 : headingDeg;
      if (accuracyM !== undefined) out.accuracyM = accuracyM;
      if (altitudeM !== undefined) out.altitudeM = altitudeM;
      return out;
    }
    case 'accel':
    case 'gyro': {
      const max = kind === 'accel' ? MAX_ACCEL_MPS2 : MAX_GYRO_RADPS;
      const x = num('x', -max, max, true) as number;
      const y = num('y', -max, max, true) as number;
      const z = num('z', -max, max, true) as number;
      return { type: kind, t, x, y, z };
    }
    case 'phone': {
      const event = sample.event;
      if (typeof event !== 'string' || !(PHONE_EVENT_TYPES as readonly string[]).includes(event)) {
        throw new SampleRejectedError(
          'unknown_event_type',
          `${label}: unknown phone event ${JSON.stringify(event)} (expected one of ${PHONE_EVENT_TYPES.join(', ')})`,
          'event',
          index,
        );
      }
      const out: Sample = { type: 'phone', t, event: event as PhoneEventType };
      const handsFree = sample.handsFree;
      if (handsFree !== undefined) {
        if (typeof handsFree !== 'boolean')
          fail('invalid_sample', 'handsFree', `must be a boolean, got ${describe(handsFree)}`);
        out.handsFree = handsFree as boolean;
      }
      return out;
    }
    case 'obd': {
      const speedKmh = num('speedKmh', 0, MAX_OBD_SPEED_KMH, false);
      const rpm = num('rpm', 0, MAX_RPM, false);
      const throttlePct = num('throttlePct', 0, 100, false);
      if (speedKmh === undefined && rpm === undefined && throttlePct === undefined) {
        fail(
          'invalid_sample',
          'speedKmh',
          'is missing: an obd sample needs at least one of speedKmh, rpm, throttlePct',
        );
      }
      const out: Sample = { type: 'obd', t };
      if (speedKmh !== undefined) out.speedKmh = speedKmh;
      if (rpm !== undefined) out.rpm = rpm;
      if (throttlePct !== undefined) out.throttlePct = throttlePct;
      return out;
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value;
}
