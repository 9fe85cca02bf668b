import { describe, expect, it } from 'vitest';
import { inHourWindow, localHour, localTimeToEpochMs, localWeekday, utcOffsetMinutes } from './local-time.ts';

describe('local time', () => {
  it('knows the offset of a zone in winter and summer', () => {
    expect(utcOffsetMinutes(Date.UTC(2025, 0, 15, 12), 'Europe/Paris')).toBe(60);
    expect(utcOffsetMinutes(Date.UTC(2025, 6, 15, 12), 'Europe/Paris')).toBe(120);
    expect(utcOffsetMinutes(Date.UTC(2025, 6, 15, 12), 'UTC')).toBe(0);
  });

  it('converts local wall-clock times to instants and back, across midnight', () => {
    const day = Date.UTC(2025, 2, 3, 12);
    const at0740 = localTimeToEpochMs(day, 7 + 40 / 60, 'Europe/Paris');
    expect(at0740).toBe(Date.UTC(2025, 2, 3, 6, 40));
    expect(localHour(at0740, 'Europe/Paris')).toBeCloseTo(7 + 40 / 60, 6);
    const at0130Next = localTimeToEpochMs(day, 25.5, 'Europe/Paris');
    expect(localHour(at0130Next, 'Europe/Paris')).toBeCloseTo(1.5, 6);
    expect(localWeekday(at0130Next, 'Europe/Paris')).toBe(2);
  });

  it('handles hour windows that wrap midnight', () => {
    expect(inHourWindow(23, 22, 5)).toBe(true);
    expect(inHourWindow(4.9, 22, 5)).toBe(true);
    expect(inHourWindow(12, 22, 5)).toBe(false);
    expect(inHourWindow(2, 0, 4)).toBe(true);
  });

  it('names an unknown zone', () => {
    expect(() => utcOffsetMinutes(0, 'Atlantis/Capital')).toThrow(/Atlantis\/Capital/);
  });
});
