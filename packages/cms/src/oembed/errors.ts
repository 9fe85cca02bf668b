/** An oEmbed failure with the REST error code and status WordPress answers with. */
export class OEmbedError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, message: string, status = 404, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OEmbedError';
    this.code = code;
    this.status = status;
  }
}

/** A remote request refused or failed by the safe fetcher (never shown to clients verbatim). */
export class FetchRefusedError extends Error {
  readonly reason: string;

  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FetchRefusedError';
    this.reason = reason;
  }
}
