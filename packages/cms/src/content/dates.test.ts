import { describe, expect, it } from 'vitest';
import {
  currentTimes,
  dateQueryBound,
  dateWithGmt,
  gmtFromLocal,
  isValidMysqlDate,
  localFromGmt,
  mysqlToRfc3339,
  siteTimeZone,
} from './dates.ts';

const paris = siteTimeZone('Europe/Paris', 0);

describe('site dates', () => {
  it('converts between the site zone and GMT across daylight saving time', () => {
    expect(gmtFromLocal('2023-07-01 12:00:00', paris)).toBe('2023-07-01 10:00:00');
    expect(gmtFromLocal('2023-01-01 12:00:00', paris)).toBe('2023-01-01 11:00:00');
    expect(localFromGmt('2023-03-26 01:30:00', paris)).toBe('2023-03-26 03:30:00');
    expect(gmtFromLocal('2023-07-01 12:00:00', siteTimeZone('', -5.5))).toBe('2023-07-01 17:30:00');
  });

  it('falls back to the GMT offset for an empty or unknown zone name', () => {
    expect(siteTimeZone('', 2)).toEqual({ kind: 'offset', minutes: 120 });
    expect(siteTimeZone('Not/AZone', 1)).toEqual({ kind: 'offset', minutes: 60 });
    expect(siteTimeZone('UTC+3', 0)).toEqual({ kind: 'offset', minutes: 180 });
  });

  it('reads client dates as rest_get_date_with_gmt does', () => {
    expect(dateWithGmt('2023-07-01T12:00:00', paris)).toEqual(['2023-07-01 12:00:00', '2023-07-01 10:00:00']);
    expect(dateWithGmt('2023-07-01T12:00:00', paris, true)).toEqual(['2023-07-01 14:00:00', '2023-07-01 12:00:00']);
    expect(dateWithGmt('2023-07-01T12:00:00Z', paris)).toEqual(['2023-07-01 14:00:00', '2023-07-01 12:00:00']);
    expect(dateWithGmt('2023-07-01T12:00:00.123-02:00', paris)).toEqual(['2023-07-01 16:00:00', '2023-07-01 14:00:00']);
    expect(dateWithGmt('2023-02-30T00:00:00', paris)?.[0]).toBe('2023-03-02 00:00:00');
    expect(dateWithGmt('yesterday', paris)).toBeNull();
  });

  it('checks calendar dates, including years below 100', () => {
    expect(isValidMysqlDate('2024-02-29 00:00:00')).toBe(true);
    expect(isValidMysqlDate('2023-02-29 00:00:00')).toBe(false);
    expect(isValidMysqlDate('0000-01-01 00:00:00')).toBe(false);
    expect(isValidMysqlDate('0099-12-31 00:00:00')).toBe(true);
  });

  it('keeps plain date-query bounds local and moves zoned ones to the site zone', () => {
    expect(dateQueryBound('2023-07-01T12:00:00', paris)).toBe('2023-07-01 12:00:00');
    expect(dateQueryBound('2023-07-01T12:00:00Z', paris)).toBe('2023-07-01 14:00:00');
    expect(dateQueryBound('2023-02-30T00:00:00', paris)).toBe('2023-03-02 00:00:00');
  });

  it('formats the current time and RFC 3339 dates', () => {
    expect(currentTimes(new Date('2024-03-01T12:00:00.900Z'), paris)).toEqual({
      local: '2024-03-01 13:00:00',
      gmt: '2024-03-01 12:00:00',
    });
    expect(mysqlToRfc3339('2023-06-18 01:16:00')).toBe('2023-06-18T01:16:00');
  });
});
