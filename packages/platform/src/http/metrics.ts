import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The Prometheus registry of one app, with the HTTP metrics every service exposes. */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

/**
 * Creates a registry per app (not prom-client's global one), so tests can build many apps in one
 * process. Default process metrics are included unless `processMetrics` is false.
 */
export function createHttpMetrics(options: { prefix?: string; processMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  const prefix = options.prefix ?? '';
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix });
  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time to answer HTTP requests, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return { registry, requests, duration };
}
