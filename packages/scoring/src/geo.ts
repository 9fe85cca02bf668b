/**
 * Local flat-earth projection (the cheap-ruler approximation): metres east/north of a reference point.
 * Accurate to well under 0.1 % within a trip's extent, and a multiply instead of trigonometry per fix.
 */
export interface LocalProjection {
  lon0: number;
  lat0: number;
  /** Metres per degree of longitude and latitude at the reference latitude. */
  kx: number;
  ky: number;
}

const RE = 6378.137; // WGS84 equatorial radius, km
const FE = 1 / 298.257223563;
const E2 = FE * (2 - FE);
const RAD = Math.PI / 180;

/** A projection centred at `[lon0, lat0]` (cheap-ruler's WGS84 ellipsoid coefficients). */
export function localProjection(lon0: number, lat0: number): LocalProjection {
  const m = RAD * RE * 1000;
  const coslat = Math.cos(lat0 * RAD);
  const w2 = 1 / (1 - E2 * (1 - coslat * coslat));
  const w = Math.sqrt(w2);
  return { lon0, lat0, kx: m * w * coslat, ky: m * w * w2 * (1 - E2) };
}

/** Compass bearing 0-360 (0 = north, 90 = east) of a displacement in metres. */
export function bearingDeg(dxM: number, dyM: number): number {
  const deg = Math.atan2(dxM, dyM) / RAD;
  return deg < 0 ? deg + 360 : deg;
}

/** Signed smallest difference b - a between two bearings, in (-180, 180]. */
export function angleDiffDeg(a: number, b: number): number {
  let d = (b - a) % 360;
  if (d > 180) d -= 360;
  else if (d <= -180) d += 360;
  return d;
}
