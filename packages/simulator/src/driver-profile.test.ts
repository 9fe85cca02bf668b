import { describe, expect, it } from 'vitest';
import {
  BEHAVIOURS,
  driverProfile,
  paramsForLevels,
  TRUE_RISK_WEIGHTS,
  trueRiskOf,
  withLevels,
} from './driver-profile.ts';

const mid = Object.fromEntries(BEHAVIOURS.map((b) => [b, 0.5])) as Record<(typeof BEHAVIOURS)[number], number>;

describe('driver profiles', () => {
  it('makes every parameter depend on exactly one behaviour level', () => {
    const baseline = paramsForLevels(mid);
    const owner = new Map<string, string>();
    for (const b of BEHAVIOURS) {
      const changed = paramsForLevels({ ...mid, [b]: 1 });
      for (const key of Object.keys(baseline) as Array<keyof typeof baseline>) {
        if (changed[key] !== baseline[key]) {
          expect(owner.get(key), `${key} moved with ${owner.get(key)} and ${b}`).toBeUndefined();
          owner.set(key, b);
        }
      }
    }
    expect(owner.size).toBe(Object.keys(baseline).length);
    expect(new Set(owner.values())).toEqual(new Set(BEHAVIOURS));
  });

  it('moves every parameter from calm towards aggressive in the risky direction', () => {
    const calm = driverProfile({ aggressiveness: 0 }).params;
    const wild = driverProfile({ aggressiveness: 1 }).params;
    expect(wild.speedFactor).toBeGreaterThan(1.1);
    expect(calm.speedFactor).toBeLessThan(1);
    expect(wild.brakeDecelMps2).toBeGreaterThan(3);
    expect(calm.brakeDecelMps2).toBeLessThan(2);
    expect(wild.brakeOnsetS).toBeLessThan(calm.brakeOnsetS);
    expect(wild.launchAccelMps2).toBeGreaterThan(3);
    expect(wild.lateralAccelMps2).toBeGreaterThan(4);
    expect(wild.phoneSessionsPerHour).toBeGreaterThan(10 * calm.phoneSessionsPerHour);
    expect(wild.nightTripShare).toBeGreaterThan(calm.nightTripShare);
    expect(calm.longStintDayShare).toBe(0);
  });

  it('computes the true risk as the weighted mean of the levels', () => {
    const weights = Object.values(TRUE_RISK_WEIGHTS).reduce((s, w) => s + w, 0);
    expect(weights).toBeCloseTo(1, 10);
    const p = driverProfile({ aggressiveness: 0, phoneUse: 1 });
    expect(p.trueRisk).toBeCloseTo(TRUE_RISK_WEIGHTS.phoneUse, 10);
    expect(p.drivingRisk).toBeCloseTo(0.2 / 0.82, 10);
    expect(trueRiskOf(mid)).toBeCloseTo(0.5, 10);
  });

  it('takes parameter overrides and re-derives on level changes', () => {
    const p = driverProfile({ aggressiveness: 0.2, params: { speedFactor: 1.3 } });
    expect(p.params.speedFactor).toBe(1.3);
    expect(withLevels(p, { speeding: 0.2 }).params.speedFactor).toBe(
      driverProfile({ aggressiveness: 0.2 }).params.speedFactor,
    );
    expect(() => driverProfile({ params: { speedFactor: -1 } })).toThrow(/params.speedFactor/);
    expect(() => driverProfile({ aggressiveness: Number.NaN })).toThrow(/aggressiveness/);
  });
});
