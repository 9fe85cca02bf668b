import { describe, expect, it } from 'vitest';
import { parseExpiry, parseSeed } from './output.ts';

describe('tokens create --expires', () => {
  const now = Date.UTC(2026, 10, 21, 12);

  it('takes a duration from now, an ISO 8601 date (midnight UTC) or an ISO 8601 date-time', () => {
    expect(parseExpiry('90d', now)).toBe(now + 90 * 86_400_000);
    expect(parseExpiry('12h', now)).toBe(now + 12 * 3_600_000);
    expect(parseExpiry('2w', now)).toBe(now + 14 * 86_400_000);
    expect(parseExpiry('2027-01-31', now)).toBe(Date.UTC(2027, 0, 31));
    expect(parseExpiry('2028-02-29', now)).toBe(Date.UTC(2028, 1, 29));
    expect(parseExpiry('2027-01-31T08:30:00+01:00', now)).toBe(Date.UTC(2027, 0, 31, 7, 30));
    expect(parseExpiry('2027-01-31T08:30Z', now)).toBe(Date.UTC(2027, 0, 31, 8, 30));
  });

  it('reads an offset written ±hhmm or ±hh, as ISO 8601 allows and the API reads it, as the instant it names', () => {
    expect(parseExpiry('2027-01-31T08:30:00+0100', now)).toBe(Date.UTC(2027, 0, 31, 7, 30));
    expect(parseExpiry('2027-01-31T08:30:00+01', now)).toBe(Date.UTC(2027, 0, 31, 7, 30));
    expect(parseExpiry('2027-01-31T08:30-0530', now)).toBe(Date.UTC(2027, 0, 31, 14, 0));
    expect(() => parseExpiry('2027-01-31T08:30:00+1', now)).toThrow('is neither a duration');
  });

  it('refuses a day that does not exist instead of rolling it over into the next month', () => {
    for (const bad of ['2027-02-29', '2027-02-30', '2027-04-31', '2027-13-01', '2027-02-30T10:00:00Z']) {
      expect(() => parseExpiry(bad, now), bad).toThrow('is not a day of the calendar');
    }
  });

  it('refuses what is not ISO 8601 rather than guessing (a bare "1" is not the year 2001)', () => {
    for (const bad of ['1', '90', 'May 5', '12/31/2027', 'tomorrow', '90 days', '']) {
      expect(() => parseExpiry(bad, now), bad).toThrow(`--expires "${bad}" is neither a duration`);
    }
  });
});

describe('roads build --seed', () => {
  it('takes an integer written in digits, signed or not', () => {
    expect(parseSeed('7')).toBe(7);
    expect(parseSeed('-3')).toBe(-3);
    expect(parseSeed('+12')).toBe(12);
    expect(parseSeed('007')).toBe(7);
  });

  it('refuses an empty seed (an unset shell variable) instead of building the city of seed 0, and other spellings', () => {
    for (const bad of ['', ' ', ' 7', '7 ', '0x10', '1e3', '1.5', '7.0', 'abc', '9999999999999999']) {
      expect(() => parseSeed(bad), JSON.stringify(bad)).toThrow(
        `--seed "${bad}" must be an integer written in digits, such as 7`,
      );
    }
  });
});
