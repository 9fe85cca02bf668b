import type { TelemetryBatch } from './contract.ts';

/**
 * NDJSON form of a batch, as the ingest path and the trace readers accept it: one header line
 * `{ "type": "header", ...meta }` then one sample per line.
 */
export function batchToNdjson(batch: TelemetryBatch): string {
  const { samples, ...meta } = batch;
  const lines = [JSON.stringify({ type: 'header', ...meta })];
  for (const sample of samples) lines.push(JSON.stringify(sample));
  return `${lines.join('\n')}\n`;
}
