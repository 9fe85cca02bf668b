import type { GpsSample, Sample, TelemetryMeta } from '@svc/scoring';

/** One trip found in an import file, with where it came from (for the per-file summary). */
/** The trip-level fields a file may carry beside its samples (a batch header, an NDJSON header line). */
export const TRIP_META_KEYS = [
  'clientTripId',
  'deviceId',
  'vehicle',
  'driverId',
  'machineType',
  'imuFrame',
  'timeZone',
  'phoneMonitored',
] as const;

export interface FileTrip {
  /** e.g. `track 2 (lines 14-1203)`, `trip T-17`, `features[3]`. */
  label: string;
  samples: Sample[];
  meta: Partial<TelemetryMeta>;
  /** Where a sample came from, for messages: `line 17`, `features[3] point 12`. */
  locate(sampleIndex: number): string;
}

/** A record (a trip, or the lines that would have made one) refused while reading a file. */
export interface FileRejection {
  /** `line 17`, `track 2`, `features[3]`. */
  location: string;
  reason: string;
}

/** What a connector read from one file. */
export interface FileContents {
  trips: FileTrip[];
  rejected: FileRejection[];
  /** Movements left out between the drives of a track split into trips (not trips, not errors). */
  skipped?: FileRejection[];
}

/** 2000-01-01T00:00:00Z: no telemetry this service scores is older. */
const EARLIEST_TIME_MS = 946_684_800_000;

/**
 * A coordinate as read from text (CSV cell, GPX attribute) or JSON. `Number` reads an empty or blank
 * string as 0, which would put a fix with a missing value on the equator or the prime meridian: missing
 * stays missing (NaN) here, and the sample is refused.
 */
function coordinate(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.trim() === '' ? Number.NaN : Number(value);
}

/** A GPS sample from parsed values, or a reason it cannot be one. */
export function gpsSample(values: {
  lon: unknown;
  lat: unknown;
  t: number;
  speedMps?: number;
  headingDeg?: number;
  accuracyM?: number;
  altitudeM?: number;
}): GpsSample | string {
  const lon = coordinate(values.lon);
  const lat = coordinate(values.lat);
  if (typeof lon !== 'number' || !Number.isFinite(lon) || lon < -180 || lon > 180) {
    return `longitude ${JSON.stringify(values.lon)} is not a number between -180 and 180`;
  }
  if (typeof lat !== 'number' || !Number.isFinite(lat) || lat < -90 || lat > 90) {
    return `latitude ${JSON.stringify(values.lat)} is not a number between -90 and 90`;
  }
  if (!Number.isFinite(values.t)) return 'the time is missing or not ISO 8601 / epoch seconds / epoch milliseconds';
  // Numbers are read as epoch seconds or milliseconds; a small one is a time relative to the trip's start,
  // which a file cannot be scored with (the engine needs the real time of day and date).
  if (values.t < EARLIEST_TIME_MS) {
    return `the time ${new Date(values.t).toISOString()} is before 2000: relative times (seconds since the start) cannot be scored, give ISO 8601 date-times or epoch seconds / milliseconds`;
  }
  const sample: GpsSample = { type: 'gps', t: values.t, lon, lat };
  for (const key of ['speedMps', 'headingDeg', 'accuracyM', 'altitudeM'] as const) {
    const v = values[key];
    if (v !== undefined && Number.isFinite(v)) sample[key] = v;
  }
  return sample;
}
