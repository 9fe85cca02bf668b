/**
 * @svc/scoring: the pure scoring engine of the trip-scoring service. Telemetry in (validated, cleaned,
 * segmented, map-matched), a ScoredTrip out: events, 100 factors in six themes, overall score and tier.
 */

export { speedingBand, toleranceKmh } from './events/speeding.ts';
export {
  FACTOR_BY_KEY,
  FACTORS,
  type FactorDefinition,
  type FactorMapping,
  factorScore,
  type Need,
  THEMES,
  type ThemeDefinition,
} from './factors/catalogue.ts';
export { phoneSpeedCoefficient } from './factors/measure-distraction.ts';
export * from './result.ts';
export { MEASURES, MIN_THEME_WEIGHT_SHARE, tierFor } from './score/assemble.ts';
export { type NotScorableCode, type ScoreOptions, scoreTrip, TripNotScorableError } from './score/score-trip.ts';
export {
  drivingContextFor,
  type PreviousTrip,
  type SegmentOptions,
  scoreTelemetry,
  segmentTrips,
  type TripSegment,
} from './score/segment.ts';
export type { DrivingContext } from './score/trip-data.ts';
export { SCORING_MODEL_VERSION } from './score/version.ts';
export * from './telemetry.ts';
export * as thresholds from './thresholds.ts';
export * from './validate.ts';
