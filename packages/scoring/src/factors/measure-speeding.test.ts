import { describe, expect, it } from 'vitest';
import type { FoundEvent } from '../events/found-event.ts';
import type { TripData } from '../score/trip-data.ts';
import { SPEEDING_MEASURES } from './measure-speeding.ts';

function speedingEpisode(band: string): FoundEvent {
  return {
    event: {
      type: 'speeding',
      startMs: 0,
      endMs: 10_000,
      position: [0, 0],
      severity: 'high',
      value: 35,
      unit: 'km/h over limit',
      source: 'gps',
      details: { band },
    },
    startS: 0,
    peakS: 0,
    endS: 10,
  };
}

/** A 40 km trip of which 20 km were on roads with a known limit, with two speeding episodes there. */
function tripWithHalfTheLimitsKnown(): TripData {
  const episodes = [speedingEpisode('moderate'), speedingEpisode('extreme')];
  return {
    distanceM: 40_000,
    events: episodes,
    ids: new Map(episodes.map((e, k) => [e, `e${k + 1}`])),
    speeding: { episodes, knownLimitDistanceM: 20_000, knownLimitMovingS: 1200 },
  } as unknown as TripData;
}

describe('speeding rates', () => {
  it('are per 100 km of road with a known limit: distance where speeding cannot be measured is not compliant distance', () => {
    const d = tripWithHalfTheLimitsKnown();
    expect(SPEEDING_MEASURES.speedingEpisodeRate!(d)).toMatchObject({ value: 10 });
    expect(SPEEDING_MEASURES.extremeSpeedingRate!(d)).toMatchObject({ value: 5, eventIds: ['e2'] });
  });
});
