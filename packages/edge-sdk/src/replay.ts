import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Sample } from '@svc/scoring';
import { EdgeSdk, type EdgeSdkEvent, type EdgeSdkOptions } from './edge-sdk.ts';
import { readTelemetryTrace, type TelemetryTrace } from './trace-reader.ts';
import type { TripStatus } from './trip-status.ts';

export interface ReplayOptions {
  files: readonly string[];
  endpoint: string;
  ingestKey: string;
  /** Overrides the vehicle of every file (else the file header's, if any). */
  vehicle?: string;
  /** Overrides the driver of every file (else the file header's, if any). */
  driverId?: string;
  deviceId?: string;
  /** Playback speed: 1 = real time, 10 = ten times faster. Ignored with `noDelay`. */
  speed?: number;
  /** Feed samples as fast as the SDK takes them. */
  noDelay?: boolean;
  /** Buffer file; default a temporary one, removed when every trip was delivered. */
  storagePath?: string;
  /** How long to keep retrying uploads after the last sample. Default 120 s. */
  flushTimeoutMs?: number;
  /** Further SDK options (retry policy, fetch, ...). */
  sdk?: Partial<EdgeSdkOptions>;
  /** Progress lines (trip started, ended, sent, retrying). */
  onProgress?: (line: string) => void;
}

export interface ReplayResult {
  samples: number;
  /** Samples already in the buffer from an earlier, interrupted replay on the same storage. */
  resumedPast: number;
  duplicates: number;
  /** Every trip the buffer knows of after the replay. */
  trips: TripStatus[];
  /** True when every finished trip was acknowledged by the server. */
  delivered: boolean;
  storagePath: string;
  storageKept: boolean;
}

const CHUNK = 500;

/**
 * Feeds recorded traces through the SDK as if they were happening now: in time order, with the recorded
 * pauses scaled by `speed` (or none), each file ending its trip at its last sample, then waits for delivery.
 * With the same `storagePath`, an interrupted replay resumes after the last sample it stored.
 */
export async function replayTraces(options: ReplayOptions): Promise<ReplayResult> {
  const speed = options.speed ?? 1;
  if (!(speed > 0) || !Number.isFinite(speed)) throw new Error(`speed must be a positive number, got ${options.speed}`);
  if (options.files.length === 0) throw new Error('no trace files given');
  const traces: TelemetryTrace[] = [];
  for (const file of options.files) traces.push(await readTelemetryTrace(file));
  traces.sort((a, b) => a.samples[0]!.t - b.samples[0]!.t);
  for (let i = 1; i < traces.length; i++) {
    const previous = traces[i - 1]!;
    if (traces[i]!.samples[0]!.t <= previous.samples.at(-1)!.t) {
      throw new Error(`${traces[i]!.file} overlaps ${previous.file} in time; replay them separately`);
    }
  }

  const temporary = options.storagePath === undefined;
  const storagePath =
    options.storagePath ?? path.join(tmpdir(), `edge-sdk-replay-${process.pid}-${Date.now().toString(36)}.db`);
  const progress = options.onProgress ?? (() => {});
  const sdk = EdgeSdk.open({
    ...options.sdk,
    storagePath,
    endpoint: options.endpoint,
    ingestKey: options.ingestKey,
    ...(options.deviceId ? { deviceId: options.deviceId } : {}),
  });
  const unsubscribe = (
    ['tripStarted', 'tripEnded', 'tripDiscarded', 'samplesDropped', 'tripSent', 'tripFailed', 'uploadRetry'] as const
  ).map((type) => sdk.on(type, (event) => progress(describeEvent(event))));

  // A rerun on a kept buffer (say, after fixing the ingest key) gives the trips that failed another chance.
  sdk.retry();
  let samples = 0;
  let resumedPast = 0;
  let result: ReplayResult;
  try {
    for (const trace of traces) {
      sdk.setVehicle(options.vehicle ?? trace.meta.vehicle ?? null);
      sdk.setDriver(options.driverId ?? trace.meta.driverId ?? null);
      const resumeAfter = sdk.lastSampleMs ?? Number.NEGATIVE_INFINITY;
      const fresh = trace.samples.filter((s) => s.t > resumeAfter);
      resumedPast += trace.samples.length - fresh.length;
      progress(`${trace.file}: ${fresh.length} samples${fresh.length < trace.samples.length ? ' (resuming)' : ''}`);
      if (options.noDelay) {
        for (let i = 0; i < fresh.length; i += CHUNK) sdk.recordMany(fresh.slice(i, i + CHUNK));
      } else {
        await playInTime(sdk, fresh, speed);
      }
      samples += fresh.length;
      sdk.endTrip();
    }
    const flushed = await sdk.flush({ timeoutMs: options.flushTimeoutMs ?? 120_000 });
    result = {
      samples,
      resumedPast,
      duplicates: traces.reduce((n, t) => n + t.duplicates, 0),
      trips: sdk.trips(),
      delivered: flushed.done && flushed.counts.failed === 0,
      storagePath,
      storageKept: true,
    };
  } finally {
    for (const off of unsubscribe) off();
    await sdk.close();
  }
  if (temporary && result.delivered) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${storagePath}${suffix}`, { force: true });
    result.storageKept = false;
  }
  return result;
}

/** Records each sample when its time comes, relative to the first one, scaled by `speed`. */
async function playInTime(sdk: EdgeSdk, samples: readonly Sample[], speed: number): Promise<void> {
  if (samples.length === 0) return;
  const t0 = samples[0]!.t;
  const started = performance.now();
  for (const sample of samples) {
    const dueMs = started + (sample.t - t0) / speed;
    const waitMs = dueMs - performance.now();
    if (waitMs > 1) await new Promise((resolve) => setTimeout(resolve, waitMs));
    sdk.record(sample);
  }
}

function describeEvent(event: EdgeSdkEvent): string {
  switch (event.type) {
    case 'tripStarted':
      return `trip ${event.tripId} started at ${new Date(event.startMs).toISOString()}`;
    case 'tripEnded':
      return `trip ${event.tripId} ended (${event.reason}): ${event.sampleCount} samples, ${(event.distanceM / 1000).toFixed(2)} km`;
    case 'tripDiscarded':
      return `trip ${event.tripId} discarded: ${event.reason}`;
    case 'tripEvicted':
      return `trip ${event.tripId} evicted: ${event.reason}`;
    case 'samplesDropped':
      return `${event.samples.length} recorded sample(s) dropped: ${event.reason}`;
    case 'tripSent':
      return `trip ${event.tripId} delivered as ${event.serverTripId} (${event.serverStatus}, attempt ${event.attempts})`;
    case 'tripFailed':
      return `trip ${event.tripId} failed: ${event.reason}`;
    case 'uploadRetry':
      return `trip ${event.tripId} upload attempt ${event.attempt} failed (${event.reason}); retrying in ${(event.delayMs / 1000).toFixed(1)} s`;
  }
}
