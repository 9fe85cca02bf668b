import type { TripEvent } from '../result.ts';
import type { Track } from '../track/track.ts';

/** An event with its grid seconds, before ids are assigned. */
export interface FoundEvent {
  event: Omit<TripEvent, 'id'>;
  /** Grid seconds of start, peak and end. */
  startS: number;
  peakS: number;
  endS: number;
}

/** Grid second of an instant, clamped to the track. */
export function secondOf(track: Track, tMs: number): number {
  return Math.max(0, Math.min(track.n - 1, Math.round((tMs - track.t0Ms) / 1000)));
}

/** Speed in km/h at an instant, interpolated on the grid (NaN where unknown). */
export function speedKmhAt(track: Track, tMs: number): number {
  const x = (tMs - track.t0Ms) / 1000;
  const i = Math.max(0, Math.min(track.n - 1, Math.floor(x)));
  const j = Math.min(track.n - 1, i + 1);
  const f = Math.max(0, Math.min(1, x - i));
  return (track.speedMps[i]! + (track.speedMps[j]! - track.speedMps[i]!) * f) * 3.6;
}

/** Position `[lon, lat]` of grid second i, rounded to 1e-6 degrees (about 10 cm). */
export function positionAt(track: Track, i: number): [number, number] {
  return [Math.round(track.lon[i]! * 1e6) / 1e6, Math.round(track.lat[i]! * 1e6) / 1e6];
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
