import CheapRuler from 'cheap-ruler';
import type { LonLat } from './types.ts';

const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/** Great-circle distance in metres (haversine), for distances of any size. */
export function haversineM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * Metres per degree of longitude (kx) and latitude (ky) around a latitude, from cheap-ruler's WGS84 formulas:
 * exact enough (< 0.1 %) on city scale and far cheaper than haversine in hot loops.
 */
export function metresPerDegree(lat: number): { kx: number; ky: number } {
  const ruler = new CheapRuler(lat, 'meters');
  return { kx: ruler.kx, ky: ruler.ky };
}

/** Length of a polyline in metres. */
export function lineLengthM(coordinates: readonly LonLat[]): number {
  if (coordinates.length < 2) return 0;
  const { kx, ky } = metresPerDegree(coordinates[0]![1]);
  let total = 0;
  for (let i = 1; i < coordinates.length; i++) {
    const a = coordinates[i - 1]!;
    const b = coordinates[i]!;
    total += Math.hypot((b[0] - a[0]) * kx, (b[1] - a[1]) * ky);
  }
  return total;
}

/** True when a value is a usable longitude/latitude pair. */
export function isValidLonLat(lon: unknown, lat: unknown): boolean {
  return (
    typeof lon === 'number' &&
    typeof lat === 'number' &&
    Number.isFinite(lon) &&
    Number.isFinite(lat) &&
    lon >= -180 &&
    lon <= 180 &&
    lat >= -90 &&
    lat <= 90
  );
}
