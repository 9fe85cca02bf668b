import { describe, expect, it } from 'vitest';
import type { TripData } from '../score/trip-data.ts';
import { ACCELERATION_MEASURES } from './measure-acceleration.ts';
import { BRAKING_MEASURES } from './measure-braking.ts';

/** A moving trip whose IMU saw `pattern` (100 ms bins, m/s^2) and then `silentBins` bins without data. */
function tripWithImu(pattern: number[], silentBins: number): TripData {
  const long = Float32Array.from([...pattern, ...new Array<number>(silentBins).fill(Number.NaN)]);
  const seconds = Math.ceil(long.length / 10);
  return { imu: { available: true, longMps2: long }, moving: new Uint8Array(seconds).fill(1) } as unknown as TripData;
}

// Four brakes and four launches, each building up over 0.5 s, held, then released, with cruising between.
const pattern: number[] = [];
for (let k = 0; k < 4; k++) {
  pattern.push(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  pattern.push(-0.8, -1.6, -2.4, -3.2, -4, -4, -4, -3, -2, -1, 0);
  pattern.push(0.8, 1.6, 2.4, 3.2, 4, 4, 4, 3, 2, 1, 0);
}

describe('onset jerk', () => {
  it('is taken over the IMU bins that have data: a silent IMU stretch is unknown, not smooth driving', () => {
    for (const [measure, key] of [
      [BRAKING_MEASURES.brakingOnsetJerk!, 'braking'],
      [ACCELERATION_MEASURES.accelerationOnsetJerk!, 'acceleration'],
    ] as const) {
      const seen = measure(tripWithImu(pattern, 0));
      const withSilence = measure(tripWithImu(pattern, 2000));
      expect(seen, key).toMatchObject({ value: expect.any(Number) });
      expect((seen as { value: number }).value, key).toBeGreaterThan(4);
      expect(withSilence, key).toEqual(seen);
    }
  });
});
