import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp, createLogger, registerOpsRoutes } from '../src/index.ts';

function buildTestApp(readiness?: () => Promise<void>) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = createHttpApp({ logger: createLogger({ destination, name: 'test' }) });
  registerOpsRoutes(app, readiness ? { readiness } : {});
  app.get('/v1/things/:id', async (req) => ({ ok: true, id: (req.params as { id: string }).id }));
  app.get('/v1/boom', async () => {
    throw new Error('database password is hunter2');
  });
  return { app, lines };
}

const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

describe('createHttpApp', () => {
  it('gives every request an id and echoes it in x-request-id', async () => {
    const { app } = buildTestApp();
    apps.push(app);
    const a = await app.inject({ url: '/v1/things/1' });
    const b = await app.inject({ url: '/v1/things/2' });
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
  });

  it("keeps a caller's well-formed request id and replaces a malformed one", async () => {
    const { app } = buildTestApp();
    apps.push(app);
    const kept = await app.inject({ url: '/v1/things/1', headers: { 'x-request-id': 'edge-42.abc' } });
    expect(kept.headers['x-request-id']).toBe('edge-42.abc');
    const replaced = await app.inject({ url: '/v1/things/1', headers: { 'x-request-id': 'bad id\u0000<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs exactly one line per request, with the request id and no credentials', async () => {
    const { app, lines } = buildTestApp();
    apps.push(app);
    const res = await app.inject({
      url: '/v1/things/7?token=s3cr3t&page=2',
      headers: { authorization: 'Bearer tok_abcdef', 'x-request-id': 'req-1' },
    });
    expect(res.statusCode).toBe(200);
    const requestLines = lines.filter((l) => l.reqId === 'req-1');
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      method: 'GET',
      route: '/v1/things/:id',
      statusCode: 200,
      url: '/v1/things/7?token=[Redacted]&page=2',
    });
    const all = JSON.stringify(lines);
    expect(all).not.toContain('tok_abcdef');
    expect(all).not.toContain('s3cr3t');
  });

  it('answers an unexpected error with 500 and logs it at error level', async () => {
    const { app, lines } = buildTestApp();
    apps.push(app);
    const res = await app.inject({ url: '/v1/boom', headers: { 'x-request-id': 'req-boom' } });
    expect(res.statusCode).toBe(500);
    expect(lines.filter((l) => l.reqId === 'req-boom' && l.level === 'error').length).toBeGreaterThan(0);
  });
});

describe('ops routes', () => {
  it('reports liveness and readiness', async () => {
    const { app } = buildTestApp(async () => {});
    apps.push(app);
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ ok: true, status: 'alive' });
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({ ok: true, status: 'ready' });
  });

  it('answers 503 on /readyz when a dependency is down, without internals', async () => {
    const { app } = buildTestApp(async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    });
    apps.push(app);
    const res = await app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ ok: false, error: 'not ready: a dependency is unavailable' });
    expect(res.body).not.toContain('10.0.0.5');
  });

  it('exposes Prometheus metrics with route templates as labels', async () => {
    const { app } = buildTestApp();
    apps.push(app);
    await app.inject({ url: '/v1/things/1' });
    await app.inject({ url: '/v1/things/2' });
    await app.inject({ url: '/nowhere' });
    const res = await app.inject({ url: '/metrics' });
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('http_requests_total{method="GET",route="/v1/things/:id",status="200"} 2');
    expect(res.body).toContain('route="<unmatched>",status="404"');
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });
});
