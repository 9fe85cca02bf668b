// ISO 8601 dates, and date-times with or without a zone. The zone is `Z` or a UTC offset in any of ISO 8601's
// three spellings, `±hh:mm`, `±hhmm` and `±hh` (also after a space, as exporters write them). Anything else is
// refused: Date.parse would read much of it in the machine's time zone.
const ISO_8601 = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) ?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Epoch milliseconds from a trace time: an ISO 8601 string (times without a zone are taken as UTC, so a file
 * reads the same on every machine) or a number, taken as epoch milliseconds when above 1e11 and as seconds
 * otherwise (1e11 s is the year 5138; 1e11 ms is 1973). Returns NaN for anything else.
 */
export function parseTime(value: unknown): number {
  if (typeof value === 'number')
    return Number.isFinite(value) ? (Math.abs(value) > 1e11 ? value : value * 1000) : Number.NaN;
  if (typeof value !== 'string') return Number.NaN;
  const text = value.trim();
  if (text === '') return Number.NaN;
  if (/^-?\d+(\.\d+)?$/.test(text)) return parseTime(Number(text));
  const iso = ISO_8601.exec(text);
  if (!iso) return Number.NaN;
  const [, date, time, zone] = iso;
  // Date.parse rolls an impossible day over (2026-02-30 is read as March 2): refuse it instead.
  const midnight = Date.parse(date!);
  if (!Number.isFinite(midnight) || new Date(midnight).toISOString().slice(0, 10) !== date) return Number.NaN;
  // Date.parse reads a date alone as UTC midnight, and a date-time in ECMAScript's own form, whose offset is
  // always `±hh:mm`: the other two spellings are rewritten to it (and its range, up to 23:59, checked by it).
  if (time === undefined) return midnight;
  return Date.parse(`${date}T${time}${zone === undefined ? 'Z' : offset(zone)}`);
}

/** `Z`, or an ISO 8601 offset (`+02`, `+0200`, `+02:00`) as `+02:00`. */
function offset(zone: string): string {
  if (zone.toUpperCase() === 'Z') return 'Z';
  const digits = zone.slice(1).replace(':', '');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
}
