import { constants as zlibConstants } from 'node:zlib';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import {
  createHttpApp,
  DatabaseUnavailableError,
  type HttpMetrics,
  type Logger,
  type Redis,
  registerOpsRoutes,
  ValueNotStorableError,
} from '@svc/platform';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Environment } from '../environment.ts';
import { failoverRateLimitStore, rateLimitDegraded } from '../rate-limit/failover-store.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import { inlineWindowReads, type WindowReads } from '../store/window-reads.ts';
import { ApiError, MAX_PATH_SEGMENT, routingErrorMessage } from './api-error.ts';
import { type ConfirmScope, confirmScope, type RequestScope, resolveScope } from './auth.ts';
import { registerDriverRoutes } from './driver-routes.ts';
import { registerFleetRoutes } from './fleet-routes.ts';
import { type ServerUrls, servedOpenApiText } from './openapi-document.ts';
import { registerTripRoutes } from './trip-routes.ts';
import { registerVehicleRoutes } from './vehicle-routes.ts';

/**
 * How responses are compressed (README, "Compression"; measured with `BENCH_ONLY=read npm run bench`, which
 * also loads the API as a browser asks). A body up to 64 KiB (a page of trips, a breakdown, a list of
 * vehicles) is compressed in one call on the event loop and sent with its Content-Length: on 2 CPUs the
 * plugin's default (a zlib stream on libuv's thread pool above 8 KiB) cost 1.5-2.2 ms of CPU per 26 KB page,
 * against ~0.5 ms in one call. Larger bodies (routes) still stream, off the event loop. Brotli at quality 2
 * and gzip/deflate at level 3: on pages of 100 trips ~45 % less CPU than quality 4 and level 6 for 6-9 %
 * more bytes (18.5 KB pages: br 2,277 against 2,151 B, gzip 2,561 against 2,359 B).
 */
const COMPRESSION = {
  syncThreshold: 64 * 1024,
  brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 2 } },
  zlibOptions: { level: 3 },
};

/** Default requests per minute per token (a token may carry its own). */
export const DEFAULT_RATE_LIMIT_PER_MIN = 1200;

export interface ApiAppOptions {
  environment: Environment;
  database: TripsDatabase;
  logger: Logger;
  clock?: () => number;
  /** Requests per minute per token; counters in Redis when `redis` is given, else in this process. */
  rateLimit?: { perMinute?: number; redis?: Redis | undefined };
  metrics?: HttpMetrics;
  /** Extra readiness check besides the database (e.g. Redis). */
  readiness?: () => Promise<void>;
  /** Bearer token `GET /metrics` requires (METRICS_TOKEN); loopback clients only without one. */
  metricsToken?: string | undefined;
  /** How long a request may take to arrive whole (REQUEST_TIMEOUT_MS, createHttpApp's requestTimeoutMs). */
  requestTimeoutMs?: number;
  /** How long writing a large answer may make no progress (RESPONSE_IDLE_TIMEOUT_MS, createHttpApp's). */
  responseIdleTimeoutMs?: number;
  /** Browser origins allowed to call the API (TRIPS_CORS_ORIGINS), or `*`; no CORS when empty. */
  corsOrigins?: string[] | undefined;
  /**
   * Where the vehicle, driver and fleet lists and profiles are read: reader threads (threadWindowReads) for a
   * server on a SQLite file; by default on `database`'s connection.
   */
  windowReads?: WindowReads;
  /** Base URLs of the two environments the served OpenAPI document names (default: its own, ports 3000/3001). */
  serverUrls?: ServerUrls;
}

/**
 * The public read API of one environment: `/v1` (GET only, bearer token, fleet scope in every query,
 * per-token rate limit), the OpenAPI document at `/openapi.json`, and the ops routes. Listening is the
 * caller's job (`serve()` or `inject()` in tests).
 */
