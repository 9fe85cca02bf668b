import { randomUUID } from 'node:crypto';
import { existsSync, renameSync } from 'node:fs';
import type {
  AccelSample,
  GpsSample,
  GyroSample,
  MachineType,
  ObdSample,
  PhoneSample,
  Sample,
  TelemetryMeta,
} from '@svc/scoring';
import { isValidTimeZone, MACHINE_TYPES } from '@svc/scoring';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './backoff.ts';
import { BufferStore, type BufferStoreOptions, type Durability, type TripRow, type TripState } from './buffer-store.ts';
import { type Clock, MAX_TIMER_MS, systemClock } from './clock.ts';
import { Emitter } from './emitter.ts';
import { CorruptStorageError, EdgeSdkConfigError, EdgeSdkStateError } from './errors.ts';
import {
  DEFAULT_MIN_UPLOAD_BYTES_PER_S,
  type FetchLike,
  IngestClient,
  type ServerTripStatus,
} from './ingest-client.ts';
import { Recorder, type RecorderEvent, type TripIdentity, type WhenFull } from './recorder.ts';
import { DEFAULT_TRIP_RULES, TRIP_EDGE_MARGIN_MS, type TripRules } from './trip-rules.ts';
import { type TripStatus, toTripStatus } from './trip-status.ts';
import { Uploader, type UploaderEvent } from './uploader.ts';

export const EDGE_SDK_VERSION = '0.1.0';

/** Options of {@link EdgeSdk.open}. Only `storagePath` is required; uploads need `endpoint` and `ingestKey`. */
export interface EdgeSdkOptions {
  /** SQLite file of the durable buffer (created with its directory). One SDK per file. */
  storagePath: string;
  /** Ingest base URL (`https://ingest.example.com:3100`) or the full `.../ingest/v1/trips` URL. */
  endpoint?: string;
  /** Ingest key of this device or connector (`npx trips ingest-keys create`). */
  ingestKey?: string;
  /** Upload finished trips in the background. Default: true when `endpoint` is set. */
  upload?: boolean;
  /** This device's identity; default a random id created once and kept in the storage file. */
  deviceId?: string;
  /** Vehicle plate or unit id, when known; can change later with `setVehicle`. */
  vehicle?: string | null;
  /** Driver id, when known; can change later with `setDriver`. */
  driverId?: string | null;
  machineType?: MachineType;
  /** Frame of IMU samples: `vehicle` for a mounted box, `device` (scoring's default) for a loose phone. */
  imuFrame?: 'vehicle' | 'device';
  /** IANA time zone of the vehicle, for night driving. */
  timeZone?: string;
  /**
   * True when the host app reports phone use for the whole trip, so that no phone samples means no phone use
   * (the scorer otherwise treats distraction as not measured).
   */
  phoneMonitored?: boolean;
  /** Trip segmentation thresholds; default the scoring engine's (8 km/h, 5 min, 5 min gap, 120 s moving, 1 km). */
  tripRules?: Partial<TripRules>;
  /** Samples up to this long before the first moving one belong to the trip (the departure). Default 30 s. */
  leadInMs?: number;
  /** How much older than the newest sample a sample of another stream may be (batched IMU). Default 60 s. */
  maxLatenessMs?: number;
  /** A wall-clock step back at least this large is a clock change, not bad input. Default 2 s. */
  clockStepThresholdMs?: number;
  /** `full` (default): each call fsynced, survives power loss. `normal`: survives process kills only. */
  durability?: Durability;
  /** Bound on buffered sample payload. Default 128 MiB. */
  maxBufferBytes?: number;
  /**
   * Bound on one trip's sample payload, below the ingest endpoint's body limit (64 MiB by default): a longer
   * drive is cut into consecutive trips (`endReason: 'size'`). Default 32 MiB.
   */
  maxTripBytes?: number;
  /**
   * Bound on the time one trip's samples span, below the ingest endpoint's 24 h: a longer drive (or a trip detector
   * that never sees a stop) is cut into consecutive trips (`endReason: 'duration'`). Default 12 h, at most 23 h.
   */
  maxTripDurationMs?: number;
  /** Full buffer: `evict-oldest` (default) drops the oldest unsent finished trip; `reject-new` refuses samples. */
  whenFull?: WhenFull;
  /** Receipts of sent trips kept for the status API. Default 1000. */
  keepSentTrips?: number;
  /** Upload retry timing; default 1 s doubling to 5 min, full jitter, unlimited attempts. */
  retry?: Partial<RetryPolicy>;
  /** Per-request timeout; an upload gets more, for sending its bytes at `minUploadBytesPerS`. Default 30 s. */
  requestTimeoutMs?: number;
  /** The slowest link an upload is given time for (see requestTimeoutMs). Default 8 KiB/s (2G/EDGE). */
  minUploadBytesPerS?: number;
  /** How often the silence check runs (ends a trip when nothing arrives). Default 15 s. */
  silenceCheckIntervalMs?: number;
  /** Replaces global fetch (tests, custom agents, proxies). */
  fetch?: FetchLike;
  /** Replaces the system clocks (tests). */
  clock?: Clock;
  /** Replaces Math.random for back-off jitter (tests). */
  random?: () => number;
  /** Receives errors the SDK cannot throw to a caller: a failing listener or background check. */
  onError?: (error: unknown) => void;
  /**
   * A storage file that is not a readable database (damaged by the disk, or another file at that path):
   * `set-aside` (default) renames it to `<file>.corrupt-<time>`, reports a CorruptStorageError to `onError` and
   * records into a new buffer, so the vehicle keeps recording; `fail` throws the CorruptStorageError from `open`.
   */
  onCorruptStorage?: 'set-aside' | 'fail';
}

