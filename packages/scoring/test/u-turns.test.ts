import { describe, expect, it } from 'vitest';
import { scoreTrip } from '../src/index.ts';
import { factor, graphOf, pathPoints } from './helpers/hand-made-graph.ts';
import { drive, emit, type Phase } from './helpers/synthetic-drive.ts';

/**
 * `uTurnCount` counts heading reversals of 160 degrees or more within 15 s while moving. A hairpin bend reverses
 * the heading as much while the vehicle follows the road; with the map, only a reversal that drives a road one
 * way and then the other counts.
 */

/** North at 40 km/h, a 180-degree left turn at 15 km/h over `overS` seconds, then south again. */
function reversal(overS: number): Phase[] {
  return [
    { stop: 5 },
    { to: 40, a: 1.5 },
    { cruise: 50 },
    { to: 15, a: 1.5 },
    { turn: 180, over: overS },
    { to: 40, a: 1.5 },
    { cruise: 50 },
    { to: 0, a: 1.5 },
    { stop: 5 },
  ];
}

describe('uTurnCount', () => {
  it('does not count a hairpin bend the road itself makes', () => {
    // 180 degrees in 9 s at 15 km/h: a radius of about 12 m, the legs 24 m apart; the road follows the drive.
    const truth = drive(reversal(9));
    const n = truth.x.length;
    const road = pathPoints(truth, 0, n - 1);
    const graph = graphOf([
      {
        name: 'Route des Lacets',
        points: [[road[0]![0], road[0]![1] - 100], ...road, [road.at(-1)![0], road.at(-1)![1] - 100]],
      },
    ]);
    const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 3 }), { graph });
    expect(trip.mapMatched).toBe(true);
    // Before, every such bend counted as a U-turn (907 on 60 simulated Monaco trips that made none while moving).
    expect(factor(trip, 'uTurnCount').value).toBe(0);
  });

  it('counts a turn back along the same road', () => {
    // 180 degrees in 4 s at 15 km/h: a radius of about 5 m, back along the road it came on.
    const truth = drive(reversal(4));
    let north = 0;
    for (const y of truth.y) north = Math.max(north, y);
    const graph = graphOf([
      {
        name: 'Grand-Rue',
        points: [
          [0, -100],
          [0, north + 100],
        ],
      },
    ]);
    const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 3 }), { graph });
    expect(trip.mapMatched).toBe(true);
    expect(factor(trip, 'uTurnCount').value).toBe(1);
  });

  it('counts every reversal without the map, which cannot tell a bend from a U-turn', () => {
    const trip = scoreTrip(emit(drive(reversal(9)), { imu: 'vehicle', gpsNoiseM: 3, seed: 3 }));
    expect(factor(trip, 'uTurnCount').value).toBe(1);
  });
});
