/** Prints rows as an aligned text table (or JSON with --json), for the admin CLI. */
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
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
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

/** `--expires`: a duration from now (`90d`, `12h`, `30m`, `2w`) or an ISO 8601 date or date-time. */
export function parseExpiry(value: string, nowMs = Date.now()): number {
  const d = DURATION.exec(value.trim());
  if (d) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[
      d[2]!.toLowerCase() as 'm' | 'h' | 'd' | 'w'
    ];
    const ms = nowMs + Number(d[1]) * unit;
    // Past +275760-09-13 a JavaScript date cannot hold it: the token could never be shown or listed.
    if (!Number.isFinite(new Date(ms).getTime())) throw new Error(`--expires "${value}" is too far in the future`);
    return ms;
  }
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms)) {
    throw new Error(`--expires "${value}" is neither a duration (90d, 12h, 30m, 2w) nor an ISO 8601 date`);
  }
  return ms;
}