/** Everything the SDK announces; subscribe with {@link EdgeSdk.on}. */
export type EdgeSdkEvent = RecorderEvent | UploaderEvent;

export interface FlushResult {
  /** True when nothing is left to upload (every finished trip is sent or failed). */
  done: boolean;
  counts: Record<TripState, number>;
}

export interface BufferStats {
  usedBytes: number;
  maxBytes: number;
  trips: Record<TripState, number>;
  currentTripId: string | null;
  /** Milliseconds until the next upload attempt while backing off, else 0. */
  backoffRemainingMs: number;
}

/** A GPS fix as the host app reports it (the sample without its `type`). */
export type GpsFix = Omit<GpsSample, 'type'>;
export type AccelReading = Omit<AccelSample, 'type'>;
export type GyroReading = Omit<GyroSample, 'type'>;
export type PhoneEvent = Omit<PhoneSample, 'type'>;
export type ObdReading = Omit<ObdSample, 'type'>;

/**
 * The edge SDK: record samples as they happen, cut them into trips, keep them durably and deliver each
 * finished trip exactly once to the ingest endpoint.
 *
 * Recording calls are synchronous: when one returns, the sample is on disk; when one throws, nothing of it
 * was stored. Delivery runs in the background and survives restarts.
 */
export class EdgeSdk {
  private readonly store: BufferStore;
  private readonly recorder: Recorder;
  private readonly uploader: Uploader | undefined;
  private readonly client: IngestClient | undefined;
  private readonly emitter: Emitter<EdgeSdkEvent>;
  private readonly identity: TripIdentity;
  private readonly silenceTimer: NodeJS.Timeout;
  private readonly maxBufferBytes: number;
  private readonly onError: (error: unknown) => void;
  private closed = false;

