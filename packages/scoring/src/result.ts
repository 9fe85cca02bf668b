import type { MachineType } from './telemetry.ts';

/**
 * The scoring engine's output for one trip: what the trip-scoring service stores at ingest and serves
 * read-only through `/v1`. Shared contract: extend compatibly, never rename.
 */

export type LonLat = [number, number];
export type Tier = 'Critical' | 'Fair' | 'Good' | 'Safe';
export type ThemeId = 'speeding' | 'braking' | 'acceleration' | 'cornering' | 'distraction' | 'exposure';

export interface FactorResult {
  key: string;
  label: string;
  description: string;
  /** The raw measurement, e.g. 2.4 with unit 'per100km'; null when unavailable. */
  value: number | null;
  unit: string;
  /** 0-100, higher is safer; null when unavailable. */
  score: number | null;
  weight: number;
  available: boolean;
  /** Why the factor could not be computed (no IMU, not map-matched, unknown limits...). */
  unavailableReason?: string;
  /** Ids of the events behind this factor (see ScoredTrip.events). */
  eventIds: string[];
}

export interface ThemeResult {
  id: ThemeId;
  label: string;
  description: string;
  /** 0-100 from the available factors; null when none is available. */
  themeScore: number | null;
  weight: number;
  available: boolean;
  factors: FactorResult[];
}

export type EventType =
  | 'harsh_braking'
  | 'harsh_acceleration'
  | 'harsh_cornering'
  | 'speeding'
  | 'phone_use'
  | 'night_driving'
  | 'late_night_driving'
  | 'continuous_driving';

export interface TripEvent {
  id: string;
  type: EventType;
  startMs: number;
  endMs: number;
  position: LonLat;
  severity: 'low' | 'medium' | 'high';
  /** Peak value (e.g. 4.1 m/s^2, 23 km/h over the limit) and its unit. */
  value: number;
  unit: string;
  source: 'imu' | 'gps' | 'obd' | 'phone' | 'clock';
  /** Free-form details, e.g. { speedLimitKmh: 50, band: '10-20' }. */
  details?: Record<string, unknown>;
}

export interface TripSummary {
  distanceKm: number;
  durationMin: number;
  movingMin: number;
  idleMin: number;
  avgSpeedKmh: number;
  avgMovingSpeedKmh: number;
  maxSpeedKmh: number;
  nightShare: number;
  /** Share of distance per OSM highway class, when map-matched. */
  roadClassShares: Record<string, number>;
  /** Share of distance on roads with a known speed limit. */
  knownLimitShare: number;
  eventCounts: Partial<Record<EventType, number>>;
  gpsSamples: number;
  imuAvailable: boolean;
  phoneDataAvailable: boolean;
}

export interface ScoredTrip {
  /** Version of the scoring model that produced this result (for reproduction and rescoring). */
  modelVersion: string;
  startMs: number;
  endMs: number;
  overallScore: number;
  tier: Tier;
  mapMatched: boolean;
  /** Share of the trip's length matched to the road network, 0-1. */
  matchedShare: number;
  distanceKm: number;
  durationMin: number;
  machineType?: MachineType;
  summary: TripSummary;
  themes: ThemeResult[];
  weakestTheme: { id: ThemeId; label: string };
  events: TripEvent[];
  route: {
    /** The cleaned trace. */
    raw: LonLat[];
    /** The map-matched path, when matched. */
    matched: LonLat[][];
  };
  /** The factors that cost the most points, in words, biggest first: why the trip scored as it did. */
  reasons?: TripReason[];
  /** What the clean-up found and which inputs were usable. */
  dataQuality?: DataQuality;
}

/** One reason behind a trip's score: a factor and the overall points it cost. */
export interface TripReason {
  themeId: ThemeId;
  factorKey: string;
  /** Overall-score points lost to this factor (its share of the gap to 100). */
  pointsLost: number;
  text: string;
  eventIds: string[];
}

/** Data quality of a scored trip. */
export interface DataQuality {
  gpsFixes: number;
  /** Fixes dropped or repaired by the clean-up, by cause. */
  droppedFixes: { duplicateTimes: number; inaccurate: number; stale: number; spikes: number };
  /** Position jumps that broke the track (nothing derived across them). */
  positionJumps: number;
  /** Seconds of GPS gaps bridged by interpolation. */
  gapS: number;
  speedSource: 'gps-doppler' | 'obd' | 'gps-position';
  /**
   * The fixes' white position scatter per axis, metres, estimated from the trace (each fix against the line between
   * its neighbours, 2.5 s or closer); null when too few fixes are that close. Where the speed comes from the
   * positions, the smoother takes it into account: the larger it is, the less a second's change counts. Coordinates
   * rounded to 4 decimals read about 0 (fixes lie exactly on their neighbours' line); the smoother then takes half
   * the rounding step instead.
   */
  positionScatterM: number | null;
  imu: {
    available: boolean;
    frame: 'vehicle' | 'device';
    alignment: 'given' | 'gps' | 'failed';
    mountSegments: number;
    coverage: number;
  } | null;
  phoneMonitored: boolean;
  /** Time zone used for local time (IANA, or a fixed offset from the longitude). */
  timeZone: string;
}
