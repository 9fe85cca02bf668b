import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GpsSample, Sample } from '@svc/scoring';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EdgeSdk, type EdgeSdkEvent, type EdgeSdkOptions, SampleRejectedError } from '../src/index.ts';
import { drive, ManualClock } from './drive.ts';
import { FakeIngestServer } from './fake-ingest-server.ts';

/**
 * Samples dated far ahead: one garbage GPS fix must not stop recording (it would be `newestT` for good), while
 * streams legitimately ahead of others (GPS time against a wall clock that is behind) and clocks stepped
 * forward keep the behaviour they always had.
 */

const T0 = Date.UTC(2025, 5, 2, 7, 30);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;
const KEY = 'test-key-1';
/** The ingest endpoint refuses a trip that ends more than this after its clock. */
const SERVER_MAX_AHEAD_MS = DAY;

let dir: string;
let server: FakeIngestServer;
const open: EdgeSdk[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-time-'));
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
    upload: false,
    deviceId: 'dev-time-1',
    vehicle: 'M-TI 1',
    durability: 'normal',
    ...options,
  });
  open.push(sdk);
  const events: EdgeSdkEvent[] = [];
  for (const type of ['tripStarted', 'tripEnded', 'tripDiscarded', 'samplesDropped'] as const) {
    sdk.on(type, (event) => events.push(event));
  }
  return { sdk, events };
}

async function closeSdk(sdk: EdgeSdk): Promise<void> {
  await sdk.close();
  open.splice(open.indexOf(sdk), 1);
}

/** Opens the buffer again with uploads on and waits until every finished trip is delivered. */
async function deliver(clock: ManualClock) {
  const sdk = EdgeSdk.open({
    storagePath: path.join(dir, 'buffer.db'),
    endpoint: server.url,
    ingestKey: KEY,
    durability: 'normal',
    clock,
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
  });
  open.push(sdk);
  expect(await sdk.flush({ timeoutMs: 10_000 })).toMatchObject({ done: true, counts: { failed: 0 } });
  return server.storedTrips().map((trip) => trip.batch.samples as Sample[]);
}

/** Records each sample, one call each, the clocks moving a second per GPS fix; returns the refusals' codes. */
function feed(sdk: EdgeSdk, clock: ManualClock, samples: readonly Sample[], skip?: Sample): string[] {
  const refused: string[] = [];
  for (const sample of samples) {
    try {
      sdk.record(sample);
    } catch (error) {
      if (!(error instanceof SampleRejectedError)) throw error;
      refused.push(error.code);
    }
    if (sample.type === 'gps' && sample !== skip) clock.advance(1000);
  }
  return refused;
}

const key = (s: Sample) => `${s.type}@${s.t}`;

