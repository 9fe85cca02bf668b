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
