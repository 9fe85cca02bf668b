import type { GpsSample, Sample, TelemetryMeta } from '@svc/scoring';

/** One trip found in an import file, with where it came from (for the per-file summary). */
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
  const lon = typeof values.lon === 'string' ? Number(values.lon) : values.lon;
  const lat = typeof values.lat === 'string' ? Number(values.lat) : values.lat;
  if (typeof lon !== 'number' || !Number.isFinite(lon) || lon < -180 || lon > 180) {
    return `longitude ${JSON.stringify(values.lon)} is not a number between -180 and 180`;
  }
  if (typeof lat !== 'number' || !Number.isFinite(lat) || lat < -90 || lat > 90) {
    return `latitude ${JSON.stringify(values.lat)} is not a number between -90 and 90`;
  }
  if (!Number.isFinite(values.t)) return 'the time is missing or not ISO 8601 / epoch seconds / epoch milliseconds';
  const sample: GpsSample = { type: 'gps', t: values.t, lon, lat };
  for (const key of ['speedMps', 'headingDeg', 'accuracyM', 'altitudeM'] as const) {
    const v = values[key];
    if (v !== undefined && Number.isFinite(v)) sample[key] = v;
  }
  return sample;
}
