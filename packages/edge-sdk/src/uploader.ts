import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { TelemetryMeta } from '@svc/scoring';
import { type RetryPolicy, retryDelayMs } from './backoff.ts';
import type { BufferStore, TripRow } from './buffer-store.ts';
import { type Clock, MAX_TIMER_MS } from './clock.ts';
import type { IngestClient } from './ingest-client.ts';

const gzipAsync = promisify(gzip);

export type UploaderEvent =
  | { type: 'tripSent'; tripId: string; serverTripId: string; serverStatus: string; attempts: number }
  | { type: 'tripFailed'; tripId: string; reason: string; httpStatus: number | null }
  | { type: 'uploadRetry'; tripId: string; attempt: number; reason: string; delayMs: number };

export interface UploaderOptions {
  retry: RetryPolicy;
  clock: Clock;
  random: () => number;
  keepSentTrips: number;
  /** Receives storage errors of the background loop, which has no caller to throw to. */
  onError: (error: unknown) => void;
}

/**
 * Sends finished trips one at a time, oldest first. The back-off is shared by all trips: a failure is almost
 * always the link or the server, not the trip, so the next trip waits too. A permanent answer (4xx other than
 * 408/429) fails only that trip and the queue moves on. State lives in the store, so a restarted SDK resumes
 * where the killed one stopped: a trip cut mid-upload is sent again with the same idempotency key and the
 * server answers "duplicate".
 */
export class Uploader {
  private consecutiveFailures = 0;
  private holdUntilMonoMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private stopped = false;
  private readonly abort = new AbortController();
  private idleWaiters: Array<() => void> = [];
  private kickAgain = false;
  /** A trip left `sending` because the store failed around its upload: it goes back in the queue first. */
  private stranded: { seq: number; reason: string } | undefined;

  constructor(
    private readonly store: BufferStore,
    private readonly client: IngestClient,
    private readonly options: UploaderOptions,
    private readonly metaOf: (trip: TripRow) => TelemetryMeta,
    private readonly emit: (event: UploaderEvent) => void,
  ) {}

