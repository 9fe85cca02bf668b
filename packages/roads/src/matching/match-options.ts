/** Tuning of `matchTrace`. Every field has a default suited to 1 Hz phone GPS. */
export interface MatchOptions {
  /**
   * GPS noise standard deviation for the Gaussian emission, metres (default 10). A point's own `accuracyM` is used
   * instead when present and `useReportedAccuracy` is on, clamped to [`minSigmaM`, 50].
   */
  sigmaM?: number;
  /** Use each point's `accuracyM` as its sigma (default true). */
  useReportedAccuracy?: boolean;
  /** Lower clamp for reported accuracies, metres (default 4; phones report 3 m under open sky). */
  minSigmaM?: number;
  /**
   * Scale of the exponential transition on |route distance - great-circle distance|, metres (default 8). Smaller
   * trusts straight driving more; larger tolerates detours and noisy sparse traces.
   */
  betaM?: number;
  /** Candidate search radius, metres (default 50, widened to 4 sigma for inaccurate fixes). */
  radiusM?: number;
  /**
   * Most candidate positions kept per fix (each road direction counts once; default 12). Further roads touching
   * the same junction node at the same point do not count, up to twice this many candidates in all.
   */
  maxCandidates?: number;
  /** A time gap longer than this splits the trace, seconds (default 60). */
  maxGapS?: number;
  /**
   * Transitions faster than this (route distance over time between timed fixes) are impossible, km/h
   * (default 200).
   */
  maxSpeedKmh?: number;
  /** Longest route considered between consecutive fixes, metres (default 2000; longer breaks the trace). */
  maxRouteDistanceM?: number;
  /**
   * Between fixes without times: the route may be this many times the straight-line distance, plus two candidate
   * radii (default 3).
   */
  maxRouteFactor?: number;
  /** Cost of turning around (mid-road or at a junction), metres of detour (default 100). */
  uTurnPenaltyM?: number;
  /**
   * Fixes closer than this many sigmas to the last fix the decoder used are not decoded themselves but snapped
   * onto the decoded path afterwards (default 2, as GraphHopper; 0 decodes every fix). At 1 Hz this stops the
   * model from chasing noise while the vehicle waits at a junction, and halves the work in town.
   */
  minSpacingSigmas?: number;
  /**
   * At least this many consecutive fixes within 2.5 sigma of their centroid, not drifting, are a stop, decoded as
   * one observation at the centroid (default 6; 0 turns stop detection off).
   */
  stopMinFixes?: number;
  /**
   * Consecutive fixes that may be dropped as outliers before the trace is split instead (default 5). A position
   * jump of a few fixes is skipped; a longer excursion starts a new matched sub-trace.
   */
  maxOutlierRun?: number;
}

export type ResolvedMatchOptions = Required<MatchOptions>;

export const DEFAULT_MATCH_OPTIONS: ResolvedMatchOptions = {
  sigmaM: 10,
  useReportedAccuracy: true,
  minSigmaM: 4,
  betaM: 8,
  radiusM: 50,
  maxCandidates: 12,
  maxGapS: 60,
  maxSpeedKmh: 200,
  maxRouteDistanceM: 2000,
  maxRouteFactor: 3,
  uTurnPenaltyM: 100,
  maxOutlierRun: 5,
  minSpacingSigmas: 2,
  stopMinFixes: 6,
};

/** Options that may be 0. */
const ZERO_ALLOWED = new Set(['uTurnPenaltyM', 'maxOutlierRun', 'minSpacingSigmas', 'stopMinFixes']);

/** Merges options with the defaults and rejects values that would make the model meaningless. */
export function resolveMatchOptions(options: MatchOptions = {}): ResolvedMatchOptions {
  const resolved: ResolvedMatchOptions = { ...DEFAULT_MATCH_OPTIONS };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_MATCH_OPTIONS)) throw new RangeError(`matchTrace: unknown option "${key}"`);
    const k = key as keyof ResolvedMatchOptions;
    if (typeof DEFAULT_MATCH_OPTIONS[k] === 'boolean') {
      if (typeof value !== 'boolean') throw new RangeError(`matchTrace: option ${key} must be true or false`);
    } else if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < 0 ||
      (value === 0 && !ZERO_ALLOWED.has(key))
    ) {
      throw new RangeError(`matchTrace: option ${key} must be a positive number, got ${String(value)}`);
    }
    (resolved as unknown as Record<string, unknown>)[k] = value;
  }
  resolved.maxCandidates = Math.max(1, Math.floor(resolved.maxCandidates));
  resolved.maxOutlierRun = Math.max(0, Math.floor(resolved.maxOutlierRun));
  resolved.stopMinFixes = Math.max(0, Math.floor(resolved.stopMinFixes));
  return resolved;
}
