/**
 * Dates as WordPress keeps them: `YYYY-MM-DD HH:MM:SS` strings, one in the site's time zone and one in
 * GMT, the GMT one being `0000-00-00 00:00:00` for a draft whose date "floats" (follows the time it is
 * saved) until it is published or given a date. The site's zone is the `timezone_string` option (an
 * IANA name) or, when that is empty, the fixed `gmt_offset` in hours.
 */

/** The GMT date of a post whose date floats. */
export const ZERO_DATE = '0000-00-00 00:00:00';

/** The site's time zone: an IANA name, or a fixed offset from GMT. */
export type SiteTimeZone = { kind: 'iana'; name: string } | { kind: 'offset'; minutes: number };

/** wp_timezone() from the two options. */
export function siteTimeZone(timezoneString: unknown, gmtOffset: unknown): SiteTimeZone {
  if (typeof timezoneString === 'string' && timezoneString !== '') {
    if (/^UTC[+-]/.test(timezoneString)) {
      const hours = Number(timezoneString.slice(3));
      if (Number.isFinite(hours)) return { kind: 'offset', minutes: Math.round(hours * 60) };
    }
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezoneString });
      return { kind: 'iana', name: timezoneString };
    } catch {
      // An unknown zone name falls back to the offset, as WordPress does.
    }
  }
  const hours = Number(gmtOffset ?? 0);
  return { kind: 'offset', minutes: Number.isFinite(hours) ? Math.round(hours * 60) : 0 };
}

/** UTC. */
export const UTC: SiteTimeZone = { kind: 'offset', minutes: 0 };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's offset from UTC, in minutes, at the instant `instantMs`. */
export function offsetMinutesAt(zone: SiteTimeZone, instantMs: number): number {
  if (zone.kind === 'offset') return zone.minutes;
  const parts: Record<string, number> = {};
  for (const p of formatterFor(zone.name).formatToParts(new Date(instantMs))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const asUtc = utcMs(parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60000);
}

const MYSQL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;

/** Date.UTC() without its quirk of reading years 0-99 as 1900-1999; fields out of range roll over. */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

/** Milliseconds of a `YYYY-MM-DD HH:MM:SS` wall-clock time read as if it were UTC; NaN when malformed. */
export function wallClockMs(mysql: string): number {
  const m = MYSQL.exec(mysql);
  if (!m) return Number.NaN;
  return utcMs(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/** gmdate( 'Y-m-d H:i:s', ... ) of a millisecond instant. */
export function formatMysql(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** get_gmt_from_date(): a site-local wall-clock time to GMT. */
export function gmtFromLocal(local: string, zone: SiteTimeZone): string {
  const wall = wallClockMs(local);
  if (Number.isNaN(wall)) return ZERO_DATE;
  if (zone.kind === 'offset') return formatMysql(wall - zone.minutes * 60000);
  // Two passes settle the offset that applies at the resulting instant (DST edges included).
  let guess = wall - offsetMinutesAt(zone, wall) * 60000;
  guess = wall - offsetMinutesAt(zone, guess) * 60000;
  return formatMysql(guess);
}

/** get_date_from_gmt(): GMT to the site-local wall-clock time. */
export function localFromGmt(gmt: string, zone: SiteTimeZone): string {
  const ms = wallClockMs(gmt);
  if (Number.isNaN(ms)) return ZERO_DATE;
  return formatMysql(ms + offsetMinutesAt(zone, ms) * 60000);
}

/** current_time( 'mysql' ) and current_time( 'mysql', true ). */
export function currentTimes(now: Date, zone: SiteTimeZone): { local: string; gmt: string } {
  const gmt = formatMysql(Math.floor(now.getTime() / 1000) * 1000);
  return { local: localFromGmt(gmt, zone), gmt };
}

/** mysql_to_rfc3339(): `2023-06-18 01:16:00` → `2023-06-18T01:16:00`. */
export function mysqlToRfc3339(mysql: string): string {
  return mysql.replace(' ', 'T').slice(0, 19);
}

/** The response form of a post date: null for a zero date (prepare_date_response). */
export function dateResponse(gmt: string, local?: string): string | null {
  if (local !== undefined) return mysqlToRfc3339(local);
  if (gmt === ZERO_DATE) return null;
  return mysqlToRfc3339(gmt);
}

const REST_DATE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}(?::\d{2})?)?$/;

/**
 * rest_parse_date(): milliseconds of an RFC 3339 date; a date without an offset is read as UTC (PHP's
 * default zone under WordPress). Null when it does not parse.
 */
export function parseRestDate(date: string, forceUtc = false): number | null {
  let value = date;
  if (forceUtc) value = value.replace(/[+-]\d+:?\d+$/, '+00:00');
  if (!REST_DATE.test(value)) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|([+-])(\d{2})(?::?(\d{2}))?)?$/.exec(
    value,
  );
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // strtotime() rolls over out-of-range fields (month 13, day 32) instead of rejecting them.
  let ms = utcMs(y, mo, d, h, mi, s);
  if (m[8]) ms -= (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10] ?? 0)) * 60000;
  return Number.isNaN(ms) ? null : ms;
}

/**
 * rest_get_date_with_gmt(): `[local, gmt]` for a date sent by a client. A date without an offset is in
 * the site's zone (or GMT when `isGmt`); one with an offset is an instant.
 */
export function dateWithGmt(date: string, zone: SiteTimeZone, isGmt = false): [string, string] | null {
  const hasZone = /(Z|[+-]\d{2}(:\d{2})?)$/.test(date);
  const ms = parseRestDate(date);
  if (ms === null) return null;
  const asMysql = formatMysql(ms);
  if (!isGmt && !hasZone) return [asMysql, gmtFromLocal(asMysql, zone)];
  return [localFromGmt(asMysql, zone), asMysql];
}

/** wp_checkdate(): whether the date part of a `YYYY-MM-DD ...` string is a real calendar date. */
export function isValidMysqlDate(mysql: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(mysql);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || y < 1) return false;
  return d <= new Date(utcMs(y, mo + 1, 0)).getUTCDate();
}

/**
 * The value a date-query bound compares with (WP_Date_Query::build_mysql_datetime): a plain
 * `YYYY-MM-DD[T ]HH:MM:SS` is already site-local (date_create() rolls an impossible day over: February 30
 * is March 2); anything else is parsed and moved to the site's zone.
 */
export function dateQueryBound(value: string, zone: SiteTimeZone): string | null {
  const plain = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})$/.exec(value);
  if (plain) {
    const [y, mo, d, h, mi, s] = plain.slice(1).map(Number) as [number, number, number, number, number, number];
    return formatMysql(utcMs(y, mo, d, h, mi, s));
  }
  const hasZone = /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value);
  const ms = parseRestDate(value);
  if (ms === null) return null;
  return hasZone ? localFromGmt(formatMysql(ms), zone) : formatMysql(ms);
}
