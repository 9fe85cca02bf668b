import { randomBytes } from 'node:crypto';
import { type MachineType, type Sample, segmentTrips } from '@svc/scoring';
import type { BufferStore } from './buffer-store.ts';
import type { Clock } from './clock.ts';
import { BufferFullError, SampleRejectedError } from './errors.ts';
import { type DetectorState, IDLE_DETECTOR, observeSample, tripEndMs } from './trip-detector.ts';
import type { TripRules } from './trip-rules.ts';
import { validateSample } from './validate-sample.ts';

/** What the recorder persists beside the samples, in the same transaction. */
interface RecorderState {
  detector: DetectorState;
  openTripSeq: number | null;
  openTripId: string | null;
  /** Newest time per stream: each stream must move forward. */
  lastT: Partial<Record<Sample['type'], number>>;
  /** Newest time of any stream. */
  newestT: number | null;
  /** Highest wall-clock time seen at a recording call: the wall clock below it means it was stepped back. */
  wallHighWaterMs: number | null;
  /** Wall-clock time of the last accepted call, for ending a trip after a silent restart. */
  lastReceivedWallMs: number | null;
  /** The recording's time jumped far ahead a few samples ago (absent in buffers of older SDKs): see {@link TimeJump}. */
  timeJump?: TimeJump | null;
}

/**
 * Samples dated more than this after everything recorded before them are a jump of the recording's time. A
 * jump this large has always ended the open trip (5 minutes without motion), so the samples after it are in
 * trips of their own; and a sample dated less than this ahead costs at most this long of refused samples (the
 * recording catches up with it) even when it is garbage.
 */
export const TIME_OUTLIER_MIN_AHEAD_MS = 3_600_000;
/**
 * At most this many samples after a jump can still be dropped as bad time stamps when the stream that jumped
 * comes back to the time before it; more are a time line of their own (GPS time ahead of a wrong wall clock).
 */
export const MAX_TIME_OUTLIERS = 3;

/**
 * What the recorder knows of a jump of its time until more than {@link MAX_TIME_OUTLIERS} samples followed it:
 * the ordering state before it, to return to when the jump turns out to be bad time stamps (a GPS receiver's
 * fix dated a year ahead), and what was recorded since.
 */
interface TimeJump {
  newestT: number | null;
  lastT: Partial<Record<Sample['type'], number>>;
  /** The samples accepted since the jump, the jump's own first. */
  samples: Array<{ type: Sample['type']; t: number }>;
  /** Trips opened since the jump: they hold samples accepted since it only. */
  tripSeqs: number[];
}

/** What dropping a jump's samples as bad time stamps leaves: the outliers and the ordering state without them. */
interface TimeOutliers {
  returning: Sample;
  outliers: Array<{ type: Sample['type']; t: number }>;
  afterT: number;
  newestT: number | null;
  lastT: Partial<Record<Sample['type'], number>>;
}

const INITIAL_STATE: RecorderState = {
  detector: IDLE_DETECTOR,
  openTripSeq: null,
  openTripId: null,
  lastT: {},
  newestT: null,
  wallHighWaterMs: null,
  lastReceivedWallMs: null,
  timeJump: null,
};

export type TripEndReason = 'stopped' | 'silence' | 'host' | 'clock_step' | 'size' | 'duration';
export type WhenFull = 'evict-oldest' | 'reject-new';

/** Identity attached to every trip at its start (vehicle and driver also while it records). */
export interface TripIdentity {
  deviceId: string;
  vehicle: string | null;
  driverId: string | null;
  machineType: MachineType | null;
  imuFrame: 'vehicle' | 'device' | null;
  timeZone: string | null;
  /** Whether the host watches the phone's state during trips (absent phone samples then mean no use). */
  phoneMonitored: boolean | null;
}

export type RecorderEvent =
  | { type: 'tripStarted'; tripId: string; startMs: number }
  | {
      type: 'tripEnded';
      tripId: string;
      startMs: number;
      endMs: number;
      reason: TripEndReason;
      sampleCount: number;
      distanceM: number;
    }
  | { type: 'tripDiscarded'; tripId: string; startMs: number; endMs: number; reason: string }
  | { type: 'tripEvicted'; tripId: string; reason: string }
  /** Samples already recorded turned out to carry bad time stamps (dated far ahead) and were deleted. */
  | { type: 'samplesDropped'; samples: Array<{ type: Sample['type']; t: number }>; reason: string };

