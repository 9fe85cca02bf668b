import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BufferStore } from '../src/buffer-store.ts';
import { CorruptStorageError, EdgeSdk } from '../src/index.ts';
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

  it('fails a trip whose samples the disk damaged while the SDK ran, and delivers the trips after it', async () => {
    const errors: unknown[] = [];
    const damaged = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    let firstSeq: number | undefined;
    // The first trip's sample pages can no longer be read (a flash card's bad block), as SQLite reports it.
    const read = BufferStore.prototype.batchJson;
    const spy = vi.spyOn(BufferStore.prototype, 'batchJson').mockImplementation(function (
      this: BufferStore,
      seq,
      meta,
    ) {
      firstSeq ??= seq;
      if (seq === firstSeq) throw damaged;
      return read.call(this, seq, meta);
    });
    server.down = true;
    const sdk = EdgeSdk.open({
      storagePath: path.join(dir, 'buffer.db'),
      endpoint: server.url,
      ingestKey: 'test-key-1',
      durability: 'normal',
      retry: { baseDelayMs: 20, maxDelayMs: 100 },
      onError: (error) => errors.push(error),
    });
    try {
      const failed: string[] = [];
      sdk.on('tripFailed', (event) => failed.push(`${event.tripId}: ${event.reason}`));
      const ids = [0, 1, 2].map((i) => {
        sdk.recordMany(drive({ startMs: T0 + i * 3_600_000, legs: [{ move: 150, speedKmh: 40 }] }));
        return sdk.endTrip()!;
      });
      server.down = false;
      const result = await sdk.flush({ timeoutMs: 10_000 });
      expect(result).toMatchObject({ done: true, counts: { sent: 2, failed: 1, pending: 0 } });
      expect(failed).toEqual([
        `${ids[0]}: its samples cannot be read: the buffer file is damaged (database disk image is malformed)`,
      ]);
      expect(sdk.trip(ids[0]!)?.state).toBe('failed');
      expect([ids[1], ids[2]].map((id) => sdk.trip(id!)?.state)).toEqual(['sent', 'sent']);
      expect(errors).toEqual([damaged]);
    } finally {
      spy.mockRestore();
      await sdk.close();
    }
  });
});

describe('a buffer file the disk damaged', () => {
  it('is set aside at open when a page of its samples is damaged, and recording goes on in a new buffer', async () => {
    const file = path.join(dir, 'buffer.db');
    const first = EdgeSdk.open({ storagePath: file, upload: false, durability: 'normal' });
    first.recordMany(drive({ startMs: T0, legs: [{ move: 150, speedKmh: 40 }] }));
    first.endTrip();
    await first.close();
    // Overwrites the header of the first leaf page of the samples table, as a bad block of a flash card would.
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const leaf = db
      .prepare("SELECT pageno FROM dbstat WHERE name = 'samples' AND pagetype = 'leaf' ORDER BY path LIMIT 1")
      .pluck()
      .get() as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (leaf - 1) * pageSize);
    closeSync(fd);

    const errors: unknown[] = [];
    const sdk = EdgeSdk.open({
      storagePath: file,
      upload: false,
      durability: 'normal',
      onError: (error) => errors.push(error),
    });
    try {
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(CorruptStorageError);
      expect((errors[0] as Error).message).toMatch(/malformed.*moved to .*buffer\.db\.corrupt-.*recording continues/);
      expect(readdirSync(dir).some((name) => name.startsWith('buffer.db.corrupt-'))).toBe(true);
      sdk.recordMany(drive({ startMs: T0 + 3_600_000, legs: [{ move: 150, speedKmh: 40 }] }));
      expect(sdk.endTrip()).toEqual(expect.any(String));
      expect(sdk.stats().trips.pending).toBe(1);
    } finally {
      await sdk.close();
    }
  });
});
