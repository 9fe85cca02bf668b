/**
 * `edge-sdk status` only looks: it never turns a file into a buffer, never closes a trip left recording,
 * and says plainly what it cannot read.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeSdk } from '../src/edge-sdk.ts';
import { drive } from './drive.ts';

const BIN = fileURLToPath(new URL('../bin/edge-sdk.js', import.meta.url));
const T0 = Date.UTC(2025, 5, 5, 17);

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('edge-sdk status', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-status-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a file that is not a buffer, in one line, and leaves it as it was', async () => {
    const empty = path.join(dir, 'empty.db');
    writeFileSync(empty, '');
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'not a database at all\n'.repeat(100));
    for (const file of [empty, text]) {
      const before = digest(file);
      const run = await cli(['status', file]);
      expect(run.code, file).toBe(1);
      expect(run.stderr, file).toMatch(/^edge-sdk: .* is not an edge SDK buffer file/);
      expect(run.stderr.trim().split('\n'), file).toHaveLength(1);
      expect(digest(file), file).toBe(before);
    }
    expect(statSync(empty).size).toBe(0);
  });

  it('names a folder given as the buffer file, and usage mistakes, in one line', async () => {
    const folder = await cli(['status', dir]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toBe(`edge-sdk: cannot open storage ${dir}: it is a folder, not a buffer file\n`);
    const missing = await cli(['status']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("edge-sdk: missing required argument 'storage'\n");
  });

  it('shows a trip left recording as recording, without closing it or writing to the file', async () => {
    const storage = path.join(dir, 'buffer.db');
    const sdk = EdgeSdk.open({ storagePath: storage, upload: false, deviceId: 'dev-status-1' });
    for (const sample of drive({ startMs: T0, legs: [{ move: 60, speedKmh: 30 }] })) sdk.record(sample);
    const tripId = sdk.currentTripId;
    expect(tripId).not.toBeNull();

    // While the SDK holds the file, the inspection says so instead of waiting or reading half a state.
    const busy = await cli(['status', storage]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/in use by a running SDK/);

    // Left as a crash would leave it: the trip is still recording when the SDK closes the file.
    await sdk.close();
    const before = digest(storage);
    const run = await cli(['status', storage]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`${tripId}\\s+recording\\s`));
    expect(run.stdout).toMatch(
      /^device dev-status-1; 1 recording, 0 pending, 0 sending, 0 sent, 0 failed; \d+ bytes buffered$/m,
    );
    expect(digest(storage)).toBe(before);
  });
});