export interface RecorderConfig {
  rules: TripRules;
  leadInMs: number;
  /** Samples kept after a trip's end, so that the scorer's own end (which reaches into the stop) is inside. */
  edgeMarginMs: number;
  maxLatenessMs: number;
  clockStepThresholdMs: number;
  maxBufferBytes: number;
  /** An open trip whose samples would pass this many bytes ends there and the drive goes on in a new trip. */
  maxTripBytes: number;
  /** An open trip whose samples would span more than this ends there and the drive goes on in a new trip. */
  maxTripDurationMs: number;
  whenFull: WhenFull;
  clock: Clock;
  identity: () => TripIdentity;
}

/**
 * Turns recording calls into stored samples and trip boundaries. Each call validates everything first,
 * then writes samples, trip changes and its own state in one transaction, then tells listeners: a throw
 * leaves storage and memory exactly as before the call.
 */
export class Recorder {
  private state: RecorderState;
  private lastReceiptMonoMs: number | null = null;
  /** When this process opened the buffer: nothing has arrived since then until a call records. */
  private readonly openedMonoMs: number;
  /** Payload bytes of the open trip, counted as samples go in (read from the store when unknown). */
  private tripBytes: { seq: number; bytes: number; firstT: number | null } | undefined;

  constructor(
    private readonly store: BufferStore,
    private readonly config: RecorderConfig,
    private readonly emit: (event: RecorderEvent) => void,
  ) {
    this.openedMonoMs = config.clock.monotonicMs();
    const saved = store.getMeta('recorder');
    this.state = saved ? (JSON.parse(saved) as RecorderState) : structuredClone(INITIAL_STATE);
  }

  /** The trip being recorded, if any. */
  get openTripId(): string | null {
    return this.state.openTripId;
  }

  /** Newest sample time accepted so far (replays resume after it). */
  get newestSampleMs(): number | null {
    return this.state.newestT;
  }

  /** Validates and stores samples, all or none; returns the id of the trip the last one belongs to. */
  record(inputs: readonly unknown[], indexed: boolean): string | null {
    const samples = inputs.map((input, i) => validateSample(input, indexed ? i : undefined));
    const wallNow = this.config.clock.now();
    const events: RecorderEvent[] = [];
    const next: RecorderState = structuredClone(this.state);

    try {
      this.store.transaction(() => {
        samples.forEach((sample, i) => {
          this.checkOrder(next, samples, i, wallNow, indexed ? i : undefined, events);
          this.followTimeJump(next, sample);
          const step = observeSample(next.detector, sample, this.config.rules);
          next.detector = step.state;
          if (step.ended && next.openTripSeq !== null) {
            this.closeTrip(next, step.ended.endMs, 'stopped', events);
          }
          if (step.started) this.openTrip(next, step.started.startMs, events);
          const body = JSON.stringify(sample);
          this.splitIfTooLarge(next, sample, body.length, events);
          this.ensureRoom(body.length, events);
          this.store.insertSample(next.openTripSeq, sample, body);
          if (next.openTripSeq !== null) {
            const extent = this.openTripBytes(next.openTripSeq);
            extent.bytes += body.length;
            extent.firstT = Math.min(extent.firstT ?? sample.t, sample.t);
          }
          next.lastT[sample.type] = sample.t;
          if (next.newestT === null || sample.t > next.newestT) next.newestT = sample.t;
          if (next.openTripSeq === null) {
            // While a jump may still turn out to be bad time stamps, the lead-in from before it stays.
            const horizonT = next.timeJump?.newestT ?? next.newestT;
            this.store.pruneIdle(horizonT - this.config.leadInMs);
          }
        });
        next.wallHighWaterMs = Math.max(next.wallHighWaterMs ?? wallNow, wallNow);
        next.lastReceivedWallMs = wallNow;
        this.store.setMeta('recorder', JSON.stringify(next));
      });
    } catch (error) {
      // Rolled back: the count is read from the store again when next needed.
      this.tripBytes = undefined;
      throw error;
    }

