import { InvalidInputError } from '../errors.ts';

/**
 * Turns an upload body into a telemetry batch object (still unvalidated): a JSON `TelemetryBatch`, or
 * NDJSON with samples one per line and an optional first line `{ "type": "header", ...meta }`.
 * Errors name the line (NDJSON) or the JSON parser's position.
 */
export function parseTelemetryBody(body: Buffer, format: 'json' | 'ndjson'): unknown {
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  if (format === 'json') {
    if (text.trim() === '') throw new InvalidInputError('the request body is empty: send a TelemetryBatch');
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new InvalidInputError(`the request body is not valid JSON: ${(err as Error).message}`);
    }
  }
  return parseNdjsonBatch(text, 'line');
}

/** NDJSON telemetry: `where` prefixes line numbers in messages (e.g. `trip.ndjson line`). */
export function parseNdjsonBatch(text: string, where: string, firstLine = 1): Record<string, unknown> {
  const lines = text.split('\n');
  const batch: Record<string, unknown> = { schemaVersion: 1 };
  const samples: unknown[] = [];
  let seenContent = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new InvalidInputError(`${where} ${i + firstLine}: not valid JSON (${(err as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidInputError(`${where} ${i + firstLine}: each line must be a JSON object (a sample or a header)`);
    }
    const record = value as Record<string, unknown>;
    if (record.type === 'header') {
      if (seenContent) {
        throw new InvalidInputError(`${where} ${i + firstLine}: the header line must come before the samples`);
      }
      copyHeaderFields(batch, record);
    } else {
      samples.push(record);
    }
    seenContent = true;
  }
  if (!seenContent) throw new InvalidInputError('the request body is empty: send samples, one JSON object per line');
  batch.samples = samples;
  return batch;
}

/**
 * Copies a header line's own fields (all but `type`) onto the batch as own data properties, as JSON.parse
 * makes them in a JSON body. Assigning them (`Object.assign`, `batch[key] = value`) would run the `__proto__`
 * setter for a `"__proto__"` key and replace the batch's prototype: its fields would then be inherited,
 * seen by validation and dropped from what is stored.
 */
function copyHeaderFields(batch: Record<string, unknown>, header: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(header)) {
    if (key === 'type') continue;
    Object.defineProperty(batch, key, { value, enumerable: true, writable: true, configurable: true });
  }
}
