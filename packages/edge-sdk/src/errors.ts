/** Why a recording call was refused. Stable strings: host apps may switch on them. */
export type InputErrorCode =
  | 'invalid_sample'
  | 'unknown_sample_type'
  | 'unknown_event_type'
  | 'unknown_field'
  | 'out_of_range'
  | 'time_backwards'
  | 'too_late';

/**
 * Thrown synchronously by a recording call when the host app passed a sample the SDK will not store:
 * not a number, out of range, unknown type, time going backwards. Nothing of the call was stored.
 */
export class SampleRejectedError extends Error {
  override readonly name = 'SampleRejectedError';
  constructor(
    readonly code: InputErrorCode,
    message: string,
    /** The offending field (`lat`, `t`, `event`...), when one is to blame. */
    readonly field?: string,
    /** Position of the sample in a `recordMany` call. */
    readonly index?: number,
  ) {
    super(message);
  }
}

/** Thrown by a recording call when the buffer is full and the policy is `reject-new`, or nothing can be evicted. */
export class BufferFullError extends Error {
  override readonly name = 'BufferFullError';
  constructor(
    message: string,
    readonly usedBytes: number,
    readonly maxBytes: number,
  ) {
    super(message);
  }
}

/** Thrown when the SDK is used after `close()`, or its storage cannot be opened. */
export class EdgeSdkStateError extends Error {
  override readonly name: string = 'EdgeSdkStateError';
}

/** The storage file is not a readable SQLite database (damaged, or some other file): see `onCorruptStorage`. */
export class CorruptStorageError extends EdgeSdkStateError {
  override readonly name = 'CorruptStorageError';
}

/** Thrown for options that cannot work (missing endpoint with uploads on, bad numbers, bad ingest key). */
export class EdgeSdkConfigError extends Error {
  override readonly name = 'EdgeSdkConfigError';
}
