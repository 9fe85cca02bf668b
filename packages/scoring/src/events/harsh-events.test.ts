import { describe, expect, it } from 'vitest';
import { drive, emit, type Phase, urbanDrive } from '../../test/helpers/synthetic-drive.ts';
import { scoreTrip } from '../score/score-trip.ts';

const harshBits: Phase[] = [{ pulse: -4.2, s: 1.5 }, { cruise: 30 }, { pulse: 3.0, s: 2 }, { cruise: 30 }];
const harsh = drive(urbanDrive(harshBits));
const harshTypes = (trip: ReturnType<typeof scoreTrip>) =>
  trip.events.filter((e) => e.type === 'harsh_braking' || e.type === 'harsh_acceleration');

describe('harsh events', () => {
  it('falls back to GPS speed where the IMU stream stopped, instead of missing the events there', () => {
    const full = emit(harsh, { imu: 'vehicle' });
    const t0 = full.samples[0]!.t;
    const tEnd = full.samples[full.samples.length - 1]!.t;
    // The accelerometer stops after 62 % of the trip (an app put to sleep): still "available" (>= 50 %),
    // but the harsh braking at ~410 s and acceleration at ~440 s happen after it stopped.
    const cut = t0 + (tEnd - t0) * 0.62;
    const partial = {
      ...full,
      samples: full.samples.filter((s) => !((s.type === 'accel' || s.type === 'gyro') && s.t > cut)),
    };
    const trip = scoreTrip(partial);
    expect(trip.dataQuality?.imu?.available).toBe(true);
    const events = harshTypes(trip);
    expect(events.map((e) => `${e.type}:${e.source}`)).toEqual(['harsh_braking:gps', 'harsh_acceleration:gps']);
    // Where the IMU does cover the trip, GPS adds nothing: same events as a full IMU, from the IMU only.
    expect(harshTypes(scoreTrip(full)).map((e) => `${e.type}:${e.source}`)).toEqual([
      'harsh_braking:imu',
      'harsh_acceleration:imu',
    ]);
  });
});
