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

/**
 * Degrees of longitude from `lon0` east to `lon`, the short way round, in [-180, 180): a track that crosses the
 * 180° meridian (Fiji, Chukotka, the Aleutians) stays one continuous line instead of a jump round the Earth.
 */
export function lonDeltaDeg(lon: number, lon0: number): number {
  const d = lon - lon0;
  if (d >= -180 && d < 180) return d;
  return d - 360 * Math.floor((d + 180) / 360);
}

/** The mean of longitudes, taken the short way round from the first (near 180° the plain mean of 179.9 and -179.9 is 0). */
export function meanLonDeg(lons: ArrayLike<number>): number {
  if (lons.length === 0) return 0;
  const first = lons[0]!;
  let sum = 0;
  for (let i = 0; i < lons.length; i++) sum += lonDeltaDeg(lons[i]!, first);
  return first + lonDeltaDeg(first + sum / lons.length, first);
}

/** Metres east of the projection's reference point. */
export function eastM(projection: LocalProjection, lon: number): number {
  return lonDeltaDeg(lon, projection.lon0) * projection.kx;
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
