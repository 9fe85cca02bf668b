import { createHash } from 'node:crypto';
import type { Sample } from '@svc/scoring';
import { canonicalPlate } from '../ids.ts';
import { telemetryJson } from '../ingest/accept-upload.ts';

/**
 * The idempotency key `trips import` gives a trip whose file names no trip id (a file's `clientTripId`, with
 * `.1`, `.2`... for the drives of a split track, is used as it is): what the trip *is*, so that the same drive
 * exported again by another tool is recognised as a duplicate instead of being stored and counted twice.
 *
 * A trip is its vehicle and where it was when: the resolved plate (`canonicalPlate`) and the set of its GPS fixes
 * as (time in whole milliseconds, longitude, latitude), after validation, the same values acceptUpload stores.
 * - Number spelling does not count: values are compared as the numbers they read as (`7.4200` is `7.42`,
 *   `08:00:00.000Z` is `08:00:00Z`, epoch seconds are their milliseconds), written in the shortest form that
 *   reads back as the same number (`JSON.stringify`).
 * - Order does not count: not of the file's columns or fields, nor of its rows or samples (fixes of the same
 *   time in any order). The fixes are sorted by time, then longitude, then latitude.
 * - The same fix twice (a row repeated by an exporter) is the same position at the same time: counted once.
 * - The other values of a fix (speed, heading, accuracy, altitude) and the other samples (IMU, OBD, phone) do
 *   not count. An exporter may leave them out (a CSV of positions and times) or add or recompute them (a GPX with
 *   `<speed>`, speed in km/h made m/s): the vehicle cannot have been at the same positions at the same
 *   milliseconds twice, so a file with the same fixes is the same drive, not another one to add to the fleet's
 *   sums. The copy imported first stays stored and scored as it was.
 * What makes another key, so another trip: another vehicle, a fix more or less, a fix at another millisecond or
 * at other coordinates, including coordinates an exporter rounded to fewer decimals (that is another number,
 * which cannot be told from a nearby position of another drive without guessing).
 *
 * The key is `import-v2-` and the SHA-256 (hex) of `"<plate>\n"` followed by `"<t>,<lon>,<lat>\n"` per fix: 74
 * characters, within the Idempotency-Key rule. The encoding is spelt out here rather than borrowed from the
 * ingest fingerprint (trip-fingerprint.ts) so that a change there does not change the keys stored with trips.
 *
 * @returns null when the samples hold no valid GPS fix (acceptUpload refuses such a trip anyway).
 */
export function importKey(plate: string, validatedSamples: readonly Sample[]): string | null {
  const fixes = new Map<string, { t: number; lon: number; lat: number }>();
  for (const s of validatedSamples) {
    if (s.type !== 'gps') continue;
    const t = Math.round(s.t);
    if (!Number.isFinite(t) || !Number.isFinite(s.lon) || !Number.isFinite(s.lat)) continue;
    // JSON.stringify writes -0 as 0, as the store would read it back.
    const line = `${t},${JSON.stringify(s.lon)},${JSON.stringify(s.lat)}\n`;
    if (!fixes.has(line)) fixes.set(line, { t, lon: s.lon, lat: s.lat });
  }
  if (fixes.size === 0) return null;
  const ordered = [...fixes].sort(([, a], [, b]) => a.t - b.t || a.lon - b.lon || a.lat - b.lat);
  const hash = createHash('sha256').update(`${canonicalPlate(plate)}\n`);
  for (const [line] of ordered) hash.update(line);
  return `${IMPORT_KEY_PREFIX}${hash.digest('hex')}`;
}

/** The prefix of {@link importKey}'s keys; the rule's version, so that the rule before it is told apart. */
export const IMPORT_KEY_PREFIX = 'import-v2-';

/**
 * The key the import gave a trip without a trip id before {@link importKey}: `import-` and the first 48 hex
 * characters of the SHA-256 of the plate (`canonicalPlate`) followed by the JSON of the samples as the file's
 * reader made them, in file order, before validation. It depends on that order and on the fields' order in
 * NDJSON samples, so another export of the same drive got another key and was imported a second time. Trips
 * imported then are stored under it: it is still computed, to recognise such a file imported again (see
 * import-files.ts), never to store a new trip. Do not change it.
 */
export function legacyImportKey(plate: string, samples: readonly Sample[]): string {
  return `import-${createHash('sha256')
    .update(canonicalPlate(plate))
    .update(telemetryJson(samples))
    .digest('hex')
    .slice(0, 48)}`;
}
