import { describe, expect, it } from 'vitest';
import { SampleRejectedError } from './errors.ts';
import { validateSample } from './validate-sample.ts';

const T = Date.UTC(2025, 5, 1, 8);

function rejection(input: unknown): SampleRejectedError {
  try {
    validateSample(input);
  } catch (error) {
    if (error instanceof SampleRejectedError) return error;
    throw error;
  }
  throw new Error('expected the sample to be rejected');
}

describe('validateSample', () => {
  it('accepts every sample type and returns a clean copy in the telemetry format', () => {
    expect(validateSample({ type: 'gps', t: T, lon: 11.5, lat: 48.1, speedMps: 10, headingDeg: 360 })).toEqual({
      type: 'gps',
      t: T,
      lon: 11.5,
      lat: 48.1,
      speedMps: 10,
      headingDeg: 0,
    });
    expect(validateSample({ type: 'accel', t: T, x: 0.1, y: -0.2, z: 9.8 })).toEqual({
      type: 'accel',
      t: T,
      x: 0.1,
      y: -0.2,
      z: 9.8,
    });
    expect(validateSample({ type: 'phone', t: T, event: 'call_start', handsFree: true })).toMatchObject({
      event: 'call_start',
      handsFree: true,
    });
    expect(validateSample({ type: 'obd', t: T, speedKmh: 50, speedMps: undefined })).toEqual({
      type: 'obd',
      t: T,
      speedKmh: 50,
    });
  });

  it('rejects NaN and infinite positions, naming the field', () => {
    const nan = rejection({ type: 'gps', t: T, lon: Number.NaN, lat: 48 });
    expect(nan.code).toBe('invalid_sample');
    expect(nan.field).toBe('lon');
    expect(nan.message).toBe('gps sample: lon must be a finite number, got NaN');
    expect(rejection({ type: 'gps', t: T, lon: 11, lat: Number.POSITIVE_INFINITY }).field).toBe('lat');
  });

  it('rejects positions out of range and the (0, 0) placeholder', () => {
    const lat = rejection({ type: 'gps', t: T, lon: 11, lat: 91 });
    expect(lat.code).toBe('out_of_range');
    expect(lat.message).toContain('lat 91 is outside [-90, 90]');
    expect(rejection({ type: 'gps', t: T, lon: -180.5, lat: 0 }).field).toBe('lon');
    expect(rejection({ type: 'gps', t: T, lon: 0, lat: 0 }).message).toContain('placeholder');
  });

  it('rejects times that are not epoch milliseconds', () => {
    expect(rejection({ type: 'accel', t: T / 1000, x: 0, y: 0, z: 9.8 }).field).toBe('t');
    expect(rejection({ type: 'accel', t: '2025-06-01', x: 0, y: 0, z: 9.8 }).message).toContain('must be a number');
    expect(rejection({ type: 'accel', x: 0, y: 0, z: 9.8 }).message).toContain('t is required');
  });

  it('rejects unknown sample types, event types and fields', () => {
    const type = rejection({ type: 'lidar', t: T });
    expect(type.code).toBe('unknown_sample_type');
    expect(type.message).toContain('unknown sample type "lidar"');
    const event = rejection({ type: 'phone', t: T, event: 'selfie' });
    expect(event.code).toBe('unknown_event_type');
    expect(event.message).toContain('unknown phone event "selfie"');
    const field = rejection({ type: 'gps', t: T, lon: 11, lat: 48, speedKmh: 50 });
    expect(field.code).toBe('unknown_field');
    expect(field.field).toBe('speedKmh');
  });

  it('rejects implausible sensor values (unit mistakes)', () => {
    expect(rejection({ type: 'gps', t: T, lon: 11, lat: 48, speedMps: 400 }).field).toBe('speedMps');
    expect(rejection({ type: 'accel', t: T, x: 0, y: 0, z: 9810 }).field).toBe('z');
    expect(rejection({ type: 'obd', t: T }).message).toContain('needs at least one of speedKmh, rpm, throttlePct');
    expect(rejection({ type: 'phone', t: T, event: 'unlock', handsFree: 'yes' }).field).toBe('handsFree');
  });

  it('puts the batch index in the message when given one', () => {
    expect(rejection(undefined).message).toBe('a sample must be an object');
    expect(() => validateSample({ type: 'gps', t: T, lon: 11, lat: Number.NaN }, 7)).toThrow(
      /^sample 7: gps sample: lat must be a finite number/,
    );
  });
});