  private constructor(options: EdgeSdkOptions) {
    const clock = options.clock ?? systemClock;
    const rules: TripRules = { ...DEFAULT_TRIP_RULES, ...options.tripRules };
    for (const [key, value] of Object.entries(rules)) positive(`tripRules.${key}`, value, true);
    const leadInMs = positive('leadInMs', options.leadInMs ?? TRIP_EDGE_MARGIN_MS, true);
    const maxLatenessMs = positive('maxLatenessMs', options.maxLatenessMs ?? 60_000, true);
    const clockStepThresholdMs = positive('clockStepThresholdMs', options.clockStepThresholdMs ?? 2_000, false);
    this.maxBufferBytes = positive('maxBufferBytes', options.maxBufferBytes ?? 128 * 1024 * 1024, false);
    const maxTripBytes = positive('maxTripBytes', options.maxTripBytes ?? 32 * 1024 * 1024, false);
    const maxTripDurationMs = positive('maxTripDurationMs', options.maxTripDurationMs ?? 12 * HOUR_MS, false);
    if (maxTripDurationMs > 23 * HOUR_MS) {
      throw new EdgeSdkConfigError(
        `maxTripDurationMs must be at most 23 h (${23 * HOUR_MS} ms): the ingest endpoint refuses uploads spanning more than 24 h; got ${maxTripDurationMs}`,
      );
    }
    const whenFull = options.whenFull ?? 'evict-oldest';
    if (whenFull !== 'evict-oldest' && whenFull !== 'reject-new') {
      throw new EdgeSdkConfigError(`whenFull must be evict-oldest or reject-new, got ${JSON.stringify(whenFull)}`);
    }
    const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    positive('retry.baseDelayMs', retry.baseDelayMs, false);
    positive('retry.maxDelayMs', retry.maxDelayMs, false);
    positive('retry.maxRetryAfterMs', retry.maxRetryAfterMs, true);
    positive('retry.maxAttempts', retry.maxAttempts, false);
    const upload = options.upload ?? options.endpoint !== undefined;
    if (upload && (!options.endpoint || !options.ingestKey)) {
      throw new EdgeSdkConfigError('uploads need both endpoint and ingestKey (or pass upload: false)');
    }
    if (!options.storagePath) throw new EdgeSdkConfigError('storagePath is required');
    checkTripMetaOptions(options);
    this.onError =
      options.onError ?? ((error) => process.emitWarning(`edge-sdk: ${(error as Error)?.message ?? error}`));
    this.emitter = new Emitter<EdgeSdkEvent>((error) => this.onError(error));

    const client =
      upload && options.endpoint && options.ingestKey
        ? new IngestClient({
            endpoint: options.endpoint,
            ingestKey: options.ingestKey,
            requestTimeoutMs: timerMs('requestTimeoutMs', options.requestTimeoutMs ?? 30_000),
            minUploadBytesPerS: positive(
              'minUploadBytesPerS',
              options.minUploadBytesPerS ?? DEFAULT_MIN_UPLOAD_BYTES_PER_S,
              false,
            ),
            ...(options.fetch ? { fetch: options.fetch } : {}),
            userAgent: `svc-edge-sdk/${EDGE_SDK_VERSION} (node ${process.version})`,
          })
        : undefined;

    this.store = openStore(
      options.storagePath,
      { durability: options.durability ?? 'full', now: () => clock.now() },
      options.onCorruptStorage ?? 'set-aside',
      (error) => this.onError(error),
    );
    try {
      const saved = JSON.parse(this.store.getMeta('identity') ?? '{}') as Partial<TripIdentity>;
      this.identity = {
        deviceId: optionalText('deviceId', options.deviceId ?? saved.deviceId ?? `dev-${randomUUID()}`) as string,
        vehicle: optionalText('vehicle', options.vehicle !== undefined ? options.vehicle : (saved.vehicle ?? null)),
        driverId: optionalText(
          'driverId',
          options.driverId !== undefined ? options.driverId : (saved.driverId ?? null),
        ),
        machineType: options.machineType ?? null,
        imuFrame: options.imuFrame ?? null,
        timeZone: options.timeZone ?? null,
        phoneMonitored: options.phoneMonitored ?? null,
      };
      this.saveIdentity();
      this.recorder = new Recorder(
        this.store,
        {
          rules,
          leadInMs,
          edgeMarginMs: TRIP_EDGE_MARGIN_MS,
          maxLatenessMs,
          clockStepThresholdMs,
          maxBufferBytes: this.maxBufferBytes,
          maxTripBytes,
          maxTripDurationMs,
          whenFull,
          clock,
          identity: () => ({ ...this.identity }),
        },
        (event) => {
          this.emitter.emit(event);
          if (event.type === 'tripEnded') this.uploader?.kick();
        },
      );
      this.store.resetInterruptedUploads();
    } catch (error) {
      this.store.close();
      throw error;
    }

    this.client = client;
    this.uploader = client
      ? new Uploader(
          this.store,
          client,
          {
            retry,
            clock,
            random: options.random ?? Math.random,
            keepSentTrips: positive('keepSentTrips', options.keepSentTrips ?? 1000, true),
            onError: (error) => this.onError(error),
          },
          (trip) => tripMeta(trip),
          (event) => this.emitter.emit(event),
        )
      : undefined;

    const intervalMs = timerMs('silenceCheckIntervalMs', options.silenceCheckIntervalMs ?? 15_000);
    this.silenceTimer = setInterval(() => this.checkSilence(), intervalMs);
    this.silenceTimer.unref();
    this.checkSilence();
    this.uploader?.kick();
  }

