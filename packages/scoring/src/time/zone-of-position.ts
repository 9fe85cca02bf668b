import { countryAt } from '@svc/roads';
import { isValidTimeZone } from '../validate.ts';

/**
 * IANA zones of the single-zone countries the road package knows by bounding box. A trip without a time
 * zone gets its country's zone (summer time included) instead of the bare longitude offset, which is an
 * hour off in summer across most of Europe.
 */
const COUNTRY_ZONES: Readonly<Record<string, string>> = {
  AD: 'Europe/Andorra',
  AT: 'Europe/Vienna',
  BE: 'Europe/Brussels',
  BG: 'Europe/Sofia',
  CH: 'Europe/Zurich',
  CZ: 'Europe/Prague',
  DE: 'Europe/Berlin',
  DK: 'Europe/Copenhagen',
  EE: 'Europe/Tallinn',
  ES: 'Europe/Madrid',
  FI: 'Europe/Helsinki',
  FR: 'Europe/Paris',
  GB: 'Europe/London',
  GR: 'Europe/Athens',
  HR: 'Europe/Zagreb',
  HU: 'Europe/Budapest',
  IE: 'Europe/Dublin',
  IT: 'Europe/Rome',
  LI: 'Europe/Vaduz',
  LT: 'Europe/Vilnius',
  LU: 'Europe/Luxembourg',
  LV: 'Europe/Riga',
  MC: 'Europe/Monaco',
  NL: 'Europe/Amsterdam',
  NO: 'Europe/Oslo',
  PL: 'Europe/Warsaw',
  PT: 'Europe/Lisbon',
  RO: 'Europe/Bucharest',
  SE: 'Europe/Stockholm',
  SI: 'Europe/Ljubljana',
  SK: 'Europe/Bratislava',
  UA: 'Europe/Kyiv',
};

/** The IANA zone of a position when its country has a single zone and is known, else undefined. */
export function zoneOfPosition(lon: number, lat: number): string | undefined {
  const country = countryAt(lon, lat);
  const zone = country ? COUNTRY_ZONES[country] : undefined;
  return zone && isValidTimeZone(zone) ? zone : undefined;
}
