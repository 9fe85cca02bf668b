import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { canonicalJson, tripFingerprint } from './trip-fingerprint.ts';

const T = 1_790_000_000_000;
const batch = {
  schemaVersion: 1,
  clientTripId: 'trip-0001',
  vehicle: 'AB-123',
  driverId: 'd-1',
  machineType: 'van',
  timeZone: 'Europe/Paris',
  extra: { list: [3, 1, 2], nested: { b: 1, a: [{ y: 2, x: 1 }] } },
  samples: [
    { type: 'gps', t: T, lon: 7.42, lat: 43.73, speedMps: 13.9 },
    { type: 'accel', t: T, x: 0.1, y: -0.05, z: 9.81 },
    { type: 'gyro', t: T, x: 0, y: 0.01, z: 0.02 },
    { type: 'gps', t: T + 1000, lon: 7.4202, lat: 43.73 },
    { type: 'phone', t: T + 1000, event: 'screen_on' },
  ],
};

/** Every object of a JSON value with its keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .map(([k, v]) => [k, reversedKeys(v)] as const)
      .reverse(),
  );
}

describe('tripFingerprint', () => {
  const reference = tripFingerprint(batch);

  it('is a versioned SHA-256', () => {
    expect(reference).toMatch(/^v1:[0-9a-f]{64}$/);
  });

  it('does not depend on the order of keys, at any depth', () => {
    expect(JSON.stringify(reversedKeys(batch))).not.toBe(JSON.stringify(batch));
    expect(tripFingerprint(reversedKeys(batch) as object)).toBe(reference);
  });

  it('does not depend on the order of the samples, same-time samples of any type included', () => {
    const s = batch.samples;
    for (const order of [
      [2, 1, 0, 4, 3],
      [4, 3, 0, 2, 1],
      [1, 0, 2, 3, 4],
    ]) {
      expect(tripFingerprint({ ...batch, samples: order.map((i) => s[i]!) })).toBe(reference);
    }
  });

  it('is the fingerprint of the stored JSON read back (numbers and strings as JSON writes them)', () => {
    const withUndefined = { ...batch, deviceId: undefined, extra: { ...batch.extra, gone: undefined } };
    expect(tripFingerprint(withUndefined)).toBe(reference);
    expect(tripFingerprint(JSON.parse(JSON.stringify(withUndefined)))).toBe(reference);
    // The same numbers written another way are the same values.
    const text = JSON.stringify(batch).replace('"speedMps":13.9', '"speedMps":1.39e1').replace('"x":0,', '"x":0.0,');
    expect(text).not.toBe(JSON.stringify(batch));
    expect(tripFingerprint(JSON.parse(text))).toBe(reference);
    // As in JSON: undefined in an array is null, -0 is 0.
    expect(canonicalJson([undefined, -0, 'é\u2028', { b: [], a: null }])).toBe('[null,0,"é\u2028",{"a":null,"b":[]}]');
  });

  it('keeps a "__proto__" field as data', () => {
    const parsed = JSON.parse('{"__proto__":{"b":1,"a":2},"z":1}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"a":2,"b":1},"z":1}');
  });

  it('tells other data apart', () => {
    const others: object[] = [
      { ...batch, driverId: 'd-2' },
      { ...batch, driverId: undefined },
      { ...batch, machineType: 'car' },
      { ...batch, timeZone: 'UTC' },
      { ...batch, deviceId: 'phone-1' },
      { ...batch, extra: { ...batch.extra, list: [1, 2, 3] } },
      { ...batch, samples: batch.samples.slice(1) },
      { ...batch, samples: [...batch.samples, batch.samples[1]!] },
      { ...batch, samples: batch.samples.map((s, i) => (i === 1 ? { ...s, x: 0.11 } : s)) },
      { ...batch, samples: batch.samples.map((s, i) => (i === 1 ? { ...s, t: T + 1 } : s)) },
      { ...batch, samples: batch.samples.map((s, i) => (i === 3 ? { ...s, accuracyM: 5 } : s)) },
      // A field moved from the batch into a sample is another trip, not the same bytes cut elsewhere.
      {
        ...batch,
        samples: batch.samples.map((s, i) => (i === 0 ? { ...s, driverId: 'd-1' } : s)),
        driverId: undefined,
      },
    ];
    const prints = others.map(tripFingerprint);
    for (const print of prints) expect(print).not.toBe(reference);
    expect(new Set(prints).size).toBe(prints.length);
  });

  it('refuses telemetry nested too deeply to walk, as storing it does', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    expect(() => tripFingerprint({ ...batch, deep })).toThrow(InvalidInputError);
  });
});
