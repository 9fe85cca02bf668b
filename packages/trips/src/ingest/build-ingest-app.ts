import { createGunzip } from 'node:zlib';
import rateLimit from '@fastify/rate-limit';
import {
  createHttpApp,
  DomainError,
  type HttpMetrics,
  type Logger,
  type Redis,
  registerOpsRoutes,
  ValueNotStorableError,
} from '@svc/platform';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, MAX_PATH_SEGMENT, routingErrorMessage } from '../api/api-error.ts';
import type { Environment } from '../environment.ts';
import { ForbiddenError, IdempotencyConflictError, InvalidInputError, UnauthenticatedError } from '../errors.ts';
import { TRIP_ID_PATTERN } from '../ids.ts';
import { failoverRateLimitStore, rateLimitDegraded } from '../rate-limit/failover-store.ts';
import { authenticateIngestKey, type IngestPrincipal } from '../store/ingest-keys.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import { acceptUpload, RawUploadBody } from './accept-upload.ts';
import { BodyBudget } from './body-budget.ts';
import type { PipelineMetrics } from './pipeline-metrics.ts';
import { inlineUploadPreparer, type UploadPreparer } from './upload-preparer.ts';

/** Default uploads per minute per ingest key. */
export const DEFAULT_INGEST_RATE_LIMIT_PER_MIN = 6000;
/** Default largest body, after decompression: a long trip with 50 Hz IMU fits with room to spare. */
export const DEFAULT_INGEST_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

export interface IngestAppOptions {
  environment: Environment;
  database: TripsDatabase;
  logger: Logger;
  clock?: () => number;
  bodyLimitBytes?: number;
  /**
   * How long an upload may take to arrive whole (createHttpApp's requestTimeoutMs, REQUEST_TIMEOUT_MS); past it
   * the connection is cut with 408 and the bytes it held go back to the budget.
   */
  requestTimeoutMs?: number;
  /** How long writing a large answer may make no progress (RESPONSE_IDLE_TIMEOUT_MS, createHttpApp's). */
  responseIdleTimeoutMs?: number;
  /** Bytes of upload bodies held at once (BodyBudget); default eight times the body limit. */
  bodyBudgetBytes?: number;
  /** Called after each new upload is committed (wakes the scoring worker of this process). */
  onQueued?: (tripId: string) => void;
  rateLimit?: { perMinute?: number; redis?: Redis | undefined };
  metrics?: HttpMetrics;
  /** Where acknowledged uploads are counted (pipeline-metrics.ts, registered on `metrics`' registry). */
  pipelineMetrics?: PipelineMetrics;
  /** Bearer token `GET /metrics` requires (METRICS_TOKEN); loopback clients only without one. */
  metricsToken?: string | undefined;
  /**
   * What keeps this node's scoring worker paused, or null (ScoringWorker.storeFault): `/readyz` is then 200 with
   * `status: "degraded"` and the reason, since uploads may still be taken (a full disk refuses them with 503 anyway).
   */
  scoringPausedBy?: () => string | null;
  /**
   * Where uploads are parsed, checked and compressed (upload-preparer.ts): a server passes its ingest threads,
   * so that no upload holds the event loop; by default the calling thread (tests).
   */
  preparer?: UploadPreparer;
}

declare module 'fastify' {
  interface FastifyRequest {
    ingestKey: IngestPrincipal | null;
  }
}

interface ParsedBody {
  format: 'json' | 'ndjson';
  bytes: Buffer;
}

const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;

/** What `/readyz` says, before the store's own words, while the scoring worker is paused by a store fault. */
export const SCORING_PAUSED =
  'scoring: the store is failing, so scoring pauses and tries again (trips keep their attempts)';

/**
 * The private ingest endpoint (docs/ingest-protocol.md): `POST /ingest/v1/trips` takes one upload's
 * telemetry (JSON or NDJSON, optionally gzip): one trip, or a day's drives stored as one trip each
 * (accept-upload.ts). It answers only after they are stored and queued, and is idempotent per
 * `Idempotency-Key`; `GET /ingest/v1/trips/{tripId}` reports a trip's scoring status.
 */
