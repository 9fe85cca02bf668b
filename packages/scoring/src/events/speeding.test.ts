import { describe, expect, it } from 'vitest';
import { speedingBand, toleranceKmh } from './speeding.ts';

describe('speeding bands and tolerance', () => {
  it('tolerates max(5 km/h, 10 %) over the limit', () => {
    expect(toleranceKmh(30)).toBe(5);
    expect(toleranceKmh(50)).toBe(5);
    expect(toleranceKmh(100)).toBe(10);
    expect(toleranceKmh(130)).toBe(13);
  });

  it('bands an excess by absolute and relative excess', () => {
    expect(speedingBand(8, 50)).toBe(1); // minor
    expect(speedingBand(15, 50)).toBe(2); // moderate
    expect(speedingBand(25, 130)).toBe(2); // 19 % over a motorway limit stays moderate
    expect(speedingBand(22, 80)).toBe(3); // severe: > 20 km/h and > 25 %
    expect(speedingBand(35, 130)).toBe(4); // extreme: > 30 km/h
    expect(speedingBand(22, 50)).toBe(4); // extreme: > 40 % and > 20 km/h
    expect(speedingBand(15, 30)).toBe(2); // 50 % over a 30 zone but only 15 km/h: moderate
  });
});
