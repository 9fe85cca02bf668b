import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/slow-server.ts', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

async function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      lines.push(parsed);
      if (typeof parsed.listening === 'string') resolve(parsed.listening);
    });
    child.on('exit', () => reject(new Error('server exited before listening')));
  });
  return { child, url, lines, exited };
}

describe('graceful shutdown', () => {
  it('on SIGTERM finishes in-flight requests, refuses new ones, closes the database, exits 0', async () => {
    const { child, url, lines, exited } = await start({ SLOW_MS: '600' });
    const inFlight = fetch(`${url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = await fetch(`${url}/slow`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(await inFlight).toEqual({ status: 200, body: { ok: true, finished: true } });
    expect(late === 'refused' || late === 503).toBe(true);
    expect(await exited).toBe(0);
    const messages = lines.map((l) => l.msg);
    expect(messages).toContain('shutting down');
    expect(messages.indexOf('database closed')).toBeGreaterThan(messages.indexOf('shutting down'));
    expect(messages.at(-1)).toBe('stopped');
    // Each line names the address it is about (a process may serve several).
    expect(lines.filter((l) => l.msg === 'shutting down' || l.msg === 'stopped').map((l) => l.url)).toEqual([url, url]);
  });

  it('closes the database only after the handler of a request whose client went away has finished', async () => {
    const { child, url, lines, exited } = await start({ SLOW_MS: '600' });
    // A client that sends its request and then closes the connection while the handler is still at work.
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /slow HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // No connection is left for the server to wait for; the handler still sleeps for ~400 ms.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const messages = lines.map((l) => l.msg);
    expect(lines.find((l) => l.msg === 'handler finished')).toMatchObject({ databaseOpen: true });
    expect(messages.indexOf('handler finished')).toBeLessThan(messages.indexOf('database closed'));
    expect(messages.at(-1)).toBe('stopped');
  });

  it('cuts requests that outlive the bound and exits non-zero', async () => {
    const { child, url, exited } = await start({ SLOW_MS: '5000', SHUTDOWN_TIMEOUT_MS: '300' });
    const inFlight = fetch(`${url}/slow`).then(
      (r) => r.status,
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    const t0 = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(await inFlight).toBe('cut');
  });
});
