import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/log-lines.ts', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Starts the fixture; resolves with its log lines so far once `started` has been written to stdout. */
async function start() {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      lines.push(parsed);
      if (parsed.msg === 'started') resolve();
    });
    child.on('exit', (code) => reject(new Error(`fixture exited (${code}) before its first line reached stdout`)));
  });
  return { child, lines, exited };
}

describe('log output on stdout (buffered)', () => {
  it('writes a lone line while the process runs, without waiting for the buffer to fill', async () => {
    // The fixture logs one short line and then waits for stdin: only the periodic flush can deliver it.
    const { child, lines } = await start();
    expect(lines.map((l) => l.msg)).toEqual(['started']);
    expect(lines[0]).toMatchObject({ level: 'info', service: 'fixture' });
    expect(child.exitCode).toBeNull();
  });

  it('writes every line logged before process.exit()', async () => {
    const { child, lines, exited } = await start();
    child.stdin!.write('exit\n');
    expect(await exited).toBe(0);
    // The 'line' events of the last chunk may follow the exit event: wait for the stream to end.
    await new Promise((resolve) => (child.stdout!.readableEnded ? resolve(null) : child.stdout!.once('end', resolve)));
    const numbered = lines.filter((l) => l.msg === 'line').map((l) => l.i);
    expect(numbered).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('writes the lines logged before an uncaught exception ends the process', async () => {
    const { child, lines, exited } = await start();
    child.stdin!.write('throw\n');
    expect(await exited).not.toBe(0);
    await new Promise((resolve) => (child.stdout!.readableEnded ? resolve(null) : child.stdout!.once('end', resolve)));
    expect(lines.map((l) => l.msg)).toContain('before the crash');
  });
});