    this.state = next;
    this.lastReceiptMonoMs = this.config.clock.monotonicMs();
    for (const event of events) this.emit(event);
    return next.openTripId;
  }

  /** Ends the open trip now (ignition off, end of a replay); returns its id, or null when none was open. */
  endTrip(reason: TripEndReason = 'host'): string | null {
    if (this.state.openTripSeq === null) return null;
    const tripId = this.state.openTripId;
    const endMs =
      reason === 'host' ? (this.state.newestT ?? tripEndMs(this.state.detector)) : tripEndMs(this.state.detector);
    this.commit((next, events) => {
      this.closeTrip(next, endMs, reason, events);
      next.detector = { ...IDLE_DETECTOR, prevFix: next.detector.prevFix };
    });
    return tripId;
  }

  /**
   * Ends the open trip when nothing at all has arrived for the stop time (the host stopped sending when the
   * car parked). Runs on a timer; measured on the monotonic clock. Across a restart the wall clock tells how
   * long the SDK was down, but the silence is at least the time since this open: a device that boots with its
   * clock behind (no RTC, NTP not synced yet) must not keep the trip open until the clock catches up.
   */
  checkSilence(): string | null {
    if (this.state.openTripSeq === null) return null;
    const monoNow = this.config.clock.monotonicMs();
    const silentMs =
      this.lastReceiptMonoMs !== null
        ? monoNow - this.lastReceiptMonoMs
        : Math.max(
            monoNow - this.openedMonoMs,
            this.config.clock.now() - (this.state.lastReceivedWallMs ?? this.config.clock.now()),
          );
    return silentMs >= this.config.rules.endStopS * 1000 ? this.endTrip('silence') : null;
  }

  /** Sets the vehicle and driver of the open trip, if any (later trips take them from the identity). */
  updateOpenTripIdentity(vehicle: string | null, driverId: string | null): void {
    if (this.state.openTripSeq !== null) this.store.setTripIdentity(this.state.openTripSeq, vehicle, driverId);
  }

  private commit(change: (next: RecorderState, events: RecorderEvent[]) => void): void {
    const events: RecorderEvent[] = [];
    const next: RecorderState = structuredClone(this.state);
    this.store.transaction(() => {
      change(next, events);
      this.store.setMeta('recorder', JSON.stringify(next));
    });
    this.state = next;
    for (const event of events) this.emit(event);
  }

  /**
   * Each stream moves forward (phone events may share a millisecond), and no sample is older than the
   * newest one by more than `maxLatenessMs`. A sample that breaks this is refused, unless the wall clock
   * itself was stepped back at least as far: then the device's time changed under us, the open trip ends
   * where it is and recording starts afresh, so that time stays monotonic within every trip. Or unless the
   * samples it is behind are a few far ahead, and a stream among them comes back: they were bad time stamps
   * and are dropped (see {@link Recorder.timeOutliers}).
   */
  private checkOrder(
    next: RecorderState,
    batch: readonly Sample[],
    at: number,
    wallNow: number,
    index: number | undefined,
    events: RecorderEvent[],
  ): void {
    const sample = batch[at] as Sample;
    if (orderFault(sample, next.lastT, next.newestT, this.config.maxLatenessMs) === null) return;

    const wallStepBackMs = (next.wallHighWaterMs ?? wallNow) - wallNow;
    const behindMs = (next.newestT ?? sample.t) - sample.t;
    // A sample that followed the stepped clock went back about as far, at least a step's worth; a repeated or
    // slightly late one (GPS-time fixes do not follow the wall clock) is bad input as at any other time.
    const step = this.config.clockStepThresholdMs;
    if (wallStepBackMs >= step && behindMs >= step && behindMs <= wallStepBackMs + this.config.maxLatenessMs) {
      if (next.openTripSeq !== null) this.closeTrip(next, next.newestT ?? sample.t, 'clock_step', events);
      this.store.deleteIdle();
      next.detector = IDLE_DETECTOR;
      next.lastT = {};
      next.newestT = null;
      next.wallHighWaterMs = wallNow;
      next.timeJump = null;
      return;
    }

    // The stream that jumped may come back later in the same batch (IMU readings first, then the fix): the
    // batch is stored whole or not at all, so it may decide for the samples before it.
    for (let j = at; next.timeJump && j < batch.length; j++) {
      const found = this.timeOutliers(next, batch[j] as Sample);
      if (found) {
        this.dropTimeOutliers(next, found, events);
        break;
      }
    }

    const fault = orderFault(sample, next.lastT, next.newestT, this.config.maxLatenessMs);
    if (fault === null) return;
    const where = index === undefined ? '' : `sample ${index}: `;
    if (fault === 'time_backwards') {
      const last = next.lastT[sample.type] as number;
      throw new SampleRejectedError(
        'time_backwards',
        `${where}${sample.type} sample: t ${sample.t} (${iso(sample.t)}) is not after the previous ${sample.type} sample at ${last} (${iso(last)}): time went backwards`,
        't',
        index,
      );
    }
    throw new SampleRejectedError(
      'too_late',
      `${where}${sample.type} sample: t ${sample.t} (${iso(sample.t)}) is ${Math.round(((next.newestT as number) - sample.t) / 1000)} s older than the newest sample; samples may arrive at most ${this.config.maxLatenessMs / 1000} s late`,
      't',
      index,
    );
  }

