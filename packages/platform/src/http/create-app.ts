import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { holdsCredential, type Logger, redactUrl } from '../logger.ts';
import { createHttpMetrics, type HttpMetrics } from './metrics.ts';

export interface CreateHttpAppOptions {
  logger: Logger;
  /** Defaults to a fresh registry with process metrics. */
  metrics?: HttpMetrics;
  /** Header carrying a caller-supplied request id, echoed back on the response. */
  requestIdHeader?: string;
  bodyLimit?: number;
  /**
   * How long a client may take to send a whole request, headers and body; past it the connection is cut after a
   * 408 (see `clientError`). Default 300 s, Node's own default, which Fastify turns off: without a bound, a client
   * whose network drops mid-body without closing the connection (no FIN ever arrives, as when a phone loses its
   * signal) holds the socket and the bytes it sent for as long as the process runs. 0 sets no bound.
   */
  requestTimeoutMs?: number;
  /**
   * How long the writing of a large answer (over 64 KiB, or streamed) may make no progress before its connection is
   * cut: a client that stops reading (or whose network dropped) would otherwise hold the connection and the unsent
   * rest of the body in memory for as long as it stays connected. Smaller answers fit the socket buffers and are
   * done at once. Default 60 s; 0 sets no bound.
   */
  responseIdleTimeoutMs?: number;
  trustProxy?: FastifyServerOptions['trustProxy'];
  /** Extra Fastify options (e.g. routerOptions); the ones above take precedence. */
  fastify?: Omit<FastifyServerOptions, 'logger' | 'loggerInstance'>;
  /**
   * The answer, in the service's own error shape, to a request the HTTP parser refuses before Fastify sees it
   * (headers or URL over Node's 16 KB, a malformed request line or header, headers not received in time). By
   * default Fastify's JSON of its own shape, with 400, 408 or 431.
   */
  clientError?: (problem: ClientProblem) => ErrorAnswer;
  /**
   * The answer, in the service's own error shape, to a request that arrives while the app shuts down (on a
   * connection kept alive from before); it carries `Connection: close`. Ops routes answer for themselves
   * (`/readyz` says 503). By default Fastify's 503 of its own shape, for every route.
   */
  closing?: ErrorAnswer;
}

/** A request the HTTP parser refused: Fastify's status for it, and what went wrong, in words a client can act on. */
export interface ClientProblem {
  statusCode: 400 | 408 | 431;
  message: string;
}

/** A status, a JSON body and optionally a Retry-After (seconds). */
export interface ErrorAnswer {
  statusCode: number;
  body: unknown;
  retryAfterS?: number;
}

/** Node's own bound on receiving a request (see CreateHttpAppOptions.requestTimeoutMs). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

/** See CreateHttpAppOptions.responseIdleTimeoutMs. */
export const DEFAULT_RESPONSE_IDLE_TIMEOUT_MS = 60_000;

/** Answers up to this size are taken whole by the socket buffers; larger ones may wait on the client. */
const BUFFERED_ANSWER_BYTES = 64 * 1024;

/** An answer that may not fit the socket buffers: large, or a stream of unknown length. */
function mayWaitOnClient(payload: unknown): boolean {
  // In UTF-16 units: at least as many bytes, at most three times as many.
  if (typeof payload === 'string') return payload.length > BUFFERED_ANSWER_BYTES;
  if (Buffer.isBuffer(payload)) return payload.length > BUFFERED_ANSWER_BYTES;
  return typeof (payload as { pipe?: unknown } | null)?.pipe === 'function';
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An ops route (registerOpsRoutes): it answers for itself during shutdown (see `closing`). */
    ops?: boolean;
  }
  interface FastifyInstance {
    /** The app's Prometheus metrics (see createHttpMetrics). */
    httpMetrics: HttpMetrics;
    /**
     * Resolves once no request is being processed: no hook or handler of any request still runs, including
     * those of requests whose client went away (see createHttpApp). At once when none is.
     */
    requestsSettled(): Promise<void>;
  }
}

/** Where a request is in its lifecycle, for requestsSettled(). */
interface Lifecycle {
  /** Its reply reached the onSend hook: its hooks and handler are done (they ended in a send or an error). */
  sent: boolean;
  /** Its response closed: written, or its connection went away (possibly before the reply was sent). */
  closed: boolean;
  settled: boolean;
  /** Its access line was written (and its metrics counted): once per request, whichever way it ended. */
  logged: boolean;
}

