/**
 * Driver behaviour profiles. A profile has seven behaviour levels in [0, 1] (0 = the calmest driver we model,
 * 1 = the most aggressive) and the physical parameters the trip synthesis uses, derived from the levels. Each level
 * drives only its own parameters, so a test can raise one behaviour and leave every other signal unchanged. The
 * driver's true risk is a fixed weighted mean of the levels, known before any trip is simulated.
 */

/** The behaviour dimensions, each controllable on its own. */
export const BEHAVIOURS = [
  'speeding',
  'braking',
  'acceleration',
  'cornering',
  'phoneUse',
  'nightDriving',
  'longStints',
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/** The behaviours a single trip shows; night driving and long stints show in the schedule (when and how long). */
export const TRIP_BEHAVIOURS = [
  'speeding',
  'braking',
  'acceleration',
  'cornering',
  'phoneUse',
] as const satisfies readonly Behaviour[];

/** Level per behaviour, 0 (calm) .. 1 (aggressive). */
export type BehaviourLevels = Record<Behaviour, number>;

/**
 * Weights of each behaviour in the true risk. They follow the theme weights proposed in research/telematics.md
 * §5.4 (speeding 0.25, distraction 0.20, braking 0.17, exposure 0.18, cornering 0.10, acceleration 0.10), with
 * exposure split evenly between night driving and long stints.
 */
export const TRUE_RISK_WEIGHTS: Readonly<BehaviourLevels> = Object.freeze({
  speeding: 0.25,
  braking: 0.17,
  acceleration: 0.1,
  cornering: 0.1,
  phoneUse: 0.2,
  nightDriving: 0.09,
  longStints: 0.09,
});

/** Physical parameters of a driver's behaviour (what the synthesis actually uses). */
export interface DriverParams {
  // speeding
  /** Desired free-flow speed as a multiple of the posted limit. */
  speedFactor: number;
  /** Speeding bursts (well above the usual speed) per hour of driving. */
  speedingEpisodesPerHour: number;
  /** Median extra speed during a burst, km/h. */
  speedingEpisodeExcessKmh: number;
  /** Median length of a burst, seconds. */
  speedingEpisodeDurationS: number;
  /** Cruising speed where there is no limit (unrestricted motorway), km/h. */
  unlimitedCruiseKmh: number;
  /** Probability of rolling through a stop sign instead of stopping. */
  stopRollThroughProbability: number;
  // braking
  /** Deceleration for planned stops and slow-downs, m/s^2. */
  brakeDecelMps2: number;
  /** Time over which braking builds up (longer = gentler onset jerk), seconds. */
  brakeOnsetS: number;
  /** Sudden braking manoeuvres (late reaction to traffic) per 100 km. */
  suddenBrakesPer100Km: number;
  /** Deceleration of a sudden braking manoeuvre, m/s^2. */
  suddenBrakeDecelMps2: number;
  // acceleration
  /** Acceleration from standstill and after slow-downs, m/s^2 (capped by the vehicle). */
  launchAccelMps2: number;
  /** Time over which acceleration builds up, seconds. */
  accelOnsetS: number;
  /** Engine speed at which the driver shifts up, rpm (OBD only). */
  shiftRpm: number;
  // cornering
  /** Lateral acceleration the driver accepts in curves and turns, m/s^2. */
  lateralAccelMps2: number;
  // phone
  /** Phone-use sessions per hour of driving. */
  phoneSessionsPerHour: number;
  /** Median session length, seconds. */
  phoneSessionMedianS: number;
  /** Share of sessions that are handheld (screen, typing, handheld calls) rather than hands-free calls. */
  phoneHandheldShare: number;
  // exposure
  /** Share of the driver's private trips that start at night (22:00-05:00 local). */
  nightTripShare: number;
  /** Share of working days with a long stint (over 2 h without a 15-minute break). */
  longStintDayShare: number;
  /** Length of a long stint, hours. */
  longStintHours: number;
}

/** A driver's behaviour: levels, derived parameters and the true risk. */
export interface DriverProfile {
  levels: BehaviourLevels;
  params: DriverParams;
  /** Weighted mean of the levels with {@link TRUE_RISK_WEIGHTS}; 0 (calm) .. 1 (aggressive). */
  trueRisk: number;
  /**
   * The same over {@link TRIP_BEHAVIOURS} only (weights renormalised): the risk a trip-level score can see when
   * every driver drives the same trips at the same times.
   */
  drivingRisk: number;
}

/** Options of {@link driverProfile}: an overall aggressiveness, per-behaviour levels, and parameter overrides. */
export interface DriverProfileOptions extends Partial<BehaviourLevels> {
  /** Default level for every behaviour not given explicitly (default 0.3, a fairly calm driver). */
  aggressiveness?: number;
  /** Override derived parameters (the levels and true risk stay as given). */
  params?: Partial<DriverParams>;
}

const lerp = (calm: number, aggressive: number, level: number) => calm + (aggressive - calm) * level;

function checkLevel(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new RangeError(`driver profile: ${name} must be a number between 0 and 1 (got ${String(value)})`);
  }
  return value;
}