export async function buildIngestApp(options: IngestAppOptions): Promise<FastifyInstance> {
  const { database, environment } = options;
  const clock = options.clock ?? Date.now;
  const preparer = options.preparer ?? inlineUploadPreparer;
  const app = createHttpApp({
    logger: options.logger,
    bodyLimit: options.bodyLimitBytes ?? DEFAULT_INGEST_BODY_LIMIT_BYTES,
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.responseIdleTimeoutMs !== undefined ? { responseIdleTimeoutMs: options.responseIdleTimeoutMs } : {}),
    // `{ ok, error }` also where no route runs (see docs/ingest-protocol.md): a request the HTTP parser refuses, and
    // one that arrives while this node shuts down (retried as any 503: nothing of it was stored).
    clientError: (problem) => ({ statusCode: problem.statusCode, body: { ok: false, error: problem.message } }),
    closing: {
      statusCode: 503,
      body: { ok: false, error: 'this node is shutting down; nothing was stored: retry the upload' },
      retryAfterS: 2,
    },
    ...(options.metrics ? { metrics: options.metrics } : {}),
    fastify: {
      routerOptions: { maxParamLength: MAX_PATH_SEGMENT, ignoreTrailingSlash: true },
      frameworkErrors: (err, req, reply) => {
        void (reply as unknown as FastifyReply).code(400).send({ ok: false, error: routingErrorMessage(err, req.url) });
      },
    },
  });
  app.decorateRequest('ingestKey', null);
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_INGEST_BODY_LIMIT_BYTES;
  app.setErrorHandler((err: FastifyError, req, reply) => sendIngestError(err, req, reply, bodyLimitBytes));
  app.setNotFoundHandler((req, reply) => {
    void reply
      .code(404)
      .send({ ok: false, error: `no such endpoint: ${req.method} ${req.url.split('?')[0]?.slice(0, 200)}` });
  });
  const sharedLimits = options.rateLimit?.redis;
  const scoringPausedBy = options.scoringPausedBy;
  registerOpsRoutes(app, {
    readiness: () => database.ping(),
    ...(sharedLimits || scoringPausedBy
      ? {
          degraded: async () => {
            const reasons = sharedLimits ? await rateLimitDegraded(sharedLimits) : [];
            const fault = scoringPausedBy?.();
            if (fault) reasons.push(`${SCORING_PAUSED}: ${fault}`);
            return reasons;
          },
        }
      : {}),
    metricsToken: options.metricsToken,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/x-ndjson'], { parseAs: 'buffer' }, (req, body, done) => {
    const contentType = req.headers['content-type'] ?? '';
    // The body is read as UTF-8: one in another charset would be stored garbled (or refused for a reason that
    // does not say why), so it is refused naming the charset.
    const charset = charsetOf(contentType);
    if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
      done(unsupportedCharset(contentType, charset), undefined);
      return;
    }
    const type = contentType.split(';')[0]!.trim().toLowerCase();
    done(null, { format: type === 'application/x-ndjson' ? 'ndjson' : 'json', bytes: body as Buffer });
  });
  app.addContentTypeParser('*', (req, _payload, done) => {
    done(unsupportedContentType(req));
  });

  await app.register(
    async (ingest) => {
      ingest.addHook('onRequest', async (req) => {
        req.ingestKey = await authenticate(req, database, environment);
      });
      // Decompression happens before the body limit is applied, so a small gzip bomb is still a 413.
      ingest.addHook('preParsing', async (req, _reply, payload) => {
        const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
        if (encoding === 'identity' || encoding === '') return payload;
        if (encoding !== 'gzip' && encoding !== 'x-gzip') {
          throw new ApiError(400, `unsupported Content-Encoding "${encoding.slice(0, 40)}": send gzip or no encoding`);
        }
        const gunzip = createGunzip();
        gunzip.on('error', (err: Error & { statusCode?: number }) => {
          // Registered before Fastify's own listener: a corrupt stream is the client's mistake.
          err.statusCode = 400;
          err.message = `the gzip body cannot be decompressed (${err.message})`;
        });
        payload.on('error', (err) => gunzip.destroy(err));
        const out = payload.pipe(gunzip);
        // The declared Content-Length is the compressed size; Fastify compares it with this.
        (out as unknown as { receivedEncodedLength: number }).receivedEncodedLength = 0;
        payload.on('data', (chunk: Buffer) => {
          (out as unknown as { receivedEncodedLength: number }).receivedEncodedLength += chunk.length;
        });
        return out;
      });
      await ingest.register(rateLimit, {
        global: true,
        // After the key is known (onRequest) and before the body is read: a key over its limit costs no
        // decompression or parsing of what may be a 64 MiB upload.
        hook: 'preParsing',
        timeWindow: 60_000,
        max: options.rateLimit?.perMinute ?? DEFAULT_INGEST_RATE_LIMIT_PER_MIN,
        keyGenerator: (req) => req.ingestKey?.keyId ?? `ip:${req.ip}`,
        // As the API's: shared through Redis, counted by this node alone while Redis fails.
        ...(sharedLimits
          ? {
              store: failoverRateLimitStore({
                redis: sharedLimits,
                nameSpace: `trips:${environment}:ingest-rate:`,
                logger: options.logger,
                clock,
              }),
            }
          : {}),
        errorResponseBuilder: (_req, context) =>
          new ApiError(
            429,
            `rate limit exceeded: ${context.max} uploads per minute for this key; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s`,
          ),
      });

      // After the rate limit: a key over its limit is refused without taking any of the budget.
      const budget = new BodyBudget(options.bodyBudgetBytes ?? 8 * bodyLimitBytes);
      ingest.addHook('preParsing', async (req, reply, payload) => {
        if (req.method !== 'POST') return payload;
        const declared = Number(req.headers['content-length']);
        const gzip = (req.headers['content-encoding'] ?? '').trim() !== '';
        // A gzip body's declared length is its compressed size: it can only say too much, not too little.
        return budget.meter(payload, Number.isFinite(declared) && !gzip ? declared : undefined, (release) =>
          reply.raw.once('close', release),
        );
      });

      ingest.post('/trips', async (req, reply) => {
        const key = req.ingestKey!;
        const idempotencyKey = req.headers['idempotency-key'];
        if (typeof idempotencyKey !== 'string' || idempotencyKey === '') {
          throw new ApiError(400, 'missing Idempotency-Key header: send the client trip id (8-128 characters)');
        }
        // A key holds no comma or space: this is a repeated header, which Node joins with ", ".
        if (idempotencyKey.includes(', ')) {
          throw new ApiError(400, 'Idempotency-Key is given more than once: send one (the client trip id)');
        }
        const parsed = req.body as ParsedBody | undefined;
        if (!parsed) {
          throw new ApiError(
            400,
            'missing body: send a TelemetryBatch as application/json or samples as application/x-ndjson',
          );
        }
        const accepted = await acceptUpload(
          database.db,
          { fleetId: key.fleetId, vehicleId: key.vehicleId, keyId: key.keyId, source: 'ingest' },
          idempotencyKey,
          new RawUploadBody(parsed.bytes, parsed.format),
          clock(),
          preparer,
        );
        if (accepted.status === 'queued') for (const tripId of accepted.tripIds) options.onQueued?.(tripId);
        options.pipelineMetrics?.uploadAccepted(
          accepted.status === 'queued' ? 'stored' : 'duplicate',
          accepted.tripIds.length,
        );
        return reply.code(accepted.status === 'queued' ? 202 : 200).send({
          ok: true,
          tripId: accepted.tripId,
          status: accepted.status,
          tripIds: accepted.tripIds,
          skipped: accepted.skipped,
        });
      });

      ingest.get('/trips/:tripId', async (req: FastifyRequest<{ Params: { tripId: string } }>) => {
        const key = req.ingestKey!;
        const tripId = req.params.tripId;
        if (!TRIP_ID_PATTERN.test(tripId)) throw new ApiError(400, 'malformed trip id: trip ids look like trip_<...>');
        const row = await database.db
          .selectFrom('trip_uploads')
          .select(['trip_id', 'status', 'last_error', 'attempts', 'scored_at_ms', 'upload_trip_id'])
          .where('trip_id', '=', tripId)
          .where('fleet_id', '=', key.fleetId)
          .$if(key.vehicleId !== null, (q) => q.where('vehicle_id', '=', key.vehicleId!))
          .executeTakeFirst();
        if (!row) throw new ApiError(404, `trip ${tripId} not found`);
        // Outside the queue's internals a job being scored is still "queued" for the sender, and a scored trip
        // queued again because an earlier trip of its driver arrived (its fatigue context changed) is "scored":
        // it is served all along, and its score is then replaced in one transaction.
        const waiting = row.status === 'scoring' || row.status === 'queued';
        const status = waiting ? (row.scored_at_ms !== null ? 'scored' : 'queued') : row.status;
        // A trip of an upload split into drives names the upload's trips and what was left out of them, as the
        // answer to the upload did; each trip has its own status.
        const split =
          row.upload_trip_id === null
            ? undefined
            : await database.db
                .selectFrom('split_uploads')
                .select(['trip_ids', 'skipped'])
                .where('trip_id', '=', row.upload_trip_id)
                .executeTakeFirst();
        return {
          ok: true,
          tripId: row.trip_id,
          status,
          ...(row.last_error && status !== 'scored' ? { reason: row.last_error } : {}),
          tripIds: split ? (JSON.parse(split.trip_ids) as string[]) : [row.trip_id],
          skipped: split ? (JSON.parse(split.skipped) as unknown[]) : [],
        };
      });
    },
    { prefix: '/ingest/v1' },
  );
  return app;
}

