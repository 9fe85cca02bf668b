import { connect } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createHttpApp, createLogger, registerOpsRoutes } from '../src/index.ts';

function buildTestApp(readiness?: () => Promise<void>, metricsToken?: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = createHttpApp({ logger: createLogger({ destination, name: 'test' }) });
  registerOpsRoutes(app, { ...(readiness ? { readiness } : {}), metricsToken });
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

  it('tells browsers not to sniff any answer into another type, errors and unknown routes included', async () => {
    const { app } = buildTestApp();
    apps.push(app);
    for (const url of ['/v1/things/1', '/v1/boom', '/v1/nothing-here', '/healthz']) {
      const res = await app.inject({ url });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it("keeps a caller's well-formed request id and replaces a malformed one", async () => {
    const { app } = buildTestApp();
    apps.push(app);
    const kept = await app.inject({ url: '/v1/things/1', headers: { 'x-request-id': 'edge-42.abc' } });
    expect(kept.headers['x-request-id']).toBe('edge-42.abc');
    const replaced = await app.inject({ url: '/v1/things/1', headers: { 'x-request-id': 'bad id\u0000<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // A credential sent as the request id (a header mapped wrongly) is not written as the id of every line.
    const token = `trips_live_${'Zq9-'.repeat(10)}abc`;
    const { app: logged, lines } = buildTestApp();
    apps.push(logged);
    const credential = await logged.inject({ url: '/v1/things/1', headers: { 'x-request-id': token } });
    expect(credential.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toContain(token);
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

  it('keeps /readyz at 200 while a dependency it can do without is down, and says which', async () => {
    const app = createHttpApp({ logger: createLogger({ level: 'silent', name: 'test' }) });
    apps.push(app);
    let down = false;
    registerOpsRoutes(app, { readiness: async () => {}, degraded: async () => (down ? ['cache: gone'] : []) });
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({ ok: true, status: 'ready' });
    down = true;
    const res = await app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, status: 'degraded', degraded: ['cache: gone'] });
  });

  it('logs a degraded or failed readiness once when it begins, not at every probe, and once when it ends', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = createHttpApp({ logger: createLogger({ destination, name: 'test' }) });
    apps.push(app);
    let degraded: string[] = [];
    let dbDown = false;
    registerOpsRoutes(app, {
      readiness: async () => {
        if (dbDown) throw new Error('database: connection refused');
      },
      degraded: async () => degraded,
    });
    const probe = async (times: number) => {
      for (let i = 0; i < times; i++) await app.inject({ url: '/readyz' });
    };
    const notices = () =>
      // The access log's line of each probe aside (one per request, by design).
      lines
        .filter((l) => l.msg !== 'request' && l.msg !== 'request failed')
        .map((l) => [l.level, l.msg, l.degraded ?? l.err ?? null]);
    await probe(3);
    degraded = ['cache: gone'];
    await probe(20); // a load balancer probing through an outage
    degraded = ['cache: gone', 'mail: gone'];
    await probe(5);
    degraded = [];
    await probe(5);
    dbDown = true;
    await probe(10);
    dbDown = false;
    await probe(2);
    expect(notices()).toEqual([
      ['warn', 'serving degraded', ['cache: gone']],
      ['info', 'still degraded', ['cache: gone', 'mail: gone']],
      ['info', 'ready again: every dependency answers', null],
      ['warn', 'readiness check failed', 'database: connection refused'],
      ['info', 'ready again: every dependency answers', null],
    ]);
    // The probes' own access lines: a 503 is the route's answer, logged as any answered request, not an error each.
    expect(lines.filter((l) => l.msg === 'request failed')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'request' && l.statusCode === 503).map((l) => l.level)).toEqual(
      Array(10).fill('info'),
    );
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

describe('GET /metrics access', () => {
  it('without METRICS_TOKEN serves loopback clients only, judging by the socket, not X-Forwarded-For', async () => {
    const { app } = buildTestApp();
    apps.push(app);
    const local = await app.inject({ url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(local.statusCode).toBe(200);
    expect((await app.inject({ url: '/metrics', remoteAddress: '::1' })).statusCode).toBe(200);
    for (const remoteAddress of ['10.1.2.3', '2001:db8::1', '::ffff:192.0.2.7']) {
      const remote = await app.inject({ url: '/metrics', remoteAddress, headers: { 'x-forwarded-for': '127.0.0.1' } });
      expect(remote.statusCode, remoteAddress).toBe(403);
      expect(remote.json()).toEqual({
        ok: false,
        error: 'metrics are served to this machine only; set METRICS_TOKEN to scrape them remotely',
      });
      expect(remote.body).not.toContain('http_requests_total');
    }
  });

  it('with METRICS_TOKEN requires it from every client, loopback included', async () => {
    const token = 'scrape-secret-0123456789';
    const { app } = buildTestApp(undefined, token);
    apps.push(app);
    for (const authorization of [undefined, 'Bearer wrong-secret-0123456789', `Basic ${token}`, `Bearer ${token}x`]) {
      const res = await app.inject({
        url: '/metrics',
        remoteAddress: '127.0.0.1',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.body).not.toContain('http_requests_total');
    }
    const ok = await app.inject({
      url: '/metrics',
      remoteAddress: '203.0.113.9',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('http_requests_total');
  });
});

/** An app on a real port with slow and large routes, its log lines, and a way to send raw requests. */
async function listeningApp(options: { requestTimeoutMs?: number; responseIdleTimeoutMs?: number } = {}) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = createHttpApp({ logger: createLogger({ destination, name: 'test' }), ...options });
  registerOpsRoutes(app);
  apps.push(app);
  const ended: string[] = [];
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    ended.push('slow');
    return { ok: true };
  });
  app.post('/slow', async (req) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    ended.push(`slow post ${JSON.stringify(req.body)}`);
    return { ok: true };
  });
  // A response far larger than the socket buffers, to a client that never reads it.
  app.get('/large', async (_req, reply) => {
    ended.push('large');
    return reply.type('application/octet-stream').send(Buffer.alloc(64 * 1024 * 1024));
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  /** Sends a complete request (a POST when given a body) on a new connection; the socket is returned unread. */
  const send = async (path: string, body?: string) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      body === undefined
        ? `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`
        : `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    return socket;
  };
  return { app, ended, send, lines, port };
}

describe('requestsSettled', () => {
  const listening = () => listeningApp();

  /** 'settled' when requestsSettled() resolves within `ms`, else a message saying it did not. */
  const settledWithin = (app: { requestsSettled(): Promise<void> }, ms: number) =>
    Promise.race([
      app.requestsSettled().then(() => 'settled'),
      new Promise((resolve) => setTimeout(() => resolve(`still in process after ${ms} ms`), ms)),
    ]);

  it('resolves at once with no request in process, and after answered requests', async () => {
    const { app } = buildTestApp();
    apps.push(app);
    await app.requestsSettled();
    await app.inject({ url: '/v1/things/1' });
    await app.inject({ url: '/v1/boom' });
    await app.requestsSettled();
  });

  it('waits for the handler of a request whose client disconnected while it ran', async () => {
    const { app, ended, send } = await listening();
    const socket = await send('/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    expect(await settledWithin(app, 2000)).toBe('settled');
    expect(ended).toEqual(['slow']);
  });

  it('waits for, and then settles, a request whose body was read before its client disconnected', async () => {
    // Fastify does not count this as an aborted request (the request was complete), so no abort hook runs.
    const { app, ended, send } = await listening();
    const socket = await send('/slow', '{"trip":1}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    expect(await settledWithin(app, 2000)).toBe('settled');
    expect(ended).toEqual(['slow post {"trip":1}']);
  });

  it('settles a request whose client disconnected while its response was being written', async () => {
    const { app, ended, send } = await listening();
    const socket = await send('/large');
    socket.pause();
    while (!ended.includes('large')) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    expect(await settledWithin(app, 2000)).toBe('settled');
  });
});

describe('a request that ends without a complete response', () => {
  /** Its access line (the one with its URL), once `count` are written. */
  const requestLines = async (lines: Record<string, unknown>[], url: string, count = 1) => {
    for (let i = 0; i < 200 && lines.filter((l) => l.url === url).length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    return lines.filter((l) => l.url === url);
  };
  const counted = async (app: FastifyInstance, status: string) => {
    const res = await app.inject({ url: '/metrics' });
    const m = new RegExp(`http_requests_total\\{[^}]*status="${status}"[^}]*\\} (\\d+)`).exec(res.body);
    return m ? Number(m[1]) : 0;
  };

  it('is logged once, as 499, when its client goes away before the answer, and counted so', async () => {
    const { app, lines, send } = await listeningApp();
    const socket = await send('/slow?n=1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await app.requestsSettled();
    const [line, ...more] = await requestLines(lines, '/slow?n=1');
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/slow',
      statusCode: 499,
      msg: expect.stringMatching(/client/),
    });
    expect(await counted(app, '499')).toBe(1);
  });

  it('is logged once, with its status, when its client goes away while a large answer is written', async () => {
    const { app, lines, send } = await listeningApp();
    const socket = await send('/large');
    socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    await app.requestsSettled();
    const [line, ...more] = await requestLines(lines, '/large');
    expect(more).toEqual([]);
    // Node reports the response finished once the socket took it, so the line cannot tell that it was cut.
    expect(line).toMatchObject({ statusCode: 200, route: '/large' });
  });

  it('is cut when its client stops reading a large answer, once RESPONSE_IDLE_TIMEOUT_MS passes without progress', async () => {
    const { app, lines, send } = await listeningApp({ responseIdleTimeoutMs: 300 });
    const socket = await send('/large');
    socket.pause();
    onTestFinished(() => {
      socket.destroy();
    });
    const connections = () => new Promise<number>((resolve) => app.server.getConnections((_e, n) => resolve(n)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await connections()).toBe(1);
    // The server lets go of the connection, and of the 64 MiB it could not send, by itself.
    for (let i = 0; i < 200 && (await connections()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await connections()).toBe(0);
    await app.requestsSettled();
    expect(await requestLines(lines, '/large')).toHaveLength(1);
  });

  it('is logged once, as 408, when it stops arriving and is cut', async () => {
    const { app, lines, port } = await listeningApp({ requestTimeoutMs: 300 });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.resume();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write('POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a');
    await closed;
    await app.requestsSettled();
    const [line, ...more] = await requestLines(lines, '/slow');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ method: 'POST', route: '/slow', statusCode: 408 });
    expect(await counted(app, '408')).toBe(1);
  });
});