  /** Opens (or resumes) the SDK on its storage file; pending trips start uploading at once. */
  static open(options: EdgeSdkOptions): EdgeSdk {
    return new EdgeSdk(options);
  }

  /** This device's id, attached to every trip. */
  get deviceId(): string {
    return this.identity.deviceId;
  }

  /** The trip being recorded, or null between trips. */
  get currentTripId(): string | null {
    return this.recorder.openTripId;
  }

  /** Newest sample time recorded (after a restart, a replay resumes after it). */
  get lastSampleMs(): number | null {
    return this.recorder.newestSampleMs;
  }

  /** Records a GPS fix; returns the id of the trip it belongs to, or null between trips. */
  recordGps(fix: GpsFix): string | null {
    return this.record({ ...fix, type: 'gps' });
  }

  /** Records an accelerometer reading (m/s², gravity included). */
  recordAccel(reading: AccelReading): string | null {
    return this.record({ ...reading, type: 'accel' });
  }

  /** Records a gyroscope reading (rad/s). */
  recordGyro(reading: GyroReading): string | null {
    return this.record({ ...reading, type: 'gyro' });
  }

  /** Records a phone-use event (screen, unlock, call, handling, typing). */
  recordPhone(event: PhoneEvent): string | null {
    return this.record({ ...event, type: 'phone' });
  }

  /** Records an OBD-II reading (speed and/or rpm). */
  recordObd(reading: ObdReading): string | null {
    return this.record({ ...reading, type: 'obd' });
  }

  /** Records one sample of any type; throws {@link SampleRejectedError} and stores nothing when it is bad. */
  record(sample: Sample): string | null {
    this.assertOpen();
    return this.recorder.record([sample], false);
  }

  /** Records several samples in one transaction (much faster for IMU bursts); all are stored or none. */
  recordMany(samples: readonly Sample[]): string | null {
    this.assertOpen();
    if (!Array.isArray(samples)) throw new TypeError('recordMany expects an array of samples');
    if (samples.length === 0) return this.recorder.openTripId;
    return this.recorder.record(samples, true);
  }

  /** Ends the open trip now (ignition off, app closing a journey); returns its id or null. */
  endTrip(): string | null {
    this.assertOpen();
    return this.recorder.endTrip('host');
  }

  /** Sets the vehicle plate for the open trip and the next ones (null: unknown). */
  setVehicle(vehicle: string | null): void {
    this.assertOpen();
    this.identity.vehicle = optionalText('vehicle', vehicle);
    this.saveIdentity();
    this.recorder.updateOpenTripIdentity(this.identity.vehicle, this.identity.driverId);
  }

  /** Sets the driver for the open trip and the next ones (null: unknown). */
  setDriver(driverId: string | null): void {
    this.assertOpen();
    this.identity.driverId = optionalText('driverId', driverId);
    this.saveIdentity();
    this.recorder.updateOpenTripIdentity(this.identity.vehicle, this.identity.driverId);
  }

  /** Status of one trip by its SDK trip id. */
  trip(tripId: string): TripStatus | undefined {
    this.assertOpen();
    const row = this.store.trip(tripId);
    return row ? this.status(row) : undefined;
  }

