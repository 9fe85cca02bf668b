import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EdgeSdk } from '../src/index.ts';
import { drive } from './drive.ts';
import { FakeIngestServer } from './fake-ingest-server.ts';

const T0 = Date.UTC(2025, 5, 3, 6);

let dir: string;
let server: FakeIngestServer;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-io-'));
  server = await FakeIngestServer.start();
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The SDK's own SQLite connection: the test plays the file system turning read-only (or full) under it. */
function databaseOf(sdk: EdgeSdk): Database.Database {
  return (sdk as unknown as { store: { db: Database.Database } }).store.db;
}

describe('storage failures while delivering', () => {
  it('survives a buffer that cannot be written after the server acknowledged a trip, and delivers it later', async () => {
    const errors: unknown[] = [];
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const sdk = EdgeSdk.open({
      storagePath: path.join(dir, 'buffer.db'),
      endpoint: server.url,
      ingestKey: 'test-key-1',
      durability: 'normal',
      retry: { baseDelayMs: 20, maxDelayMs: 100 },
      onError: (error) => errors.push(error),
    });
    try {
      // The file system turns read-only (or fills up) just as the server stores the trip: the SDK cannot
      // record the acknowledgement.
      server.onStored = () => databaseOf(sdk).pragma('query_only = 1');
      sdk.recordMany(drive({ startMs: T0, legs: [{ move: 150, speedKmh: 40 }] }));
      const tripId = sdk.endTrip()!;
      // Waits for the failed write to be reported, however busy the machine (a fixed 300 ms was not always enough).
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
      expect(String((errors[0] as Error).message)).toMatch(/readonly|read-only/);
      expect(sdk.trip(tripId)?.state).not.toBe('sent');

      // Storage comes back: the trip is sent again under the same key and the server answers duplicate.
      server.onStored = undefined;
      databaseOf(sdk).pragma('query_only = 0');
      const result = await sdk.flush({ timeoutMs: 5_000 });
      expect(result).toMatchObject({ done: true, counts: { sent: 1, pending: 0, sending: 0 } });
      expect(sdk.trip(tripId)).toMatchObject({ state: 'sent', serverStatus: 'duplicate' });
      expect(server.trips.size).toBe(1);
    } finally {
      process.off('unhandledRejection', onRejection);
      await sdk.close();
    }
    expect(rejections).toEqual([]);
  });
});