  /**
   * Keeps track of a jump of the recording's time: a sample more than {@link TIME_OUTLIER_MIN_AHEAD_MS} after
   * everything before it (or the first one recorded) starts one, and the jump is over (a time line of its own,
   * kept for good) once more than {@link MAX_TIME_OUTLIERS} samples followed it.
   */
  private followTimeJump(next: RecorderState, sample: Sample): void {
    const jump = next.timeJump;
    if (jump) {
      jump.samples.push({ type: sample.type, t: sample.t });
      if (jump.samples.length > MAX_TIME_OUTLIERS) next.timeJump = null;
    } else if (next.newestT === null || sample.t - next.newestT > TIME_OUTLIER_MIN_AHEAD_MS) {
      next.timeJump = {
        newestT: next.newestT,
        lastT: { ...next.lastT },
        samples: [{ type: sample.type, t: sample.t }],
        tripSeqs: [],
      };
    }
  }

  /**
   * Whether `sample`, refused as behind, shows that the last jump was bad time stamps: its own stream jumped
   * with it and comes back, to the time line before the jump, at least {@link TIME_OUTLIER_MIN_AHEAD_MS} behind
   * every sample it would drop. A stream never goes back by itself, so one of the two times is wrong, and
   * it is the handful against the history. Other streams behind the jump prove nothing (a GPS receiver stamps
   * GPS time while the IMU follows a wall clock that is behind) and stay refused, as does everything after a
   * jump that more than a handful of samples followed (a time line, not outliers).
   */
  private timeOutliers(next: RecorderState, sample: Sample): TimeOutliers | null {
    const jump = next.timeJump;
    if (!jump) return null;
    const afterT = sample.t + this.config.maxLatenessMs;
    const outliers = jump.samples.filter((s) => s.t > afterT);
    if (!outliers.some((s) => s.type === sample.type)) return null;
    if (outliers.some((s) => s.t - sample.t < TIME_OUTLIER_MIN_AHEAD_MS)) return null;
    const lastT = { ...jump.lastT };
    let newestT = jump.newestT;
    for (const s of jump.samples) {
      if (s.t > afterT) continue;
      lastT[s.type] = Math.max(lastT[s.type] ?? s.t, s.t);
      newestT = Math.max(newestT ?? s.t, s.t);
    }
    if (orderFault(sample, lastT, newestT, this.config.maxLatenessMs) !== null) return null;
    return { returning: sample, outliers, afterT, newestT, lastT };
  }

