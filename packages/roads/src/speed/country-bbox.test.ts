import { describe, expect, it } from 'vitest';
import { countryAt } from './country-bbox.ts';

describe('countryAt (smallest containing box)', () => {
  it.each([
    ['Monaco, Place du Casino', 7.4276, 43.7396, 'MC'],
    ['Andorra la Vella', 1.5218, 42.5063, 'AD'],
    ['Nice', 7.262, 43.7102, 'FR'],
    ['Menton', 7.4975, 43.7764, 'FR'],
    ['Ventimiglia', 7.608, 43.7907, 'IT'],
    ['Turin', 7.6869, 45.0703, 'IT'],
    ['Munich', 11.582, 48.1351, 'DE'],
    ['Luxembourg', 6.1296, 49.6116, 'LU'],
    ['Barcelona', 2.1734, 41.3851, 'ES'],
    ['Innsbruck', 11.4041, 47.2692, 'AT'],
    ['Salzburg', 13.055, 47.8095, 'AT'],
    ['Klagenfurt', 14.3058, 46.6247, 'AT'],
    ['Bolzano', 11.3548, 46.4983, 'IT'],
    ['Ljubljana', 14.5058, 46.0569, 'SI'],
    ['Geneva', 6.1432, 46.2044, 'CH'],
  ])('puts %s in %s', (_name, lon, lat, code) => {
    expect(countryAt(lon, lat)).toBe(code);
  });

  it('returns null outside every box', () => {
    expect(countryAt(-40, 30)).toBeNull();
  });
});
