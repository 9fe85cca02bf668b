import { describe, expect, it } from 'vitest';
import type { GpsSample } from '../telemetry.ts';
import { cleanGps } from './clean-gps.ts';

const T0 = Date.UTC(2024, 4, 14, 8, 0, 0);
const KX = 111_320 * Math.cos((48.1 * Math.PI) / 180);

/** Fixes along a straight road eastwards at `mps`, one per second. */
function straight(
  count: number,
  mps: number,
  extra: (i: number, s: GpsSample) => GpsSample = (_, s) => s,
): GpsSample[] {
  return Array.from({ length: count }, (_, i) =>
    extra(i, { type: 'gps', t: T0 + i * 1000, lon: 11.5 + (i * mps) / KX, lat: 48.1, accuracyM: 5 }),
  );
}

describe('cleanGps', () => {
  it('drops a single fix far off the track and counts it as a spike', () => {
    const fixes = straight(20, 15, (i, s) => (i === 10 ? { ...s, lat: s.lat + 0.01 } : s));
    const clean = cleanGps(fixes);
    expect(clean.count).toBe(19);
    expect(clean.report.spikes).toBe(1);
    expect(clean.report.jumps).toBe(0);
  });

  it('drops positions frozen while the car drives on (a tunnel), keeping a real stop', () => {
    const moving = straight(30, 15);
    // Fixes 10..19 repeat fix 9, then the track resumes where the car really is.
    const frozen = moving.map((s, i) => (i >= 10 && i < 20 ? { ...s, lon: moving[9]!.lon } : s));
    const clean = cleanGps(frozen);
    expect(clean.report.staleFixes).toBe(10);
    expect(clean.count).toBe(20);
    const stopped = [...straight(10, 0.0), ...straight(10, 0.0)].map((s, i) => ({ ...s, t: T0 + i * 1000 }));
    expect(cleanGps(stopped).report.staleFixes).toBe(0);
  });

  it('keeps the repeats of a trace rounded to 4 decimals, and still drops a frozen stretch in one', () => {
    // Northwards at 9 m/s, rounded as a spreadsheet export keeps coordinates: the latitude moves on by a step of
    // 11.1 m, so about one fix in five repeats the one before and the next steps 11 m on (read as 11 m/s: stale).
    const round4 = (v: number) => Math.round(v * 1e4) / 1e4;
    const north = (count: number, mps: number) =>
      Array.from(
        { length: count },
        (_, i): GpsSample => ({
          type: 'gps',
          t: T0 + i * 1000,
          lon: round4(11.5),
          lat: round4(48.1 + (i * mps) / 111_132),
          accuracyM: 5,
        }),
      );
    const rounded = north(120, 9);
    const clean = cleanGps(rounded);
    expect(clean.coordinateStepM).toBeCloseTo(11.11, 1);
    expect(clean.report.staleFixes).toBe(0);
    expect(clean.count).toBe(120);
    // A receiver holding its fix for 20 s while the vehicle drives on at 15 m/s is stale, rounded or not.
    const driving = north(60, 15);
    const held = driving.map((s, i) => (i >= 20 && i < 40 ? { ...s, lat: driving[19]!.lat } : s));
    expect(cleanGps(held).report.staleFixes).toBe(20);
    // At 6 decimals nothing is taken for rounding.
    expect(cleanGps(straight(60, 9)).coordinateStepM).toBe(0);
  });

  it('marks a persistent jump as a break instead of inventing a drive across it', () => {
    const fixes = straight(30, 10, (i, s) => (i >= 15 ? { ...s, lon: s.lon + 0.05 } : s));
    const clean = cleanGps(fixes);
    expect(clean.report.jumps).toBe(1);
    expect(clean.breakBefore[15]).toBe(1);
    expect(clean.count).toBe(30);
  });

  it("drops a lone fix at the trace's end or start (a receiver's 0,0) instead of driving to it", () => {
    const track = straight(20, 15);
    const nullIsland = (t: number): GpsSample => ({ type: 'gps', t, lon: 0, lat: 0, accuracyM: 5 });
    for (const fixes of [
      [...track, nullIsland(T0 + 20_000)],
      [nullIsland(T0 - 1000), ...track],
    ]) {
      const clean = cleanGps(fixes);
      expect(clean.count).toBe(20);
      expect(clean.report).toMatchObject({ inputFixes: 21, keptFixes: 20, spikes: 1, jumps: 0 });
      expect([...clean.lat].every((lat) => lat === 48.1)).toBe(true);
      expect([...clean.breakBefore].every((b) => b === 0)).toBe(true);
    }
  });

  it('drops a lone fix between two jumps and keeps one break where the track resumes', () => {
    // Fixes 0-9 on the road, fix 10 far off, fixes 11-19 resume 3 km further on (a persistent jump).
    const fixes = straight(20, 10, (i, s) =>
      i === 10 ? { ...s, lat: s.lat + 0.2 } : i > 10 ? { ...s, lon: s.lon + 0.04 } : s,
    );
    const clean = cleanGps(fixes);
    expect(clean.count).toBe(19);
    expect(clean.report).toMatchObject({ spikes: 1, jumps: 1 });
    expect([...clean.breakBefore].indexOf(1)).toBe(10);
    expect(clean.tMs[10]).toBe(T0 + 11_000);
  });

  it('keeps a piece of two fixes or more after a jump at the end, with its break', () => {
    const fixes = straight(20, 10, (i, s) => (i >= 18 ? { ...s, lon: s.lon + 0.05 } : s));
    const clean = cleanGps(fixes);
    expect(clean.count).toBe(20);
    expect(clean.report).toMatchObject({ spikes: 0, jumps: 1 });
    expect(clean.breakBefore[18]).toBe(1);
  });

  it('keeps the most accurate of fixes sharing a timestamp, drops inaccurate ones, sorts', () => {
    const fixes = straight(10, 10);
    const duplicate = { ...fixes[3]!, accuracyM: 3, lat: 48.10001 };
    const inaccurate = { ...fixes[5]!, accuracyM: 500 };
    const input = [...fixes.slice(0, 5), inaccurate, ...fixes.slice(6)].reverse();
    input.push(duplicate);
    const clean = cleanGps(input);
    expect(clean.report.duplicateTimes).toBe(1);
    expect(clean.report.inaccurate).toBe(1);
    expect(clean.count).toBe(9);
    expect(clean.lat[3]).toBeCloseTo(48.10001, 6);
    for (let i = 1; i < clean.count; i++) expect(clean.tMs[i]!).toBeGreaterThan(clean.tMs[i - 1]!);
  });

  it('keeps one of 200,000 fixes sharing a timestamp (a clock that stuck) without overflowing the stack', () => {
    const stuck = Array.from(
      { length: 200_000 },
      (_, i): GpsSample => ({
        type: 'gps',
        t: T0 + 60_000,
        lon: 11.5 + 600 / KX + (i % 7) * 1e-6,
        lat: 48.1,
        accuracyM: i === 123_456 ? 3 : 5,
      }),
    );
    const clean = cleanGps([...straight(60, 10), ...stuck]);
    expect(clean.count).toBe(61);
    expect(clean.report.duplicateTimes).toBe(199_999);
    expect(clean.accuracyM[60]).toBe(3);
  });

  it('keeps, of equally accurate fixes sharing a timestamp, the one on the track, whatever order they came in', () => {
    const fixes = straight(20, 15);
    // A stray second fix at the same time as fix 8, 300 m north, with the same reported accuracy.
    const stray = { ...fixes[8]!, lat: fixes[8]!.lat + 300 / 111_320 };
    const strayFirst = cleanGps([...fixes.slice(0, 8), stray, ...fixes.slice(8)]);
    const strayLast = cleanGps([...fixes.slice(0, 9), stray, ...fixes.slice(9)]);
    for (const clean of [strayFirst, strayLast]) {
      expect(clean.report).toMatchObject({ duplicateTimes: 1, spikes: 0, jumps: 0 });
      expect(clean.count).toBe(20);
      expect(clean.lat[8]).toBe(fixes[8]!.lat);
    }
    expect(strayFirst.lon).toEqual(strayLast.lon);
    expect(strayFirst.lat).toEqual(strayLast.lat);
  });
});
