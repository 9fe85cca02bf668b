import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { type CreateHttpAppOptions, createHttpApp } from '../src/http/create-app.ts';
import { registerOpsRoutes } from '../src/http/ops-routes.ts';
import { createLogger } from '../src/logger.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function listening(options: Partial<CreateHttpAppOptions> = {}) {
  const app = createHttpApp({ logger: createLogger({ level: 'silent' }), ...options });
  app.get('/fast', async () => ({ ok: true }));
  app.post('/upload', async (req) => ({ ok: true, bytes: JSON.stringify(req.body).length }));
  app.get('/slow', () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 700)));
  registerOpsRoutes(app);
  // Shutdown work that takes a while (closing pools, flushing): requests can still arrive meanwhile.
  app.addHook('preClose', () => new Promise<void>((resolve) => setTimeout(resolve, 200)));
  await app.listen({ host: '127.0.0.1', port: 0 });
  apps.push(app);
  return { app, port: (app.server.address() as { port: number }).port };
}

/** Writes `requests` on one connection, `between` running after the first, and returns all the server sent. */
async function exchange(port: number, requests: string[], between?: () => void): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  for (const [i, request] of requests.entries()) {
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (i === 0) between?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  setTimeout(() => socket.destroy(), 1000).unref();
  await closed;
  return received;
}

/** The responses in what a connection received: status, lower-cased headers, body. */
function responses(received: string) {
  return received
    .split(/(?=HTTP\/1\.1 \d{3} )/)
    .filter(Boolean)
    .map((text) => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body };
    });
}

/** Two requests on one keep-alive connection, the app's shutdown beginning between them; their responses. */
async function acrossShutdown(app: FastifyInstance, port: number, during = '/fast') {
  let closed: Promise<void> | undefined;
  const request = (url: string) => `GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`;
  const received = await exchange(port, [request('/fast'), request(during)], () => {
    closed = app.close();
  });
  await closed;
  return responses(received);
}

const hugeHeader = `GET /fast HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`;

describe("answers where no route runs, in the service's own shape", () => {
  const clientError: CreateHttpAppOptions['clientError'] = (problem) => ({
    statusCode: problem.statusCode === 431 ? 400 : problem.statusCode,
    body: { ok: false, error: problem.message, parserStatus: problem.statusCode },
  });

  it('answers a request the HTTP parser refuses with the app’s own status and body, then closes', async () => {
    const { port } = await listening({ clientError });
    const [tooLarge] = responses(await exchange(port, [hugeHeader]));
    expect(tooLarge!.status).toBe(400);
    expect(tooLarge!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(tooLarge!.headers.connection).toBe('close');
    expect(JSON.parse(tooLarge!.body)).toEqual({
      ok: false,
      error: 'the request line and headers exceed the 16 KB the server reads: send a shorter URL or fewer headers',
      parserStatus: 431,
    });
    expect(Number(tooLarge!.headers['content-length'])).toBe(Buffer.byteLength(tooLarge!.body));

    const [garbage] = responses(await exchange(port, ['NOT HTTP AT ALL\r\n\r\n']));
    expect(garbage!.status).toBe(400);
    expect(JSON.parse(garbage!.body)).toEqual({ ok: false, error: 'malformed HTTP request', parserStatus: 400 });
  });

  it('leaves Fastify’s own answer where the app sets none', async () => {
    const { port } = await listening();
    const [tooLarge] = responses(await exchange(port, [hugeHeader]));
    expect(tooLarge!.status).toBe(431);
    expect(JSON.parse(tooLarge!.body)).toMatchObject({ statusCode: 431 });
  });

  it('answers a request that arrives during shutdown with the app’s closing answer, and closes the connection', async () => {
    const closing = { statusCode: 500, body: { ok: false, error: 'shutting down' }, retryAfterS: 1 };
    const { app, port } = await listening({ closing });
    const [before, during] = await acrossShutdown(app, port);
    expect(before!.status).toBe(200);
    expect(during!.status).toBe(500);
    expect(during!.headers.connection).toBe('close');
    expect(during!.headers['retry-after']).toBe('1');
    expect(during!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(during!.body)).toEqual({ ok: false, error: 'shutting down' });
  });

  it('gives the closing answer for a path no route serves too', async () => {
    const closing = { statusCode: 500, body: { ok: false, error: 'shutting down' } };
    const { app, port } = await listening({ closing });
    const [, during] = await acrossShutdown(app, port, '/no/such/route');
    expect(during!.status).toBe(500);
    expect(JSON.parse(during!.body)).toEqual({ ok: false, error: 'shutting down' });
  });

  it('lets /readyz say for itself that the node is shutting down', async () => {
    const closing = { statusCode: 500, body: { ok: false, error: 'closing answer' } };
    const { app, port } = await listening({ closing });
    const [, probe] = await acrossShutdown(app, port, '/readyz');
    expect(probe!.status).toBe(503);
    expect(JSON.parse(probe!.body)).toEqual({ ok: false, error: 'shutting down' });
  });

  it('keeps Fastify’s 503 during shutdown where the app sets no closing answer', async () => {
    const { app, port } = await listening();
    expect((await acrossShutdown(app, port)).map((r) => r.status)).toEqual([200, 503]);
  });
});

describe('a request that stops arriving', () => {
  const clientError: CreateHttpAppOptions['clientError'] = (problem) => ({
    statusCode: problem.statusCode,
    body: { ok: false, error: problem.message },
  });

  /** Writes `partial` and nothing more, and returns what the server sent before it closed the connection. */
  async function stall(port: number, partial: string): Promise<{ received: string; afterMs: number }> {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const cap = setTimeout(() => socket.destroy(), 5000);
    const started = performance.now();
    socket.write(partial);
    await closed;
    clearTimeout(cap);
    return { received, afterMs: performance.now() - started };
  }

  it('is cut with 408 in the app’s shape once REQUEST_TIMEOUT_MS passes, mid-headers or mid-body', async () => {
    const { app, port } = await listening({ clientError, requestTimeoutMs: 400 });
    for (const partial of [
      'GET /fast HTTP/1.1\r\nHost: x\r\nAccept: appl',
      `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":"`,
    ]) {
      const { received, afterMs } = await stall(port, partial);
      const [answer] = responses(received);
      expect(answer!.status).toBe(408);
      expect(answer!.headers.connection).toBe('close');
      expect(JSON.parse(answer!.body)).toEqual({ ok: false, error: 'the request was not received in time' });
      expect(afterMs).toBeGreaterThanOrEqual(350);
    }
    // Nothing is left in process: the app can shut down at once.
    await app.requestsSettled();
  });

  it('does not cut a kept-alive connection idle between requests, nor a request whose handler takes longer', async () => {
    const { port } = await listening({ requestTimeoutMs: 300 });
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    onTestFinished(() => {
      socket.destroy();
    });
    const answers = async (n: number) => {
      while (responses(received).length < n) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await answers(1);
    // Idle for more than twice the bound, then a request whose handler outlasts it, on the same connection.
    await new Promise((resolve) => setTimeout(resolve, 700));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await answers(2);
    expect(responses(received).map((r) => r.status)).toEqual([200, 200]);
    expect(socket.destroyed).toBe(false);
  });

  it('is bounded by default at Node’s own 300 s, which Fastify would turn off', async () => {
    const { app } = await listening();
    expect(app.server.requestTimeout).toBe(300_000);
    expect(app.server.headersTimeout).toBe(60_000);
  });
});
