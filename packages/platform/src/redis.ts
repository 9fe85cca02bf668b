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
 * After start-up the client reconnects by itself; commands issued while it is down fail quickly
 * instead of queueing without bound.
 */
export async function connectRedis(url: string, options: { keyPrefix?: string; connectTimeoutMs?: number } = {}) {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
  });
  // Errors are reported to callers through rejected commands; an unhandled 'error' event would crash.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    const reason = err instanceof Error ? err.message : String(err);
    throw new RedisUnavailableError(`cannot connect to Redis at ${redactUrl(url)}: ${reason}`, { cause: err });
  }
  return client;
}
