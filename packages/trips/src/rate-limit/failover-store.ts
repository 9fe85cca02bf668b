import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Logger, Redis } from '@svc/platform';
import { LocalWindows, type WindowCount } from './local-windows.ts';

/** How long a node counts on its own after Redis failed before one request tries Redis again. */
export const REDIS_RETRY_AFTER_MS = 5000;

/**
 * INCR with the window's expiry set on the first request, answering the count and the ms left. The keys and
 * their meaning are those of @fastify/rate-limit's own Redis store (`<nameSpace><key>`, fixed windows), so
 * nodes of an older release share the counters during a rolling upgrade. A key found without an expiry (never
 * left by this script, but possible after a manual PERSIST) gets one rather than limiting its token for good.
 */
const INCR_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

interface RateLimitClient {
  tripsRateLimitIncr(key: string, windowMs: number): Promise<[number, number]>;
}

/** Where a request is counted: in Redis, by the one request that probes Redis after a failure, or here. */
type Route = 'redis' | 'probe' | 'local';

/** Where a node's rate-limit counters are: shared in Redis, or (while Redis fails) in this process. */
export type RateLimitMode = 'redis' | 'local';

/**
 * The circuit breaker in front of one Redis client, shared by every rate limit that uses that client (the API
 * and the ingest endpoint of both environments in one process): after a failure the node counts on its own and
 * leaves Redis alone for REDIS_RETRY_AFTER_MS, then lets one request try it. A Redis that holds the connection
 * but does not answer so costs one request the command timeout per pause and per process, not every request.
 */
export class RateLimitCircuit {
  mode: RateLimitMode = 'redis';
  /** Requests that asked Redis and got an error or no answer in time (each of them waited up to the timeout). */
  failures = 0;
  /** When this node started counting on its own (epoch ms); undefined in 'redis' mode. */
  localSinceMs: number | undefined;
  private retryAtMs = 0;
  /** While a probe is out, until when it is waited for (a probe the client never answers must not block others). */
  private probeUntilMs = 0;

  constructor(private readonly retryAfterMs = REDIS_RETRY_AFTER_MS) {}

  /** Decides where this request is counted (and, when it is the probe, that no other request probes meanwhile). */
  route(nowMs: number): Route {
    if (this.mode === 'redis') return 'redis';
    if (nowMs < this.retryAtMs || nowMs < this.probeUntilMs) return 'local';
    this.probeUntilMs = nowMs + this.retryAfterMs;
    return 'probe';
  }

  /** Redis answered. Only a probe closes the circuit: a late answer to a request sent before the failure does not. */
  answered(route: Route, logger: Logger, nowMs: number): void {
    if (route !== 'probe') return;
    this.probeUntilMs = 0;
    if (this.mode === 'local') {
      const localForS = Math.round((nowMs - (this.localSinceMs ?? nowMs)) / 1000);
      this.mode = 'redis';
      this.localSinceMs = undefined;
      logger.info({ localForS }, 'rate limits: Redis answers again, counters are shared through it again');
    }
  }

  /** Redis failed or did not answer in time: count here, and leave Redis alone for a while. */
  failed(route: Route, err: unknown, logger: Logger, nowMs: number): void {
    this.failures++;
    if (route === 'probe') this.probeUntilMs = 0;
    this.retryAtMs = nowMs + this.retryAfterMs;
    if (this.mode === 'redis') {
      this.mode = 'local';
      this.localSinceMs = nowMs;
      // The reason only: an ioredis error may carry the command's arguments, which hold the token's id.
      const reason = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err).slice(0, 200);
      logger.warn(
        { reason, retryAfterS: this.retryAfterMs / 1000 },
        'rate limits: Redis failed, this node counts them on its own (same limits, per node) until Redis answers again',
      );
    }
  }
}

const circuits = new WeakMap<Redis, RateLimitCircuit>();

/** The circuit breaker of a Redis client's rate limits (one per client, made on first use). */
export function rateLimitCircuitOf(redis: Redis): RateLimitCircuit {
  let circuit = circuits.get(redis);
  if (!circuit) {
    circuit = new RateLimitCircuit();
    circuits.set(redis, circuit);
  }
  return circuit;
}

