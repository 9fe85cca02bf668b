import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Sample } from '@svc/scoring';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BufferFullError,
  CorruptStorageError,
  EdgeSdk,
  type EdgeSdkEvent,
  type EdgeSdkOptions,
  EdgeSdkStateError,
  SampleRejectedError,
} from '../src/index.ts';
import { drive, ManualClock } from './drive.ts';

const T0 = Date.UTC(2025, 5, 2, 7, 30);

let dir: string;
const open: EdgeSdk[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-rec-'));
});
afterEach(async () => {
  for (const sdk of open.splice(0)) await sdk.close();
  rmSync(dir, { recursive: true, force: true });
});

function openSdk(options: Partial<EdgeSdkOptions> = {}): { sdk: EdgeSdk; events: EdgeSdkEvent[] } {
  const sdk = EdgeSdk.open({
    storagePath: path.join(dir, 'buffer.db'),
    upload: false,
    deviceId: 'dev-test-1',
    ...options,
  });
  open.push(sdk);
  const events: EdgeSdkEvent[] = [];
  for (const type of ['tripStarted', 'tripEnded', 'tripDiscarded', 'tripEvicted'] as const) {
    sdk.on(type, (event) => events.push(event));
  }
  return { sdk, events };
}

async function reopen(sdk: EdgeSdk, options: Partial<EdgeSdkOptions> = {}) {
  await sdk.close();
  open.splice(open.indexOf(sdk), 1);
  return openSdk(options);
}

function rejectionOf(fn: () => unknown): SampleRejectedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SampleRejectedError) return error;
    throw error;
  }
  throw new Error('expected the call to be rejected');
}

