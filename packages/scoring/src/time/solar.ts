const RAD = Math.PI / 180;

/**
 * Sun elevation above the horizon in degrees at an instant and place (NOAA's low-precision formulae,
 * within about half a degree; enough to tell civil twilight at -6 degrees from daylight).
 */
export function sunElevationDeg(tMs: number, lon: number, lat: number): number {
  const days = tMs / 86_400_000 - 10_957.5; // days since J2000.0 (2000-01-01 12:00 UTC)
  const meanLon = (280.46 + 0.9856474 * days) % 360;
  const meanAnomaly = ((357.528 + 0.9856003 * days) % 360) * RAD;
  const eclipticLon = (meanLon + 1.915 * Math.sin(meanAnomaly) + 0.02 * Math.sin(2 * meanAnomaly)) * RAD;
  const obliquity = (23.439 - 0.0000004 * days) * RAD;
  const declination = Math.asin(Math.sin(obliquity) * Math.sin(eclipticLon));
  const rightAscension = Math.atan2(Math.cos(obliquity) * Math.sin(eclipticLon), Math.cos(eclipticLon));
  const gmstHours = (18.697374558 + 24.06570982441908 * days) % 24;
  const hourAngle = (gmstHours * 15 + lon) * RAD - rightAscension;
  const latR = lat * RAD;
  const sinElevation =
    Math.sin(latR) * Math.sin(declination) + Math.cos(latR) * Math.cos(declination) * Math.cos(hourAngle);
  return Math.asin(Math.max(-1, Math.min(1, sinElevation))) / RAD;
}
