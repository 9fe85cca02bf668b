import { describe, expect, it } from 'vitest';
import { drive, emit, positionOnly, urbanDrive } from '../../test/helpers/synthetic-drive.ts';
import { cleanGps } from '../clean/clean-gps.ts';
import { buildTrack, rejectCourseOutliers } from './track.ts';
import { findTripWindows } from './trip-window.ts';

const truth = drive(urbanDrive());
const trueSpeedAt = (tMs: number) => truth.v[Math.min(truth.v.length - 1, Math.round((tMs - truth.t0Ms) / 10))]!;

describe('buildTrack', () => {
  it('resamples onto a 1 s grid and uses the Doppler speed when the receiver reports it', () => {
    const track = buildTrack(cleanGps(emit(truth, { gpsHz: 1 }).samples));
    expect(track.speedSource).toBe('gps-doppler');
    expect(track.tMs[1]! - track.tMs[0]!).toBe(1000);
    let err = 0;
    for (let i = 0; i < track.n; i++) err += Math.abs(track.speedMps[i]! - trueSpeedAt(track.tMs[i]!));
    expect(err / track.n).toBeLessThan(0.2);
  });

  it('pulls a wild Doppler course back at 0.5 Hz too, where the grid seconds beside a fix are interpolated', () => {
    const truth = drive([{ to: 50, a: 1.5 }, { cruise: 120 }]);
    const fixes = emit(truth, { gpsHz: 0.5 }).samples.filter((s) => s.type === 'gps');
    const glitch = fixes[40]!;
    fixes[40] = { ...glitch, headingDeg: ((glitch.headingDeg ?? 0) + 90) % 360 };
    const track = buildTrack(cleanGps(fixes));
    expect(track.speedSource).toBe('gps-doppler');
    let maxYaw = 0;
    for (const w of track.yawRateDps) if (Number.isFinite(w)) maxYaw = Math.max(maxYaw, Math.abs(w));
    // Straight ahead: left alone (as model 1.1.15 briefly did), the glitch read 45 deg/s; pulled back, half that.
    expect(maxYaw).toBeLessThanOrEqual(22.5 + 1e-9);
  });

  it('keeps crawling at 5-8 km/h on position-only fixes as driving: only scatter that stays put is standing', () => {
    const crawl = drive([
      { stop: 10 },
      { to: 50, a: 1.5 },
      { cruise: 60 },
      { to: 7, a: 1.5 },
      { cruise: 240 },
      { to: 5, a: 0.3 },
      { cruise: 60 },
      { to: 8, a: 0.3 },
      { cruise: 60 },
      { to: 50, a: 1.5 },
      { cruise: 60 },
      { to: 0, a: 2 },
      { stop: 15 },
    ]);
    // The crawl: from the end of the first braking to 50 km/h to the start of the last acceleration.
    const slow = (s: number) => crawl.v[s * 100]! < 8.5 / 3.6;
    let from = 60;
    while (!slow(from)) from++;
    let to = from;
    while (slow(to + 1)) to++;
    let trueM = 0;
    for (let i = from * 100; i < to * 100; i++) trueM += crawl.v[i]! * crawl.dtS;
    const variants = [
      { gpsHz: 1, sigmaM: 3, accuracyM: 5 },
      { gpsHz: 0.5, sigmaM: 3, accuracyM: 5 },
      { gpsHz: 1, sigmaM: 5, tauS: 60, accuracyM: 5 },
      { gpsHz: 1, sigmaM: 3, accuracyM: 20 },
      { gpsHz: 1, sigmaM: 3, accuracyM: 40 },
      // Scatter well beyond the 3 m the smoother assumed read 42-71 % more distance before model 1.1.15.
      { gpsHz: 1, sigmaM: 8, accuracyM: 5 },
      { gpsHz: 0.5, sigmaM: 8, accuracyM: 5 },
    ];
    for (const { gpsHz, ...noise } of variants) {
      const track = buildTrack(cleanGps(positionOnly(emit(crawl, { gpsHz, gpsNoiseM: 0 }), noise).samples));
      expect(track.speedSource).toBe('gps-position');
      let m = 0;
      for (let i = from + 1; i <= to; i++) m += track.stepM[i]!;
      // Nothing of the crawl is taken for standing. The smoother alone reads scatter as a little more distance at
      // 7 km/h: 3 m as 5-7 % (1 Hz, 0.5 Hz), 8 m as 7-17 % (three seeds).
      expect(m / trueM, JSON.stringify({ gpsHz, ...noise })).toBeGreaterThan(0.98);
      expect(m / trueM, JSON.stringify({ gpsHz, ...noise })).toBeLessThan(1.12);
      // The smoother's own noise touches 0 now and then at 7 km/h; a standing stretch would be 30 s or more.
      let still = 0;
      for (let i = from; i <= to; i++) if (track.speedMps[i] === 0) still++;
      expect(still / (to - from + 1), JSON.stringify({ gpsHz, ...noise })).toBeLessThan(0.05);
    }
  });

  it('derives speed from positions within 1 m/s on average when there is no Doppler speed', () => {
    const track = buildTrack(cleanGps(emit(truth, { doppler: false, gpsNoiseM: 2 }).samples));
    expect(track.speedSource).toBe('gps-position');
    let err = 0;
    for (let i = 0; i < track.n; i++) err += Math.abs(track.speedMps[i]! - trueSpeedAt(track.tMs[i]!));
    expect(err / track.n).toBeLessThan(1);
  });

  it('gives the same distance for the same driving at 1 Hz and 10 Hz', () => {
    const at1 = buildTrack(cleanGps(emit(truth, { gpsHz: 1 }).samples));
    const at10 = buildTrack(cleanGps(emit(truth, { gpsHz: 10 }).samples));
    const sum = (a: Float64Array) => a.reduce((s, v) => s + v, 0);
    expect(at10.n).toBe(at1.n);
    expect(Math.abs(sum(at10.stepM) - sum(at1.stepM)) / sum(at1.stepM)).toBeLessThan(0.005);
  });

  it('flags seconds inside a GPS gap and bridges them', () => {
    const batch = emit(truth, { gpsHz: 1 });
    const samples = batch.samples.filter((s) => s.t < truth.t0Ms + 100_000 || s.t > truth.t0Ms + 130_000);
    const track = buildTrack(cleanGps(samples));
    expect(track.gap[110]).toBe(1);
    expect(track.gap[90]).toBe(0);
    expect(track.gapS).toBe(31); // fixes at 99 s and 131 s remain
    expect(Number.isFinite(track.speedMps[110]!)).toBe(true);
  });

  it('bridges a GPS gap at the speed of the straight line between its fixes, with or without Doppler', () => {
    const sum = (a: Float64Array, from = 0, to = a.length) => a.subarray(from, to).reduce((s, v) => s + v, 0);
    for (const doppler of [true, false]) {
      // A 30 s tunnel on the straight cruise at 90 km/h: the fixes at 299 s and 331 s remain, 800 m apart.
      const batch = emit(truth, { gpsHz: 1, doppler, gpsNoiseM: 0.5 });
      const fixes = batch.samples.filter((s) => s.t < truth.t0Ms + 300_000 || s.t > truth.t0Ms + 330_000);
      const track = buildTrack(cleanGps(fixes));
      const chordM = Math.hypot(track.xM[331]! - track.xM[299]!, track.yM[331]! - track.yM[299]!);
      expect(track.gap[315], `doppler ${doppler}`).toBe(1);
      expect(Math.abs(track.speedMps[315]! * 32 - chordM), `doppler ${doppler}`).toBeLessThan(0.01 * chordM);
      expect(Math.abs(sum(track.stepM, 300, 331) - (chordM * 31) / 32), `doppler ${doppler}`).toBeLessThan(25);

      // OBD speed, where it covers the gap, is a measurement: it is used, with Doppler fixes around or not.
      const obd = batch.samples
        .filter((s) => s.type === 'gps')
        .map((s) => ({ type: 'obd' as const, t: s.t, speedKmh: 70 }));
      const withObd = buildTrack(cleanGps(fixes), { obd });
      expect(withObd.speedMps[315]! * 3.6, `doppler ${doppler}`).toBeCloseTo(70, 6);

      // An hour without fixes where the vehicle did not go anywhere (parked in a garage with the receiver off,
      // entered and left at walking pace; the phone's GPS asleep at a stop): the hour adds no distance and no
      // moving time. Bridged at the speeds before and after, or by the smoother's velocity, it was driven.
      const plain = buildTrack(cleanGps(batch.samples));
      const moving = (t: typeof plain) => t.speedMps.reduce((n, v) => n + (v * 3.6 >= 8 ? 1 : 0), 0);
      // Inside the 20 s stop (105-125 s) after the first turn, and while cruising at 50 km/h (141 s).
      for (const cutMs of [115_000, 141_000]) {
        const parked = batch.samples.map((s) => (s.t > truth.t0Ms + cutMs ? { ...s, t: s.t + 3_600_000 } : s));
        const withHour = buildTrack(cleanGps(parked));
        const label = `doppler ${doppler}, cut at ${cutMs / 1000} s`;
        expect(withHour.n - plain.n, label).toBe(3600);
        expect(Math.abs(sum(withHour.stepM) - sum(plain.stepM)), label).toBeLessThan(5);
        expect(Math.abs(moving(withHour) - moving(plain)), label).toBeLessThanOrEqual(2);
      }
    }
  });

  it('finds the trip between the first and the last movement', () => {
    const track = buildTrack(cleanGps(emit(truth).samples));
    const windows = findTripWindows(track);
    expect(windows).toHaveLength(1);
    const [start, end] = windows[0]!;
    expect(start).toBeGreaterThanOrEqual(8);
    expect(start).toBeLessThanOrEqual(11);
    expect(end).toBeLessThan(track.n);
  });

  it('clamps a Doppler course that contradicts both neighbours, and leaves a real turn untouched', () => {
    const measured = new Uint8Array(7).fill(1);
    // A right turn through north sampled at 1 Hz, with a reversed course at index 3 (a receiver glitch).
    const glitched = Float64Array.from([300, 315, 330, 155.9, 0, 10, 10]);
    rejectCourseOutliers(glitched, measured);
    expect(Array.from(glitched)).toEqual([300, 315, 330, 345, 0, 10, 10]);
    const turn = Float64Array.from([270, 290, 320, 350, 15, 40, 39]);
    rejectCourseOutliers(turn, measured);
    expect(Array.from(turn)).toEqual([270, 290, 320, 350, 15, 40, 39]);
    // Across a gap nothing is judged: the neighbour there is not a measurement.
    const acrossGap = Float64Array.from([90, 90, 200, 90]);
    rejectCourseOutliers(acrossGap, Uint8Array.from([1, 1, 1, 0]));
    expect(acrossGap[2]).toBe(200);
  });
});
