import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Sample } from '@svc/scoring';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EdgeSdk, EdgeSdkConfigError, type EdgeSdkEvent, type EdgeSdkOptions } from '../src/index.ts';
import { drive, ManualClock } from './drive.ts';
import { FakeIngestServer } from './fake-ingest-server.ts';

const T0 = Date.UTC(2025, 5, 3, 6);
const KEY = 'test-key-1';

let dir: string;
let server: FakeIngestServer;
const open: EdgeSdk[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-del-'));
  server = await FakeIngestServer.start();
});
afterEach(async () => {
  for (const sdk of open.splice(0)) await sdk.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function openSdk(options: Partial<EdgeSdkOptions> = {}): { sdk: EdgeSdk; events: EdgeSdkEvent[] } {
  const sdk = EdgeSdk.open({
    storagePath: path.join(dir, 'buffer.db'),
    endpoint: server.url,
    ingestKey: KEY,
    deviceId: 'dev-del-1',
    vehicle: 'M-ED 1',
    durability: 'normal',
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    ...options,
  });
  open.push(sdk);
  const events: EdgeSdkEvent[] = [];
  for (const type of ['tripEnded', 'tripSent', 'tripFailed', 'uploadRetry'] as const) {
    sdk.on(type, (event) => events.push(event));
  }
  return { sdk, events };
}

async function closeSdk(sdk: EdgeSdk): Promise<void> {
  await sdk.close();
  open.splice(open.indexOf(sdk), 1);
}

/** Records `count` trips of 150 s each, an hour apart; returns their ids. */
function recordTrips(sdk: EdgeSdk, count: number, startMs = T0): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    sdk.recordMany(drive({ startMs: startMs + i * 3_600_000, legs: [{ move: 150, speedKmh: 40 }] }));
    ids.push(sdk.endTrip()!);
  }
  return ids;
}

async function waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Records `samples` as a device does, a second's worth per call with the clock following, ends and delivers. */
async function driveLive(sdk: EdgeSdk, clock: ManualClock, samples: Sample[]) {
  for (let t = T0; t <= samples.at(-1)!.t; t += 1000) {
    sdk.recordMany(samples.filter((s) => s.t >= t && s.t < t + 1000));
    clock.advance(1000);
  }
  sdk.endTrip();
  return sdk.flush({ timeoutMs: 10_000 });
}

/** The parts of a cut drive follow each other: every sample arrives once, none falls between two trips. */
function expectEverySampleOnce(
  parts: Array<Array<{ type: string; t: number }>>,
  samples: Array<{ type: string; t: number }>,
) {
  const keyOf = (s: { type: string; t: number }) => `${s.type}@${s.t}`;
  const delivered = parts.flat().map(keyOf);
  expect(new Set(delivered).size).toBe(delivered.length);
  expect(delivered.sort()).toEqual(samples.map(keyOf).sort());
}

