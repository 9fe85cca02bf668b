/**
 * Local wall-clock time in an IANA time zone, through `Intl` (no time-zone data in the package). Night driving is
 * defined in local time, and schedules say "leaves home at 07:40", so both directions are needed.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      throw new RangeError(`unknown time zone "${timeZone}" (use an IANA name such as Europe/Paris)`);
    }
    formatters.set(timeZone, f);
  }
  return f;
}

/** Checks that a time zone name is known to the runtime; throws a RangeError naming it otherwise. */
export function checkTimeZone(timeZone: string): void {
  formatter(timeZone);
}

/** UTC offset of a time zone at an instant, minutes (Paris in winter: 60). */
export function utcOffsetMinutes(epochMs: number, timeZone: string): number {
  const parts = formatter(timeZone).formatToParts(new Date(epochMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((asUtc - Math.floor(epochMs / 1000) * 1000) / 60_000);
}

/** Hours since local midnight (0 <= h < 24) at an instant. */
export function localHour(epochMs: number, timeZone: string): number {
  const localMs = epochMs + utcOffsetMinutes(epochMs, timeZone) * 60_000;
  const dayMs = 86_400_000;
  return (((localMs % dayMs) + dayMs) % dayMs) / 3_600_000;
}

/** Local day of week at an instant (0 = Sunday). */
export function localWeekday(epochMs: number, timeZone: string): number {
  const localMs = epochMs + utcOffsetMinutes(epochMs, timeZone) * 60_000;
  return new Date(localMs).getUTCDay();
}

/** The instant of a local wall-clock time `hours` after local midnight of the local day containing `dayMs`. */
export function localTimeToEpochMs(dayMs: number, hours: number, timeZone: string): number {
  const offset = utcOffsetMinutes(dayMs, timeZone) * 60_000;
  const localMidnight = Math.floor((dayMs + offset) / 86_400_000) * 86_400_000;
  const guess = localMidnight + hours * 3_600_000 - offset;
  // Correct once for a DST change between midnight and the requested hour.
  const corrected = localMidnight + hours * 3_600_000 - utcOffsetMinutes(guess, timeZone) * 60_000;
  return Math.round(corrected);
}

/** True when a local hour falls in the window [fromH, toH), which may wrap midnight (22 -> 5). */
export function inHourWindow(hour: number, fromH: number, toH: number): boolean {
  return fromH <= toH ? hour >= fromH && hour < toH : hour >= fromH || hour < toH;
}