  /**
   * Deletes the samples a jump brought (those after `afterT`, all recorded since the jump): from the idle pool,
   * from the open trip and from trips opened since the jump that are not uploaded or in flight. A trip left
   * without samples goes; the open trip, if any samples remain, ends at its newest (`clock_step`). The trip the
   * jump ended stays as it ended. Ordering goes back to before the jump, the detector starts afresh.
   */
  private dropTimeOutliers(next: RecorderState, found: TimeOutliers, events: RecorderEvent[]): void {
    const jump = next.timeJump as TimeJump;
    const { returning, outliers, afterT } = found;
    const aheadMs = Math.min(...outliers.map((s) => s.t)) - returning.t;
    const reason = `bad time stamps: dated ${formatDuration(aheadMs)} or more after the ${returning.type} sample at ${iso(returning.t)} that came back to the time before them`;

    this.store.deleteSamplesAfter(null, afterT);
    // A finished trip that began after `afterT` holds dropped samples only (its lead-in reaches 30 s back, the
    // samples kept end an hour before): it goes, unless it is already on its way to the server.
    for (const seq of jump.tripSeqs) {
      if (seq === next.openTripSeq) continue;
      const trip = this.store.tripBySeq(seq);
      if (!trip || trip.start_ms <= afterT || (trip.state !== 'pending' && trip.state !== 'failed')) continue;
      this.store.discardTrip(seq);
      events.push({
        type: 'tripDiscarded',
        tripId: trip.id,
        startMs: trip.start_ms,
        endMs: trip.end_ms ?? trip.start_ms,
        reason,
      });
    }
    const open = next.openTripSeq;
    if (open !== null) {
      this.store.deleteSamplesAfter(open, afterT);
      const lastT = this.store.tripLastT(open);
      const trip = this.store.tripBySeq(open);
      if (lastT !== null) {
        this.closeTrip(next, lastT, 'clock_step', events);
      } else {
        this.store.discardTrip(open);
        next.openTripSeq = null;
        next.openTripId = null;
        if (trip) {
          events.push({ type: 'tripDiscarded', tripId: trip.id, startMs: trip.start_ms, endMs: trip.start_ms, reason });
        }
      }
    }
    // The open trip's byte count is read from the store again when next needed.
    this.tripBytes = undefined;
    next.detector = IDLE_DETECTOR;
    next.lastT = found.lastT;
    next.newestT = found.newestT;
    next.timeJump = null;
    events.push({ type: 'samplesDropped', samples: outliers, reason });
  }

  private openTrip(
    next: RecorderState,
    startMs: number,
    events: RecorderEvent[],
    leadInFromMs = startMs - this.config.leadInMs,
  ): void {
    const identity = this.config.identity();
    const id = `edge-${Math.round(startMs).toString(36)}-${randomBytes(10).toString('hex')}`;
    next.openTripSeq = this.store.startTrip({
      id,
      startMs,
      leadInFromMs,
      ...identity,
    });
    next.openTripId = id;
    next.timeJump?.tripSeqs.push(next.openTripSeq);
    events.push({ type: 'tripStarted', tripId: id, startMs });
  }

  private openTripBytes(seq: number): { seq: number; bytes: number; firstT: number | null } {
    if (this.tripBytes?.seq !== seq) this.tripBytes = { seq, ...this.store.tripSampleExtent(seq) };
    return this.tripBytes;
  }

  /**
   * A drive that would grow one upload past `maxTripBytes` (hours of 50 Hz IMU readings) would be refused by
   * the ingest endpoint's body limit (413, a permanent failure) and, past the buffer's size, could not be
   * recorded at all: the open trip ends at its newest sample (`size`) and the drive goes on in a new trip that
   * starts with this sample. So does a drive whose samples would span more than `maxTripDurationMs`
   * (`duration`): the endpoint refuses an upload whose positions span more than 24 h, and a trip that never
   * stops (a detector kept awake by a parked receiver's jitter) must not be lost whole. Only a sample that
   * moves time forward cuts, so the two trips do not overlap.
   */
  private splitIfTooLarge(next: RecorderState, sample: Sample, bytes: number, events: RecorderEvent[]): void {
    const seq = next.openTripSeq;
    if (seq === null || next.newestT === null || sample.t <= next.newestT) return;
    const extent = this.openTripBytes(seq);
    if (extent.bytes === 0) return;
    const tooLarge = extent.bytes + bytes > this.config.maxTripBytes;
    const tooLong = extent.firstT !== null && sample.t - extent.firstT > this.config.maxTripDurationMs;
    if (!tooLarge && !tooLong) return;
    this.closeTrip(next, next.newestT, tooLarge ? 'size' : 'duration', events);
    next.detector = { ...next.detector, tripStartMs: sample.t };
    this.openTrip(next, sample.t, events, sample.t);
  }