export async function buildApiApp(options: ApiAppOptions): Promise<FastifyInstance> {
  const { database, environment } = options;
  const clock = options.clock ?? Date.now;
  const app = createHttpApp({
    logger: options.logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.responseIdleTimeoutMs !== undefined ? { responseIdleTimeoutMs: options.responseIdleTimeoutMs } : {}),
    // Every answer of the API is `{ ok, error }` with one of the statuses of the specification (400, 401, 403, 404,
    // 429, 500), also where no route runs: a request the HTTP parser refuses (Fastify would send 431 or 408 in its
    // own shape) and one that arrives while this node shuts down (Fastify's 503).
    clientError: (problem) => ({ statusCode: 400, body: { ok: false, error: problem.message } }),
    closing: {
      statusCode: 500,
      body: {
        ok: false,
        error: 'this node is shutting down; retry the request (it goes to another node or to this one restarted)',
      },
      retryAfterS: 1,
    },
    fastify: {
      routerOptions: { maxParamLength: MAX_PATH_SEGMENT, ignoreTrailingSlash: true },
      // Errors found before routing, e.g. a malformed percent-encoding in the path.
      frameworkErrors: (err, req, reply) => {
        void (reply as unknown as FastifyReply).code(400).send({ ok: false, error: routingErrorMessage(err, req.url) });
      },
    },
  });
  app.decorateRequest('scope', null);
  // Nothing read for a scope taken from the token cache goes out before the scope was confirmed (see
  // confirmScope): a route that would answer without confirming is a bug, answered with a 500 instead of the
  // data. Registered before the compression plugin, so it sees the handler's own payload.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (req.scope?.verified === false && reply.statusCode < 400) {
      req.log.error({ route: req.routeOptions.url }, 'a response for an unconfirmed token scope was withheld');
      reply.code(500);
      reply.removeHeader('etag');
      reply.removeHeader('cache-control');
      reply.type('application/json; charset=utf-8');
      done(null, internalErrorBody(req));
      return;
    }
    done(null, payload);
  });
  // Response compression for clients that ask for it (Accept-Encoding: br, gzip or deflate; every browser and
  // most HTTP libraries do): a page of 100 trips is ~26 KB of JSON and ~3.5 KB compressed, a route's GeoJSON
  // often hundreds of KB. Bodies under 1 KB (errors, small pages) go out as they are, and so does everything
  // for a client that does not ask. The API takes no request bodies, so request decompression stays off.
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: 1024,
    ...COMPRESSION,
  });
  compressHeadLikeGet(app);
  const origins = options.corsOrigins ?? [];
  if (origins.length > 0) {
    // A dashboard in a browser on another origin: GET with the token and x-fleet-id, reading the
    // rate-limit headers. No cookies are involved (bearer tokens), so no credentials mode. A preflight
    // is answered 204 before any hook of /v1 (it carries no token); an OPTIONS that is not a preflight
    // gets a 204 that allows no origin (strictPreflight off: the plugin's own 400 would be plain text).
    await app.register(cors, {
      origin: origins.includes('*') ? '*' : origins,
      methods: ['GET', 'HEAD'],
      allowedHeaders: ['authorization', 'x-fleet-id', 'x-request-id', 'if-none-match'],
      exposedHeaders: [
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'retry-after',
        'x-request-id',
        'www-authenticate',
        'etag',
      ],
      maxAge: 600,
      strictPreflight: false,
    });
  }

  app.setErrorHandler(
    async (err: FastifyError | ApiError | ValueNotStorableError | DatabaseUnavailableError, req, reply) => {
      // An error found for a scope taken from the token cache (a trip not found, a bad parameter, a rate
      // limit) is answered only once the token is confirmed, and a token that no longer passes gets its own
      // 401, 403 or 404 instead, as when the token is checked first.
      if (req.scope?.verified === false) {
        try {
          await confirmScope(req, database.db, environment, clock());
        } catch (authErr) {
          req.scope = null;
          return sendError(authErr as ApiError, req, reply);
        }
      }
      return sendError(err, req, reply);
    },
  );
  app.setNotFoundHandler((req, reply) => sendNotFound(req, reply));

  const sharedLimits = options.rateLimit?.redis;
  registerOpsRoutes(app, {
    readiness: async () => {
      await database.ping();
      await options.readiness?.();
    },
    // While Redis is down each node limits requests on its own (the failover store below), so Redis is
    // reported, not required: a load balancer probing /readyz must not take every node out of service for it.
    ...(sharedLimits ? { degraded: () => rateLimitDegraded(sharedLimits) } : {}),
    metricsToken: options.metricsToken,
  });
  const openApi = servedOpenApiText(options.serverUrls ?? {});
  app.get('/openapi.json', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return reply.type('application/json; charset=utf-8').send(openApi);
  });

  await app.register(
    async (v1) => {
      v1.addHook('onRequest', async (req) => {
        req.scope = await resolveScope(
          req,
          database.db,
          environment,
          clock(),
          req.routeOptions.config.optimisticAuth === true,
        );
      });
      await v1.register(rateLimit, {
        global: true,
        hook: 'preHandler',
        timeWindow: 60_000,
        // Plain functions: the plugin awaits their result either way, and an async one costs a promise more.
        max: (req) => req.scope?.rateLimitPerMin ?? options.rateLimit?.perMinute ?? DEFAULT_RATE_LIMIT_PER_MIN,
        keyGenerator: (req) => req.scope?.tokenId ?? `ip:${req.ip}`,
        // Shared through Redis; while Redis fails, counted by this node alone with the same limits (not
        // served unlimited, and not waiting for a Redis that does not answer: see failover-store.ts).
        ...(sharedLimits
          ? {
              store: failoverRateLimitStore({
                redis: sharedLimits,
                nameSpace: `trips:${environment}:rate:`,
                logger: options.logger,
                clock,
              }),
            }
          : {}),
        errorResponseBuilder: (_req, context) =>
          rateLimitExceeded(context.max, Math.max(1, Math.ceil(context.ttl / 1000))),
      });
      const limitOf = (scope: RequestScope) =>
        scope.rateLimitPerMin ?? options.rateLimit?.perMinute ?? DEFAULT_RATE_LIMIT_PER_MIN;
      const confirm: ConfirmScope = async (req, reply, observedVersion) => {
        const before = req.scope;
        if (await confirmScope(req, database.db, environment, clock(), observedVersion)) return true;
        // The token changed since it was cached. Its rate limit was applied from the cache: a new limit
        // counts from this request on, as it would have had the token been read first.
        const after = req.scope;
        if (before && after && limitOf(after) !== limitOf(before)) {
          const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
          if (Number.isFinite(remaining)) {
            const used = limitOf(before) - remaining;
            const max = limitOf(after);
            const resetS = Number(reply.getHeader('x-ratelimit-reset'));
            if (used > max) {
              const retry = Math.max(1, Number.isFinite(resetS) ? resetS : 60);
              reply.header('retry-after', String(retry));
              reply.header('x-ratelimit-limit', String(max));
              reply.header('x-ratelimit-remaining', '0');
              throw rateLimitExceeded(max, retry);
            }
            reply.header('x-ratelimit-limit', String(max));
            reply.header('x-ratelimit-remaining', String(max - used));
          }
        }
        return false;
      };
      registerTripRoutes(v1, { database, clock, confirm });
      const reads = options.windowReads ?? inlineWindowReads(database.db);
      registerVehicleRoutes(v1, { database, clock, reads });
      registerDriverRoutes(v1, { database, clock, reads });
      registerFleetRoutes(v1, { database, clock, reads });
    },
    { prefix: '/v1' },
  );
  return app;
}

