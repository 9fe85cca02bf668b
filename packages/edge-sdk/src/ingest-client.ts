import { parseRetryAfterMs } from './backoff.ts';
import { EdgeSdkConfigError } from './errors.ts';

/**
 * The HTTP side of docs/ingest-protocol.md: one POST per trip with its idempotency key, and the answer sorted
 * into acknowledged (delete the trip), permanent (keep it, stop trying) or transient (try again later).
 */

export type UploadOutcome =
  | { kind: 'acknowledged'; httpStatus: number; serverTripId: string; serverStatus: string }
  | { kind: 'permanent'; httpStatus: number; reason: string }
  | { kind: 'transient'; httpStatus: number | null; reason: string; retryAfterMs?: number };

/** Server-side processing status of an acknowledged trip (`GET /ingest/v1/trips/{tripId}`). */
export interface ServerTripStatus {
  tripId: string;
  status: 'queued' | 'scored' | 'failed';
  reason?: string;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface IngestClientOptions {
  endpoint: string;
  ingestKey: string;
  requestTimeoutMs: number;
  /**
   * The slowest upload rate a trip's upload is given time for, on top of `requestTimeoutMs`: a trip of several
   * MB on a weak link must not time out on every attempt (trips go oldest first, so it would hold back every
   * later one). Default 8 KiB/s, a poor 2G/EDGE link.
   */
  minUploadBytesPerS?: number;
  fetch?: FetchLike;
  userAgent: string;
}

const TRIPS_PATH = '/ingest/v1/trips';

/** See IngestClientOptions.minUploadBytesPerS. */
export const DEFAULT_MIN_UPLOAD_BYTES_PER_S = 8 * 1024;

/** The longest a Node timer holds (2^31 - 1 ms). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class IngestClient {
  private readonly tripsUrl: string;
  private readonly fetch: FetchLike;

  constructor(private readonly options: IngestClientOptions) {
    this.tripsUrl = ingestTripsUrl(options.endpoint);
    if (!/^[\x21-\x7e]+$/.test(options.ingestKey)) {
      throw new EdgeSdkConfigError('ingestKey must be printable ASCII without spaces');
    }
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** POSTs one gzipped TelemetryBatch and classifies the answer; never throws for network trouble. */
  async uploadTrip(clientTripId: string, gzippedJson: Uint8Array, signal?: AbortSignal): Promise<UploadOutcome> {
    const timeoutMs = this.uploadTimeoutMs(gzippedJson.byteLength);
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(this.tripsUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.options.ingestKey}`,
          'idempotency-key': clientTripId,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'user-agent': this.options.userAgent,
        },
        body: gzippedJson,
        // A redirect would turn the POST into a GET: an endpoint that redirects is misconfigured.
        redirect: 'manual',
        signal: this.signal(signal, timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return { kind: 'transient', httpStatus: null, reason: networkReason(error, timeoutMs) };
    }
    const status = response.status;
    const body = parseJson(text);
    const serverError = typeof body?.error === 'string' ? body.error : text.slice(0, 200).trim();

    if (status === 200 || status === 202) {
      if (body?.ok === true && typeof body.tripId === 'string') {
        const serverStatus = typeof body.status === 'string' ? body.status : status === 202 ? 'queued' : 'duplicate';
        return { kind: 'acknowledged', httpStatus: status, serverTripId: body.tripId, serverStatus };
      }
      // Captive portals and misrouted proxies answer 200 with HTML: that is not the server having the trip.
      return { kind: 'transient', httpStatus: status, reason: `HTTP ${status} without an ingest acknowledgement` };
    }
    const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), Date.now());
    if (status === 408 || status === 429 || status >= 500) {
      const reason = `HTTP ${status}${serverError ? `: ${serverError}` : ''}`;
      return retryAfterMs === undefined
        ? { kind: 'transient', httpStatus: status, reason }
        : { kind: 'transient', httpStatus: status, reason, retryAfterMs };
    }
    if (status >= 300 && status < 400) {
      return {
        kind: 'permanent',
        httpStatus: status,
        reason: `HTTP ${status}: the endpoint redirects (to ${response.headers.get('location') ?? '?'}); configure the final URL`,
      };
    }
    return { kind: 'permanent', httpStatus: status, reason: `HTTP ${status}${serverError ? `: ${serverError}` : ''}` };
  }

  /** Asks the server how an acknowledged trip is doing (queued, scored, failed). */
  async serverTripStatus(serverTripId: string, signal?: AbortSignal): Promise<ServerTripStatus> {
    const response = await this.fetch(`${this.tripsUrl}/${encodeURIComponent(serverTripId)}`, {
      method: 'GET',
      headers: { authorization: `Bearer ${this.options.ingestKey}`, 'user-agent': this.options.userAgent },
      signal: this.signal(signal),
    });
    const body = parseJson(await response.text());
    if (!response.ok || body?.ok !== true || typeof body.status !== 'string') {
      const error = typeof body?.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new Error(`status of trip ${serverTripId}: ${error}`);
    }
    const result: ServerTripStatus = { tripId: serverTripId, status: body.status as ServerTripStatus['status'] };
    if (typeof body.reason === 'string') result.reason = body.reason;
    return result;
  }

  /** The time an upload of this many bytes is given: the request timeout plus its sending at the slowest rate. */
  uploadTimeoutMs(bytes: number): number {
    const rate = this.options.minUploadBytesPerS ?? DEFAULT_MIN_UPLOAD_BYTES_PER_S;
    return Math.min(MAX_TIMEOUT_MS, this.options.requestTimeoutMs + Math.ceil((bytes / rate) * 1000));
  }

  private signal(outer?: AbortSignal, timeoutMs = this.options.requestTimeoutMs): AbortSignal {
    const timeout = AbortSignal.timeout(timeoutMs);
    return outer ? AbortSignal.any([outer, timeout]) : timeout;
  }
}

/** The trips URL for an endpoint given as a base (`http://host:3100`) or as the full trips URL. */
export function ingestTripsUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new EdgeSdkConfigError(
      `endpoint ${JSON.stringify(endpoint)} is not a URL (e.g. https://ingest.example.com:3100)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EdgeSdkConfigError(`endpoint ${endpoint} must be http or https`);
  }
  const base = url.pathname.replace(/\/+$/, '');
  const pathname = base.endsWith(TRIPS_PATH) ? base : `${base}${TRIPS_PATH}`;
  return `${url.origin}${pathname}`;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function networkReason(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (err?.name === 'AbortError') return 'upload aborted (SDK closing)';
  const cause = err?.cause?.code ?? err?.cause?.message;
  return `network error: ${cause ?? err?.message ?? String(error)}`;
}
