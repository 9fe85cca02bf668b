import { describe, expect, it } from 'vitest';
import { round1, round2 } from './vehicle-window.ts';

describe('rounding of summed figures', () => {
  it('rounds the same sum the same way whatever order it was added up in', () => {
    // 3-decimal distances whose exact sum is 0.455 km, added up in two orders (as a trip list and a stats row
    // kept by triggers do): one sum lands just under the half, the other on it.
    const parts = [0.1, 0.2, 0.155];
    const forward = parts.reduce((a, b) => a + b, 0);
    const backward = [...parts].reverse().reduce((a, b) => a + b, 0);
    expect(forward).not.toBe(backward);
    expect(round2(forward)).toBe(0.46);
    expect(round2(backward)).toBe(0.46);
    expect(round2(51.454999999999)).toBe(51.46);
    expect(round2(51.455)).toBe(51.46);
    expect(round1(201.85 - 1e-12)).toBe(201.9);
  });

  it('still rounds what is not a half to the nearest', () => {
    expect(round2(51.4549)).toBe(51.45);
    expect(round2(51.4551)).toBe(51.46);
    expect(round1(74.34)).toBe(74.3);
    expect(round1(-3.25)).toBe(-3.2);
    expect(round2(0)).toBe(0);
  });
});
