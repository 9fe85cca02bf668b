import { describe, expect, it } from 'vitest';
import { inHourWindow, localClock, zoneOffsetMin } from './local-clock.ts';
import { sunElevationDeg } from './solar.ts';
import { zoneOfPosition } from './zone-of-position.ts';

describe('local time', () => {
  it('follows summer time in an IANA zone', () => {
    expect(zoneOffsetMin('Europe/Berlin', Date.UTC(2024, 0, 15, 12))).toBe(60);
    expect(zoneOffsetMin('Europe/Berlin', Date.UTC(2024, 6, 15, 12))).toBe(120);
    const clock = localClock('Europe/Berlin', 0);
    expect(clock.at(Date.UTC(2024, 6, 15, 22, 30)).hour).toBeCloseTo(0.5, 9);
    expect(clock.at(Date.UTC(2024, 6, 15, 22, 30)).date).toBe('2024-07-16');
  });

  it('falls back to the longitude offset, and to the country zone where it is known', () => {
    expect(localClock(undefined, 11.5).zone).toBe('UTC+01:00');
    expect(localClock(undefined, -74).zone).toBe('UTC-05:00');
    expect(zoneOfPosition(11.57, 48.14)).toBe('Europe/Berlin');
    expect(zoneOfPosition(-74, 40.7)).toBeUndefined();
  });

  it('handles hour windows across midnight', () => {
    expect(inHourWindow(23, 22, 5)).toBe(true);
    expect(inHourWindow(4.9, 22, 5)).toBe(true);
    expect(inHourWindow(12, 22, 5)).toBe(false);
    expect(inHourWindow(2, 0, 4)).toBe(true);
  });

  it('puts the sun high at noon in summer and below the horizon at midnight', () => {
    const noon = sunElevationDeg(Date.UTC(2024, 5, 21, 11, 15), 11.5, 48.1);
    expect(noon).toBeGreaterThan(60);
    expect(noon).toBeLessThan(70);
    expect(sunElevationDeg(Date.UTC(2024, 5, 21, 23, 0), 11.5, 48.1)).toBeLessThan(-6);
  });
});
