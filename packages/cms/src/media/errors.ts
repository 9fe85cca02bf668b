/**
 * A media operation that failed for a reason the caller can report: the code and HTTP status follow the
 * WordPress REST error the same failure produces (`rest_upload_*`, `rest_cannot_edit_file_type`, ...), so a
 * controller can turn it into a REST error without translating.
 */
export class MediaError extends Error {
  /** Stable, machine-readable code, WordPress's where one exists. */
  readonly code: string;
  /** HTTP status the REST layer answers with. */
  readonly status: number;

  constructor(code: string, message: string, status = 400, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MediaError';
    this.code = code;
    this.status = status;
  }
}

/** Type guard for {@link MediaError}. */
export function isMediaError(value: unknown): value is MediaError {
  return value instanceof MediaError;
}