describe('a sample dated far ahead', () => {
  // A drive with 2 Hz accelerometer readings: 20 s standing, 400 s at 40 km/h, 301 s stopped. Without the bad
  // fix it is one trip of everything up to 30 s after the stop at T0 + 420 s.
  const samples = drive({
    startMs: T0,
    legs: [{ stop: 20 }, { move: 400, speedKmh: 40 }, { stop: 301 }],
    accelHz: 2,
  });
  const inTrips = samples.filter((s) => s.t <= T0 + 450_000).map(key);
  // The receiver's garbage: a moving fix dated a year ahead, 220 s into the drive (before that second's fix).
  const at = samples.findIndex((s) => s.type === 'gps' && s.t === T0 + 220_000);
  const bad: GpsSample = { type: 'gps', t: T0 + 220_000 + YEAR, lon: 11.6, lat: 48.137, speedMps: 11, accuracyM: 5 };

  function expectRecovered(trips: ReturnType<EdgeSdk['trips']>, delivered: Sample[][], clock: ManualClock) {
    // The bad fix ended the trip as any 5-minute gap does; the drive goes on in a second trip from the next fix.
    expect(trips).toMatchObject([
      { state: 'sent', endReason: 'stopped', startMs: T0 + 20_000, endMs: T0 + 219_500 },
      { state: 'sent', endReason: 'stopped', startMs: T0 + 220_000, endMs: T0 + 420_000 },
    ]);
    expect(delivered).toHaveLength(2);
    // Every sample but the bad fix arrives, once; no delivered trip ends after the server's limit.
    expect(delivered.flat().map(key).sort()).toEqual([...inTrips].sort());
    for (const batch of delivered) {
      expect(Math.max(...batch.map((s) => s.t))).toBeLessThanOrEqual(clock.now() + SERVER_MAX_AHEAD_MS);
    }
  }

  it('is dropped when its stream comes back, and the drive goes on with every other sample kept', async () => {
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock });
    expect(feed(sdk, clock, [...samples.slice(0, at), bad, ...samples.slice(at)], bad)).toEqual([]);

    expect(events.map((e) => e.type)).toEqual([
      'tripStarted',
      'tripEnded',
      'tripStarted',
      'tripDiscarded',
      'samplesDropped',
      'tripStarted',
      'tripEnded',
    ]);
    expect(events[3]).toMatchObject({
      type: 'tripDiscarded',
      startMs: bad.t,
      reason: /^bad time stamps: dated 365 days/,
    });
    expect(events[4]).toMatchObject({ type: 'samplesDropped', samples: [{ type: 'gps', t: bad.t }] });
    await closeSdk(sdk);
    const delivered = await deliver(clock);
    expectRecovered(open[0]!.trips(), delivered, clock);
  });

  it('is dropped across restarts, also when it is the first sample after one', async () => {
    const clock = new ManualClock(T0);
    let { sdk, events } = openSdk({ clock });
    const seen: EdgeSdkEvent[] = [];
    expect(feed(sdk, clock, samples.slice(0, at))).toEqual([]);
    seen.push(...events);
    // The device restarts; the bad fix is the first thing recorded after it (the state before it was kept).
    await closeSdk(sdk);
    ({ sdk, events } = openSdk({ clock }));
    sdk.record(bad);
    seen.push(...events);
    // And again, with the bad fix as the newest sample recorded.
    await closeSdk(sdk);
    ({ sdk, events } = openSdk({ clock }));
    expect(feed(sdk, clock, samples.slice(at))).toEqual([]);
    seen.push(...events);

    expect(seen.filter((e) => e.type === 'samplesDropped')).toMatchObject([{ samples: [{ type: 'gps', t: bad.t }] }]);
    expect(sdk.lastSampleMs).toBe(samples.at(-1)?.t);
    await closeSdk(sdk);
    const delivered = await deliver(clock);
    expectRecovered(open[0]!.trips(), delivered, clock);
  });

  it('arriving between trips costs nothing: the lead-in before it stays', () => {
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock });
    const standing = samples.findIndex((s) => s.type === 'gps' && s.t === T0 + 10_000);
    const still: GpsSample = { type: 'gps', t: T0 + 10_000 + YEAR, lon: 11.575, lat: 48.137, speedMps: 0 };
    expect(feed(sdk, clock, [...samples.slice(0, standing), still, ...samples.slice(standing)], still)).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['samplesDropped', 'tripStarted', 'tripEnded']);
    expect(sdk.trips()).toMatchObject([{ startMs: T0 + 20_000, endMs: T0 + 420_000, sampleCount: inTrips.length }]);
  });

  it('keeps the other streams refused until the stream that jumped comes back, in a batch too', () => {
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock });
    const before = samples.filter((s) => s.t < T0 + 220_000);
    const after = samples.filter((s) => s.t >= T0 + 220_000);
    feed(sdk, clock, before);
    sdk.record(bad);
    // The accelerometer alone proves nothing (it could follow a wall clock behind GPS time): refused as before.
    expect(feed(sdk, clock, after.slice(1, 3))).toEqual(['too_late', 'too_late']);
    expect(events.some((e) => e.type === 'samplesDropped')).toBe(false);
    // A batch whose fix comes back after its accelerometer readings is stored whole.
    const batch = after.slice(4, 10);
    expect(batch.map((s) => s.type)).toEqual(['accel', 'accel', 'gps', 'accel', 'accel', 'gps']);
    expect(sdk.recordMany(batch)).not.toBeNull();
    expect(events.filter((e) => e.type === 'samplesDropped')).toHaveLength(1);
    expect(sdk.lastSampleMs).toBe(T0 + 223_000);
  });

  it('stays a time line once more than a handful of samples followed it (refused as before)', () => {
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock });
    feed(
      sdk,
      clock,
      samples.filter((s) => s.t < T0 + 220_000),
    );
    // Four fixes of the receiver a year ahead, then it comes back: which time is right is no longer clear.
    for (let k = 0; k < 4; k++) sdk.record({ ...bad, t: bad.t + k * 1000 });
    expect(feed(sdk, clock, samples.filter((s) => s.t >= T0 + 220_000).slice(0, 6))).toEqual([
      'time_backwards',
      'too_late',
      'too_late',
      'time_backwards',
      'too_late',
      'too_late',
    ]);
    expect(events.some((e) => e.type === 'samplesDropped')).toBe(false);
  });
});

