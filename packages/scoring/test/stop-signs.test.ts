import { describe, expect, it } from 'vitest';
import { scoreTrip } from '../src/index.ts';
import { type Control, factor, graphOf, type Road } from './helpers/hand-made-graph.ts';
import { drive, emit, type Phase } from './helpers/synthetic-drive.ts';

/**
 * `stopSignRollThroughRate` counts the stop signs that bind the vehicle (model 1.1.9, `RoadGraph.controlAhead`):
 * a car on the main road through a junction whose sign is for the side road, or one leaving a junction past the
 * sign of the other direction, passed no stop sign. Before, every pass of a node tagged `highway=stop` counted,
 * and each of these drives had rolled through one.
 */

// Straight along x = 0 at 50 km/h, no stop: about 1.65 km, passing |y| = 600 after about 53 s.
const straight: Phase[] = [{ stop: 5 }, { to: 50, a: 1.5 }, { cruise: 110 }, { to: 0, a: 1.5 }, { stop: 5 }];

/** The drive north (sign = 1) or south (-1) through a crossing at y = 600 * sign, the drive's road split at `cuts`. */
function crossing(sign: 1 | -1, mainClass: string, sideClass: string, cuts: number[] = []): Road[] {
  const ys = [-100 * sign, ...cuts.map((c) => c * sign), 600 * sign, 2000 * sign].sort((a, b) => a - b);
  const main: Road[] = [];
  for (let k = 1; k < ys.length; k++) {
    main.push({
      name: 'Hauptstrasse',
      points: [
        [0, ys[k - 1]!],
        [0, ys[k]!],
      ],
      highway: mainClass,
    });
  }
  return [
    ...main,
    {
      name: 'Querstrasse',
      points: [
        [-300, 600 * sign],
        [0, 600 * sign],
      ],
      highway: sideClass,
    },
    {
      name: 'Querstrasse',
      points: [
        [0, 600 * sign],
        [300, 600 * sign],
      ],
      highway: sideClass,
    },
  ];
}

function rollThrough(roads: Road[], controls: Control[], headingDeg = 0) {
  const truth = drive(straight, undefined, headingDeg);
  const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 5 }), {
    graph: graphOf(roads, 'stop-sign test graph', controls),
  });
  expect(trip.mapMatched).toBe(true);
  return factor(trip, 'stopSignRollThroughRate');
}

describe('stop signs passed (stopSignRollThroughRate)', () => {
  it('a sign on the junction binds the side road: the main road drives through, the side road rolls through it', () => {
    const sign: Control[] = [{ at: [0, 600], control: 'stop' }];
    const onMain = rollThrough(crossing(1, 'primary', 'residential'), sign);
    expect(onMain.value).toBeNull();
    expect(onMain.unavailableReason).toContain('no stop sign passed');
    // The same drive on the minor road of the same crossing ran its stop sign at 50 km/h.
    expect(rollThrough(crossing(1, 'residential', 'primary'), sign).value).toBe(100);
    // An all-way stop binds the main road too.
    expect(rollThrough(crossing(1, 'primary', 'residential'), [{ ...sign[0]!, scope: 'all' }]).value).toBe(100);
  });

  it('a sign before the junction binds the traffic heading to it, not the traffic leaving it', () => {
    // The sign 8 m south of the crossing, on the side of the traffic coming from the south.
    const northbound = rollThrough(crossing(1, 'residential', 'primary', [592]), [{ at: [0, 592], control: 'stop' }]);
    expect(northbound.value).toBe(100);
    const southbound = rollThrough(
      crossing(-1, 'residential', 'primary', [608]),
      [{ at: [0, -608], control: 'stop' }],
      180,
    );
    expect(southbound.value).toBeNull();
    // Tagged for the other direction (backward along the road as drawn, south to north), it binds the drive leaving.
    const tagged = rollThrough(
      crossing(-1, 'residential', 'primary', [608]),
      [{ at: [0, -608], control: 'stop', scope: 'backward' }],
      180,
    );
    expect(tagged.value).toBe(100);
  });
});
