import { createHash, type Hash } from 'node:crypto';
import { InvalidInputError } from '../errors.ts';

/**
 * The canonical fingerprint of a trip's telemetry: what decides whether an upload under an `Idempotency-Key`
 * already stored is the same trip (a duplicate) or another one (a conflict).
 *
 * The trip is the whole batch as it is stored (see accept-upload.ts): every field of it, known or not
 * (`schemaVersion`, `clientTripId`, the resolved plate as `vehicle`, `driverId`, `deviceId`, `machineType`,
 * `imuFrame`, `timeZone`, `phoneMonitored`, any other field the sender added) and every sample with every field
 * it has, times in whole milliseconds. Whatever would make the stored telemetry differ as data makes another
 * trip. What does not count (the same data serialised another way; the first copy stays stored and scored):
 * - the order of the keys of any object (the batch, a sample, a nested unknown field),
 * - the form of the body (JSON or NDJSON with a header line, gzip or not, spacing, `1.0` for `1`, escapes),
 * - the order of the samples: they are taken as a set of samples ordered by time, then samples of the same
 *   time by their canonical encoding (a total order, so a gps and an accel sample of the same millisecond
 *   compare the same way in every upload). Repeating a sample is a different trip (it is stored twice).
 * Arrays other than `samples` (inside unknown fields) keep their order: it is their data.
 *
 * The canonical encoding is JSON with the keys of every object sorted by UTF-16 code units and no spaces,
 * numbers and strings written as JSON.stringify writes them (as RFC 8785, JCS, does): two values that
 * JSON.parse reads as equal encode the same. Fields JSON.stringify leaves out (undefined) are left out, so the
 * fingerprint of a batch equals that of its stored JSON read back, which is how rows stored before this
 * fingerprint existed are compared (accept-upload.ts).
 *
 * The stored value is `v1:` and the SHA-256 (hex) of `{...sorted fields..., "samples":[...sorted samples...]}`
 * in that encoding; the prefix names this rule, so that a future rule can tell its own values from these.
 */
export function tripFingerprint(batch: object): string {
  const hash = createHash('sha256');
  try {
    writeBatch(hash, batch as Readonly<Record<string, unknown>>);
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new InvalidInputError('invalid telemetry: a value is nested too deeply to be stored (unknown fields?)');
    }
    throw err;
  }
  return `${FINGERPRINT_VERSION}:${hash.digest('hex')}`;
}

/** The rule of {@link tripFingerprint}, prefixed to every value it stores. */
export const FINGERPRINT_VERSION = 'v1';

function writeBatch(hash: Hash, batch: Readonly<Record<string, unknown>>): void {
  hash.update('{');
  let first = true;
  for (const key of Object.keys(batch).sort()) {
    const value = batch[key];
    if (omitted(value)) continue;
    hash.update(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (key === 'samples' && Array.isArray(value)) writeSamples(hash, value);
    else hash.update(canonicalJson(value));
  }
  hash.update('}');
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** The samples as a set: in time order, then samples of the same time by their canonical encoding. */
function writeSamples(hash: Hash, samples: readonly unknown[]): void {
  const encoded = samples.map((sample) => ({
    t: timeOf(sample),
    json: omitted(sample) ? 'null' : canonicalJson(sample),
  }));
  encoded.sort((a, b) => a.t - b.t || (a.json < b.json ? -1 : a.json > b.json ? 1 : 0));
  hash.update('[');
  for (let i = 0; i < encoded.length; i++) hash.update(i === 0 ? encoded[i]!.json : `,${encoded[i]!.json}`);
  hash.update(']');
}

/** A validated sample's time; anything else (never stored) sorts first, then by its encoding. */
function timeOf(sample: unknown): number {
  const t = typeof sample === 'object' && sample !== null ? (sample as { t?: unknown }).t : undefined;
  return typeof t === 'number' && Number.isFinite(t) ? t : Number.NEGATIVE_INFINITY;
}

/**
 * Canonical JSON of a value: JSON.stringify's output for it (same values dropped or written as `null`, same
 * `toJSON` calls) with the keys of every object sorted by UTF-16 code units.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
      // JSON.stringify writes a non-finite number as null, any other as its shortest round-trip form.
      return JSON.stringify(value);
    case 'bigint':
      // As JSON.stringify does: a BigInt has no JSON form.
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      // undefined, a function or a symbol at the top: JSON.stringify writes nothing; callers never pass one.
      return 'null';
  }
  const object = value as Record<string, unknown> & { toJSON?: unknown };
  if (typeof object.toJSON === 'function') return canonicalJson((object.toJSON as (key: string) => unknown)(''));
  if (object instanceof Number || object instanceof String || object instanceof Boolean) {
    return JSON.stringify(object);
  }
  const parts: string[] = [];
  if (Array.isArray(object)) {
    // A loop, not map(): one stack frame per level of nesting, so that whatever JSON.stringify could write
    // (telemetryJson stores it) is walked too.
    for (const item of object) parts.push(omitted(item) ? 'null' : canonicalJson(item));
    return `[${parts.join(',')}]`;
  }
  for (const key of Object.keys(object).sort()) {
    const item = object[key];
    if (omitted(item)) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}
