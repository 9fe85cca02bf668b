import type { ThemeId } from '../result.ts';

/**
 * The factor catalogue: six themes, 100 factors. Each factor's raw value maps to 0-100 (higher is safer);
 * the README's calibration section explains how each mapping was chosen. Keys are stable: stored results
 * refer to them. Changing a mapping or weight needs a new SCORING_MODEL_VERSION.
 */

/**
 * How a raw value becomes a 0-100 score.
 * - `penalty`: 100 up to `free`, 50 at `free + half`, then a log-logistic tail:
 *   100 / (1 + ((x - free) / half)^shape). Monotone, bounded, no cliff; unlike an exponential it keeps
 *   telling a bad value from a very bad one, which the ranking of risky drivers needs (README, calibration).
 * - `reward`: the value is already a 0-1 quality; score = 100 * value.
 */
export type FactorMapping = { kind: 'penalty'; free: number; half: number; shape: number } | { kind: 'reward' };

/** Default steepness of the penalty mappings (see README, calibration). */
export const DEFAULT_SHAPE = 1.5;

/** What a factor needs before it can be computed. */
export type Need = 'gps' | 'imu' | 'gyro' | 'deviceImu' | 'phone' | 'obdRpm' | 'obdThrottle' | 'map' | 'limits';

export interface FactorDefinition {
  key: string;
  theme: ThemeId;
  label: string;
  description: string;
  unit: string;
  /** Relative weight inside the theme; 0 = reported for context, never scored into the theme. */
  weight: number;
  mapping: FactorMapping;
  needs: readonly Need[];
}

export interface ThemeDefinition {
  id: ThemeId;
  label: string;
  description: string;
  /** Weight in the overall score (sums to 1 over the six themes). */
  weight: number;
}

/** The six themes, with their weights in the overall score (research/telematics.md §5.4, README). */
export const THEMES: readonly ThemeDefinition[] = [
  {
    id: 'speeding',
    label: 'Speeding',
    description:
      'Speed against the legal limit of the roads driven (map-matched): how often, how far over and for how long.',
    weight: 0.25,
  },
  {
    id: 'braking',
    label: 'Braking',
    description: 'Harsh and late braking, and how smoothly the driver slows down and stops.',
    weight: 0.17,
  },
  {
    id: 'acceleration',
    label: 'Acceleration',
    description: 'Harsh acceleration, launches from standstill and throttle smoothness.',
    weight: 0.1,
  },
  {
    id: 'cornering',
    label: 'Cornering',
    description: 'Lateral forces in curves and turns, speed into curves, turns and roundabouts, swerving.',
    weight: 0.1,
  },
  {
    id: 'distraction',
    label: 'Phone distraction',
    description: 'Handling the phone, using its screen and handheld calls while the vehicle moves.',
    weight: 0.2,
  },
  {
    id: 'exposure',
    label: 'Exposure',
    description: 'When, where and how long the trip was driven: night and late night, fatigue, road types, traffic.',
    weight: 0.18,
  },
];

const P = (free: number, half: number, shape = DEFAULT_SHAPE): FactorMapping => ({
  kind: 'penalty',
  free,
  half,
  shape,
});
const GM = ['gps', 'map', 'limits'] as const;

function f(
  theme: ThemeId,
  key: string,
  label: string,
  unit: string,
  weight: number,
  mapping: FactorMapping,
  needs: readonly Need[],
  description: string,
): FactorDefinition {
  return { key, theme, label, description, unit, weight, mapping, needs };
}

