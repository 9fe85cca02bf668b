/** Local wall-clock time of an instant: what night-driving and rush-hour rules are written against. */
export interface LocalTime {
  /** Hour of day with fraction, 0 <= hour < 24. */
  hour: number;
  /** 0 = Sunday .. 6 = Saturday. */
  weekday: number;
  /** Local calendar date `YYYY-MM-DD`. */
  date: string;
}

export interface LocalClock {
  /** IANA zone used, or a fixed offset such as `UTC+01:00` derived from the longitude. */
  zone: string;
  at(tMs: number): LocalTime;
  /** Offset from UTC at tMs, minutes. */
  offsetMin(tMs: number): number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** UTC offset of an IANA zone at an instant, in minutes (east positive). */
export function zoneOffsetMin(zone: string, tMs: number): number {
  const parts = formatter(zone).formatToParts(new Date(tMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((asUtc - Math.floor(tMs / 1000) * 1000) / 60_000);
}

/**
 * A clock for a trip: the IANA zone when one is known, otherwise the nominal offset of the longitude
 * (15 degrees per hour), which is right to within an hour almost everywhere and needs no zone database.
 */
export function localClock(timeZone: string | undefined, lon: number): LocalClock {
  if (timeZone) {
    // Offsets change at most a few times a year: cache per 15-minute bucket.
    const cache = new Map<number, number>();
    const offsetMin = (tMs: number) => {
      const bucket = Math.floor(tMs / 900_000);
      let offset = cache.get(bucket);
      if (offset === undefined) {
        offset = zoneOffsetMin(timeZone, bucket * 900_000);
        cache.set(bucket, offset);
      }
      return offset;
    };
    return { zone: timeZone, offsetMin, at: (tMs) => wallTime(tMs + offsetMin(tMs) * 60_000) };
  }
  const offset = Math.round((Number.isFinite(lon) ? lon : 0) / 15) * 60;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const zone = `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return { zone, offsetMin: () => offset, at: (tMs) => wallTime(tMs + offset * 60_000) };
}

function wallTime(shiftedMs: number): LocalTime {
  const d = new Date(shiftedMs);
  return {
    hour: d.getUTCHours() + d.getUTCMinutes() / 60 + d.getUTCSeconds() / 3600,
    weekday: d.getUTCDay(),
    date: d.toISOString().slice(0, 10),
  };
}

/** True when `hour` lies in the window [start, end) that may wrap midnight (e.g. 22 -> 5). */
export function inHourWindow(hour: number, start: number, end: number): boolean {
  return start <= end ? hour >= start && hour < end : hour >= start || hour < end;
}