  /** Starts (or wakes) the upload loop; cheap to call after every finished trip. */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      // The running pass may already have looked for work: look again when it is done.
      this.kickAgain = true;
      return;
    }
    const waitMs = this.holdUntilMonoMs - this.options.clock.monotonicMs();
    if (waitMs > 0) {
      this.schedule(waitMs);
      return;
    }
    this.kickAgain = false;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.kickAgain) {
        this.kick();
        if (this.pumping) return;
      }
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    });
  }

  /** Forgets the back-off and tries now: call it when the host sees the network come back. */
  retryNow(): void {
    this.consecutiveFailures = 0;
    this.holdUntilMonoMs = 0;
    this.clearTimer();
    this.kick();
  }

  /** Resolves when the current pass of the loop is over (nothing due, or waiting for a back-off). */
  async settled(): Promise<void> {
    if (!this.pumping) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Milliseconds until the next attempt, 0 when not waiting. */
  get backoffRemainingMs(): number {
    return Math.max(0, this.holdUntilMonoMs - this.options.clock.monotonicMs());
  }

  /** Stops the loop and aborts an upload in flight (the trip stays pending). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    this.abort.abort();
    await this.pumping;
  }

  private async pump(): Promise<void> {
    while (!this.stopped) {
      if (this.holdUntilMonoMs > this.options.clock.monotonicMs()) {
        this.schedule(this.holdUntilMonoMs - this.options.clock.monotonicMs());
        return;
      }
      let trip: TripRow | undefined;
      try {
        this.requeueStranded();
        trip = this.store.nextToSend();
        if (!trip) return;
        await this.send(trip);
      } catch (error) {
        this.storageFailed(trip, error);
      }
    }
  }

  /**
   * The buffer could not be read or written around an upload (disk full, file system turned read-only). The
   * loop must not die with an unhandled rejection: the error goes to `onError`, the trip goes back in the queue
   * (now, or once the store takes writes again), and the next attempt waits as after a network error. A trip
   * the server had already taken is then sent again under the same idempotency key and acknowledged as a
   * duplicate.
   */
  private storageFailed(trip: TripRow | undefined, error: unknown): void {
    this.options.onError(error);
    if (trip && this.store.isOpen) {
      this.stranded = { seq: trip.seq, reason: `storage error: ${(error as Error)?.message ?? String(error)}` };
      try {
        this.requeueStranded();
      } catch {
        // Still failing: retried at the next pass; a restart requeues it too.
      }
    }
    this.consecutiveFailures++;
    this.holdUntilMonoMs =
      this.options.clock.monotonicMs() +
      retryDelayMs(this.consecutiveFailures, this.options.retry, this.options.random);
  }

  private requeueStranded(): void {
    if (!this.stranded) return;
    this.store.markPending(this.stranded.seq, this.stranded.reason, null);
    this.stranded = undefined;
  }

  private async send(trip: TripRow): Promise<void> {
    if (!this.store.markSending(trip.seq)) return;
    const attempt = trip.attempts + 1;
    let json: string;
    try {
      json = this.store.batchJson(trip.seq, this.metaOf(trip));
    } catch (error) {
      if (!isDamagedPage(error)) throw error;
      // A page of this trip's samples was damaged on disk: reading it will fail every time, and the queue goes
      // oldest first, so retrying it would hold back every trip after it for good. It fails; the rest go on.
      this.options.onError(error);
      const reason = `its samples cannot be read: the buffer file is damaged (${(error as Error).message})`;
      this.store.markFailed(trip.seq, reason, null);
      this.emit({ type: 'tripFailed', tripId: trip.id, reason, httpStatus: null });
      return;
    }
    const body = await gzipAsync(Buffer.from(json));
    const outcome = await this.client.uploadTrip(trip.id, body, this.abort.signal);
    if (!this.store.isOpen) return;

    switch (outcome.kind) {
      case 'acknowledged': {
        this.consecutiveFailures = 0;
        this.store.markSent(
          trip.seq,
          outcome.serverTripId,
          outcome.serverStatus,
          outcome.httpStatus,
          this.options.keepSentTrips,
        );
        this.store.reclaimSpace();
        this.emit({
          type: 'tripSent',
          tripId: trip.id,
          serverTripId: outcome.serverTripId,
          serverStatus: outcome.serverStatus,
          attempts: attempt,
        });
        return;
      }
      case 'permanent': {
        this.store.markFailed(trip.seq, outcome.reason, outcome.httpStatus);
        this.emit({ type: 'tripFailed', tripId: trip.id, reason: outcome.reason, httpStatus: outcome.httpStatus });
        return;
      }
      case 'transient': {
        if (this.stopped) {
          this.store.markPending(trip.seq, outcome.reason, outcome.httpStatus);
          return;
        }
        if (attempt >= this.options.retry.maxAttempts) {
          const reason = `gave up after ${attempt} attempts; last: ${outcome.reason}`;
          this.store.markFailed(trip.seq, reason, outcome.httpStatus);
          this.emit({ type: 'tripFailed', tripId: trip.id, reason, httpStatus: outcome.httpStatus });
          return;
        }
        this.consecutiveFailures++;
        const delayMs = retryDelayMs(
          this.consecutiveFailures,
          this.options.retry,
          this.options.random,
          outcome.retryAfterMs,
        );
        this.store.markPending(trip.seq, outcome.reason, outcome.httpStatus);
        this.holdUntilMonoMs = this.options.clock.monotonicMs() + delayMs;
        this.emit({ type: 'uploadRetry', tripId: trip.id, attempt, reason: outcome.reason, delayMs });
        return;
      }
    }
  }

  private schedule(delayMs: number): void {
    this.clearTimer();
    // Node runs a longer timer after 1 ms; a long Retry-After is waited out in steps (kick re-checks the hold).
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.kick();
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
    // The host decides how long the process lives; a pending retry must not keep it alive on its own.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** SQLite's answer to reading a page that is not what it should be (`SQLITE_CORRUPT` and its extended codes). */
function isDamagedPage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CORRUPT');
}
