import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Sample, scoreTrip, validateTelemetry } from '../src/index.ts';

const file = new URL('../../../../shared/data/traces/munich-x0001-001.json', import.meta.url);

/** The real trace: WKT points with local times; 1 Hz, one position jump after a frozen stretch. */
function munichSamples(): Sample[] {
  const rows = JSON.parse(readFileSync(file, 'utf8')) as Array<{ point: string; time: string }>;
  return rows.map((r) => {
    const [, lon, lat] = /POINT\(([-\d.]+) ([-\d.]+)\)/.exec(r.point)!;
    const t = Date.parse(r.time.replace(' ', 'T').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
    return { type: 'gps', t, lon: Number(lon), lat: Number(lat) };
  });
}

describe.skipIf(!existsSync(file))('the real Munich trace (../shared/data/traces, absent in a fresh clone)', () => {
  const samples = existsSync(file) ? munichSamples() : [];

  it('validates, is cleaned of its frozen fixes and jump, and scores without a crash', () => {
    expect(validateTelemetry({ samples }).ok).toBe(true);
    const trip = scoreTrip(samples);
    expect(trip.dataQuality?.droppedFixes.stale).toBeGreaterThan(30);
    // The 470 m jump after 34 s frozen in a tunnel is explained as a gap, not driven at 1,700 km/h.
    expect(trip.summary.maxSpeedKmh).toBeLessThan(130);
    expect(trip.distanceKm).toBeGreaterThan(13);
    expect(trip.distanceKm).toBeLessThan(14.5);
    expect(trip.overallScore).toBeGreaterThan(0);
    expect(trip.dataQuality?.timeZone).toBe('Europe/Berlin');
  });

  it("is not lengthened by a receiver's (0,0) fix at its end or its start", () => {
    const plain = scoreTrip(samples);
    const last = samples.at(-1)!;
    const first = samples[0]!;
    const ended = scoreTrip([...samples, { type: 'gps', t: last.t + 1000, lon: 0, lat: 0 }]);
    const started = scoreTrip([{ type: 'gps', t: first.t - 1000, lon: 0, lat: 0 }, ...samples]);
    for (const trip of [ended, started]) {
      // Within one grid step of the trace without it (the trip lasts a second longer), not thousands of km.
      expect(Math.abs(trip.distanceKm - plain.distanceKm)).toBeLessThan(0.05);
      expect(Math.abs(trip.summary.maxSpeedKmh - plain.summary.maxSpeedKmh)).toBeLessThan(1);
      expect(trip.dataQuality?.droppedFixes.spikes).toBe((plain.dataQuality?.droppedFixes.spikes ?? 0) + 1);
      expect(trip.dataQuality?.positionJumps).toBe(plain.dataQuality?.positionJumps);
    }
  });

  it('marks what no road network and no phone or IMU data can give as unavailable', () => {
    const trip = scoreTrip(samples);
    expect(trip.mapMatched).toBe(false);
    const speeding = trip.themes.find((t) => t.id === 'speeding')!;
    expect(speeding).toMatchObject({ available: false, themeScore: null });
    const intensity = speeding.factors.find((f) => f.key === 'speedingIntensity')!;
    expect(intensity).toMatchObject({ available: false, score: null });
    expect(intensity.unavailableReason).toMatch(/map-matched/);
    expect(trip.themes.find((t) => t.id === 'distraction')!.available).toBe(false);
    for (const key of ['brakingOnsetJerk', 'longitudinalJerkRms', 'engineHighRpmShare']) {
      const f = trip.themes.flatMap((t) => t.factors).find((x) => x.key === key)!;
      expect(f.available, key).toBe(false);
    }
    expect(['braking', 'acceleration', 'cornering', 'exposure']).toContain(trip.weakestTheme.id);
  });

  it('scores the same drive exported with 4 decimals (11 m) no worse, without taking its repeats for a frozen receiver', () => {
    const plain = scoreTrip(samples);
    const round4 = (v: number) => Math.round(v * 1e4) / 1e4;
    const rounded = scoreTrip(
      samples.map((s) => (s.type === 'gps' ? { ...s, lon: round4(s.lon), lat: round4(s.lat) } : s)),
    );
    // Before, 370 of its 1,194 fixes were dropped as stale (57 at full precision), 332 s were bridged as gaps (50),
    // and the smoother read the rounding's staircase as 1 more harsh cornering: 89.9 against 92.4.
    const q = (t: typeof plain) => t.dataQuality!;
    expect(q(rounded).droppedFixes.stale).toBeLessThanOrEqual(q(plain).droppedFixes.stale);
    expect(q(rounded).gapS).toBeLessThanOrEqual(q(plain).gapS);
    const harsh = (t: typeof plain) => t.events.filter((e) => e.type.startsWith('harsh_')).length;
    expect(harsh(rounded)).toBeLessThanOrEqual(harsh(plain));
    expect(rounded.overallScore).toBeGreaterThanOrEqual(plain.overallScore);
    expect(Math.abs(rounded.distanceKm - plain.distanceKm)).toBeLessThan(0.1);
  });
});
