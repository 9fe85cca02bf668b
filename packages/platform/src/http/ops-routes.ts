import type { FastifyInstance } from 'fastify';

export interface OpsRoutesOptions {
  /** Throws (or rejects) when the service cannot serve traffic, e.g. the database does not answer. */
  readiness?: () => Promise<void>;
  /** Path prefix for the three routes, e.g. '' (default) or '/_ops'. Keep it outside the API prefix. */
  prefix?: string;
}

/**
 * Mounts `GET /healthz` (the process is alive), `GET /readyz` (its dependencies answer) and
 * `GET /metrics` (Prometheus text format). They stay outside the public API prefix and its auth.
 */
export function registerOpsRoutes(app: FastifyInstance, options: OpsRoutesOptions = {}): void {
  const prefix = options.prefix ?? '';
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });

  app.get(`${prefix}/healthz`, async () => ({ ok: true, status: 'alive' }));

  app.get(`${prefix}/readyz`, async (req, reply) => {
    if (closing) return reply.code(503).send({ ok: false, error: 'shutting down' });
    try {
      await options.readiness?.();
      return { ok: true, status: 'ready' };
    } catch (err) {
      req.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'readiness check failed');
      return reply.code(503).send({ ok: false, error: 'not ready: a dependency is unavailable' });
    }
  });

  app.get(`${prefix}/metrics`, async (_req, reply) => {
    const registry = app.httpMetrics.registry;
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
