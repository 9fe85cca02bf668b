/** An error answered to an API client as `{ ok: false, error }` with this HTTP status. */
export class ApiError extends Error {
  readonly statusCode: number;

  constructor(statusCode: 400 | 401 | 403 | 404 | 413 | 429 | 500 | 503, message: string) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
  }
}

/** 400 with a message naming the parameter. */
export const badRequest = (message: string) => new ApiError(400, message);
/** 404, the same for "absent" and "outside your scope". */
export const notFound = (message: string) => new ApiError(404, message);