describe('recording', () => {
  it('cuts a drive into one trip where the vehicle started and stopped, with identity attached', () => {
    const { sdk, events } = openSdk({ vehicle: 'M-AB 123', driverId: 'drv-7', clock: new ManualClock(T0) });
    const samples = drive({
      startMs: T0,
      legs: [{ stop: 20 }, { move: 180, speedKmh: 40 }, { stop: 301 }],
      accelHz: 2,
    });
    for (const sample of samples) sdk.record(sample);

    expect(events.map((e) => e.type)).toEqual(['tripStarted', 'tripEnded']);
    const [trip] = sdk.trips();
    expect(trip).toMatchObject({
      state: 'pending',
      startMs: T0 + 20_000,
      endMs: T0 + 200_000,
      endReason: 'stopped',
      deviceId: 'dev-test-1',
      vehicle: 'M-AB 123',
      driverId: 'drv-7',
      buffered: true,
    });
    // The batch keeps 30 s on each side of the motion (the scorer's window reaches into the standstill): the
    // 20 s stand before, the drive, and 30 s of the stop; a fix and two accelerometer readings per second.
    expect(trip?.sampleCount).toBe(20 * 3 + 180 * 3 + 31 * 3 - 1);
    expect(trip?.distanceM).toBeGreaterThan(1990);
    expect(trip?.distanceM).toBeLessThan(2010);
    expect(sdk.currentTripId).toBeNull();
  });

  it('discards a move too short to be a trip (car park shuffle) and keeps nothing of it', () => {
    const { sdk, events } = openSdk();
    for (const sample of drive({ startMs: T0, legs: [{ move: 40, speedKmh: 15 }, { stop: 301 }] })) sdk.record(sample);
    expect(events.map((e) => e.type)).toEqual(['tripStarted', 'tripDiscarded']);
    expect(events[1]).toMatchObject({
      reason: expect.stringMatching(/^not a scorable trip: 0\.1\d km and \d+ s moving; the minimum is 1 km and 120 s$/),
    });
    expect(sdk.trips()).toEqual([]);
  });

  it('rejects bad input at the call and stores nothing of it', () => {
    const { sdk } = openSdk();
    const samples = drive({ startMs: T0, legs: [{ move: 30, speedKmh: 40 }] });
    for (const sample of samples) sdk.record(sample);
    const before = sdk.stats().usedBytes;
    const last = samples.at(-1)!;

    expect(rejectionOf(() => sdk.recordGps({ t: last.t + 1000, lon: Number.NaN, lat: 48.1 })).field).toBe('lon');
    expect(rejectionOf(() => sdk.recordGps({ t: last.t + 1000, lon: 11.5, lat: 95 })).code).toBe('out_of_range');
    const backwards = rejectionOf(() => sdk.recordGps({ t: last.t - 5000, lon: 11.5, lat: 48.1 }));
    expect(backwards.code).toBe('time_backwards');
    expect(backwards.message).toContain('time went backwards');
    expect(rejectionOf(() => sdk.recordGps({ t: last.t, lon: 11.5, lat: 48.1 })).code).toBe('time_backwards');
    expect(rejectionOf(() => sdk.recordAccel({ t: last.t - 120_000, x: 0, y: 0, z: 9.8 })).code).toBe('too_late');
    expect(rejectionOf(() => sdk.recordPhone({ t: last.t + 10, event: 'doomscrolling' as 'unlock' })).code).toBe(
      'unknown_event_type',
    );
    expect(rejectionOf(() => sdk.record({ type: 'radar', t: last.t + 10 } as unknown as Sample)).code).toBe(
      'unknown_sample_type',
    );

    // One bad sample in a batch: none of the batch is stored.
    const batch: Sample[] = [
      { type: 'accel', t: last.t + 100, x: 0, y: 0, z: 9.8 },
      { type: 'gps', t: last.t + 1000, lon: 11.6, lat: Number.NaN },
      { type: 'accel', t: last.t + 1100, x: 0, y: 0, z: 9.8 },
    ];
    const inBatch = rejectionOf(() => sdk.recordMany(batch));
    expect(inBatch.index).toBe(1);
    expect(inBatch.message).toMatch(/^sample 1: gps sample: lat/);

    expect(sdk.stats().usedBytes).toBe(before);
    expect(sdk.trip(sdk.currentTripId!)?.sampleCount).toBe(samples.length);
    // The stream continues where it was: the rejected calls left no trace in the ordering state either.
    expect(sdk.recordAccel({ t: last.t + 100, x: 0, y: 0, z: 9.8 })).toBe(sdk.currentTripId);
  });

  it('continues the same trip after a restart in the middle of it', async () => {
    const clock = new ManualClock(T0);
    let { sdk, events } = openSdk({ clock });
    const samples = drive({
      startMs: T0,
      legs: [{ move: 150, speedKmh: 40 }, { stop: 100 }, { move: 50, speedKmh: 40 }, { stop: 301 }],
    });
    for (const sample of samples.slice(0, 200)) sdk.record(sample);
    const tripId = sdk.currentTripId;
    ({ sdk, events } = await reopen(sdk, { clock }));
    expect(sdk.currentTripId).toBe(tripId);
    for (const sample of samples.slice(200)) sdk.record(sample);
    expect(events.map((e) => e.type)).toEqual(['tripEnded']);
    expect(sdk.trips()).toHaveLength(1);
    expect(sdk.trips()[0]).toMatchObject({ tripId, endMs: T0 + 300_000, sampleCount: 331 });
  });

  it('ends the trip when nothing arrives for 5 minutes, at the last sign of motion', () => {
    const clock = new ManualClock(T0);
    const { sdk, events } = openSdk({ clock });
    for (const sample of drive({ startMs: T0, legs: [{ move: 200, speedKmh: 30 }] })) {
      sdk.record(sample);
      clock.advance(1000);
    }
    clock.advance(298_000);
    sdk.checkSilence();
    expect(sdk.currentTripId).not.toBeNull();
    clock.advance(2000);
    sdk.checkSilence();
    expect(events.at(-1)).toMatchObject({ type: 'tripEnded', reason: 'silence', endMs: T0 + 199_000 });
  });

  it('ends a trip left open by a process that stopped long ago when the SDK opens again', async () => {
    const clock = new ManualClock(T0);
    let { sdk, events } = openSdk({ clock });
    for (const sample of drive({ startMs: T0, legs: [{ move: 200, speedKmh: 30 }] })) sdk.record(sample);
    await sdk.close();
    open.splice(open.indexOf(sdk), 1);
    clock.advance(3_600_000);
    ({ sdk, events } = openSdk({ clock }));
    // The check runs inside open(), before listeners exist: the trip is already finished.
    expect(events).toEqual([]);
    expect(sdk.trips()[0]).toMatchObject({ state: 'pending', endReason: 'silence', endMs: T0 + 199_000 });
  });

  it('ends a trip left open when nothing arrives for 5 minutes after a reboot with the wall clock behind', async () => {
    const clock = new ManualClock(T0);
    let { sdk, events } = openSdk({ clock });
    for (const sample of drive({ startMs: T0, legs: [{ move: 200, speedKmh: 30 }] })) {
      sdk.record(sample);
      clock.advance(1000);
    }
    await sdk.close();
    open.splice(open.indexOf(sdk), 1);
    // The device reboots without a real-time clock: the wall clock comes back an hour behind (no NTP yet),
    // the monotonic clock starts again, and the host records nothing (the car stays parked).
    const rebooted = new ManualClock(T0 - 3_600_000);
    ({ sdk, events } = openSdk({ clock: rebooted }));
    expect(sdk.currentTripId).not.toBeNull();
    rebooted.advance(299_000);
    sdk.checkSilence();
    expect(sdk.currentTripId).not.toBeNull();
    rebooted.advance(1000);
    sdk.checkSilence();
    expect(sdk.currentTripId).toBeNull();
    expect(events).toMatchObject([{ type: 'tripEnded', reason: 'silence', endMs: T0 + 199_000 }]);
    expect(sdk.trips()[0]).toMatchObject({ state: 'pending', endReason: 'silence' });
  });

  it('closes the trip and starts afresh when the device clock is stepped back, keeping each trip monotonic', () => {
    const clock = new ManualClock(T0 + 600_000);
    const { sdk, events } = openSdk({ clock });
    for (const sample of drive({ startMs: T0 + 600_000, legs: [{ move: 200, speedKmh: 40 }] })) {
      sdk.record(sample);
      clock.advance(1000);
    }
    // Without a clock change, going back 10 minutes is bad input.
    expect(rejectionOf(() => sdk.recordGps({ t: T0, lon: 11.6, lat: 48.137, speedMps: 11 })).code).toBe(
      'time_backwards',
    );

    // NTP steps the wall clock back 10 minutes; the host stamps samples with it.
    clock.stepWall(-600_000);
    const after = drive({ startMs: T0 + 200_000, legs: [{ move: 200, speedKmh: 40 }, { stop: 301 }], lon: 11.6 });
    for (const sample of after) sdk.record(sample);

    expect(events.map((e) => e.type)).toEqual(['tripStarted', 'tripEnded', 'tripStarted', 'tripEnded']);
    const [first, second] = sdk.trips();
    expect(first).toMatchObject({ endReason: 'clock_step', startMs: T0 + 600_000, endMs: T0 + 799_000 });
    expect(second).toMatchObject({ endReason: 'stopped', startMs: T0 + 200_000, endMs: T0 + 400_000 });
  });

  it('refuses a repeated fix after the wall clock was stepped back instead of cutting the trip there', () => {
    // The device booted an hour fast and NTP has just corrected it; the host stamps fixes with GPS time.
    const clock = new ManualClock(T0 + 3_600_000);
    const { sdk, events } = openSdk({ clock });
    const samples = drive({ startMs: T0, legs: [{ move: 200, speedKmh: 40 }, { stop: 301 }] });
    for (let i = 0; i < 100; i++) {
      sdk.record(samples[i]!);
      clock.advance(1000);
    }
    clock.stepWall(-3_600_000);
    const tripId = sdk.currentTripId;
    for (let i = 100; i < 150; i++) {
      sdk.record(samples[i]!);
      clock.advance(1000);
    }
    // The receiver delivers the same fix twice: bad input, as without a clock change, and the trip goes on.
    expect(rejectionOf(() => sdk.record(samples[149]!)).code).toBe('time_backwards');
    expect(sdk.currentTripId).toBe(tripId);
    for (let i = 150; i < samples.length; i++) sdk.record(samples[i]!);

    expect(events.map((e) => e.type)).toEqual(['tripStarted', 'tripEnded']);
    expect(sdk.trips()).toMatchObject([{ tripId, endReason: 'stopped', startMs: T0, endMs: T0 + 200_000 }]);
  });

  it('evicts the oldest unsent trip when the buffer is full (evict-oldest) and says so in its status', () => {
    // Four trips of about 15 kB each, separated by an hour without data, into a 40 kB buffer.
    const { sdk, events } = openSdk({ maxBufferBytes: 40_000 });
    const legs = [1, 2, 3, 4].flatMap(() => [{ move: 150, speedKmh: 40 }, { gap: 3600 }]);
    for (const sample of drive({ startMs: T0, legs })) sdk.record(sample);
    sdk.endTrip();

    const evicted = events.filter((e) => e.type === 'tripEvicted').map((e) => e.tripId);
    const trips = sdk.trips();
    expect(trips).toHaveLength(4);
    expect(evicted).toEqual([trips[0]?.tripId, trips[1]?.tripId]);
    expect(trips[0]).toMatchObject({
      state: 'failed',
      buffered: false,
      reason: expect.stringContaining('buffer full'),
    });
    expect(trips.slice(2).map((t) => [t.state, t.buffered])).toEqual([
      ['pending', true],
      ['pending', true],
    ]);
    expect(sdk.stats().usedBytes).toBeLessThanOrEqual(40_000);
  });

  it('refuses new samples with BufferFullError under reject-new, storing nothing', () => {
    const { sdk } = openSdk({ maxBufferBytes: 20_000, whenFull: 'reject-new' });
    const samples = drive({ startMs: T0, legs: [{ move: 400, speedKmh: 40 }] });
    let thrown: unknown;
    let stored = 0;
    for (const sample of samples) {
      try {
        sdk.record(sample);
        stored++;
      } catch (error) {
        thrown = error;
        break;
      }
    }
    expect(thrown).toBeInstanceOf(BufferFullError);
    expect(stored).toBeGreaterThan(100);
    expect(sdk.stats().usedBytes).toBeLessThanOrEqual(20_000);
    expect(sdk.trip(sdk.currentTripId!)?.sampleCount).toBe(stored);
  });

  it('attaches a vehicle and driver set while the trip records, and keeps them for the next trips', async () => {
    let { sdk } = openSdk();
    const samples = drive({ startMs: T0, legs: [{ move: 150, speedKmh: 40 }, { stop: 301 }] });
    sdk.recordMany(samples.slice(0, 50));
    sdk.setVehicle('B-XY 9');
    sdk.setDriver('drv-42');
    sdk.recordMany(samples.slice(50));
    expect(sdk.trips()[0]).toMatchObject({ vehicle: 'B-XY 9', driverId: 'drv-42' });
    ({ sdk } = await reopen(sdk));
    sdk.recordMany(drive({ startMs: T0 + 3_600_000, legs: [{ move: 20, speedKmh: 40 }] }));
    expect(sdk.trip(sdk.currentTripId!)).toMatchObject({ state: 'recording', vehicle: 'B-XY 9', driverId: 'drv-42' });
  });

  it('refuses a second SDK on the same storage file, and use after close', async () => {
    const { sdk } = openSdk();
    expect(() => EdgeSdk.open({ storagePath: path.join(dir, 'buffer.db'), upload: false })).toThrow(EdgeSdkStateError);
    await sdk.close();
    expect(() => sdk.recordGps({ t: T0, lon: 11, lat: 48 })).toThrow('the edge SDK is closed');
  });

  it('reports a storage path under a file as a storage error, not a raw ENOTDIR', () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'x');
    const open = () => EdgeSdk.open({ storagePath: path.join(file, 'sub', 'buffer.db'), upload: false });
    expect(open).toThrow(EdgeSdkStateError);
    expect(open).toThrow(/^cannot create the folder of storage .*buffer\.db: ENOTDIR/);
  });
});

