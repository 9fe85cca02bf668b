import { describe, expect, it } from 'vitest';
import { readSampleJson } from './json-samples-connector.ts';

const iso = (i: number) => new Date(Date.UTC(2026, 10, 3, 10, 0, i)).toISOString();

describe('readSampleJson', () => {
  it("keeps each position's receiver speed and course as the GPS sample's speedMps and headingDeg", () => {
    const records = [
      { point: 'POINT(11.57 48.1)', time: iso(0), speed: 12.5, course: 270 },
      { lon: 11.5702, lat: 48.1, timestamp: iso(1), speedKmh: 36, heading: 271.5 },
      { lng: 11.5704, latitude: 48.1, time: iso(2) },
    ];
    const { trips, rejected } = readSampleJson(records);
    expect(rejected).toEqual([]);
    expect(trips).toHaveLength(1);
    expect(trips[0]!.samples).toEqual([
      { type: 'gps', t: Date.UTC(2026, 10, 3, 10, 0, 0), lon: 11.57, lat: 48.1, speedMps: 12.5, headingDeg: 270 },
      { type: 'gps', t: Date.UTC(2026, 10, 3, 10, 0, 1), lon: 11.5702, lat: 48.1, speedMps: 10, headingDeg: 271.5 },
      { type: 'gps', t: Date.UTC(2026, 10, 3, 10, 0, 2), lon: 11.5704, lat: 48.1 },
    ]);
  });

  it('rejects the file naming the record whose speed is not a number', () => {
    const records = [
      { lon: 11.57, lat: 48.1, time: iso(0), speed: 3 },
      { lon: 11.5702, lat: 48.1, time: iso(1), speed: 'fast' },
    ];
    const { trips, rejected } = readSampleJson(records);
    expect(trips).toEqual([]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.location).toBe('file');
    expect(rejected[0]!.reason).toMatch(/^record 1: .*speed/);
  });
});