export interface FailoverStoreOptions {
  redis: Redis;
  /** Prefix of the keys (the plugin's `nameSpace`, e.g. `trips:sandbox:rate:`). */
  nameSpace: string;
  /** Where the switch to local counters and back is logged, once each. */
  logger: Logger;
  clock?: () => number;
}

/**
 * A store for @fastify/rate-limit (its `store` option) that counts in Redis while Redis answers and in this
 * process while it does not, with the same limits and windows, so the plugin's headers and 429s are the same in
 * both modes. Replaces `redis` + `skipOnError`, which served every request without any limit during an outage
 * and let each request wait for a Redis that did not answer.
 */
export function failoverRateLimitStore(options: FailoverStoreOptions): FastifyRateLimitStoreCtor {
  const { redis, logger } = options;
  const clock = options.clock ?? Date.now;
  const circuit = rateLimitCircuitOf(redis);
  const client = redis as unknown as Partial<RateLimitClient>;
  if (typeof client.tripsRateLimitIncr !== 'function') {
    redis.defineCommand('tripsRateLimitIncr', { numberOfKeys: 1, lua: INCR_SCRIPT });
  }
  const incrInRedis = (key: string, windowMs: number) => (client as RateLimitClient).tripsRateLimitIncr(key, windowMs);
  const local = new LocalWindows();

  class FailoverStore implements FastifyRateLimitStore {
    private readonly prefix: string;

    constructor(params: FastifyRateLimitOptions | string) {
      if (typeof params === 'string') {
        this.prefix = params;
        return;
      }
      const { continueExceeding, exponentialBackoff } = params as {
        continueExceeding?: boolean;
        exponentialBackoff?: boolean;
      };
      if (continueExceeding || exponentialBackoff) {
        throw new Error('the failover rate-limit store counts fixed windows only');
      }
      this.prefix = options.nameSpace;
    }

    incr(key: string, callback: (error: Error | null, result?: WindowCount) => void, timeWindow: number): void {
      const fullKey = this.prefix + key;
      const route = circuit.route(clock());
      if (route === 'local') {
        callback(null, local.incr(fullKey, timeWindow, clock()));
        return;
      }
      incrInRedis(fullKey, timeWindow).then(
        ([current, ttl]) => {
          const now = clock();
          circuit.answered(route, logger, now);
          local.remember(fullKey, current, ttl, now);
          callback(null, { current, ttl });
        },
        (err: unknown) => {
          const now = clock();
          circuit.failed(route, err, logger, now);
          callback(null, local.incr(fullKey, timeWindow, now));
        },
      );
    }

    /** A route with its own `config.rateLimit` counts under its method and URL, as the plugin's stores do. */
    child(routeOptions: unknown): FastifyRateLimitStore {
      const info = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
      return new FailoverStore(`${this.prefix}${String(info?.method)}${String(info?.url)}-`);
    }
  }
  return FailoverStore as unknown as FastifyRateLimitStoreCtor;
}

/** Whether Redis answers PING within a second (a reconnecting client would otherwise hold the probe). */
async function answers(redis: Redis): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), 1000);
  });
  try {
    return await Promise.race([redis.ping().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** What `/readyz` says while Redis does not answer. */
export const REDIS_DOWN =
  'rate limits: Redis does not answer, so this node counts them on its own (the same limits, per node)';
/** What `/readyz` says once Redis answers again but no request has found it back yet. */
export const REDIS_NOT_BACK_YET =
  'rate limits: Redis answers again; this node counts them on its own until its next request tries Redis';

/**
 * The readiness report of rate limits kept in Redis: nothing while they are shared, one line while this node
 * counts on its own. Redis is reported, not required: the node limits requests either way, so a load balancer
 * must not take every node out of service for it.
 */
export async function rateLimitDegraded(redis: Redis): Promise<string[]> {
  if (!(await answers(redis))) return [REDIS_DOWN];
  return rateLimitCircuitOf(redis).mode === 'local' ? [REDIS_NOT_BACK_YET] : [];
}
