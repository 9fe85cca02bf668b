import { parseSampleArray, TraceInputError } from '@svc/roads';
import type { Sample, TelemetryMeta } from '@svc/scoring';
import { type FileContents, gpsSample, TRIP_META_KEYS } from './file-trip.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True for a JSON document this reader takes: an array of samples, or a telemetry batch `{ samples: [...] }`. */
export function isSampleJson(doc: unknown): boolean {
  return Array.isArray(doc) || (isObject(doc) && Array.isArray(doc.samples));
}

/**
 * JSON that is not GeoJSON but samples, as `roads match`, `scoring score` and `edge-sdk replay` read it: a
 * telemetry batch (`{ samples, ...meta }`) or an array of telemetry samples is one trip, sample types kept; an
 * array of position records without a `type` (`lon`/`lat` or WKT `"point": "POINT(lon lat)"`, with
 * `time`/`timestamp`/`t`, like the Munich trace of ../shared/data) is one trip of GPS fixes. Locations in
 * messages are `record i`.
 */
export function readSampleJson(doc: unknown): FileContents {
  const out: FileContents = { trips: [], rejected: [] };
  const records = (Array.isArray(doc) ? doc : isObject(doc) ? doc.samples : []) as unknown[];
  const meta = isObject(doc)
    ? (Object.fromEntries(
        TRIP_META_KEYS.filter((k) => Object.hasOwn(doc, k)).map((k) => [k, doc[k]]),
      ) as Partial<TelemetryMeta>)
    : {};
  if (records.length === 0) {
    out.rejected.push({ location: 'file', reason: 'the array of samples is empty' });
    return out;
  }
  // Typed records are telemetry samples, checked by the telemetry validation afterwards (which names them).
  if (!isObject(doc) && !records.some((r) => isObject(r) && typeof r.type === 'string')) {
    const samples: Sample[] = [];
    try {
      for (const p of parseSampleArray(records, 'JSON')) {
        const s = gpsSample({
          lon: p.lon,
          lat: p.lat,
          t: p.timeMs ?? Number.NaN,
          ...(p.accuracyM !== undefined ? { accuracyM: p.accuracyM } : {}),
          ...(p.speedMps !== undefined ? { speedMps: p.speedMps } : {}),
          ...(p.courseDeg !== undefined ? { headingDeg: p.courseDeg } : {}),
        });
        // Every record is a position here (none is typed), so the sample's index is the record's.
        if (typeof s === 'string') {
          out.rejected.push({ location: `record ${samples.length}`, reason: s });
          return out;
        }
        samples.push(s);
      }
    } catch (err) {
      if (!(err instanceof TraceInputError)) throw err;
      // The roads reader's message starts with its label ("JSON: record 12: ..."); the import names the file.
      out.rejected.push({ location: 'file', reason: err.message.replace(/^JSON: /, '') });
      return out;
    }
    out.trips.push({ label: 'records', samples, meta, locate: (i) => `record ${i}` });
    return out;
  }
  out.trips.push({ label: 'samples', samples: records as Sample[], meta, locate: (i) => `record ${i}` });
  return out;
}
