import { describe, expect, it } from 'vitest';
import { Rng } from './random.ts';

describe('Rng', () => {
  it('repeats its sequence for the same seed and labels', () => {
    const a = Rng.from(7, 'x');
    const b = Rng.from(7, 'x');
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
    expect(Rng.from(7, 'y').next()).not.toBe(Rng.from(7, 'x').next());
    expect(Rng.from('7', 'x').next()).toBe(Rng.from(7, 'x').next());
  });

  it('forks independent streams without advancing the parent', () => {
    const parent = Rng.from(1);
    const first = parent.fork('a').next();
    parent.next();
    parent.next();
    expect(parent.fork('a').next()).toBe(first);
  });

  it('draws uniform, normal and exponential values with the right moments', () => {
    const rng = Rng.from('moments');
    const n = 20_000;
    let u = 0;
    let z = 0;
    let z2 = 0;
    let e = 0;
    for (let i = 0; i < n; i++) {
      const x = rng.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      u += x;
      const g = rng.normal();
      z += g;
      z2 += g * g;
      e += rng.exponential(3);
    }
    expect(u / n).toBeCloseTo(0.5, 1);
    expect(z / n).toBeCloseTo(0, 1);
    expect(z2 / n).toBeCloseTo(1, 1);
    expect(e / n).toBeGreaterThan(2.8);
    expect(e / n).toBeLessThan(3.2);
  });

  it('picks integers within bounds and refuses empty choices', () => {
    const rng = Rng.from(3);
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) seen.add(rng.int(2, 5));
    expect([...seen].sort()).toEqual([2, 3, 4, 5]);
    expect(() => rng.pick([])).toThrow(/empty/);
    expect(() => Rng.from(Number.NaN)).toThrow(/finite/);
  });
});
