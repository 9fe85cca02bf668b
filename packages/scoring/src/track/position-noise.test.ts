import { describe, expect, it } from 'vitest';
import { drive, emit, positionOnly, urbanDrive } from '../../test/helpers/synthetic-drive.ts';
import { cleanGps } from '../clean/clean-gps.ts';
import { estimatePositionNoiseM } from './position-noise.ts';

const truth = drive(urbanDrive());
const scatterOf = (gpsHz: number, sigmaM: number, tauS = 0, seed = 1) =>
  estimatePositionNoiseM(cleanGps(positionOnly(emit(truth, { gpsHz, gpsNoiseM: 0 }), { sigmaM, tauS, seed }).samples));

describe('estimatePositionNoiseM', () => {
  it("reads a trace's white scatter from its fixes at 1 Hz and 0.5 Hz, through the drive's turns and stops", () => {
    for (const gpsHz of [1, 0.5]) {
      for (const sigmaM of [1, 3, 8, 12]) {
        for (const seed of [1, 2]) {
          const label = `${gpsHz} Hz, ${sigmaM} m, seed ${seed}`;
          const estimate = scatterOf(gpsHz, sigmaM, 0, seed);
          // The drive's own manoeuvres add a little, most at 0.5 Hz (0.2 m to 1 m of scatter there).
          expect(Math.abs(estimate - sigmaM), label).toBeLessThan(Math.max(0.15 * sigmaM, 0.3));
        }
      }
    }
  });

  it('reads exact positions as no scatter, and a slow drift as little', () => {
    expect(scatterOf(1, 0)).toBeLessThan(0.3);
    // A receiver's own filter makes its error drift: 8 m over a minute barely moves a fix off its neighbours' line.
    expect(scatterOf(1, 8, 60)).toBeLessThan(1.5);
  });

  it('judges nothing from fixes further apart than 2.5 s, or from too few', () => {
    expect(scatterOf(0.2, 8)).toBeNaN();
    const batch = positionOnly(emit(truth, { gpsNoiseM: 0 }), { sigmaM: 8 });
    const fixes = batch.samples.filter((s) => s.type === 'gps');
    expect(estimatePositionNoiseM(cleanGps(fixes.slice(0, 40)))).toBeNaN();
    expect(estimatePositionNoiseM(cleanGps(fixes.slice(0, 100)))).toBeGreaterThan(6);
  });

  it('judges a long trace from fixes spread over all of it', () => {
    // 12 h at 1 Hz: every second fix is judged; the scatter is 2 m in the first half and 10 m in the second.
    const long = drive(Array.from({ length: 80 }, () => urbanDrive()).flat());
    const batch = emit(long, { gpsNoiseM: 0 });
    const half = batch.samples[batch.samples.length >> 1]!.t;
    const quiet = positionOnly(batch, { sigmaM: 2, seed: 3 }).samples.filter((s) => s.t < half);
    const loud = positionOnly(batch, { sigmaM: 10, seed: 4 }).samples.filter((s) => s.t >= half);
    expect(quiet.length + loud.length).toBeGreaterThan(40_000);
    const estimate = estimatePositionNoiseM(cleanGps([...quiet, ...loud]));
    // Half the offsets at 2 m, half at 10 m: the median lies between them, not at either end.
    expect(estimate).toBeGreaterThan(3);
    expect(estimate).toBeLessThan(8);
  });

  it('does not read a position jump that breaks the track as scatter', () => {
    const batch = emit(truth, { gpsNoiseM: 0.5 });
    const plain = estimatePositionNoiseM(cleanGps(batch.samples));
    // Half-way through, every later fix 2 km further north: cleaning breaks the track there.
    const fixes = batch.samples.filter((s) => s.type === 'gps');
    const half = fixes[fixes.length >> 1]!.t;
    const jumped = fixes.map((s) => (s.t >= half ? { ...s, lat: s.lat + 0.018 } : s));
    const gps = cleanGps(jumped);
    expect(gps.report.jumps).toBe(1);
    expect(Math.abs(estimatePositionNoiseM(gps) - plain)).toBeLessThan(0.1);
  });
});
