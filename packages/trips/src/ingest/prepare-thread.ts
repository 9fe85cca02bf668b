import { parentPort } from 'node:worker_threads';
import { serveThreadRequests } from '../threads/thread-pool.ts';
import { type PrepareRequest, prepareUpload, storedTelemetryFingerprint } from './prepare-upload.ts';

/** An ingest thread (upload-preparer.ts): prepares uploads and fingerprints stored telemetry. */
serveThreadRequests(parentPort!, (message) => {
  if (message.op === 'prepare') {
    const prepared = prepareUpload(message.request as PrepareRequest);
    // The compressed telemetry goes back moved, not copied, where each buffer has its memory to itself.
    const transfer = prepared.trips
      .map((t) => t.telemetryGz)
      .filter((b) => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength)
      .map((b) => b.buffer as ArrayBuffer);
    return { result: prepared, transfer: [...new Set(transfer)] };
  }
  if (message.op === 'fingerprint') return { result: storedTelemetryFingerprint(message.telemetryGz as Uint8Array) };
  throw new Error(`unknown ingest thread operation ${String(message.op)}`);
});