  /** Trips, oldest first, optionally filtered by state. */
  trips(filter: { state?: TripState | readonly TripState[]; limit?: number } = {}): TripStatus[] {
    this.assertOpen();
    const states = filter.state === undefined ? undefined : Array.isArray(filter.state) ? filter.state : [filter.state];
    return this.store.trips(states as TripState[] | undefined, filter.limit).map((row) => this.status(row));
  }

  /** Buffer usage and trip counts per state. */
  stats(): BufferStats {
    this.assertOpen();
    return {
      usedBytes: this.store.usedBytes,
      maxBytes: this.maxBufferBytes,
      trips: this.store.countByState(),
      currentTripId: this.recorder.openTripId,
      backoffRemainingMs: this.uploader?.backoffRemainingMs ?? 0,
    };
  }

  /**
   * Puts failed trips that still have their samples back in the queue (after fixing the ingest key, say):
   * one trip, or all of them. Returns how many were requeued.
   */
  retry(tripId?: string): number {
    this.assertOpen();
    const rows = tripId === undefined ? this.store.trips(['failed']) : [this.store.trip(tripId)];
    let requeued = 0;
    for (const row of rows) if (row && this.store.retry(row.seq)) requeued++;
    if (requeued > 0) this.uploader?.retryNow();
    return requeued;
  }

  /** Skips the current back-off and uploads now: call it when the host sees the network come back. */
  retryNow(): void {
    this.assertOpen();
    this.uploader?.retryNow();
  }

  /**
   * Uploads what is pending and resolves when nothing is left (every finished trip sent or failed), or when
   * `timeoutMs` passes; retries keep their back-off meanwhile.
   */
  async flush(options: { timeoutMs?: number } = {}): Promise<FlushResult> {
    this.assertOpen();
    const timeoutMs = options.timeoutMs ?? Number.POSITIVE_INFINITY;
    const deadline = performance.now() + timeoutMs;
    const uploader = this.uploader;
    uploader?.retryNow();
    for (;;) {
      if (uploader) await uploader.settled();
      if (this.closed) break;
      const counts = this.store.countByState();
      const left = counts.pending + counts.sending;
      if (left === 0 || !uploader) return { done: left === 0, counts };
      const remainingMs = deadline - performance.now();
      if (remainingMs <= 0) return { done: false, counts };
      await sleep(Math.min(Math.max(uploader.backoffRemainingMs, 20), remainingMs, MAX_TIMER_MS));
      uploader.kick();
    }
    return { done: false, counts: { recording: 0, pending: 0, sending: 0, sent: 0, failed: 0 } };
  }

  /** Asks the server how a sent trip is doing (queued, scored, failed). */
  async serverStatus(tripId: string): Promise<ServerTripStatus> {
    this.assertOpen();
    if (!this.client) throw new EdgeSdkConfigError('serverStatus needs an endpoint and ingest key');
    const row = this.store.trip(tripId);
    if (!row) throw new EdgeSdkStateError(`unknown trip ${tripId}`);
    if (!row.server_trip_id)
      throw new EdgeSdkStateError(`trip ${tripId} is ${row.state}, not acknowledged by the server yet`);
    return this.client.serverTripStatus(row.server_trip_id);
  }

  /** Subscribes to an event; returns the function that unsubscribes. */
  on<K extends EdgeSdkEvent['type']>(
    type: K,
    listener: (event: Extract<EdgeSdkEvent, { type: K }>) => void,
  ): () => void {
    return this.emitter.on(type, listener);
  }

  /**
   * Stops timers and aborts an upload in flight (that trip stays queued), then closes the storage. The open
   * trip stays open: a later `open` on the same file continues it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.silenceTimer);
    await this.uploader?.stop();
    this.store.close();
  }

  /** Runs the silence rule now (the SDK also runs it on a timer). */
  checkSilence(): void {
    if (this.closed) return;
    try {
      this.recorder.checkSilence();
    } catch (error) {
      this.onError(error);
    }
  }

  private status(row: TripRow): TripStatus {
    return toTripStatus(row, row.state === 'recording' ? this.store.tripSampleCount(row.seq) : undefined);
  }

