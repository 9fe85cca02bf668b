import type { RoadGraph } from '@svc/roads';
import {
  drivingContextFor,
  type MachineType,
  SCORING_MODEL_VERSION,
  type ScoredTrip,
  scoreTrip,
  type TelemetryBatch,
} from '@svc/scoring';
import { decodeStoredTelemetry, type PreviousTrip, type ScoringInput } from './trip-scorer.ts';

/** The scoring engine's entry points this service uses. */
export interface ScoringEngine {
  modelVersion: string;
  /**
   * Scores one trip against the road graph, with the fatigue context of the driver's earlier trips; a
   * `machineType` (the vehicle's, as registered) overrides the one the batch names.
   */
  score(batch: TelemetryBatch, graph: RoadGraph, previousTrips: PreviousTrip[], machineType?: MachineType): ScoredTrip;
}

/** `@svc/scoring` with the service's road graph and the driver's earlier trips (fatigue factors). */
export function loadScoringEngine(): ScoringEngine {
  return {
    modelVersion: SCORING_MODEL_VERSION,
    score(batch, graph, previousTrips, machineType) {
      const firstFix = batch.samples.find((s) => s.type === 'gps');
      // Without a time zone in the batch, the engine's own default (offset from the longitude) applies.
      const drivingContext =
        previousTrips.length > 0 && firstFix?.type === 'gps'
          ? drivingContextFor(previousTrips, firstFix.t, {
              ...(batch.timeZone ? { timeZone: batch.timeZone } : {}),
              lon: firstFix.lon,
            })
          : undefined;
      return scoreTrip(batch, {
        graph,
        ...(drivingContext ? { drivingContext } : {}),
        ...(machineType ? { machineType } : {}),
      });
    },
  };
}

/** Scores one stored trip (gzip JSON telemetry) as a scoring thread does. */
export function scoreStoredTrip(engine: ScoringEngine, graph: RoadGraph, input: ScoringInput): ScoredTrip {
  const batch = decodeStoredTelemetry(input.telemetryGz);
  return engine.score(batch, graph, input.previousTrips, input.machineType);
}
