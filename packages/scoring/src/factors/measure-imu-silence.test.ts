import { describe, expect, it } from 'vitest';
import { drive, emit, type Phase, urbanDrive } from '../../test/helpers/synthetic-drive.ts';
import type { FoundEvent } from '../events/found-event.ts';
import type { ScoredTrip } from '../result.ts';
import { scoreTrip } from '../score/score-trip.ts';
import type { TripData } from '../score/trip-data.ts';
import { BRAKING_MEASURES } from './measure-braking.ts';
import { CORNERING_MEASURES } from './measure-cornering.ts';

const factorValue = (trip: ScoredTrip, key: string) =>
  trip.themes.flatMap((t) => t.factors).find((f) => f.key === key)!.value!;

// Hard driving at 90 km/h late in the trip: a hard brake, a hard launch, a sharp bend, then firm braking
// and acceleration again and again.
const hardBits: Phase[] = [
  { pulse: -4.5, s: 1.5 },
  { cruise: 15 },
  { pulse: 3.2, s: 2 },
  { cruise: 15 },
  { turn: 20, over: 2 },
  { cruise: 15 },
];
for (let k = 0; k < 6; k++) hardBits.push({ pulse: -2.8, s: 3 }, { cruise: 4 }, { pulse: 2.8, s: 3 }, { cruise: 4 });
const hard = drive(urbanDrive(hardBits));
const full = emit(hard, { imu: 'vehicle' });
const t0 = full.samples[0]!.t;
// The accelerometer and gyroscope stop 400 s into the trip, just before the hard driving (an app put to
// sleep, as in the harsh-events test): the IMU still covers more than half the moving time, so it stays
// usable for the trip, and the hard driving becomes GPS events.
const cut = {
  ...full,
  samples: full.samples.filter((s) => !((s.type === 'accel' || s.type === 'gyro') && s.t > t0 + 400_000)),
};

describe('peak and percentile factors where a usable IMU is silent', () => {
  const withImu = scoreTrip(full);
  const silent = scoreTrip(cut);

  it('is the situation of the test: usable IMU, the hard driving seen by GPS only', () => {
    expect(silent.dataQuality?.imu?.available).toBe(true);
    expect(silent.events.filter((e) => e.type === 'harsh_braking').map((e) => e.source)).toContain('gps');
    expect(silent.events.filter((e) => e.type === 'harsh_acceleration').map((e) => e.source)).toContain('gps');
  });

  it('peaks take the GPS peak over the silent seconds (before: 1.95, 1.7 and 2.8, the covered part only)', () => {
    // Full IMU: 4.48, 3.19, 4.43; the GPS 1-2 s means read a little under (4.39, 3.08, 3.41).
    for (const [key, atLeast] of [
      ['peakDeceleration', 4.2],
      ['peakAcceleration', 2.9],
      ['peakLateralAcceleration', 3.2],
    ] as const) {
      expect(factorValue(silent, key), key).toBeGreaterThanOrEqual(atLeast);
      expect(factorValue(silent, key), key).toBeLessThanOrEqual(factorValue(withImu, key));
    }
  });

  it('braking and acceleration percentiles fill the silent seconds with GPS (before: 0.198 against 1.64)', () => {
    for (const key of ['decelerationP95', 'accelerationP95']) {
      expect(Math.abs(factorValue(silent, key) - factorValue(withImu, key)), key).toBeLessThanOrEqual(0.1);
    }
  });
});

/**
 * A 60 km trip at 90 km/h on a 100 ms IMU grid with the same manoeuvre every minute (accelerating out of
 * a bend, swerving, braking in it); `silentFromS` blanks the IMU from that second on.
 */
function tripWithManoeuvres(silentFromS: number): TripData {
  const n = 2400;
  const bins = n * 10;
  const long = new Float32Array(bins).fill(0);
  const lat = new Float32Array(bins).fill(0);
  const yaw = new Float32Array(bins).fill(0);
  const events: FoundEvent[] = [];
  const ids = new Map<FoundEvent, string>();
  for (let s = 30; s < n; s += 60) {
    for (let k = s * 10; k < s * 10 + 10; k++) {
      long[k] = 3;
      lat[k] = 3;
      yaw[k] = 15;
      yaw[k + 10] = -15;
      long[k + 30] = -4;
      lat[k + 30] = 2.5;
    }
    if (s < silentFromS) {
      const e = {
        event: { type: 'harsh_braking', startMs: (s + 3) * 1000, endMs: (s + 4) * 1000, source: 'imu' },
      } as unknown as FoundEvent;
      events.push(e);
      ids.set(e, `e${s}`);
    } else {
      // What the GPS reports there: the same braking, with no lateral reading.
      const e = {
        event: { type: 'harsh_braking', startMs: (s + 3) * 1000, endMs: (s + 4) * 1000, source: 'gps' },
      } as unknown as FoundEvent;
      events.push(e);
      ids.set(e, `e${s}`);
    }
  }
  for (const a of [long, lat, yaw]) a.fill(Number.NaN, silentFromS * 10);
  const stepM = new Float64Array(n).fill(25);
  stepM[0] = 0;
  return {
    imu: { available: true, gyroAvailable: true, t0Ms: -500, n: bins, longMps2: long, latMps2: lat, yawRateDps: yaw },
    track: { n, t0Ms: 0, stepM },
    moving: new Uint8Array(n).fill(1),
    speedKmh: new Float64Array(n).fill(90),
    distanceM: 25 * (n - 1),
    events,
    ids,
    memo: new Map(),
  } as unknown as TripData;
}

describe('IMU-only rate factors', () => {
  it('are rates per km the IMU covered: a silent stretch is not manoeuvre-free driving', () => {
    const whole = tripWithManoeuvres(2400);
    const half = tripWithManoeuvres(1200);
    for (const [key, measure] of [
      ['combinedGExceedanceRate', CORNERING_MEASURES.combinedGExceedanceRate!],
      ['accelerationInCurvesRate', CORNERING_MEASURES.accelerationInCurvesRate!],
      ['swervingRate', CORNERING_MEASURES.swervingRate!],
      ['brakingWhileTurningRate', BRAKING_MEASURES.brakingWhileTurningRate!],
    ] as const) {
      const seen = (measure(whole) as { value: number }).value;
      expect(seen, key).toBeGreaterThan(50);
      // Before: half the rate, the silent 30 km counted as driven without a single such manoeuvre.
      expect((measure(half) as { value: number }).value, key).toBeCloseTo(seen, 0);
    }
  });
});
