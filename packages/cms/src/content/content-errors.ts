/**
 * An error of a content operation in WordPress's terms: a code (`empty_content`, `invalid_date`, ...),
 * its message and the HTTP status the REST API answers with. The REST layer turns it into a RestError.
 */
export class ContentError extends Error {
  readonly code: string;
  readonly status: number;
  readonly data: Record<string, unknown>;

  constructor(code: string, message: string, status = 400, data: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ContentError';
    this.code = code;
    this.status = status;
    this.data = data;
  }
}