  /**
   * Cuts the open trip at `endMs` (plus the edge margin) and keeps it for upload, or discards it when the
   * scorer's own segmentation finds no scorable trip in it (too short, too little moving, no positions).
   */
  private closeTrip(next: RecorderState, endMs: number, reason: TripEndReason, events: RecorderEvent[]): void {
    const seq = next.openTripSeq;
    if (seq === null) return;
    const trip = this.store.tripBySeq(seq);
    next.openTripSeq = null;
    next.openTripId = null;
    if (!trip) return;
    const margin = this.config.edgeMarginMs;
    const stats = this.store.closeTrip(seq, trip.start_ms - this.config.leadInMs, endMs + margin);
    const notScorable = this.whyNotScorable(seq);
    if (notScorable !== null) {
      this.store.discardTrip(seq);
      events.push({ type: 'tripDiscarded', tripId: trip.id, startMs: trip.start_ms, endMs, reason: notScorable });
      return;
    }
    this.store.finishTrip(seq, endMs, reason, stats);
    events.push({
      type: 'tripEnded',
      tripId: trip.id,
      startMs: trip.start_ms,
      endMs,
      reason,
      sampleCount: stats.sampleCount,
      distanceM: stats.distanceM,
    });
  }

  /** Null when `segmentTrips` of @svc/scoring finds a scorable trip in the samples, else the reason. */
  private whyNotScorable(seq: number): string | null {
    const motion = this.store.tripMotionSamples(seq);
    if (!motion.some((s) => s.type === 'gps')) return 'no GPS positions: the scorer needs them';
    const { endStopS, maxGapS, minTripDistanceM, minTripMovingS } = this.config.rules;
    const segments = segmentTrips(motion, {
      endStopS,
      maxGapS,
      minDistanceM: minTripDistanceM,
      minMovingS: minTripMovingS,
    });
    if (segments.some((segment) => segment.scorable)) return null;
    const first = segments[0];
    return first?.reason
      ? `not a scorable trip: ${first.reason}`
      : 'not a scorable trip: the scorer finds no driving above 8 km/h in it';
  }

  /** Makes room for `bytes` more, by the `whenFull` policy, or throws {@link BufferFullError}. */
  private ensureRoom(bytes: number, events: RecorderEvent[]): void {
    const max = this.config.maxBufferBytes;
    while (this.store.usedBytes + bytes > max) {
      const used = this.store.usedBytes;
      if (this.config.whenFull === 'reject-new') {
        throw new BufferFullError(
          `buffer full (${used} of ${max} bytes); policy reject-new refuses new samples`,
          used,
          max,
        );
      }
      const reason = `evicted: buffer full (${max} bytes), oldest unsent trip dropped to keep recording`;
      const victim = this.store.evictOne(reason);
      if (!victim) {
        throw new BufferFullError(
          `buffer full (${used} of ${max} bytes) and no finished trip left to evict: the open trip alone fills it`,
          used,
          max,
        );
      }
      events.push({ type: 'tripEvicted', tripId: victim.id, reason });
    }
  }
}

function iso(t: number): string {
  return new Date(t).toISOString();
}

/** Why a sample cannot follow the samples recorded so far, or null when it can. */
function orderFault(
  sample: Sample,
  lastT: Partial<Record<Sample['type'], number>>,
  newestT: number | null,
  maxLatenessMs: number,
): 'time_backwards' | 'too_late' | null {
  const last = lastT[sample.type];
  if (last !== undefined && (sample.type === 'phone' ? sample.t < last : sample.t <= last)) return 'time_backwards';
  if (newestT !== null && sample.t < newestT - maxLatenessMs) return 'too_late';
  return null;
}

function formatDuration(ms: number): string {
  if (ms >= 2 * 86_400_000) return `${Math.floor(ms / 86_400_000)} days`;
  if (ms >= 2 * 3_600_000) return `${Math.floor(ms / 3_600_000)} h`;
  return `${Math.floor(ms / 60_000)} min`;
}
