/**
 * Version of the scoring model: thresholds, factor catalogue, mappings and weights. Every ScoredTrip
 * carries it, so a stored score can be reproduced and trips rescored when it changes. Bump the major
 * part when scores change meaning, the minor part when they shift, the patch for fixes.
 */
export const SCORING_MODEL_VERSION = '1.1.16';
