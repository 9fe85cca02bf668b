import { describe, expect, it } from 'vitest';
import { validateTelemetry } from './validate.ts';

const T0 = Date.UTC(2024, 4, 14, 8, 0, 0);

function gps(i: number, extra: Record<string, unknown> = {}) {
  return { type: 'gps', t: T0 + i * 1000, lon: 11.5 + i * 1e-4, lat: 48.1, speedMps: 10, ...extra };
}

describe('validateTelemetry', () => {
  it('accepts a well-formed batch of every sample type', () => {
    const result = validateTelemetry({
      schemaVersion: 1,
      vehicle: 'M-AB 123',
      machineType: 'car',
      imuFrame: 'device',
      timeZone: 'Europe/Berlin',
      samples: [
        gps(0),
        { type: 'accel', t: T0 + 10, x: 0.1, y: 0.2, z: 9.8 },
        { type: 'gyro', t: T0 + 10, x: 0, y: 0, z: 0.01 },
        { type: 'phone', t: T0 + 500, event: 'call_start', handsFree: true },
        { type: 'obd', t: T0 + 600, speedKmh: 36, rpm: 1800 },
        gps(1),
      ],
    });
    expect(result.ok).toBe(true);
  });

  it('names the sample index and field of a NaN, an out-of-range coordinate and an unknown type', () => {
    const result = validateTelemetry({
      schemaVersion: 1,
      samples: [gps(0), gps(1, { lat: Number.NaN }), gps(2, { lon: 190 }), { type: 'radar', t: T0 }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.index, e.field])).toEqual([
      [1, 'lat'],
      [2, 'lon'],
      [3, 'type'],
    ]);
    expect(result.errors[0]!.message).toBe('samples[1].lat must be a finite number (got NaN)');
    expect(result.errors[1]!.message).toContain('between -180 and 180');
  });

  it('explains times given in seconds and negative speeds', () => {
    const result = validateTelemetry({ samples: [gps(0, { t: 1_715_673_600 }), gps(1, { speedMps: -1 })] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]!.message).toContain('looks like seconds');
    expect(result.errors[1]).toMatchObject({ index: 1, field: 'speedMps' });
  });

  it('sorts samples that arrive slightly out of order, stably', () => {
    const a = { type: 'phone', t: T0 + 1000, event: 'unlock' };
    const b = { type: 'phone', t: T0 + 1000, event: 'screen_on' };
    const result = validateTelemetry({ samples: [gps(2), gps(0), a, b, gps(1)] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.batch.samples.map((s) => s.t - T0)).toEqual([0, 1000, 1000, 1000, 2000]);
    expect(result.batch.samples[1]).toBe(a);
    expect(result.batch.schemaVersion).toBe(1);
  });

  it('rejects a stream that jumps back in time far enough to be a clock reset', () => {
    const result = validateTelemetry({ samples: [gps(0), gps(100), gps(1000), gps(10)] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ index: 3, field: 't' });
    expect(result.errors[0]!.message).toContain('clock reset');
  });

  it('rejects batch-level problems with a null index', () => {
    const noGps = validateTelemetry({ samples: [{ type: 'accel', t: T0, x: 0, y: 0, z: 9.8 }] });
    expect(noGps).toMatchObject({ ok: false, errors: [{ index: null, field: 'samples' }] });
    const badMeta = validateTelemetry({
      schemaVersion: 2,
      machineType: 'tank',
      timeZone: 'Mars/Base',
      samples: [gps(0)],
    });
    expect(badMeta.ok).toBe(false);
    if (badMeta.ok) return;
    expect(badMeta.errors.map((e) => e.field)).toEqual(['schemaVersion', 'machineType', 'timeZone']);
    expect(validateTelemetry(null)).toMatchObject({ ok: false, errors: [{ field: 'batch' }] });
    expect(validateTelemetry({ samples: 'x' })).toMatchObject({ ok: false, errors: [{ field: 'samples' }] });
  });

  it('caps the number of reported issues and says so', () => {
    const samples = Array.from({ length: 200 }, (_, i) => gps(i, { lat: 100 }));
    const result = validateTelemetry({ samples }, { maxErrors: 10 });
    expect(result).toMatchObject({ ok: false, truncated: true });
    if (result.ok) return;
    expect(result.errors).toHaveLength(10);
  });

  it('rejects an obd sample without any reading and a phone sample with an unknown event', () => {
    const result = validateTelemetry({
      samples: [gps(0), { type: 'obd', t: T0 }, { type: 'phone', t: T0, event: 'selfie' }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.index, e.field])).toEqual([
      [1, 'speedKmh'],
      [2, 'event'],
    ]);
  });
});