/**
 * The Fastify base every service builds on: request ids (caller's `x-request-id` when well-formed,
 * otherwise a UUID, echoed in the response), `X-Content-Type-Options: nosniff` on every answer, exactly one log
 * line per request, per-route Prometheus
 * metrics, and close behaviour suited to graceful shutdown. Routes are added by the service's
 * `buildApp(deps)`; listening is `serve()`'s job.
 */
export function createHttpApp(options: CreateHttpAppOptions): FastifyInstance {
  const header = (options.requestIdHeader ?? 'x-request-id').toLowerCase();
  const metrics = options.metrics ?? createHttpMetrics();
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const responseIdleTimeout = options.responseIdleTimeoutMs ?? DEFAULT_RESPONSE_IDLE_TIMEOUT_MS;
  const app = Fastify({
    ...options.fastify,
    requestTimeout,
    // Node checks the connections for the bound every 30 s by default: a tenth of it keeps a short bound (tests)
    // from being overshot several times over. Headers have their own bound, which may not exceed the request's.
    ...(requestTimeout > 0
      ? {
          http: {
            connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.round(requestTimeout / 10))),
            headersTimeout: Math.min(60_000, requestTimeout),
          },
        }
      : {}),
    // pino's Logger is a FastifyBaseLogger; the cast keeps the app typed with the base logger.
    loggerInstance: options.logger as FastifyBaseLogger,
    // Fastify's own two lines per request are replaced by the single line written in onResponse.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId(req) {
      const incoming = req.headers[header];
      // A credential sent as the id (a header mapped wrongly) would be written on every line of the request.
      return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) && !holdsCredential(incoming)
        ? incoming
        : randomUUID();
    },
    // Keep-alive sockets with no request in flight are closed at once on shutdown; busy ones finish.
    forceCloseConnections: 'idle',
    // With its own closing answer the app answers in onRequest below, after the request is counted.
    return503OnClosing: options.closing === undefined,
    ...(options.clientError ? { clientErrorHandler: clientErrorHandler(options.clientError) } : {}),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
  });

  app.decorate('httpMetrics', metrics);

  // Requests in process, so that a graceful shutdown closes the database only after the last handler is
  // done. The server's own close() waits for connections, not handlers: a client that disconnects while
  // its request waits on the database leaves the handler running with no connection to wait for (seen on
  // Ctrl-C during the sandbox's seeding: the upload's transaction found the database closed). A request
  // is settled when its response was written (onResponse), or once both its response has closed (the
  // connection went away, with the request complete or not) and its reply reached onSend: every hook and
  // handler path ends in a send (the error handler's included). Fastify's onRequestAbort is not enough:
  // it does not fire when the connection closes after the request body was read.
  let inProcess = 0;
  let settledWaiters: Array<() => void> = [];
  const lifecycles = new WeakMap<object, Lifecycle>();
  const settle = (state: Lifecycle | undefined) => {
    if (!state || state.settled) return;
    state.settled = true;
    if (--inProcess === 0 && settledWaiters.length > 0) {
      const waiters = settledWaiters;
      settledWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };
  app.decorate('requestsSettled', () =>
    inProcess === 0 ? Promise.resolve() : new Promise<void>((resolve) => settledWaiters.push(resolve)),
  );

  // The request line's fields are all chosen below (the URL with its query secrets already removed), so it
  // is written without the logger's path redaction, which cost 9.5 instead of 3.7 µs a line (measured).
  // Nothing else may log through this child.
  const accessLog = options.logger.child({}, { redact: [] });

  // Once shutdown has begun, responses ask the client to close the connection, so keep-alive sockets
  // that were busy when it began do not linger until their idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // The hooks below run on every request, so they are plain callbacks: an async hook costs a promise
  // per call.
  app.addHook('onRequest', (req, reply, done) => {
    inProcess++;
    const state: Lifecycle = { sent: false, closed: false, settled: false, logged: false };
    lifecycles.set(req, state);
    reply.raw.once('close', () => {
      state.closed = true;
      // Fastify's onResponse runs only for a response that finished or failed to write: a request whose client
      // went away before its answer, or that was cut for not arriving in time, would leave no line and no count.
      // Checked a turn later, since with inject() (tests) the close comes before the finish.
      if (!state.logged) setImmediate(() => requestLine(req, reply, state, true));
      if (state.sent) settle(state);
    });
    reply.header(header, req.id);
    // Every answer is data, never a page: a browser must not sniff a JSON body that echoes a client's input (an
    // error naming a bad parameter) into HTML and run it.
    reply.header('x-content-type-options', 'nosniff');
    if (closing && options.closing && req.routeOptions.config.ops !== true) {
      const answer = options.closing;
      reply.code(answer.statusCode).header('connection', 'close');
      if (answer.retryAfterS !== undefined) reply.header('retry-after', String(answer.retryAfterS));
      // Answered here, so no later hook or handler of the shutting-down app runs (done is not called).
      reply.send(answer.body);
      return;
    }
    done();
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    const state = lifecycles.get(req);
    if (state) {
      state.sent = true;
      if (state.closed) settle(state);
    }
    if (closing) reply.header('connection', 'close');
    // The socket's inactivity timer, which destroys the connection when it fires with no one listening; Node
    // replaces it with the keep-alive timer once the answer is written, and clears it when the next request comes.
    // inject() (tests) gives a stand-in socket without one.
    if (responseIdleTimeout > 0 && mayWaitOnClient(payload)) reply.raw.socket?.setTimeout?.(responseIdleTimeout);
    done(null, payload);
  });

  // Requests whose connection the parser cut for not arriving in time (REQUEST_TIMEOUT_MS), for their line.
  // This listener runs after Fastify's, which answers them, and before their response's close event.
  const cutForTime = new WeakSet<Socket>();
  app.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') cutForTime.add(socket);
  });

  /**
   * The request's one access line and its metrics. A response that was not written whole (`cut`) says why: 408 when the
   * request was cut for not arriving in time (the parser answered it), 499 when the client went away before any
   * of the answer was sent (nginx's code for it), else the status whose answer was being written.
   */
  const requestLine = (req: FastifyRequest, reply: FastifyReply, state: Lifecycle | undefined, cut: boolean) => {
    if (state) {
      if (state.logged) return;
      state.logged = true;
    }
    const route = req.routeOptions.url ?? '<unmatched>';
    let statusCode = reply.statusCode;
    let message = 'request';
    if (cut) {
      if (cutForTime.has(req.raw.socket)) {
        statusCode = 408;
        message = 'request cut: not received in time';
      } else if (!reply.raw.headersSent) {
        statusCode = 499;
        message = 'request ended: the client closed the connection before the response';
      } else {
        message = 'request ended: the client closed the connection while the response was written';
      }
    }
    const status = String(statusCode);
    const elapsedMs = reply.elapsedTime;
    metrics.requests.inc({ method: req.method, route, status });
    metrics.duration.observe({ method: req.method, route, status }, elapsedMs / 1000);
    // An ops route's 503 is its verdict (/readyz: not ready), not a failure of the request: a load balancer probes
    // every few seconds through an outage, which the route itself logs once (registerOpsRoutes).
    const failed = statusCode >= 500 && !(statusCode === 503 && req.routeOptions.config?.ops === true);
    if (!accessLog.isLevelEnabled(failed ? 'error' : 'info')) return;
    const line = {
      reqId: req.id,
      method: req.method,
      url: redactUrl(req.url),
      route,
      statusCode,
      durationMs: Math.round(elapsedMs * 100) / 100,
      remoteAddress: req.ip,
    };
    if (failed) accessLog.error(line, message === 'request' ? 'request failed' : message);
    else accessLog.info(line, message);
  };

  app.addHook('onResponse', (req, reply, done) => {
    const state = lifecycles.get(req);
    settle(state);
    // A response whose write failed (the client went away while it was written) ends here too, destroyed.
    requestLine(req, reply, state, reply.raw.destroyed && !reply.raw.writableFinished);
    done();
  });

  return app;
}

