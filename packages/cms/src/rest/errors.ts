/**
 * The REST error: WordPress's `WP_Error` as an exception. Handlers and permission checks throw it (or
 * return it); the server turns it into `{ code, message, data, additional_errors? }` with the HTTP status
 * taken from `data.status` (500 when absent), as `rest_convert_error_to_response` does.
 */
export type RestErrorData = ({ status?: number; params?: unknown; details?: unknown } & Record<string, unknown>) | null;

export class RestError extends Error {
  readonly code: string;
  readonly data: RestErrorData;
  /** Further errors carried by the same WP_Error (sent as `additional_errors`). */
  readonly additional: RestError[];
  /** Earlier data added under the same code (WordPress's `additional_data`). */
  additionalData: unknown[] = [];

  constructor(code: string, message: string, data: RestErrorData = null, additional: RestError[] = []) {
    // A RestError is an answer to the client, not a fault: it is created on hot paths (validation, the
    // Allow header) and never logged with a stack, so skip capturing one (it costs more than the check).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'RestError';
    this.code = code;
    this.data = data;
    this.additional = additional;
  }

  /** The HTTP status this error is sent with. */
  get status(): number {
    const fromData = this.data && typeof this.data.status === 'number' ? this.data.status : undefined;
    if (fromData !== undefined) return fromData;
    for (const extra of this.additional) {
      if (extra.data && typeof extra.data.status === 'number') return extra.data.status;
    }
    return 500;
  }

  /** The wire body, shaped like WordPress's. */
  toJSON(): Record<string, unknown> {
    const body: Record<string, unknown> = { code: this.code, message: this.message, data: this.data };
    if (this.additionalData.length > 0) body.additional_data = this.additionalData;
    if (this.additional.length > 0) {
      body.additional_errors = this.additional.map((e) => ({ code: e.code, message: e.message, data: e.data }));
    }
    return body;
  }
}

/** Type guard for values a permission check or handler may return instead of throwing. */
export function isRestError(value: unknown): value is RestError {
  return value instanceof RestError;
}

/** `rest_authorization_required_code()`: 401 when nobody is logged in, 403 otherwise. */
export function authorizationRequiredCode(userId: number): 401 | 403 {
  return userId > 0 ? 403 : 401;
}