describe('a storage file that is not a readable database', () => {
  it('is set aside with its contents, reported, and recording goes on in a new buffer', async () => {
    const storagePath = path.join(dir, 'damaged.db');
    const damage = 'not a database: a half-written file system block\n'.repeat(200);
    writeFileSync(storagePath, damage);
    const errors: unknown[] = [];
    const sdk = EdgeSdk.open({ storagePath, upload: false, onError: (error) => errors.push(error) });
    open.push(sdk);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(CorruptStorageError);
    const message = (errors[0] as Error).message;
    expect(message).toMatch(/^storage .*damaged\.db is not a readable buffer: .*; moved to .*damaged\.db\.corrupt-/);
    const aside = message.slice(message.indexOf('moved to ') + 9, message.indexOf(', recording continues'));
    expect(readFileSync(aside, 'utf8')).toBe(damage);
    sdk.recordMany(drive({ startMs: T0, legs: [{ move: 60, speedKmh: 30 }] }));
    expect(sdk.trip(sdk.currentTripId!)).toMatchObject({ state: 'recording' });
  });

  it('is refused with a CorruptStorageError when the host asks to fail, and left where it is', () => {
    const storagePath = path.join(dir, 'damaged-fail.db');
    writeFileSync(storagePath, 'x'.repeat(5000));
    expect(() => EdgeSdk.open({ storagePath, upload: false, onCorruptStorage: 'fail' })).toThrow(CorruptStorageError);
    expect(readFileSync(storagePath, 'utf8')).toBe('x'.repeat(5000));
  });
});
