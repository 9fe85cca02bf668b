import { describe, expect, it } from 'vitest';
import { drivingContextFor, scoreTelemetry, segmentTrips } from '../src/index.ts';
import { drive, emit, urbanDrive } from './helpers/synthetic-drive.ts';

const leg = urbanDrive();

describe('segmentTrips', () => {
  it('ends a trip after 5 minutes stopped, and not after a shorter stop', () => {
    const twoTrips = emit(drive([...leg, { stop: 360 }, ...leg]));
    expect(segmentTrips(twoTrips).map((s) => s.scorable)).toEqual([true, true]);
    const oneTrip = emit(drive([...leg, { stop: 200 }, ...leg]));
    expect(segmentTrips(oneTrip)).toHaveLength(1);
  });

  it('marks a trip shorter than 1 km or 2 minutes moving as not scorable', () => {
    const batch = emit(drive([...leg, { stop: 400 }, { to: 20, a: 1 }, { cruise: 30 }, { to: 0, a: 1 }, { stop: 30 }]));
    const segments = segmentTrips(batch);
    expect(segments).toHaveLength(2);
    expect(segments[1]).toMatchObject({ scorable: false });
    expect(segments[1]!.reason).toContain('minimum');
  });

  it('splits at a GPS silence of more than 5 minutes', () => {
    const batch = emit(drive([...leg, ...leg]));
    const cut = batch.samples[0]!.t + 500_000;
    batch.samples = batch.samples.filter((s) => s.t < cut || s.t > cut + 400_000);
    expect(segmentTrips(batch).length).toBe(2);
  });

  it('scores each trip of an upload, carrying the fatigue stint across short breaks', () => {
    const batch = emit(drive([...leg, { stop: 360 }, ...leg, { stop: 360 }, ...leg]));
    const trips = scoreTelemetry(batch);
    expect(trips).toHaveLength(3);
    const stint = (i: number) =>
      trips[i]!.themes.find((t) => t.id === 'exposure')!.factors.find((f) => f.key === 'continuousDrivingMinutes')!
        .value!;
    expect(stint(1)).toBeGreaterThan(stint(0) * 1.9);
    expect(stint(2)).toBeGreaterThan(stint(1));
  });
});

describe('drivingContextFor', () => {
  it('counts only the part of an earlier trip that fell on the same local day', () => {
    // 22:00-02:00 Berlin winter time, then a trip at 02:30: two of the four hours were driven "today".
    const earlier = { startMs: Date.UTC(2024, 0, 15, 21, 0), endMs: Date.UTC(2024, 0, 16, 1, 0) };
    const context = drivingContextFor([earlier], Date.UTC(2024, 0, 16, 1, 30), { timeZone: 'Europe/Berlin' });
    expect(context.priorDayDrivingMin).toBeCloseTo(120, 6);
    expect(context.priorStintMin).toBe(0); // a 30 min break ends the stint
    // Across the spring-forward night (02:00 -> 03:00 on 31 March), local midnight is still 23:00 UTC.
    const spring = { startMs: Date.UTC(2024, 2, 30, 22, 30), endMs: Date.UTC(2024, 2, 31, 0, 30) };
    const after = drivingContextFor([spring], Date.UTC(2024, 2, 31, 4, 0), { timeZone: 'Europe/Berlin' });
    expect(after.priorDayDrivingMin).toBeCloseTo(90, 6);
  });
});
