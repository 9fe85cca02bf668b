/** Retry timing for uploads. */
export interface RetryPolicy {
  /** First retry waits up to this long. */
  baseDelayMs: number;
  /** Ceiling of the exponential window; a vehicle offline for hours retries at this pace. */
  maxDelayMs: number;
  /** A server's Retry-After is honoured up to this long (guards against a misconfigured proxy saying "a week"). */
  maxRetryAfterMs: number;
  /** Attempts per trip before it is marked failed; Infinity (default) keeps trying while the SDK runs. */
  maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  baseDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  maxRetryAfterMs: 60 * 60_000,
  maxAttempts: Number.POSITIVE_INFINITY,
});

/**
 * Delay before retry number `failures` (1 = after the first failure): "full jitter", a uniform draw in
 * [0, min(max, base * 2^(failures-1))], so a fleet that lost the network together does not come back in
 * lock-step. A Retry-After from the server is a floor.
 */
export function retryDelayMs(
  failures: number,
  policy: RetryPolicy,
  random: () => number,
  retryAfterMs?: number,
): number {
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
  const jittered = Math.floor(random() * window);
  if (retryAfterMs === undefined) return jittered;
  return Math.max(Math.min(retryAfterMs, policy.maxRetryAfterMs), jittered);
}

/**
 * Parses a Retry-After header (delta-seconds or an HTTP date, RFC 9110 §10.2.3) into milliseconds from
 * `nowMs`; undefined when absent or unreadable.
 */
export function parseRetryAfterMs(header: string | null | undefined, nowMs: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only an HTTP date has letters (day and month names); "-5" or "1.5" are not dates, whatever Date.parse says.
  if (!/^[A-Za-z]{3},? /.test(value)) return undefined;
  const dateMs = Date.parse(value);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, dateMs - nowMs);
}
