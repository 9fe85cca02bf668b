import { ForbiddenError, InvalidInputError } from '../errors.ts';
import { startThreadPool, ThreadTaskError } from '../threads/thread-pool.ts';
import {
  type PreparedUpload,
  type PrepareRequest,
  prepareUpload,
  storedTelemetryFingerprint,
} from './prepare-upload.ts';

/**
 * Where the CPU-bound part of accepting an upload runs (prepare-upload.ts): parsing, validation, serialising,
 * hashing, compression, cutting drives, and the canonical fingerprints a repeat is compared by.
 */
export interface UploadPreparer {
  prepare(request: PrepareRequest): Promise<PreparedUpload>;
  /** The canonical fingerprint of stored (gzip JSON) telemetry; InvalidInputError when it cannot be walked. */
  fingerprint(telemetryGz: Uint8Array): Promise<string>;
  close(): Promise<void>;
}

/**
 * Prepares on the calling thread: for the CLI's imports (nothing else waits on that event loop) and tests. A
 * server uses threadUploadPreparer.
 */
export const inlineUploadPreparer: UploadPreparer = {
  prepare: async (request) => prepareUpload(request),
  fingerprint: async (telemetryGz) => storedTelemetryFingerprint(telemetryGz),
  close: async () => {},
};

const THREAD_MODULE = new URL('./prepare-thread.ts', import.meta.url);

/**
 * Prepares uploads on `threads` worker threads. Parsing and checking a 20-minute trip with 10 Hz IMU samples
 * held the ingest process's event loop for a few hundred milliseconds per upload (a CPU profile of `npm start`
 * seeding the sandbox), and with it every request of the public API that process serves; a day's upload cut into
 * drives, over a second. The event loop now only reads and writes the store.
 */
export async function threadUploadPreparer(options: { threads: number }): Promise<UploadPreparer> {
  const pool = await startThreadPool({ module: THREAD_MODULE, threads: options.threads, name: 'ingest' });
  return {
    async prepare(request) {
      // A body that owns its memory is moved to the thread rather than copied (Fastify's buffered bodies above
      // a few KB do); a slice of a shared pool is copied, as moving it would take its neighbours too.
      const transfer = ownsItsMemory(request.body)
        ? [(request.body as { bytes: Uint8Array }).bytes.buffer as ArrayBuffer]
        : [];
      try {
        return await pool.run<PreparedUpload>({ op: 'prepare', request }, transfer);
      } catch (err) {
        throw domainError(err);
      }
    },
    async fingerprint(telemetryGz) {
      try {
        return await pool.run<string>({ op: 'fingerprint', telemetryGz });
      } catch (err) {
        throw domainError(err);
      }
    },
    close: () => pool.close(),
  };
}

function ownsItsMemory(body: PrepareRequest['body']): boolean {
  if (!('bytes' in body)) return false;
  const { bytes } = body;
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
}

/** The sender's faults keep their classes across the thread boundary (the endpoint answers 400 and 403 by them). */
function domainError(err: unknown): unknown {
  if (!(err instanceof ThreadTaskError)) return err;
  if (err.name === 'InvalidInputError') return new InvalidInputError(err.message);
  if (err.name === 'ForbiddenError') return new ForbiddenError(err.message);
  return err;
}