describe('streams legitimately ahead of others', () => {
  // The host stamps fixes with GPS time and the accelerometer and OBD readings with the wall clock, which is
  // behind (no RTC, no NTP yet). The readings start 10 s before the receiver has its first fix.
  function mixedClocks(wallMs: number, gpsAheadMs: number): Sample[] {
    const gps = drive({ startMs: wallMs + 10_000 + gpsAheadMs, legs: [{ move: 200, speedKmh: 40 }, { stop: 301 }] });
    const out: Sample[] = [];
    for (let s = 0; s < 10 + gps.length; s++) {
      const t = wallMs + s * 1000;
      out.push({ type: 'accel', t, x: 0, y: 0, z: 9.81 }, { type: 'accel', t: t + 500, x: 0, y: 0, z: 9.81 });
      out.push({ type: 'obd', t: t + 100, speedKmh: 0, rpm: 800 });
      if (s >= 10) out.push(gps[s - 10] as Sample);
    }
    return out;
  }

  for (const [label, aheadMs] of [
    ['an hour', HOUR],
    ['a week', 7 * DAY],
  ] as const) {
    it(`keeps every fix of GPS time ${label} ahead of the wall clock, the wall-clock readings refused as before`, () => {
      const clock = new ManualClock(T0);
      const { sdk, events } = openSdk({ clock });
      const all = mixedClocks(T0, aheadMs);
      const firstFix = all.findIndex((s) => s.type === 'gps');
      const refused = feed(sdk, clock, all);

      const lateAfterFirstFix = all.slice(firstFix).filter((s) => s.type !== 'gps').length;
      expect(refused).toEqual(Array(lateAfterFirstFix).fill('too_late'));
      expect(events.map((e) => e.type)).toEqual(['tripStarted', 'tripEnded']);
      const fixes = all.filter((s) => s.type === 'gps');
      expect(sdk.trips()).toMatchObject([
        {
          endReason: 'stopped',
          startMs: fixes[0]?.t,
          endMs: (fixes[0]?.t as number) + 200_000,
          sampleCount: 231,
        },
      ]);
    });
  }

  it('keeps every fix after a week parked with fake-hwclock bringing the wall clock back to the shutdown', async () => {
    // Before parking both clocks were right: one drive on one time line.
    const clock = new ManualClock(T0);
    let { sdk, events } = openSdk({ clock });
    const first = drive({ startMs: T0, legs: [{ move: 200, speedKmh: 40 }, { stop: 301 }], accelHz: 2 });
    expect(feed(sdk, clock, first)).toEqual([]);
    await closeSdk(sdk);
    // A week later the wall clock comes back where it was at shutdown; GPS time is right.
    ({ sdk, events } = openSdk({ clock: new ManualClock(clock.now()) }));
    const all = mixedClocks(clock.now(), 7 * DAY - 10_000);
    const firstFix = all.findIndex((s) => s.type === 'gps');
    const refused = feed(sdk, new ManualClock(clock.now()), all);

    expect(refused).toEqual(Array(all.slice(firstFix).filter((s) => s.type !== 'gps').length).fill('too_late'));
    expect(events.map((e) => e.type)).toEqual(['tripStarted', 'tripEnded']);
    expect(sdk.trips().map((t) => [t.endReason, t.sampleCount])).toEqual([
      ['stopped', expect.any(Number)],
      ['stopped', 231],
    ]);
  });

  it('starts a new trip after the clock of every stream was stepped forward, as a gap does', () => {
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock });
    const before = drive({ startMs: T0, legs: [{ move: 200, speedKmh: 40 }], accelHz: 2 });
    expect(feed(sdk, clock, before)).toEqual([]);
    // NTP steps the wall clock two hours forward; the host stamps everything with it.
    clock.stepWall(2 * HOUR);
    const after = drive({
      startMs: T0 + 200_000 + 2 * HOUR,
      legs: [{ move: 200, speedKmh: 40 }, { stop: 301 }],
      accelHz: 2,
      lon: 11.6,
    });
    expect(feed(sdk, clock, after)).toEqual([]);

    expect(events.map((e) => e.type)).toEqual(['tripStarted', 'tripEnded', 'tripStarted', 'tripEnded']);
    expect(sdk.trips()).toMatchObject([
      { endReason: 'stopped', startMs: T0, endMs: T0 + 199_500, sampleCount: 600 },
      { endReason: 'stopped', startMs: T0 + 200_000 + 2 * HOUR, endMs: T0 + 400_000 + 2 * HOUR, sampleCount: 692 },
    ]);
  });
});