// biome-ignore format: one factor per line reads as a table
export const FACTORS: readonly FactorDefinition[] = [
  // ── speeding (18) ──
  f('speeding', 'speedingIntensity', 'Speeding intensity', '%', 4, P(0, 2), GM,
    'Distance-weighted excess over the limit: sum of (speed - limit)+ x distance over sum of limit x distance, on roads with a known limit. 0 % = never over the limit.'),
  f('speeding', 'speedingTimeShare', 'Time speeding', '%', 3, P(0, 4), GM,
    'Share of moving time on known-limit roads spent in speeding episodes (over limit + tolerance for at least 10 s; tolerance max(5 km/h, 10 %)).'),
  f('speeding', 'speedingDistanceShare', 'Distance speeding', '%', 2, P(0, 4), GM,
    'Share of the distance on known-limit roads driven in speeding episodes.'),
  f('speeding', 'speedingEpisodeRate', 'Speeding episodes', 'per 100 km', 3, P(0, 8), GM,
    'Speeding episodes (over limit + tolerance for at least 10 s) per 100 km driven on roads with a known limit.'),
  f('speeding', 'minorSpeedingShare', 'Minor speeding', '%', 1, P(0, 8), GM,
    'Share of moving time speeding by at most 10 km/h over the limit.'),
  f('speeding', 'moderateSpeedingShare', 'Moderate speeding', '%', 2, P(0, 3), GM,
    'Share of moving time speeding by 10-20 km/h (or more where that is under 25 % of a high limit).'),
  f('speeding', 'severeSpeedingShare', 'Severe speeding', '%', 3, P(0, 1.5), GM,
    'Share of moving time more than 20 km/h and more than 25 % over the limit.'),
  f('speeding', 'extremeSpeedingRate', 'Extreme speeding episodes', 'per 100 km', 3, P(0, 2), GM,
    'Episodes reaching more than 30 km/h over the limit (or 40 % and 20 km/h over) for at least 3 s, per 100 km driven on roads with a known limit.'),
  f('speeding', 'maxSpeedExcess', 'Highest excess', 'km/h', 1, P(5, 12), GM,
    'Largest excess over the limit held for at least 3 s.'),
  f('speeding', 'longestSpeedingEpisode', 'Longest speeding episode', 's', 1, P(10, 30), GM,
    'Duration of the longest continuous speeding episode.'),
  f('speeding', 'highAbsoluteSpeedShare', 'Very high speed', '%', 1, P(0, 5), ['gps'],
    'Share of moving time above 130 km/h, whatever the limit (Drivewise-style absolute speed).'),
  f('speeding', 'lowLimitZoneSpeeding', 'Speeding in 30 zones', '%', 2, P(0, 5), GM,
    'Share of moving time in zones limited to 30 km/h or less (and living streets) spent speeding: where pedestrians are.'),
  f('speeding', 'urbanSpeedingShare', 'Urban speeding', '%', 2, P(0, 5), GM,
    'Share of moving time on roads limited to 50 km/h or less spent speeding.'),
  f('speeding', 'motorwaySpeedingShare', 'Motorway speeding', '%', 1, P(0, 6), GM,
    'Share of moving time on motorways and trunk roads spent speeding.'),
  f('speeding', 'limitDropComplianceTime', 'Slowing for a lower limit', 's', 1, P(3, 6), GM,
    'Mean seconds taken to get under a lower limit (+ tolerance) after entering it, over the limit drops of at least 10 km/h that were entered too fast.'),
  f('speeding', 'meanSpeedToLimitRatio', 'Speed choice', 'ratio', 1, P(0.9, 0.1), GM,
    'Mean of speed / limit over free-flowing driving (speed at least 60 % of the limit): 1.0 = at the limit on average.'),
  f('speeding', 'stopSignRollThroughRate', 'Rolling through stop signs', '%', 1, P(10, 30), ['gps', 'map'],
    'Share of stop signs passed whose approach never slowed below 10 km/h (Motive: not under 6 mph).'),
  f('speeding', 'wrongWayDistance', 'Wrong-way driving', 'm', 1, P(0, 40), ['gps', 'map'],
    'Metres driven against the direction of a one-way road.'),
  // ── braking (16) ──
  f('braking', 'harshBrakingRate', 'Harsh braking', 'per 100 km', 4, P(0, 8), ['gps'],
    'Harsh braking events (deceleration of 3.0 m/s^2 or more for 0.3 s from the IMU, or over 1 s from GPS speed) per 100 km.'),
  f('braking', 'severeBrakingRate', 'Severe braking', 'per 100 km', 3, P(0, 3), ['gps'],
    'Braking events reaching 4.4 m/s^2 or more, per 100 km (severity-weighted: an event counts 0 at 4.0, 1 at 4.8 m/s^2).'),
  f('braking', 'emergencyBrakingCount', 'Emergency braking', 'count', 2, P(0, 1), ['gps'],
    'Braking events reaching 6.0 m/s^2 (about 0.6 g), a near-miss proxy, in this trip (counting 0 at 5.6, 1 at 6.4 m/s^2).'),
  f('braking', 'peakDeceleration', 'Strongest braking', 'm/s^2', 1, P(2.5, 2), ['gps'],
    'Largest deceleration held for at least 0.3 s (IMU) or over 1 s (GPS).'),
  f('braking', 'decelerationP95', 'Typical braking force', 'm/s^2', 1, P(1.8, 1), ['gps'],
    '95th percentile of deceleration over moving time (0 while not braking): how hard and how much the driver brakes.'),
  f('braking', 'brakingOnsetJerk', 'Braking onset jerk', 'm/s^3', 1, P(0.6, 1.2), ['imu'],
    '95th percentile, over moving time, of the rate at which deceleration builds up while braking (0 otherwise).'),
  f('braking', 'highSpeedHarshBrakingRate', 'Harsh braking at speed', 'per 100 km', 2, P(0, 3), ['gps'],
    'Harsh braking events starting at 80 km/h or more, per 100 km.'),
  f('braking', 'hardStopRate', 'Hard stops', 'per 100 stops', 1, P(0, 20), ['gps'],
    'Harsh braking events that end in a stop, per 100 stops.'),
  f('braking', 'stopApproachDeceleration', 'Stop approach', 'm/s^2', 1, P(1.3, 1), ['gps'],
    'Mean deceleration over the last 100 m before coming to a stop (v^2 / 2d), over stops approached faster than 20 km/h.'),
  f('braking', 'lateBrakingShare', 'Late braking', '%', 1, P(0, 30), ['gps'],
    'Share of stops from 40 km/h or more whose slowing from 40 km/h to standstill took less than 4 s.'),
  f('braking', 'harshBrakesPerStop', 'Harsh brakes per stop', 'ratio', 1, P(0, 0.25), ['gps'],
    'Harsh braking events divided by the number of stops.'),
  f('braking', 'brakingClusterRate', 'Braking clusters', 'per 100 km', 1, P(0, 2), ['gps'],
    'Clusters of two or more harsh brakes within 60 s (stop-and-go or following too closely), per 100 km.'),
  f('braking', 'speedOscillationIndex', 'Speed oscillation', 'per km', 1, P(1, 1.5), ['gps'],
    'Reversals between braking and accelerating (beyond 1 m/s^2 each way) per km above 50 km/h: a camera-free proxy for close following.'),
  f('braking', 'brakingWhileTurningRate', 'Braking in turns', 'per 100 km', 1, P(0, 3), ['imu'],
    'Harsh braking with at least 2 m/s^2 of lateral acceleration at the same time, per 100 km.'),
  f('braking', 'signalApproachHarshBraking', 'Harsh braking at signals', 'per 100 signals', 1, P(0, 10), ['gps', 'map'],
    'Harsh braking within 50 m before traffic signals, per 100 signals passed.'),
  f('braking', 'possibleImpactCount', 'Possible impacts', 'count', 0, P(0, 0.5), ['imu'],
    'Acceleration spikes of 2.5 g or more followed by a stop: a crash flag, reported but not scored.'),
  // ── acceleration (15) ──
  f('acceleration', 'harshAccelerationRate', 'Harsh acceleration', 'per 100 km', 4, P(0, 8), ['gps'],
    'Harsh acceleration events (2.5 m/s^2 or more for 0.5 s from the IMU, or over 1 s from GPS speed) per 100 km.'),
  f('acceleration', 'severeAccelerationRate', 'Severe acceleration', 'per 100 km', 3, P(0, 3), ['gps'],
    'Acceleration events reaching 3.6 m/s^2 or more, per 100 km (severity-weighted: 0 at 3.3, 1 at 3.9 m/s^2).'),
  f('acceleration', 'peakAcceleration', 'Strongest acceleration', 'm/s^2', 1, P(2, 2), ['gps'],
    'Largest acceleration held for at least 0.5 s (IMU) or over 1 s (GPS).'),
  f('acceleration', 'accelerationP95', 'Typical acceleration', 'm/s^2', 1, P(1.3, 1), ['gps'],
    '95th percentile of forward acceleration over moving time (0 while not accelerating).'),
  f('acceleration', 'launchIntensity', 'Launches', 'm/s^2', 1, P(1.6, 1), ['gps'],
    'Mean acceleration from standstill to 50 km/h, over the launches that reach 50 km/h within 25 s.'),
  f('acceleration', 'accelerationOnsetJerk', 'Throttle onset jerk', 'm/s^3', 1, P(0.3, 0.5), ['imu'],
    '95th percentile, over moving time, of the rate at which acceleration builds up while accelerating (0 otherwise).'),
  f('acceleration', 'highSpeedAccelerationRate', 'Harsh acceleration at speed', 'per 100 km', 1, P(0, 3), ['gps'],
    'Harsh acceleration events above 80 km/h (aggressive overtaking), per 100 km.'),
  f('acceleration', 'accelerationIntoSpeedingRate', 'Accelerating into speeding', 'per 100 km', 1, P(0, 5), GM,
    'Accelerations (harsh or not) that end above the limit + tolerance, per 100 km driven on roads with a known limit.'),
  f('acceleration', 'cruiseThrottleVariability', 'Cruise smoothness', 'm/s^2', 1, P(0.25, 0.35), ['gps'],
    'Standard deviation of longitudinal acceleration while cruising above 50 km/h (speed within 10 % of its 30 s mean).'),
  f('acceleration', 'stopGoCycleRate', 'Stop-and-go', 'per km', 0, P(1, 2), ['gps'],
    'Speed cycles below 30 km/h (up 8 km/h, then down 8 km/h) per km driven below 30 km/h: traffic context, reported, not scored.'),
  f('acceleration', 'signalLaunchHarshRate', 'Harsh launches at signals', 'per 100 signals', 1, P(0, 10), ['gps', 'map'],
    'Harsh accelerations within 50 m after traffic signals, per 100 signals passed.'),
  f('acceleration', 'mergeAccelerationIntensity', 'Slip-road acceleration', 'm/s^2', 1, P(1.8, 1), ['gps', 'map'],
    '95th percentile of acceleration on motorway and trunk slip roads (*_link).'),
  f('acceleration', 'engineHighRpmShare', 'High engine speed', '%', 1, P(0, 5), ['obdRpm'],
    'Share of moving time above 4,000 rpm (3,000 rpm for vans, trucks and buses).'),
  f('acceleration', 'throttleKickdownRate', 'Full throttle', 'per 100 km', 1, P(0, 5), ['obdThrottle'],
    'Episodes of throttle above 80 %, per 100 km.'),
  f('acceleration', 'longitudinalJerkRms', 'Longitudinal smoothness', 'm/s^3', 1, P(0.5, 0.8), ['imu'],
    'Root mean square of longitudinal jerk while moving: overall pedal smoothness.'),
  // ── cornering (16) ──
  f('cornering', 'harshCorneringRate', 'Harsh cornering', 'per 100 km', 4, P(0, 8), ['gps'],
    'Harsh cornering events (lateral acceleration of 3.5 m/s^2 or more for 0.4 s above 18 km/h) per 100 km.'),
  f('cornering', 'severeCorneringRate', 'Severe cornering', 'per 100 km', 3, P(0, 3), ['gps'],
    'Cornering events reaching 4.9 m/s^2 (0.5 g) or more, per 100 km (severity-weighted: 0 at 4.5, 1 at 5.3 m/s^2).'),
  f('cornering', 'peakLateralAcceleration', 'Strongest cornering', 'm/s^2', 1, P(2.5, 2), ['gps'],
    'Largest lateral acceleration held for at least 0.4 s (IMU) or over 2 s (GPS).'),
  f('cornering', 'lateralAccelerationP95', 'Typical cornering force', 'm/s^2', 1, P(1.5, 1), ['gps'],
    '95th percentile of lateral acceleration over the time driven above 18 km/h.'),
  f('cornering', 'curveSpeedExcess', 'Speed into curves', 'km/h', 2, P(0, 6), ['gps', 'map'],
    'Mean excess over the comfortable curve speed sqrt(3 m/s^2 x R), on curves of radius under 300 m taken from the road geometry.'),
  f('cornering', 'curveOverspeedShare', 'Curves taken too fast', '%', 2, P(0, 25), ['gps', 'map'],
    'Share of distance on curves (radius under 300 m) driven above the comfortable curve speed.'),
  f('cornering', 'yawRateP95', 'Turn rate', 'deg/s', 0.5, P(12, 10), ['gps'],
    '95th percentile of yaw rate above 20 km/h (gyroscope, else GPS course).'),
  f('cornering', 'combinedGExceedanceRate', 'Friction-circle use', 'per 100 km', 1, P(0, 6), ['imu'],
    'Episodes where combined longitudinal and lateral acceleration exceeds 4 m/s^2, per 100 km.'),
  f('cornering', 'swervingRate', 'Swerving', 'per 100 km', 1, P(0, 4), ['gyro'],
    'Yaw-rate reversals beyond 10 deg/s within 3 s above 50 km/h, per 100 km.'),
  f('cornering', 'laneChangeIntensity', 'Lane changes', 'm/s^3', 0.5, P(1.5, 2), ['imu', 'map'],
    '95th percentile of lateral jerk above 50 km/h on roads with two or more lanes per direction.'),
  f('cornering', 'turnEntrySpeedRatio', 'Speed into junction turns', 'ratio', 1, P(1.2, 0.4), ['gps', 'map'],
    'Mean speed entering turns of more than 60 degrees made at junctions (three or more roads meeting within 30 m of the turn; bends and roundabouts excluded), divided by 25 km/h.'),
  f('cornering', 'roundaboutEntrySpeed', 'Roundabout entry speed', 'km/h', 1, P(25, 10), ['gps', 'map'],
    'Mean speed entering roundabouts.'),
  f('cornering', 'uTurnCount', 'U-turns', 'count', 0, P(0, 2), ['gps'],
    'Heading reversals of 160 degrees or more within 15 s while moving: reported, not scored (navigation and roundabouts make most of them).'),
  f('cornering', 'accelerationInCurvesRate', 'Accelerating in curves', 'per 100 km', 1, P(0, 4), ['imu'],
    'Longitudinal acceleration of 2 m/s^2 or more while lateral acceleration is 2 m/s^2 or more, per 100 km.'),
  f('cornering', 'lateralJerkP95', 'Steering smoothness', 'm/s^3', 1, P(1, 1), ['imu'],
    '95th percentile of lateral jerk while moving.'),
  f('cornering', 'sharpTurnRate', 'Sharp turns at speed', 'per 100 km', 1, P(10, 10), ['gps'],
    'Turns of more than 60 degrees within 5 s taken above 30 km/h throughout, per 100 km.'),
  // ── distraction (17) ──
  f('distraction', 'phoneUseShare', 'Phone use while moving', '%', 4, P(0, 3), ['phone'],
    'Share of moving time in phone-use episodes (screen unlocked, handling, typing or a handheld call for at least 3 s at 15 km/h or more).'),
  f('distraction', 'phoneUseEventRate', 'Phone-use episodes', 'per 100 km', 2, P(0, 10), ['phone'],
    'Phone-use episodes while moving, per 100 km.'),
  f('distraction', 'phoneHandlingPerHour', 'Phone handling', 's/h', 2, P(0, 60), ['phone'],
    'Seconds of handling or typing while moving, per hour driven.'),
  f('distraction', 'longestPhoneUseEpisode', 'Longest phone use', 's', 1, P(3, 30), ['phone'],
    'Duration of the longest phone-use episode while moving.'),
  f('distraction', 'highSpeedPhoneUsePerHour', 'Phone use at high speed', 's/h', 2, P(0, 30), ['phone'],
    'Phone-use seconds above 90 km/h, per hour driven.'),
  f('distraction', 'speedWeightedPhoneUse', 'Speed-weighted phone use', 'points/h', 3, P(0, 8), ['phone'],
    'Phone-use seconds weighted by speed band (Damoov: 0-40 km/h 0.0434, 40-55 0.2372, 55-105 0.2929, over 105 0.4821 per second), per hour driven.'),
  f('distraction', 'handheldCallPerHour', 'Handheld calls', 's/h', 2, P(0, 60), ['phone'],
    'Seconds of handheld calls while moving, per hour driven.'),
  f('distraction', 'handsFreeCallPerHour', 'Hands-free calls', 's/h', 0, P(0, 600), ['phone'],
    'Seconds of hands-free calls while moving, per hour driven: reported, not scored.'),
  f('distraction', 'screenUnlockRate', 'Unlocks while moving', 'per hour', 1, P(0, 2), ['phone'],
    'Phone unlocks while moving, per hour driven.'),
  f('distraction', 'screenOnMovingShare', 'Screen on while moving', '%', 1, P(0, 5), ['phone'],
    'Share of moving time with the screen on and unlocked.'),
  f('distraction', 'phonePickupRate', 'Phone pick-ups', 'per hour', 1, P(0, 2), ['deviceImu'],
    'Phone pick-ups seen as changes of the device orientation while moving, per hour driven (no phone events needed).'),
  f('distraction', 'phoneUseNearJunctions', 'Phone use near junctions', 's/h', 1, P(0, 20), ['phone', 'map'],
    'Phone-use seconds within 50 m of a junction or traffic signal, per hour driven.'),
  f('distraction', 'urbanPhoneUseShare', 'Phone use in town', '%', 1, P(0, 3), ['phone', 'map', 'limits'],
    'Share of moving time on roads limited to 50 km/h or less spent in phone use.'),
  f('distraction', 'distractedHarshEventCount', 'Harsh events after phone use', 'count', 1, P(0, 1), ['phone'],
    'Harsh braking or cornering within 10 s after a phone-use episode.'),
  f('distraction', 'phoneUseAtSpeedRate', 'Phone use started at speed', 'per 100 km', 1, P(0, 5), ['phone'],
    'Phone-use episodes that start above 50 km/h, per 100 km.'),
  f('distraction', 'phoneFreeTrip', 'Phone-free trip', 'boolean', 1, { kind: 'reward' }, ['phone'],
    '1 when the trip had no phone use while moving (scores 100), else 0 (scores 0).'),
  f('distraction', 'stoppedPhoneUseShare', 'Phone use while stopped', '%', 0, P(0, 50), ['phone'],
    'Share of stationary time with phone use: reported, not scored (the vehicle is not moving).'),
  // ── exposure (18) ──
  f('exposure', 'tripDistanceKm', 'Distance', 'km', 0, P(0, 500), ['gps'],
    'Distance driven (matched when available): exposure context, not scored per trip.'),
  f('exposure', 'tripDurationMin', 'Duration', 'min', 0, P(0, 300), ['gps'],
    'Trip duration including stops: exposure context, not scored per trip.'),
  f('exposure', 'nightDrivingShare', 'Night driving', '%', 4, P(0, 40), ['gps'],
    'Share of distance driven 22:00-05:00 local time (fatal crash rate per km about 3 times the day rate).'),
  f('exposure', 'lateNightDrivingShare', 'Late-night driving', '%', 3, P(0, 25), ['gps'],
    'Share of distance driven 00:00-04:00 local time.'),
  f('exposure', 'weekendNightShare', 'Weekend nights', '%', 1, P(0, 40), ['gps'],
    'Share of distance driven on Friday and Saturday nights (22:00-05:00 local).'),
  f('exposure', 'rushHourShare', 'Rush hour', '%', 0.5, P(0, 80), ['gps'],
    'Share of distance driven on weekdays 07:00-09:00 and 16:00-19:00 local.'),
  f('exposure', 'darknessShare', 'Darkness', '%', 2, P(0, 50), ['gps'],
    'Share of distance driven with the sun more than 6 degrees below the horizon (after civil twilight).'),
  f('exposure', 'continuousDrivingMinutes', 'Longest stint', 'min', 2, P(120, 60), ['gps'],
    'Longest driving stretch without a break of 15 min or more, including earlier trips of the stint.'),
  f('exposure', 'breakDeficitMinutes', 'Break deficit', 'min', 2, P(0, 30), ['gps'],
    'Minutes driven beyond 2 h without a 15 min break (Highway Code rule 91).'),
  f('exposure', 'circadianLowDriving', 'Circadian low', 'min', 2, P(0, 30), ['gps'],
    'Minutes driven 02:00-06:00 local time, when sleepiness peaks.'),
  f('exposure', 'dailyDrivingHours', 'Driving today', 'h', 1, P(4, 3), ['gps'],
    'Hours driven in the local day up to the end of this trip, including earlier trips that day.'),
  f('exposure', 'motorwayShare', 'Motorway share', '%', 0, P(0, 100), ['gps', 'map'],
    'Share of distance on motorways and trunk roads (the safest roads per km): context, not scored.'),
  f('exposure', 'urbanRoadShare', 'Urban roads', '%', 0.5, P(0, 150), ['gps', 'map'],
    'Share of distance on roads limited to 50 km/h or less, residential streets and living streets.'),
  f('exposure', 'ruralSingleCarriagewayShare', 'Rural two-way roads', '%', 1, P(0, 60), ['gps', 'map'],
    'Share of distance on two-way primary, secondary and tertiary roads limited to 80 km/h or more: the deadliest per km.'),
  f('exposure', 'unpavedShare', 'Unpaved roads', '%', 0.5, P(0, 20), ['gps', 'map'],
    'Share of distance on unpaved surfaces.'),
  f('exposure', 'junctionDensity', 'Junction density', 'per km', 0.5, P(2, 4), ['gps', 'map'],
    'Junctions passed per km.'),
  f('exposure', 'stopFrequency', 'Stops', 'per km', 0, P(1, 2), ['gps'],
    'Stops (under 5 km/h for 3 s or more) per km: traffic context, reported, not scored.'),
  f('exposure', 'congestionShare', 'Congestion', '%', 0, P(0, 40), ['gps', 'map', 'limits'],
    'Share of moving time below 20 km/h on roads limited to 50 km/h or more: traffic context, reported, not scored.'),
];

/** Factor definitions by key. */
export const FACTOR_BY_KEY: ReadonlyMap<string, FactorDefinition> = new Map(FACTORS.map((d) => [d.key, d]));

/** Maps a factor's raw value to its 0-100 score (higher is safer). */
export function factorScore(mapping: FactorMapping, value: number): number {
  if (mapping.kind === 'reward') return Math.max(0, Math.min(100, 100 * value));
  const excess = Math.max(0, value - mapping.free);
  return 100 / (1 + (excess / mapping.half) ** mapping.shape);
}
