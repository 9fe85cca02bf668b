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

/** The router's bound on one path segment (Fastify's maxParamLength) of the API and ingest apps. */
export const MAX_PATH_SEGMENT = 512;

/**
 * The message of a request refused before routing (Fastify's frameworkErrors): a path segment longer than the
 * router takes, or a malformed percent-encoding. Fastify's own message quotes the whole URL, which made a 3 KB
 * answer out of a 3,000-character plate and called it "not a valid url component".
 */
export function routingErrorMessage(err: Error, url: string): string {
  const path = url.split('?')[0] ?? '';
  if (path.split('/').some((segment) => segment.length > MAX_PATH_SEGMENT)) {
    return `malformed request: a path segment is longer than ${MAX_PATH_SEGMENT} characters, which no id or plate is`;
  }
  return `malformed request: ${err.message.length > 200 ? `${err.message.slice(0, 200)}...` : err.message}`;
}
