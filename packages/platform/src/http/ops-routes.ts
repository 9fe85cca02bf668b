import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface OpsRoutesOptions {
  /** Throws (or rejects) when the service cannot serve traffic, e.g. the database does not answer. */
  readiness?: () => Promise<void>;
  /**
   * Dependencies the service can serve without, in a reduced way (e.g. rate limits not enforced while their
   * shared store is down): what does not work now, one line each. Reported by `/readyz` with a 200, so a load
   * balancer keeps the node in service while operators see what is missing.
   */
  degraded?: () => Promise<string[]>;
  /** Path prefix for the three routes, e.g. '' (default) or '/_ops'. Keep it outside the API prefix. */
  prefix?: string;
  /**
   * Bearer token `GET /metrics` requires (config METRICS_TOKEN). Without one, metrics are served to
   * clients on the loopback interface only: request counts per route are not for the public.
   */
  metricsToken?: string | undefined;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Whether the TCP peer (not a forwarded-for header, which anyone can write) is this machine. */
function fromLoopback(req: FastifyRequest): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * Mounts `GET /healthz` (the process is alive), `GET /readyz` (its dependencies answer: 503 when one it needs
 * does not, 200 with `status: "degraded"` and a list when one it can do without does not) and
 * `GET /metrics` (Prometheus text format). They stay outside the public API prefix and its auth; metrics
 * have their own (see OpsRoutesOptions.metricsToken).
 */
export function registerOpsRoutes(app: FastifyInstance, options: OpsRoutesOptions = {}): void {
  const prefix = options.prefix ?? '';
  let closing = false;
  // From the start of shutdown: requests that still arrive then (on kept-alive connections) get the app's own
  // closing answer (createHttpApp), but a probe of /readyz gets this 503.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onClose', async () => {
    closing = true;
  });
  // Marked as ops routes: createHttpApp lets them answer for themselves during shutdown.
  const ops = { config: { ops: true } };

  app.get(`${prefix}/healthz`, ops, async () => ({ ok: true, status: 'alive' }));

  // What the last probe found. A load balancer probes every few seconds for as long as an outage lasts, so a
  // state is logged when it begins (and when its reasons change), not at every probe: one warning per outage.
  let lastState = 'ready';
  const report = (state: string, log: () => void) => {
    if (state === lastState) return;
    lastState = state;
    log();
  };

  app.get(`${prefix}/readyz`, ops, async (req, reply) => {
    if (closing) return reply.code(503).send({ ok: false, error: 'shutting down' });
    try {
      await options.readiness?.();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      report(`not ready: ${reason}`, () => req.log.warn({ err: reason }, 'readiness check failed'));
      return reply.code(503).send({ ok: false, error: 'not ready: a dependency is unavailable' });
    }
    const degraded = (await options.degraded?.()) ?? [];
    if (degraded.length === 0) {
      report('ready', () => req.log.info('ready again: every dependency answers'));
      return { ok: true, status: 'ready' };
    }
    // A warning when it becomes degraded; what it says meanwhile (e.g. "answers again, not used yet") is news,
    // not a new problem.
    const wasDegraded = lastState.startsWith('degraded: ');
    report(`degraded: ${JSON.stringify(degraded)}`, () =>
      wasDegraded ? req.log.info({ degraded }, 'still degraded') : req.log.warn({ degraded }, 'serving degraded'),
    );
    return { ok: true, status: 'degraded', degraded };
  });

  const expected = options.metricsToken ? sha256(`Bearer ${options.metricsToken}`) : null;
  app.get(`${prefix}/metrics`, ops, async (req, reply) => {
    if (expected) {
      // Compared as digests: equal lengths for timingSafeEqual, and no timing hint about the token.
      if (!timingSafeEqual(sha256(req.headers.authorization ?? ''), expected)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        return reply.code(401).send({ ok: false, error: 'metrics need "Authorization: Bearer <METRICS_TOKEN>"' });
      }
    } else if (!fromLoopback(req)) {
      return reply.code(403).send({
        ok: false,
        error: 'metrics are served to this machine only; set METRICS_TOKEN to scrape them remotely',
      });
    }
    const registry = app.httpMetrics.registry;
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