describe('delivery', () => {
  it('uploads a finished trip gzipped under its idempotency key and deletes it only once acknowledged', async () => {
    const { sdk } = openSdk({ driverId: 'drv-1', machineType: 'van', phoneMonitored: true });
    const [tripId] = recordTrips(sdk, 1);
    const bufferedBytes = sdk.stats().usedBytes;
    expect(bufferedBytes).toBeGreaterThan(10_000);

    const result = await sdk.flush({ timeoutMs: 10_000 });
    expect(result.done).toBe(true);

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ idempotencyKey: tripId, contentEncoding: 'gzip', status: 202 });
    const [stored] = server.storedTrips();
    expect(stored?.batch).toMatchObject({
      schemaVersion: 1,
      clientTripId: tripId,
      deviceId: 'dev-del-1',
      vehicle: 'M-ED 1',
      driverId: 'drv-1',
      machineType: 'van',
      phoneMonitored: true,
    });
    expect(stored?.batch.samples).toHaveLength(150);
    expect(sdk.trip(tripId!)).toMatchObject({
      state: 'sent',
      serverTripId: stored?.tripId,
      serverStatus: 'queued',
      attempts: 1,
      buffered: false,
    });
    expect(sdk.stats().usedBytes).toBe(0);
    await expect(sdk.serverStatus(tripId!)).resolves.toEqual({ tripId: stored?.tripId, status: 'queued' });
  });

  it('keeps retrying while the network is down and delivers once it is back', async () => {
    server.cut();
    const { sdk, events } = openSdk();
    const [tripId] = recordTrips(sdk, 1);
    await waitFor(() => events.filter((e) => e.type === 'uploadRetry').length >= 3);
    // Full jitter can make the next back-off almost zero, so the trip may already be on its next attempt:
    // either way it is still being tried, not sent and not given up.
    const trip = sdk.trip(tripId!);
    expect(['pending', 'sending']).toContain(trip?.state);
    expect(trip?.lastError).toMatch(/network error/);
    expect(server.trips.size).toBe(0);

    server.restore();
    const result = await sdk.flush({ timeoutMs: 10_000 });
    expect(result).toMatchObject({ done: true, counts: { sent: 1, pending: 0, failed: 0 } });
    expect(server.trips.size).toBe(1);
  });

  it('resends a trip whose acknowledgement was lost and counts it once (200 duplicate)', async () => {
    server.faults.push({ cut: 'after' });
    const { sdk } = openSdk();
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 10_000 });
    expect(server.requests.map((r) => [r.idempotencyKey, r.status])).toEqual([
      [tripId, 'cut'],
      [tripId, 200],
    ]);
    expect(server.trips.size).toBe(1);
    expect(sdk.trip(tripId!)).toMatchObject({ state: 'sent', serverStatus: 'duplicate', attempts: 2 });
  });

  it('retries 500, 502 and 503 answers with back-off until the server takes the trip', async () => {
    server.faults.push({ status: 500 }, { status: 502 }, { status: 503 });
    const { sdk, events } = openSdk();
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 10_000 });
    expect(events.filter((e) => e.type === 'uploadRetry').map((e) => e.type === 'uploadRetry' && e.reason)).toEqual([
      'HTTP 500: injected 500',
      'HTTP 502: injected 502',
      'HTTP 503: injected 503',
    ]);
    expect(sdk.trip(tripId!)).toMatchObject({ state: 'sent', attempts: 4 });
    expect(server.trips.size).toBe(1);
  });

  it("waits at least the server's Retry-After on 429 before trying again", async () => {
    server.faults.push({ status: 429, retryAfter: '1' });
    const { sdk, events } = openSdk();
    recordTrips(sdk, 1);
    const started = performance.now();
    await sdk.flush({ timeoutMs: 10_000 });
    const retry = events.find((e) => e.type === 'uploadRetry');
    expect(retry).toMatchObject({ reason: 'HTTP 429: injected 429' });
    expect(retry?.type === 'uploadRetry' && retry.delayMs).toBeGreaterThanOrEqual(1000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(server.requests.map((r) => r.status)).toEqual([429, 202]);
  });

  it('fails a trip the server refuses (400), keeps its samples, moves on, and can retry it later', async () => {
    server.faults.push({ status: 400, body: JSON.stringify({ ok: false, error: 'samples[3].lat must be a number' }) });
    const { sdk } = openSdk();
    const [first, second] = recordTrips(sdk, 2);
    const result = await sdk.flush({ timeoutMs: 10_000 });
    expect(result).toMatchObject({ done: true, counts: { sent: 1, failed: 1 } });
    expect(sdk.trip(first!)).toMatchObject({
      state: 'failed',
      reason: 'HTTP 400: samples[3].lat must be a number',
      httpStatus: 400,
      attempts: 1,
      buffered: true,
    });
    expect(sdk.trip(second!)).toMatchObject({ state: 'sent' });

    expect(sdk.retry(first)).toBe(1);
    await sdk.flush({ timeoutMs: 10_000 });
    expect(sdk.trip(first!)).toMatchObject({ state: 'sent', reason: null });
    expect(server.trips.size).toBe(2);
  });

  it('fails trips permanently on a bad ingest key (401) and on a body too large (413)', async () => {
    const { sdk } = openSdk({ ingestKey: 'not-a-key' });
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 10_000 });
    expect(sdk.trip(tripId!)).toMatchObject({ state: 'failed', httpStatus: 401 });
    expect(sdk.trip(tripId!)?.reason).toBe('HTTP 401: missing or unknown ingest key');
    await closeSdk(sdk);

    await server.close();
    server = await FakeIngestServer.start({ maxBodyBytes: 500 });
    const again = openSdk();
    const [big] = recordTrips(again.sdk, 1, T0 + 86_400_000);
    await again.sdk.flush({ timeoutMs: 10_000 });
    expect(again.sdk.trip(big!)).toMatchObject({ state: 'failed', httpStatus: 413 });
  });

  it('cuts a drive that would pass the body limit into consecutive trips, each delivered whole', async () => {
    await server.close();
    server = await FakeIngestServer.start({ maxBodyBytes: 300_000 });
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock, maxTripBytes: 200_000 });
    // Ten minutes at 40 km/h with 10 Hz accelerometer readings, one second per call: about 500 kB of samples,
    // more than the server takes in one upload. Without a cut the trip is refused (413) and fails for good.
    const samples = drive({ startMs: T0, legs: [{ stop: 10 }, { move: 600, speedKmh: 40 }], accelHz: 10 });
    const result = await driveLive(sdk, clock, samples);

    expect(result).toMatchObject({ done: true, counts: { failed: 0, recording: 0 } });
    expect(server.requests.map((r) => r.status)).not.toContain(413);
    const ended = events.filter((e) => e.type === 'tripEnded');
    expect(ended.map((e) => e.reason)).toEqual(['size', 'size', 'host']);
    const stored = server.storedTrips().map((trip) => trip.batch.samples);
    expect(stored).toHaveLength(3);
    for (const part of stored) expect(JSON.stringify(part).length).toBeLessThan(210_000);
    // The parts follow each other: every sample of the drive arrives once, none falls between two trips.
    expectEverySampleOnce(stored, samples);
    for (let i = 1; i < stored.length; i++) {
      expect(stored[i]![0]!.t).toBeGreaterThan(stored[i - 1]!.at(-1)!.t);
    }
  });

  it('cuts a drive that never stops into consecutive trips spanning at most maxTripDurationMs, each delivered', async () => {
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock, maxTripDurationMs: 600_000 });
    // 25 minutes without a stop: a trip limited to 10 minutes of samples is cut twice.
    const samples = drive({ startMs: T0, legs: [{ stop: 10 }, { move: 1500, speedKmh: 40 }] });
    const result = await driveLive(sdk, clock, samples);

    expect(result).toMatchObject({ done: true, counts: { failed: 0, recording: 0 } });
    expect(events.filter((e) => e.type === 'tripEnded').map((e) => e.reason)).toEqual(['duration', 'duration', 'host']);
    const stored = server.storedTrips().map((trip) => trip.batch.samples);
    for (const part of stored) expect(part.at(-1)!.t - part[0]!.t).toBeLessThanOrEqual(600_000);
    expectEverySampleOnce(stored, samples);
    expect(() => openSdk({ storagePath: path.join(dir, 'other.db'), maxTripDurationMs: 24 * 3_600_000 })).toThrow(
      /maxTripDurationMs must be at most 23 h/,
    );
  });

  it('does not take a captive portal page (200 HTML) for an acknowledgement', async () => {
    server.faults.push({ status: 200, body: '<html>Welcome to Hotel WiFi</html>', contentType: 'text/html' });
    const { sdk } = openSdk();
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 10_000 });
    expect(server.requests.map((r) => r.status)).toEqual([200, 202]);
    expect(sdk.trip(tripId!)).toMatchObject({ state: 'sent', serverStatus: 'queued', attempts: 2 });
  });

  it('times out a hanging request, retries, and the trip is still stored once', async () => {
    server.faults.push({ delayMs: 1500 });
    const { sdk, events } = openSdk({ requestTimeoutMs: 300, minUploadBytesPerS: Number.POSITIVE_INFINITY });
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 10_000 });
    expect(events.find((e) => e.type === 'uploadRetry')).toMatchObject({ reason: 'no answer within 300 ms' });
    expect(sdk.trip(tripId!)?.state).toBe('sent');
    // The slow first request finishes on the server after the retry: still one trip.
    await waitFor(() => server.requests.length === 2 && server.requests.every((r) => r.status !== 0));
    expect(server.trips.size).toBe(1);
  });

  it('gives an upload time to send its bytes over a slow link instead of timing it out on every attempt', async () => {
    // A link of 1 KB/s: the trip's upload takes over a second, several times the request timeout.
    server.uplinkBytesPerS = 1_000;
    const { sdk, events } = openSdk({ requestTimeoutMs: 300, minUploadBytesPerS: 500 });
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 20_000 });
    expect(server.requests[0]!.bodyBytes / server.uplinkBytesPerS).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === 'uploadRetry')).toEqual([]);
    expect(sdk.trip(tripId!)).toMatchObject({ state: 'sent', attempts: 1 });
    expect(server.trips.size).toBe(1);
  });

  it('still times out an upload that takes longer than its size allows at the slowest rate', async () => {
    server.uplinkBytesPerS = 500;
    const { sdk, events } = openSdk({
      requestTimeoutMs: 200,
      minUploadBytesPerS: 20_000,
      retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 2 },
    });
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 20_000 });
    const retry = events.find((e) => e.type === 'uploadRetry') as { reason: string } | undefined;
    const bytes = server.requests[0]!.bodyBytes;
    expect(retry?.reason).toBe(`no answer within ${200 + Math.ceil((bytes / 20_000) * 1000)} ms`);
    expect(sdk.trip(tripId!)).toMatchObject({ state: 'failed', attempts: 2 });
  });

  it('gives up after maxAttempts when configured, with the last error as the reason', async () => {
    server.cut();
    const { sdk } = openSdk({ retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 } });
    const [tripId] = recordTrips(sdk, 1);
    await sdk.flush({ timeoutMs: 10_000 });
    expect(sdk.trip(tripId!)).toMatchObject({
      state: 'failed',
      attempts: 3,
      reason: expect.stringMatching(/^gave up after 3 attempts; last: network error/),
    });
  });

  it('delivers after a restart what a closed SDK could not, in recording order', async () => {
    server.cut();
    const first = openSdk();
    const ids = recordTrips(first.sdk, 3);
    await waitFor(() => first.events.some((e) => e.type === 'uploadRetry'));
    await closeSdk(first.sdk);

    server.restore();
    const second = openSdk();
    await second.sdk.flush({ timeoutMs: 10_000 });
    expect(second.sdk.trips().map((t) => t.state)).toEqual(['sent', 'sent', 'sent']);
    expect(server.storedTrips().map((t) => t.idempotencyKey)).toEqual(ids);
  });

  it('waits out a Retry-After longer than a Node timer can hold instead of spinning on 1 ms timers', async () => {
    const overflows: Error[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === 'TimeoutOverflowWarning') overflows.push(warning);
    };
    process.on('warning', onWarning);
    try {
      server.faults.push({ status: 503, retryAfter: String(30 * 86_400) });
      const { sdk, events } = openSdk({ retry: { baseDelayMs: 20, maxDelayMs: 200, maxRetryAfterMs: Infinity } });
      const [tripId] = recordTrips(sdk, 1);
      await waitFor(() => events.some((e) => e.type === 'uploadRetry'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(sdk.stats().backoffRemainingMs).toBeGreaterThan(29 * 86_400_000);
      expect(sdk.trip(tripId!)?.state).toBe('pending');
      expect(server.requests).toHaveLength(1);
      expect(overflows).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('refuses timeouts and intervals that Node timers cannot hold at open, instead of firing them at once', () => {
    for (const options of [
      { requestTimeoutMs: Infinity },
      { requestTimeoutMs: 30 * 86_400_000 },
      { silenceCheckIntervalMs: Infinity },
    ]) {
      expect(() => openSdk(options)).toThrow(EdgeSdkConfigError);
    }
  });
});
