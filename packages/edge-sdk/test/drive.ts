import type { Sample } from '@svc/scoring';
import type { Clock } from '../src/clock.ts';

/** Deterministic test drives: a vehicle heading east at given speeds, stops and silences, 1 Hz GPS. */

export type Leg =
  | { move: number; speedKmh: number }
  | { stop: number }
  /** Nothing recorded for this many seconds (GPS off, app suspended), the vehicle does not move. */
  | { gap: number };

export interface DriveOptions {
  startMs: number;
  legs: Leg[];
  lon?: number;
  lat?: number;
  /** Receiver Doppler speed on each fix (default true); without it the SDK derives speed from positions. */
  doppler?: boolean;
  /** Accelerometer readings per second (0 = none). */
  accelHz?: number;
}

const M_PER_DEG_LAT = 111_195;

/** The samples of a drive, in time order. */
export function drive(options: DriveOptions): Sample[] {
  const samples: Sample[] = [];
  const lat = options.lat ?? 48.137;
  let lon = options.lon ?? 11.575;
  const mPerDegLon = M_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180);
  let t = options.startMs;
  const doppler = options.doppler ?? true;
  const accelHz = options.accelHz ?? 0;

  const fix = (speedKmh: number) => {
    const sample: Sample = { type: 'gps', t, lon, lat, accuracyM: 5 };
    if (doppler) sample.speedMps = speedKmh / 3.6;
    samples.push(sample);
    for (let k = 0; k < accelHz; k++) {
      samples.push({ type: 'accel', t: t + Math.round((k * 1000) / accelHz), x: 0.1 * Math.sin(k), y: 0, z: 9.81 });
    }
  };

  for (const leg of options.legs) {
    if ('move' in leg) {
      for (let s = 0; s < leg.move; s++) {
        fix(leg.speedKmh);
        lon += leg.speedKmh / 3.6 / mPerDegLon;
        t += 1000;
      }
    } else if ('stop' in leg) {
      for (let s = 0; s < leg.stop; s++) {
        fix(0);
        t += 1000;
      }
    } else {
      t += leg.gap * 1000;
    }
  }
  return samples;
}

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  private mono = 0;
  constructor(private wall: number) {}
  now(): number {
    return this.wall;
  }
  monotonicMs(): number {
    return this.mono;
  }
  /** Time passes: both clocks move. */
  advance(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }
  /** Someone sets the wall clock: only it moves. */
  stepWall(ms: number): void {
    this.wall += ms;
  }
}
