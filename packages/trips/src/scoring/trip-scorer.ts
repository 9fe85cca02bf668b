import { gunzipSync } from 'node:zlib';
import type { MachineType, ScoredTrip, TelemetryBatch } from '@svc/scoring';

/** An earlier trip of the same driver (or vehicle), for the fatigue factors. */
export interface PreviousTrip {
  startMs: number;
  endMs: number;
}

/** One trip to score: its stored telemetry (gzip JSON TelemetryBatch) and its driving context. */
export interface ScoringInput {
  telemetryGz: Buffer;
  /** The driver's trips that ended in the 24 hours before this one began, oldest first. */
  previousTrips: PreviousTrip[];
  /**
   * The machine type its vehicle is registered with (`trips vehicles create/update --type`), which the
   * scores and the stored trip follow rather than what the upload says (a device app may not know, or
   * name every vehicle a car).
   */
  machineType?: MachineType;
}

/**
 * What the pipeline needs from the scoring engine: a model version (stored with each result, and what
 * `rescore` compares against) and a scoring function. The service runs the engine with its road graph
 * in worker threads (decompression and parsing included, off the event loop); tests may pass a fake.
 */
export interface TripScorer {
  readonly modelVersion: string;
  score(input: ScoringInput): Promise<ScoredTrip>;
  close(): Promise<void>;
}

/**
 * A trip the engine cannot score however often it tries (too short, no usable positions...). The job
 * fails at once with this reason instead of being retried.
 */
export class UnscorableTripError extends Error {
  override name = 'UnscorableTripError';
  readonly permanent = true;
}

/** Whether a scoring failure is worth retrying: errors marked permanent (or of a known kind) are not. */
export function isPermanentScoringError(err: unknown): boolean {
  if (err instanceof UnscorableTripError) return true;
  if (typeof err === 'object' && err !== null) {
    const e = err as { permanent?: unknown; name?: unknown; code?: unknown };
    if (e.permanent === true) return true;
    if (typeof e.name === 'string' && /^(Unscorable|TripNotScorable|TelemetryValidation|InvalidTelemetry)/.test(e.name))
      return true;
  }
  return false;
}

/**
 * A trip's stored telemetry cannot be decoded (not gzip, cut short, not JSON): the store is damaged there. No
 * engine, now or after a fix, can score it again from what is stored, so a rescore keeps the trip's score and
 * goes on rather than stopping at it every time.
 */
export class StoredTelemetryUnreadableError extends Error {
  override name = 'StoredTelemetryUnreadableError';
}

/** Whether a scoring failure (also one rebuilt from a scoring thread, by its name) is unreadable stored telemetry. */
export function isStoredTelemetryUnreadable(err: unknown): boolean {
  return (
    typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'StoredTelemetryUnreadableError'
  );
}

/** The TelemetryBatch a trip's stored telemetry (gzip JSON) holds. */
export function decodeStoredTelemetry(telemetryGz: Buffer): TelemetryBatch {
  try {
    return JSON.parse(gunzipSync(telemetryGz).toString('utf8')) as TelemetryBatch;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StoredTelemetryUnreadableError(`the stored telemetry cannot be read (${reason})`, { cause: err });
  }
}