async function authenticate(req: FastifyRequest, database: TripsDatabase, environment: Environment) {
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    throw new ApiError(401, 'missing Authorization header: send "Authorization: Bearer <ingest key>"');
  }
  const match = BEARER.exec(header);
  if (!match) throw new ApiError(401, 'malformed Authorization header: expected "Bearer <ingest key>"');
  try {
    return await authenticateIngestKey(database.db, environment, match[1]!);
  } catch (err) {
    if (err instanceof UnauthenticatedError) throw new ApiError(401, err.message);
    if (err instanceof ForbiddenError) throw new ApiError(403, err.message);
    throw err;
  }
}

/** The 400 for a body whose Content-Type is not one the endpoint reads (or that has none). */
function unsupportedContentType(req: FastifyRequest): ApiError {
  return new ApiError(
    400,
    `unsupported Content-Type ${JSON.stringify((req.headers['content-type'] ?? '').slice(0, 100))}: send application/json or application/x-ndjson`,
  );
}

/** Charsets a body may declare: UTF-8 (also spelt `utf8`) and its subset US-ASCII. */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** The `charset` parameter of a Content-Type, lower case and unquoted, or undefined when there is none. */
function charsetOf(contentType: string): string | undefined {
  for (const parameter of contentType.split(';').slice(1)) {
    const eq = parameter.indexOf('=');
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

/** The 400 for a JSON or NDJSON body declared in a charset other than UTF-8. */
function unsupportedCharset(contentType: string, charset: string): ApiError {
  return new ApiError(
    400,
    `unsupported charset ${JSON.stringify(charset.slice(0, 40))} in Content-Type ${JSON.stringify(contentType.slice(0, 100))}: send the body as UTF-8 (charset=utf-8, or no charset)`,
  );
}

function sendIngestError(
  err: FastifyError | ApiError | DomainError,
  req: FastifyRequest,
  reply: FastifyReply,
  bodyLimitBytes: number,
) {
  // A body without a Content-Type never reaches the catch-all parser: Fastify refuses it with a bare 415.
  if ((err as FastifyError).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') err = unsupportedContentType(req);
  if (err instanceof ApiError) {
    if (err.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="trips-ingest"');
    if (err.statusCode === 503) reply.header('retry-after', '2');
    return reply.code(err.statusCode).send({ ok: false, error: err.message });
  }
  if (err instanceof InvalidInputError) return reply.code(400).send({ ok: false, error: err.message });
  // The key was revoked, or its fleet deleted, while the upload arrived (acceptUpload checks it again at the commit).
  if (err instanceof UnauthenticatedError) {
    reply.header('www-authenticate', 'Bearer realm="trips-ingest"');
    return reply.code(401).send({ ok: false, error: err.message });
  }
  if (err instanceof ForbiddenError) return reply.code(403).send({ ok: false, error: err.message });
  if (err instanceof IdempotencyConflictError) return reply.code(409).send({ ok: false, error: err.message });
  // A value the store cannot hold (PostgreSQL: too long, U+0000 in text, a number out of range) that got past the
  // telemetry checks: the upload's transaction rolled back, and it is the sender's to fix, so a 400.
  if (err instanceof ValueNotStorableError) {
    return reply.code(400).send({
      ok: false,
      error: `a value in the upload is not one the store can hold (${err.message}); nothing was stored`,
    });
  }
  const status = typeof (err as FastifyError).statusCode === 'number' ? (err as FastifyError).statusCode! : 500;
  if (status === 413) {
    // The limit applies to the decompressed body: a sender looking at its 2 MB gzip file must be told.
    const limit = `${Math.round((bodyLimitBytes / 1024 / 1024) * 10) / 10} MiB`;
    return reply.code(413).send({
      ok: false,
      error: `body too large: the limit is ${limit} of JSON or NDJSON after decompression (TRIPS_INGEST_BODY_LIMIT_MB); send one trip per request`,
    });
  }
  if (status >= 400 && status < 500) {
    const code = status === 404 || status === 429 ? status : 400;
    return reply.code(code).send({ ok: false, error: err.message || 'bad request' });
  }
  if (err instanceof DomainError && err.code === 'database_unavailable') {
    req.log.error({ err }, 'database unavailable');
    reply.header('retry-after', '5');
    return reply.code(503).send({ ok: false, error: 'the store is unavailable; retry with back-off' });
  }
  // A write lock held by another process past the busy timeout (SQLite), a deadlock or serialization failure
  // that outlasted the transaction's retries (PostgreSQL): nothing was stored, and the same upload will go through
  // shortly. Before, it was an "unhandled error" 500.
  if (err instanceof DomainError && err.code === 'transient_conflict') {
    req.log.warn({ reason: err.message }, 'upload refused: the store is busy');
    reply.header('retry-after', '2');
    return reply.code(503).send({ ok: false, error: 'the store is busy; retry with back-off' });
  }
  req.log.error({ err }, 'unhandled error');
  return reply
    .code(500)
    .send({ ok: false, error: `internal error; it was logged with request id ${req.id}; retry with back-off` });
}
