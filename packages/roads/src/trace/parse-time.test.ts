import { describe, expect, it } from 'vitest';
import { parseTime } from './parse-time.ts';

const T = Date.UTC(2026, 10, 3, 10, 0, 0);

describe('parseTime', () => {
  it('reads ISO 8601 times with a zone or an offset (with or without its colon), and zoneless ones as UTC', () => {
    expect(parseTime('2026-11-03T10:00:00Z')).toBe(T);
    expect(parseTime('2026-11-03T10:00:00.250Z')).toBe(T + 250);
    expect(parseTime('2026-11-03 12:00:00+02:00')).toBe(T);
    expect(parseTime('2026-11-03 12:00:00+0200')).toBe(T);
    expect(parseTime('2026-11-03T04:30:00-05:30')).toBe(T);
    expect(parseTime('2026-11-03T10:00:00')).toBe(T);
    expect(parseTime('2026-11-03 10:00')).toBe(T);
    expect(parseTime('2026-11-03')).toBe(Date.UTC(2026, 10, 3));
  });

  it('reads a UTC offset in each of ISO 8601 spellings, ±hh, ±hhmm and ±hh:mm, as it reads Z', () => {
    for (const text of [
      '2026-11-03T10:00:00Z',
      '2026-11-03T12:00:00+02',
      '2026-11-03T12:00:00+0200',
      '2026-11-03T12:00:00+02:00',
      '2026-11-03 12:00:00 +02',
      '2026-11-03T05:00:00-05',
      '2026-11-03T15:30:00+0530',
      '2026-11-03T10:00:00+00',
      '2026-11-03T10:00:00-00:00',
      '2026-11-03T12:00+02',
    ]) {
      expect(parseTime(text), text).toBe(T);
    }
    expect(parseTime('2026-11-03T12:00:00.250+02')).toBe(T + 250);
    expect(parseTime('2026-11-03t12:00:00+02')).toBe(T);
  });

  it('refuses offsets that are not one of those spellings, or out of range, and times with only an hour', () => {
    for (const text of [
      '2026-11-03T12:00:00+2',
      '2026-11-03T12:00:00+020',
      '2026-11-03T12:00:00+02:0',
      '2026-11-03T12:00:00+02:',
      '2026-11-03T12:00:00+020000',
      '2026-11-03T12:00:00+24',
      '2026-11-03T12:00:00+0260',
      '2026-11-03T12:00:00 02',
      '2026-11-03T12+02',
      '2026-11-03T12:00:00 CET',
      '2026-11-03T12:00:00 UTC',
    ]) {
      expect(parseTime(text), text).toBeNaN();
    }
  });

  it('refuses days that do not exist instead of rolling them into the next month', () => {
    for (const text of ['2026-02-29', '2026-02-30T10:00:00Z', '2026-04-31 08:00:00+02', '2026-13-01T00:00:00Z']) {
      expect(parseTime(text), text).toBeNaN();
    }
    expect(parseTime('2028-02-29T10:00:00Z')).toBe(Date.UTC(2028, 1, 29, 10));
  });

  it('reads numbers and digit strings as epoch seconds or milliseconds', () => {
    expect(parseTime(T)).toBe(T);
    expect(parseTime(T / 1000)).toBe(T);
    expect(parseTime(String(T))).toBe(T);
    expect(parseTime(`${T / 1000}.5`)).toBe(T + 500);
  });

  // Date.parse reads these in the time zone of the machine: the same file would give other times elsewhere.
  it('refuses other date formats instead of reading them in the machine time zone', () => {
    for (const text of ['2026/11/03 10:00:00', '11/03/2026 10:00', 'Nov 3 2026 10:00:00', 'Tuesday', 'yesterday']) {
      expect(parseTime(text), text).toBeNaN();
    }
  });
});