/**
 * A HEAD request answered with the headers its GET would get, compression included. Fastify answers HEAD
 * on a GET route by running the route and dropping the body in an onSend handler it appends to the route; the
 * compression plugin appends its own after it (in onRoute), so it saw no body and a HEAD with
 * `Accept-Encoding: gzip` got the uncompressed length and no Content-Encoding, where RFC 9110 (9.3.2, 8.6)
 * wants the GET's fields and allows no other Content-Length. Moving Fastify's handler last lets compression
 * run first; the HEAD is then compressed for nothing, a cost only HEAD requests pay. Must be added after the
 * compression plugin, whose onRoute hook it follows. Fastify's handler is known by its name
 * (lib/head-route.js); test/compression.test.ts fails if a Fastify release changes it.
 */
function compressHeadLikeGet(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD' || !Array.isArray(route.onSend)) return;
    const handlers = route.onSend;
    const at = handlers.findIndex((handler) => handler.name === 'headRouteOnSendHandler');
    if (at >= 0 && at < handlers.length - 1) handlers.push(...handlers.splice(at, 1));
  });
}

/** The 429 of a token over its limit (`max` requests a minute), retrying after `retryS` seconds. */
function rateLimitExceeded(max: number, retryS: number): ApiError {
  return new ApiError(429, `rate limit exceeded: ${max} requests per minute for this token; retry in ${retryS} s`);
}

