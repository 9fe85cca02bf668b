import { describe, expect, it } from 'vitest';
import { MEASURES } from '../score/assemble.ts';
import { FACTORS, factorScore, THEMES } from './catalogue.ts';

describe('the factor catalogue', () => {
  it('has six themes weighing 1 in total and 100 uniquely keyed factors, including speedingIntensity', () => {
    expect(THEMES.map((t) => t.id)).toEqual([
      'speeding',
      'braking',
      'acceleration',
      'cornering',
      'distraction',
      'exposure',
    ]);
    expect(THEMES.reduce((s, t) => s + t.weight, 0)).toBeCloseTo(1, 9);
    expect(FACTORS).toHaveLength(100);
    expect(new Set(FACTORS.map((f) => f.key)).size).toBe(100);
    expect(FACTORS.find((f) => f.key === 'speedingIntensity')?.theme).toBe('speeding');
    for (const theme of THEMES) expect(FACTORS.filter((f) => f.theme === theme.id).length).toBeGreaterThanOrEqual(15);
  });

  it('has a label, description, unit and measure for every factor, and no measure without a factor', () => {
    for (const f of FACTORS) {
      expect(f.label.length).toBeGreaterThan(2);
      expect(f.description.length).toBeGreaterThan(20);
      expect(f.unit.length).toBeGreaterThan(0);
      expect(MEASURES[f.key], f.key).toBeTypeOf('function');
    }
    expect(Object.keys(MEASURES).sort()).toEqual(FACTORS.map((f) => f.key).sort());
  });

  it('maps values to bounded scores that never rise as a penalty value grows', () => {
    for (const f of FACTORS) {
      if (f.mapping.kind !== 'penalty') continue;
      let previous = 100;
      for (const x of [0, 0.5, 1, 2, 5, 10, 50, 100, 1000, 1e6]) {
        const s = factorScore(f.mapping, x);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(100);
        expect(s).toBeLessThanOrEqual(previous);
        previous = s;
      }
      expect(factorScore(f.mapping, f.mapping.free)).toBe(100);
      expect(factorScore(f.mapping, f.mapping.free + f.mapping.half)).toBeCloseTo(50, 9);
    }
  });
});
