import { type Readable, Transform } from 'node:stream';
import { ApiError } from '../api/api-error.ts';

/**
 * The bytes of upload bodies one ingest process holds at once: read, decompressed, parsed and stored. Each
 * upload may be up to the body limit (64 MiB by default), and the rate limit is per key and per minute, so
 * without this a few keys sending large uploads together could take the process's memory. An upload that would
 * pass the budget is refused with 503 and Retry-After, which the edge SDK and connectors retry; the bytes an
 * upload holds go back to the budget when its response is sent or its connection closes.
 */
export class BodyBudget {
  readonly limitBytes: number;
  #heldBytes = 0;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  /** Bytes held by the uploads in process now. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /**
   * `payload` counted against the budget as it is read (after decompression, so a small gzip body that
   * expands counts what it expands to). `onDone` registers the release: call it with a function to run when the
   * request is over. A declared length that cannot fit is refused before any byte is read.
   */
  meter(payload: Readable, declaredBytes: number | undefined, onDone: (release: () => void) => void): Readable {
    if (declaredBytes !== undefined && this.#heldBytes + declaredBytes > this.limitBytes) throw this.#overBudget();
    let held = 0;
    let released = false;
    onDone(() => {
      this.#heldBytes -= held;
      held = 0;
      released = true;
    });
    const counted = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        if (released) return callback(null, chunk);
        held += chunk.length;
        this.#heldBytes += chunk.length;
        if (this.#heldBytes > this.limitBytes) callback(this.#overBudget());
        else callback(null, chunk);
      },
    });
    payload.on('error', (err) => counted.destroy(err));
    // Fastify listens for errors only while it reads the body: a corrupt gzip stream can fail while it does not
    // (seen in test/input-fuzz.test.ts), and an unheard 'error' would end the process. Fastify still gets the
    // errors that come while it reads, through its own listener.
    counted.on('error', () => {});
    // Fastify compares the declared Content-Length with the encoded length an earlier hook (gzip) reports.
    Object.defineProperty(counted, 'receivedEncodedLength', {
      get: () => (payload as Readable & { receivedEncodedLength?: number }).receivedEncodedLength,
    });
    return payload.pipe(counted);
  }

  #overBudget(): ApiError {
    const mib = Math.round((this.limitBytes / 1024 / 1024) * 10) / 10;
    return new ApiError(
      503,
      `the ingest service is receiving more uploads than it holds at once (${mib} MiB, TRIPS_INGEST_MEMORY_MB); retry after the Retry-After seconds`,
    );
  }
}
