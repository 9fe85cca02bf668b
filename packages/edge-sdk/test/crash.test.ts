import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeSdk } from '../src/index.ts';
import { FakeIngestServer } from './fake-ingest-server.ts';
import { CRASH_TRIPS, crashPlan } from './fixtures/crash-plan.ts';

const CHILD = fileURLToPath(new URL('./fixtures/crash-child.ts', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const KEY = 'test-key-1';
const KILL_ROUNDS = 14;
const MAX_ROUNDS = 30;

type KillMode = 'recording' | 'upload-in-flight' | 'after-server-stored';

/** A small seeded generator (mulberry32): the kill points are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface RoundResult {
  done: boolean;
  killedBy: KillMode | null;
  exitCode: number | null;
  stderr: string;
}

describe('SIGKILL at any point (child process)', () => {
  let dir: string;
  let server: FakeIngestServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-kill-'));
    server = await FakeIngestServer.start();
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses and duplicates nothing when killed mid-recording and mid-upload, again and again', async () => {
    const storage = path.join(dir, 'buffer.db');
    const acked = new Set<number>();
    const random = seeded(20250604);
    // A slow, unreliable uplink: every answer takes a while, and some fail or are lost after storing.
    server.delayMs = 40;
    server.faults.push(
      { status: 500 },
      { cut: 'after' },
      { status: 429, retryAfter: '0' },
      { cut: 'before' },
      { status: 503 },
      { cut: 'after' },
    );

    const kills: KillMode[] = [];
    let finished = false;
    for (let round = 0; round < MAX_ROUNDS && !finished; round++) {
      const modes: KillMode[] = ['recording', 'upload-in-flight', 'after-server-stored'];
      const mode = round < KILL_ROUNDS ? modes[round % 3]! : null;
      const result = await runChild(storage, server, acked, mode, 20 + Math.floor(random() * 300));
      if (result.killedBy) kills.push(result.killedBy);
      else if (!result.done) throw new Error(`child exited ${result.exitCode} without finishing: ${result.stderr}`);
      finished = result.done;
    }
    expect(finished).toBe(true);
    // The test only means something if the kills happened where they were aimed.
    expect(kills.filter((k) => k === 'recording').length).toBeGreaterThanOrEqual(4);
    expect(kills.filter((k) => k === 'upload-in-flight').length).toBeGreaterThanOrEqual(3);
    expect(kills.filter((k) => k === 'after-server-stored').length).toBeGreaterThanOrEqual(2);

    const plan = crashPlan();
    const stored = server.storedTrips();
    // Every trip arrived exactly once (the server keys trips by idempotency key).
    expect(stored).toHaveLength(CRASH_TRIPS);
    expect(new Set(stored.map((t) => t.idempotencyKey)).size).toBe(CRASH_TRIPS);
    // No sample twice, across all trips.
    const delivered = stored.flatMap((trip) => trip.batch.samples.map((s) => `${s.type}@${s.t}`));
    expect(new Set(delivered).size).toBe(delivered.length);
    // Nothing lost: every acknowledged sample was delivered, and in the end every sample of the plan was.
    const deliveredSet = new Set(delivered);
    const lostAcked = plan.filter((s) => acked.has(s.t) && !deliveredSet.has(`${s.type}@${s.t}`));
    expect(lostAcked).toEqual([]);
    expect(delivered.length).toBe(plan.length);
    for (const trip of stored) expect(trip.batch).toMatchObject({ deviceId: 'dev-crash-1', vehicle: 'K-IL 1' });

    // The buffer agrees: every trip sent, nothing left.
    const sdk = EdgeSdk.open({ storagePath: storage, upload: false });
    try {
      expect(sdk.stats()).toMatchObject({ usedBytes: 0, trips: { sent: CRASH_TRIPS, pending: 0, failed: 0 } });
      expect(
        sdk
          .trips()
          .map((t) => t.serverTripId)
          .sort(),
      ).toEqual(stored.map((t) => t.tripId).sort());
    } finally {
      await sdk.close();
    }
  }, 240_000);
});

/** Runs the child once; kills it with SIGKILL at the chosen kind of moment (null: let it finish). */
function runChild(
  storage: string,
  server: FakeIngestServer,
  acked: Set<number>,
  mode: KillMode | null,
  acksBeforeKill: number,
): Promise<RoundResult> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD, storage, server.url, KEY], {
      cwd: PACKAGE_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let killedBy: KillMode | null = null;
    let done = false;
    let newAcks = 0;
    let stderr = '';
    let buffered = '';
    const kill = (why: KillMode) => {
      if (killedBy || child.exitCode !== null) return;
      killedBy = why;
      child.kill('SIGKILL');
    };
    if (mode === 'upload-in-flight') server.onPost = () => kill(mode);
    if (mode === 'after-server-stored') server.onStored = () => kill(mode);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('A ')) {
          acked.add(Number(line.slice(2)));
          newAcks++;
          if (mode === 'recording' && newAcks >= acksBeforeKill) kill(mode);
        } else if (line === 'DONE') {
          done = true;
        } else if (line.trim() !== '') {
          stderr += `${line}\n`;
        }
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (exitCode) => {
      server.onPost = undefined;
      server.onStored = undefined;
      // A kill that raced with a clean exit did not really interrupt anything.
      resolve({ done, killedBy: done ? null : killedBy, exitCode, stderr });
    });
  });
}