/** What the HTTP parser's error codes mean for a client, for `clientError`. */
function clientProblem(err: NodeJS.ErrnoException): ClientProblem {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return {
      statusCode: 431,
      message: 'the request line and headers exceed the 16 KB the server reads: send a shorter URL or fewer headers',
    };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { statusCode: 408, message: 'the request was not received in time' };
  }
  return { statusCode: 400, message: 'malformed HTTP request' };
}

/**
 * Fastify's clientErrorHandler writing `answer` as a raw HTTP response, as Fastify's own does (the parser has no
 * request or reply to send through), then closing the connection: its stream cannot be read past the error.
 */
function clientErrorHandler(answer: (problem: ClientProblem) => ErrorAnswer) {
  return function handle(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
    // A reset connection is already gone: nothing to answer (Node's own rule for clientError).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = clientProblem(err);
    this.log.debug({ code: err.code, statusCode: problem.statusCode }, 'malformed request refused by the HTTP parser');
    if (socket.writable) {
      const { statusCode, body, retryAfterS } = answer(problem);
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? 'Error'}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          'X-Content-Type-Options: nosniff\r\n' +
          `Content-Length: ${Buffer.byteLength(text)}\r\n` +
          (retryAfterS === undefined ? '' : `Retry-After: ${retryAfterS}\r\n`) +
          `Connection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy(err);
  };
}