/** No route: an unknown endpoint, or a method other than GET on a `/v1` path (the API is read-only). */
function sendNotFound(req: FastifyRequest, reply: FastifyReply) {
  const path = req.url.split('?')[0] ?? req.url;
  const message =
    req.method !== 'GET' && req.method !== 'HEAD' && path.startsWith('/v1/')
      ? `${req.method} is not supported: the API is read-only, use GET`
      : `no such endpoint: ${req.method} ${path.slice(0, 200)} (see /openapi.json)`;
  return reply.code(404).send({ ok: false, error: message });
}

/** Every error becomes `{ ok: false, error }` with one of the documented statuses; a 500 hides its cause. */
function sendError(
  err: FastifyError | ApiError | ValueNotStorableError | DatabaseUnavailableError,
  req: FastifyRequest,
  reply: FastifyReply,
) {
  // A request without a route fails in body parsing (malformed JSON, too large) before reaching the
  // not-found handler: it still gets that 404, not a 400 about a body no endpoint would read.
  if (req.is404) return sendNotFound(req, reply);
  if (err instanceof ApiError) {
    if (err.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="trips"');
    return reply.code(err.statusCode).send({ ok: false, error: err.message });
  }
  // A value the store cannot hold (PostgreSQL: U+0000 in text, a number out of its column's range, ...) that got
  // past the parameter checks is still the client's: a 400, not a logged 500.
  if (err instanceof ValueNotStorableError) {
    return reply
      .code(400)
      .send({ ok: false, error: `a value in the request is not one the store can hold (${err.message})` });
  }
  // The database out of reach (restarting, failing over): the specification's statuses stop at 500, so a 500 that
  // says to retry, with Retry-After, rather than the ingest endpoint's 503 (a client built on the specification
  // knows no 503). It is no fault of the request, and the message says so.
  if (err instanceof DatabaseUnavailableError) {
    req.log.error({ err }, 'database unavailable');
    reply.header('retry-after', '5');
    return reply.code(500).send({
      ok: false,
      error: 'the store is unavailable for a moment (nothing is wrong with the request); retry with back-off',
    });
  }
  const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Framework-level client errors (unparseable body, unsupported media type, ...) are bad requests.
    const code = status === 404 || status === 429 ? status : 400;
    return reply.code(code).send({ ok: false, error: err.message || 'bad request' });
  }
  req.log.error({ err }, 'unhandled error');
  return reply.code(500).type('application/json; charset=utf-8').send(internalErrorBody(req));
}

function internalErrorBody(req: FastifyRequest): string {
  return JSON.stringify({
    ok: false,
    error: `internal error; it was logged with request id ${req.id}, quote it when reporting`,
  });
}
