import { escapeUnprintable } from '../display-text.ts';

/**
 * Prints rows as an aligned text table (or JSON with --json), for the admin CLI. A control character or
 * bidirectional control in a cell (a name stored before they were refused) is shown escaped: printed raw, a newline
 * split the row and an ESC sequence recoloured or rewrote the operator's terminal.
 */
export function printRows(
  rows: Array<Record<string, unknown>>,
  options: { json?: boolean; empty?: string } = {},
): void {
  if (options.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    process.stdout.write(`${options.empty ?? '(none)'}\n`);
    return;
  }
  const columns = Object.keys(rows[0]!);
  const cell = (v: unknown) =>
    v === null || v === undefined ? '-' : escapeUnprintable(Array.isArray(v) ? v.join(',') : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(columns)}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => cell(r[c])))}\n`);
}

const DURATION = /^(\d+)\s*(m|h|d|w)$/i;
/**
 * A date, or a date-time with an optional offset in any of ISO 8601's spellings, `±hh:mm`, `±hhmm` or `±hh`, as the
 * API's `from`/`to` read it (without one it is local time, as in Date.parse).
 */
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

function isCalendarDay(date: string): boolean {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const ms = Date.UTC(y, m - 1, d);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === date;
}

/** `--expires`: a duration from now (`90d`, `12h`, `30m`, `2w`) or an ISO 8601 date or date-time. */
export function parseExpiry(value: string, nowMs = Date.now()): number {
  const text = value.trim();
  const d = DURATION.exec(text);
  if (d) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[
      d[2]!.toLowerCase() as 'm' | 'h' | 'd' | 'w'
    ];
    const ms = nowMs + Number(d[1]) * unit;
    // Past +275760-09-13 a JavaScript date cannot hold it: the token could never be shown or listed.
    if (!Number.isFinite(new Date(ms).getTime())) throw new Error(`--expires "${value}" is too far in the future`);
    return ms;
  }
  // Only ISO 8601, and only days that exist: Date.parse alone takes "1" as the year 2001 and rolls
  // 2027-02-30 over into March.
  const iso = ISO_DATE_TIME.exec(text);
  if (iso && !isCalendarDay(iso[1]!)) throw new Error(`--expires "${value}": ${iso[1]} is not a day of the calendar`);
  // Date.parse reads only `±hh:mm` offsets: the other spellings are rewritten to it first.
  const dateTime = !iso?.[5]
    ? text
    : text.replace(/([+-])(\d{2}):?(\d{2})?$/, (_m, sign, hh, mm) => `${sign}${hh}:${mm ?? '00'}`);
  const ms = iso ? Date.parse(iso[2] ? dateTime : `${text}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new Error(`--expires "${value}" is neither a duration (90d, 12h, 30m, 2w) nor an ISO 8601 date`);
  }
  return ms;
}

const DAYS = /^(\d{1,6})\s*(d|w)?$/i;

/** A period in whole days (`180`, `180d`, `26w`), for retention: 1 day to 100 years. */
export function parseDays(value: string, option: string): number {
  const m = DAYS.exec(value.trim());
  const days = m ? Number(m[1]) * (m[2]?.toLowerCase() === 'w' ? 7 : 1) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > 36_500) {
    throw new Error(`${option} "${value}" must be a number of days from 1 to 36500, such as 180, 180d or 26w`);
  }
  return days;
}

/**
 * `roads build --seed`: an integer written in digits, with an optional sign. Number() alone read "" (`--seed "$SEED"`
 * with the variable unset) as 0 and built another city than the one meant, and read "0x10" as 16 and "1e3" as 1000.
 */
export function parseSeed(value: string, option = '--seed'): number {
  const n = /^[+-]?\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new Error(`${option} "${value}" must be an integer written in digits, such as 7`);
  return n;
}
