import type { Sample, TelemetryMeta } from '@svc/scoring';
import { type FileContents, TRIP_META_KEYS } from './file-trip.ts';

/**
 * NDJSON in the telemetry format: each line a sample (`{"type":"gps",...}`, any sample type); a header
 * line `{"type":"header",...meta}` starts a new trip; a line holding a whole TelemetryBatch (with a
 * `samples` array) is a trip by itself. A trip with an unreadable line is rejected whole, naming it, except for a
 * last line cut short by the end of the file (no line end), which is left out and listed as skipped.
 * Sample contents are checked by the telemetry validation afterwards, which names the line.
 */
export function readNdjson(text: string): FileContents {
  const out: FileContents = { trips: [], rejected: [], skipped: [] };
  type Draft = {
    first: number;
    /** The trip's last line, also when it is an unreadable one (a line cut short at the end of the file). */
    last: number;
    samples: Sample[];
    lines: number[];
    meta: Partial<TelemetryMeta>;
    error?: string;
  };
  let current: Draft | null = null;
  const finish = () => {
    if (!current) return;
    const d: Draft = current;
    current = null;
    const label = `lines ${d.first}-${d.last}`;
    if (d.error) out.rejected.push({ location: label, reason: d.error });
    else if (d.samples.length === 0)
      out.rejected.push({ location: `line ${d.first}`, reason: 'a header with no samples after it' });
    else out.trips.push({ label, samples: d.samples, meta: d.meta, locate: (i) => `line ${d.lines[i] ?? '?'}` });
  };
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  // A file whose last line is unreadable and has no line end was cut off while it was written (a logger that lost
  // power): that line is left out and said so, and the trip it belonged to is imported without it.
  let cutLine = lines.length;
  while (cutLine > 0 && lines[cutLine - 1]!.trim() === '') cutLine--;
  if (cutLine !== lines.length) cutLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      if (lineNo === cutLine) {
        out.skipped!.push({
          location: `line ${lineNo}`,
          reason: `cut short: the file ends in the middle of this line (${(err as Error).message}); the rest is imported`,
        });
        continue;
      }
      current ??= { first: lineNo, last: lineNo, samples: [], lines: [], meta: {} };
      current.last = lineNo;
      current.error ??= `line ${lineNo}: not valid JSON (${(err as Error).message})`;
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      current ??= { first: lineNo, last: lineNo, samples: [], lines: [], meta: {} };
      current.last = lineNo;
      current.error ??= `line ${lineNo}: each line must be a JSON object`;
      continue;
    }
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.samples)) {
      finish();
      const meta = Object.fromEntries(
        TRIP_META_KEYS.filter((k) => Object.hasOwn(record, k)).map((k) => [k, record[k]]),
      );
      out.trips.push({
        label: `line ${lineNo}`,
        samples: record.samples as Sample[],
        meta: meta as Partial<TelemetryMeta>,
        locate: (s) => `line ${lineNo} samples[${s}]`,
      });
      continue;
    }
    if (record.type === 'header') {
      finish();
      const meta = Object.fromEntries(
        TRIP_META_KEYS.filter((k) => Object.hasOwn(record, k)).map((k) => [k, record[k]]),
      );
      current = { first: lineNo, last: lineNo, samples: [], lines: [], meta: meta as Partial<TelemetryMeta> };
      continue;
    }
    current ??= { first: lineNo, last: lineNo, samples: [], lines: [], meta: {} };
    current.last = lineNo;
    current.samples.push(record as unknown as Sample);
    current.lines.push(lineNo);
  }
  finish();
  if (out.trips.length === 0 && out.rejected.length === 0) {
    const reason = out.skipped!.length > 0 ? 'the file holds only a line cut short' : 'the file is empty';
    out.rejected.push({ location: 'file', reason });
  }
  return out;
}
