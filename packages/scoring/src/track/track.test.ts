import { describe, expect, it } from 'vitest';
import { drive, emit, urbanDrive } from '../../test/helpers/synthetic-drive.ts';
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