  private saveIdentity(): void {
    const { deviceId, vehicle, driverId } = this.identity;
    this.store.setMeta('identity', JSON.stringify({ deviceId, vehicle, driverId }));
  }

  private assertOpen(): void {
    if (this.closed) throw new EdgeSdkStateError('the edge SDK is closed');
  }
}

/** The TelemetryBatch metadata of a stored trip. */
function tripMeta(trip: TripRow): TelemetryMeta {
  const meta: TelemetryMeta = { clientTripId: trip.id, deviceId: trip.device_id };
  if (trip.vehicle) meta.vehicle = trip.vehicle;
  if (trip.driver_id) meta.driverId = trip.driver_id;
  if (trip.machine_type) meta.machineType = trip.machine_type as MachineType;
  if (trip.imu_frame) meta.imuFrame = trip.imu_frame as 'vehicle' | 'device';
  if (trip.time_zone) meta.timeZone = trip.time_zone;
  if (trip.phone_monitored !== null) meta.phoneMonitored = trip.phone_monitored === 1;
  return meta;
}

/** The same checks the ingest endpoint applies to batch metadata: a bad value would fail every trip. */
function checkTripMetaOptions(options: EdgeSdkOptions): void {
  if (options.machineType !== undefined && !(MACHINE_TYPES as readonly string[]).includes(options.machineType)) {
    throw new EdgeSdkConfigError(`machineType must be one of ${MACHINE_TYPES.join(', ')}, got ${options.machineType}`);
  }
  if (options.imuFrame !== undefined && options.imuFrame !== 'vehicle' && options.imuFrame !== 'device') {
    throw new EdgeSdkConfigError(`imuFrame must be vehicle or device, got ${options.imuFrame}`);
  }
  if (options.timeZone !== undefined && !isValidTimeZone(options.timeZone)) {
    throw new EdgeSdkConfigError(`timeZone must be an IANA time zone such as Europe/Berlin, got ${options.timeZone}`);
  }
  if (options.phoneMonitored !== undefined && typeof options.phoneMonitored !== 'boolean') {
    throw new EdgeSdkConfigError('phoneMonitored must be a boolean');
  }
}

const HOUR_MS = 3_600_000;

function positive(name: string, value: number, zeroAllowed: boolean): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (!zeroAllowed && value === 0)) {
    throw new EdgeSdkConfigError(`${name} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number, got ${value}`);
  }
  return value;
}

/** A timeout or interval Node can hold: a longer one would fire at once and time out every request. */
function timerMs(name: string, value: number): number {
  positive(name, value, false);
  if (value > MAX_TIMER_MS) {
    throw new EdgeSdkConfigError(`${name} must be at most ${MAX_TIMER_MS} ms (24.8 days), got ${value}`);
  }
  return value;
}

function optionalText(name: string, value: string | null): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
    throw new EdgeSdkConfigError(`${name} must be a non-empty string of at most 200 characters, or null`);
  }
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Opens the buffer; one that is not a readable database is set aside (renamed with its journal files, kept for
 * inspection) and replaced by a new one, unless the host asked to fail. A file in use by another SDK, or a
 * folder that cannot be written, is never set aside: those are refused as before.
 */
function openStore(
  file: string,
  options: BufferStoreOptions,
  policy: 'set-aside' | 'fail',
  report: (error: unknown) => void,
): BufferStore {
  try {
    return new BufferStore(file, options);
  } catch (error) {
    if (!(error instanceof CorruptStorageError) || policy === 'fail' || file === ':memory:') throw error;
    const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      for (const suffix of ['', '-wal', '-shm', '-journal']) {
        if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
      }
    } catch (moveError) {
      // A read-only folder, say: the file stays where it is and the host hears why nothing could be recorded.
      throw new CorruptStorageError(`${error.message}; it could not be moved aside: ${(moveError as Error).message}`);
    }
    report(new CorruptStorageError(`${error.message}; moved to ${aside}, recording continues in a new buffer`));
    return new BufferStore(file, options);
  }
}
