import type { Sample } from '@svc/scoring';
import { describe, expect, it } from 'vitest';
import { drive } from '../test/drive.ts';
import { type DetectorState, IDLE_DETECTOR, observeSample } from './trip-detector.ts';
import { DEFAULT_TRIP_RULES } from './trip-rules.ts';

const T0 = Date.UTC(2025, 5, 1, 8);

/** Runs samples through the detector and lists the boundaries it reports. */
function boundaries(samples: Sample[]): Array<['start' | 'end', number]> {
  let state: DetectorState = IDLE_DETECTOR;
  const out: Array<['start' | 'end', number]> = [];
  for (const sample of samples) {
    const step = observeSample(state, sample, DEFAULT_TRIP_RULES);
    if (step.ended) out.push(['end', step.ended.endMs]);
    if (step.started) out.push(['start', step.started.startMs]);
    state = step.state;
  }
  return out;
}

describe('observeSample (trip start and end)', () => {
  it('starts a trip on the first speed above 8 km/h, not at 8 km/h', () => {
    const samples = drive({ startMs: T0, legs: [{ stop: 10 }, { move: 5, speedKmh: 8 }, { move: 5, speedKmh: 9 }] });
    expect(boundaries(samples)).toEqual([['start', T0 + 15_000]]);
  });

  it('ends a trip once stopped for 5 minutes, at the moment the vehicle stopped', () => {
    const samples = drive({ startMs: T0, legs: [{ move: 60, speedKmh: 40 }, { stop: 301 }] });
    expect(boundaries(samples)).toEqual([
      ['start', T0],
      ['end', T0 + 60_000],
    ]);
  });

  it('keeps the trip through a stop shorter than 5 minutes (traffic light, queue)', () => {
    const samples = drive({
      startMs: T0,
      legs: [{ move: 60, speedKmh: 40 }, { stop: 299 }, { move: 60, speedKmh: 40 }, { stop: 301 }],
    });
    expect(boundaries(samples)).toEqual([
      ['start', T0],
      ['end', T0 + (60 + 299 + 60) * 1000],
    ]);
  });

  it('ends the trip before a 5-minute silence and starts a new one after it', () => {
    const samples = drive({
      startMs: T0,
      legs: [{ move: 30, speedKmh: 50 }, { gap: 400 }, { move: 30, speedKmh: 50 }],
    });
    expect(boundaries(samples)).toEqual([
      ['start', T0],
      ['end', T0 + 29_000],
      ['start', T0 + 430_000],
    ]);
  });

  it('derives speed from positions when fixes carry no Doppler speed', () => {
    const samples = drive({
      startMs: T0,
      doppler: false,
      legs: [{ stop: 5 }, { move: 20, speedKmh: 30 }, { stop: 310 }],
    });
    const found = boundaries(samples);
    expect(found[0]).toEqual(['start', T0 + 6_000]);
    expect(found[1]?.[0]).toBe('end');
  });

  it('does not start a trip on a position jump of a parked car', () => {
    const parked = drive({ startMs: T0, doppler: false, legs: [{ stop: 10 }] });
    const jumped: Sample[] = parked.map((s, i) => (i === 5 && s.type === 'gps' ? { ...s, lon: s.lon + 0.05 } : s));
    expect(boundaries(jumped)).toEqual([]);
  });

  it('uses OBD speed when there is no GPS', () => {
    const obd: Sample[] = [
      { type: 'obd', t: T0, speedKmh: 0 },
      { type: 'obd', t: T0 + 1000, speedKmh: 20 },
      { type: 'obd', t: T0 + 2000, speedKmh: 0 },
      { type: 'obd', t: T0 + 302_000, speedKmh: 0 },
    ];
    expect(boundaries(obd)).toEqual([
      ['start', T0 + 1000],
      ['end', T0 + 2000],
    ]);
  });
});
