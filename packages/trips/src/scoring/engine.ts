import type { RoadGraph } from '@svc/roads';
import type { ScoredTrip, TelemetryBatch } from '@svc/scoring';
import * as scoring from '@svc/scoring';
import type { PreviousTrip } from './trip-scorer.ts';

/** The scoring engine's entry points this service uses. */
export interface ScoringEngine {
  modelVersion: string;
  /** Scores one trip against the road graph, with the fatigue context of the driver's earlier trips. */
  score(batch: TelemetryBatch, graph: RoadGraph, previousTrips: PreviousTrip[]): ScoredTrip;
}

interface EngineExports {
  SCORING_MODEL_VERSION?: string;
  scoreTrip?: (batch: TelemetryBatch, options: { graph?: RoadGraph; drivingContext?: unknown }) => ScoredTrip;
  drivingContextFor?: (
    previous: readonly PreviousTrip[],
    startMs: number,
    options: { timeZone: string; lon: number },
  ) => unknown;
  zoneOfPosition?: (lon: number, lat: number) => string;
}

/**
 * Looks the engine up in `@svc/scoring`. Resolved at run time so that the service reports a clear error
 * (rather than failing to load) against a scoring package that does not export its scorer.
 */
export function loadScoringEngine(): ScoringEngine {
  const exports = scoring as unknown as EngineExports;
  const scoreTrip = exports.scoreTrip;
  if (typeof scoreTrip !== 'function' || typeof exports.SCORING_MODEL_VERSION !== 'string') {
    throw new Error('@svc/scoring does not export scoreTrip and SCORING_MODEL_VERSION: the trip scorer is unavailable');
  }
  const contextFor = exports.drivingContextFor;
  return {
    modelVersion: exports.SCORING_MODEL_VERSION,
    score(batch, graph, previousTrips) {
      let drivingContext: unknown;
      const firstFix = batch.samples.find((s) => s.type === 'gps');
      if (contextFor && previousTrips.length > 0 && firstFix?.type === 'gps') {
        const timeZone = batch.timeZone ?? exports.zoneOfPosition?.(firstFix.lon, firstFix.lat) ?? 'UTC';
        drivingContext = contextFor(previousTrips, firstFix.t, { timeZone, lon: firstFix.lon });
      }
      return scoreTrip(batch, { graph, ...(drivingContext ? { drivingContext } : {}) });
    },
  };
}
