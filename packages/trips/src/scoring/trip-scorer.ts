import type { ScoredTrip, TelemetryBatch } from '@svc/scoring';

/**
 * What the pipeline needs from the scoring engine: a model version (stored with each result, and what
 * `rescore` compares against) and a scoring function. The service uses the engine with its road graph,
 * in worker threads; tests may pass a fake.
 */
export interface TripScorer {
  readonly modelVersion: string;
  score(batch: TelemetryBatch): Promise<ScoredTrip>;
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
    if (typeof e.name === 'string' && /^(Unscorable|TelemetryValidation|InvalidTelemetry)/.test(e.name)) return true;
  }
  return false;
}
