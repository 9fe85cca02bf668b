import { Redis } from 'ioredis';
import { DomainError } from './errors.ts';
import { redactUrl } from './logger.ts';

export type { Redis } from 'ioredis';

/** Redis cannot be reached at start-up. */
export class RedisUnavailableError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('redis_unavailable', message, options);
  }
}

/**
 * Connects to Redis and waits until it answers PING (fails fast with a one-line error otherwise).
 * After start-up the client reconnects by itself; a command issued while it is not connected fails at
 * once, and one Redis does not answer fails after `commandTimeoutMs`, so callers that can do without
 * Redis (the rate limits) go on at once rather than wait for the reconnection attempts.
 */
export async function connectRedis(
  url: string,
  options: { keyPrefix?: string; connectTimeoutMs?: number; commandTimeoutMs?: number } = {},
) {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    // A queued command waited for up to three reconnection attempts (5-15 s per request seen while
    // Redis restarted), for counters that are skipped on error anyway.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
  });
  // Errors are reported to callers through rejected commands; an unhandled 'error' event would crash.
  // The last one is kept: when the connection fails, connect() itself only says "Connection is closed."
  let lastError: unknown;
  client.on('error', (err: unknown) => {
    lastError = err;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    const reason = describeConnectionFailure(lastError ?? err);
    throw new RedisUnavailableError(`cannot connect to Redis at ${redactUrl(url)}: ${reason}`, { cause: err });
  }
  return client;
}

const NETWORK_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** Why a connection failed, in one line: a network error by its code, anything else by its message. */
function describeConnectionFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code && NETWORK_FAILURES[code]) return `${NETWORK_FAILURES[code]} (${code})`;
  return err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
}