/** Physical parameters for a set of levels; each parameter depends on exactly one level. */
export function paramsForLevels(levels: BehaviourLevels): DriverParams {
  const { speeding, braking, acceleration, cornering, phoneUse, nightDriving, longStints } = levels;
  return {
    speedFactor: lerp(0.93, 1.2, speeding),
    speedingEpisodesPerHour: lerp(0.1, 10, speeding),
    speedingEpisodeExcessKmh: lerp(6, 26, speeding),
    speedingEpisodeDurationS: lerp(15, 60, speeding),
    unlimitedCruiseKmh: lerp(120, 175, speeding),
    stopRollThroughProbability: lerp(0.02, 0.7, speeding),
    brakeDecelMps2: lerp(1.6, 3.7, braking),
    brakeOnsetS: lerp(2.2, 0.6, braking),
    suddenBrakesPer100Km: lerp(0.2, 14, braking),
    suddenBrakeDecelMps2: lerp(3.3, 6.2, braking),
    launchAccelMps2: lerp(1.3, 3.5, acceleration),
    accelOnsetS: lerp(2.0, 0.6, acceleration),
    shiftRpm: lerp(2100, 4800, acceleration),
    lateralAccelMps2: lerp(1.7, 5.0, cornering),
    phoneSessionsPerHour: lerp(0.2, 16, phoneUse),
    phoneSessionMedianS: lerp(8, 45, phoneUse),
    phoneHandheldShare: lerp(0.25, 0.9, phoneUse),
    nightTripShare: lerp(0.02, 0.6, nightDriving),
    longStintDayShare: lerp(0, 0.8, longStints),
    longStintHours: lerp(2.2, 4.5, longStints),
  };
}

/**
 * The true risk of a set of levels: their weighted mean with {@link TRUE_RISK_WEIGHTS}, over all behaviours or over
 * the ones given (weights renormalised).
 */
export function trueRiskOf(levels: BehaviourLevels, behaviours: readonly Behaviour[] = BEHAVIOURS): number {
  let risk = 0;
  let weight = 0;
  for (const b of behaviours) {
    risk += TRUE_RISK_WEIGHTS[b] * levels[b];
    weight += TRUE_RISK_WEIGHTS[b];
  }
  return weight > 0 ? risk / weight : 0;
}

/**
 * A driver profile from an aggressiveness in [0, 1] and optional per-behaviour levels, e.g.
 * `driverProfile({ aggressiveness: 0.2, phoneUse: 0.9 })` (a calm driver who uses the phone a lot).
 */
export function driverProfile(options: DriverProfileOptions = {}): DriverProfile {
  const base = checkLevel('aggressiveness', options.aggressiveness ?? 0.3);
  const levels = {} as BehaviourLevels;
  for (const b of BEHAVIOURS) levels[b] = checkLevel(b, options[b] ?? base);
  const params = { ...paramsForLevels(levels), ...(options.params ?? {}) };
  for (const [key, value] of Object.entries(options.params ?? {})) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`driver profile: params.${key} must be a non-negative number (got ${String(value)})`);
    }
  }
  return { levels, params, trueRisk: trueRiskOf(levels), drivingRisk: trueRiskOf(levels, TRIP_BEHAVIOURS) };
}

/** A copy of a profile with some levels changed (parameters re-derived, overrides dropped). */
export function withLevels(profile: DriverProfile, changes: Partial<BehaviourLevels>): DriverProfile {
  return driverProfile({ ...profile.levels, ...changes });
}
