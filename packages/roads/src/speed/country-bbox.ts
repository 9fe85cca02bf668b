import type { BBox } from '../types.ts';

/**
 * Approximate bounding boxes `[minLon, minLat, maxLon, maxLat]` of the countries in the default speed table
 * (mainland plus nearby islands; overseas territories left out), rounded outwards to about 0.05°; a country may
 * have several boxes.
 *
 * The fallback rule (documented in the package README), used where the extract holds no closed national boundary:
 * a road belongs to the country with the SMALLEST box containing its midpoint, so enclaves and small states (Monaco, Andorra, Liechtenstein, Luxembourg) win over the larger
 * neighbours whose boxes also cover them. Near a border, a box can claim a strip of the neighbour; pass an explicit
 * country (`roads build --country XX`, `buildGraphFromOsm(file, { country })`) when an extract is one country.
 */
export const COUNTRY_BBOXES: Readonly<Record<string, BBox | readonly BBox[]>> = {
  AD: [1.4, 42.42, 1.8, 42.66],
  // Austria as three boxes so that Bavaria (Munich, Rosenheim) and South Tyrol (Bolzano) stay outside.
  AT: [
    [9.53, 46.85, 12.9, 47.6],
    [12.9, 46.37, 17.17, 48.2],
    [13.8, 48.2, 17.17, 49.02],
  ],
  BE: [2.5, 49.45, 6.45, 51.55],
  BG: [22.3, 41.2, 28.65, 44.25],
  CH: [5.95, 45.8, 10.5, 47.85],
  CZ: [12.05, 48.5, 18.9, 51.1],
  DE: [5.85, 47.25, 15.05, 55.1],
  DK: [8.0, 54.5, 15.2, 57.8],
  EE: [21.7, 57.5, 28.25, 59.7],
  ES: [-9.35, 35.9, 4.35, 43.8],
  FI: [20.5, 59.7, 31.6, 70.1],
  FR: [-5.2, 41.3, 9.6, 51.1],
  GB: [-8.7, 49.85, 1.8, 60.9],
  GR: [19.3, 34.8, 29.7, 41.8],
  HR: [13.45, 42.35, 19.45, 46.55],
  HU: [16.1, 45.7, 22.9, 48.6],
  IE: [-10.7, 51.4, -5.95, 55.4],
  // Italy's box starts east of Menton/Ventimiglia so the French Riviera stays French; a second box covers
  // Piedmont's and Aosta's western valleys.
  IT: [
    [7.53, 36.6, 18.55, 47.1],
    [6.62, 44.15, 7.53, 46.0],
  ],
  LI: [9.47, 47.04, 9.64, 47.28],
  LT: [20.9, 53.85, 26.85, 56.45],
  LU: [5.7, 49.4, 6.55, 50.2],
  LV: [20.95, 55.65, 28.25, 58.1],
  MC: [7.405, 43.72, 7.44, 43.755],
  NL: [3.3, 50.75, 7.25, 53.6],
  NO: [4.5, 57.95, 31.2, 71.2],
  PL: [14.1, 49.0, 24.2, 54.9],
  PT: [-9.55, 36.95, -6.15, 42.2],
  RO: [20.25, 43.6, 29.75, 48.3],
  RU: [19.6, 41.15, 180, 82],
  SE: [10.95, 55.3, 24.2, 69.1],
  SI: [
    [13.35, 45.4, 15.0, 46.55],
    [15.0, 45.4, 16.65, 46.9],
  ],
  SK: [16.8, 47.7, 22.6, 49.65],
  UA: [22.1, 44.35, 40.25, 52.4],
};

const isSingleBox = (value: BBox | readonly BBox[]): value is BBox => typeof value[0] === 'number';

const ENTRIES = Object.entries(COUNTRY_BBOXES)
  .flatMap(([code, value]) => (isSingleBox(value) ? [value] : value).map((box) => ({ code, box })))
  .map(({ code, box }) => ({ code, box, area: (box[2] - box[0]) * (box[3] - box[1]) }))
  .sort((a, b) => a.area - b.area);

/** Country code for a point by the smallest-containing-box rule, or null outside every box. */
export function countryAt(lon: number, lat: number): string | null {
  for (const { code, box } of ENTRIES) {
    if (lon >= box[0] && lon <= box[2] && lat >= box[1] && lat <= box[3]) return code;
  }
  return null;
}
