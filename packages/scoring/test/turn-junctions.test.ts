import type { RoadGraph } from '@svc/roads';
import { describe, expect, it } from 'vitest';
import { scoreTrip } from '../src/index.ts';
import { factor, graphOf, headingReached, pathPoints, type Road } from './helpers/hand-made-graph.ts';
import { drive, emit, type Phase, type Truth } from './helpers/synthetic-drive.ts';

/**
 * `turnEntrySpeedRatio` is the speed into turns made at junctions (research/telematics.md §5.3): a bend of one
 * road is not a junction turn, however sharp, and without a map the two cannot be told apart.
 */

// A calm driver on one road through a 90-degree bend at 50 km/h (radius about 70 m, 2.7 m/s^2).
const bend: Phase[] = [
  { stop: 5 },
  { to: 50, a: 1.5 },
  { cruise: 60 },
  { turn: -90, over: 8 },
  { cruise: 60 },
  { to: 0, a: 1.5 },
  { stop: 5 },
];

// The same driver turning right at a crossroads: slows to 20 km/h, turns, accelerates away.
const crossroads: Phase[] = [
  { stop: 5 },
  { to: 50, a: 1.5 },
  { cruise: 60 },
  { to: 20, a: 1.5 },
  { turn: -90, over: 5 },
  { to: 50, a: 1.5 },
  { cruise: 60 },
  { to: 0, a: 1.5 },
  { stop: 5 },
];

// Through a roundabout (radius about 19 m at 25 km/h): in to the right, 210 degrees round, out to the right.
const ROUND_DPS = 21;
const roundabout: Phase[] = [
  { stop: 5 },
  { to: 50, a: 1.5 },
  { cruise: 60 },
  { to: 25, a: 1.5 },
  { turn: -60, over: 3 },
  { turn: 210, over: 210 / ROUND_DPS },
  { turn: -60, over: 3 },
  { to: 50, a: 1.5 },
  { cruise: 60 },
  { to: 0, a: 1.5 },
  { stop: 5 },
];

describe('turnEntrySpeedRatio counts turns at junctions only', () => {
  /** The bend's road, cut at the bend's apex into two ways; `sideRoad` adds a third road at that node. */
  function bendGraph(truth: Truth, sideRoad: boolean): RoadGraph {
    const n = truth.x.length;
    const apex = headingReached(truth, 45);
    const before = pathPoints(truth, 0, apex);
    const after = pathPoints(truth, apex, n - 1);
    // Extend both ends so the trip starts and ends well inside the road.
    const start: [number, number] = [truth.x[0]!, truth.y[0]! - 100];
    const end: [number, number] = [truth.x[n - 1]! + 100, truth.y[n - 1]!];
    const node = after[0]!;
    const roads: Road[] = [
      { name: 'Bergstrasse', points: [start, ...before] },
      { name: 'Talstrasse', points: [...after, end] },
    ];
    // A side road leaving the outside of the bend to the north-west.
    if (sideRoad) roads.push({ name: 'Seitenweg', points: [node, [node[0] - 150, node[1] + 150]] });
    return graphOf(roads);
  }

  it('does not count a bend of a single road, even where the road changes name at a node in the bend', () => {
    const truth = drive(bend);
    const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 5 }), { graph: bendGraph(truth, false) });
    expect(trip.mapMatched).toBe(true);
    // Before the fix it counted: entered at 49 km/h, a ratio of 1.96 and a score of 28 for a calm driver.
    expect(factor(trip, 'turnEntrySpeedRatio')).toMatchObject({
      available: false,
      unavailableReason: 'no turn of more than 60 degrees at a junction',
    });
  });

  it('counts the same bend where a side road joins at its apex (three roads meet there)', () => {
    const truth = drive(bend);
    const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 5 }), { graph: bendGraph(truth, true) });
    expect(trip.mapMatched).toBe(true);
    const f = factor(trip, 'turnEntrySpeedRatio');
    expect(f.available).toBe(true);
    expect(f.value).toBeCloseTo(2, 1);
    expect(f.score).toBeLessThan(30);
  });

  it.each([
    ['two-way', false],
    ['one-way', true],
  ])('counts a 90-degree turn at a crossroads of %s streets', (_label, oneway) => {
    const truth = drive(crossroads);
    const n = truth.x.length;
    const xs = truth.x[n - 1]!;
    const y = truth.y[n - 1]!; // the cross street: the drive runs along it after the turn
    // One-way: both streets run the way the car drives, so only two edges leave the junction node.
    const graph = graphOf([
      {
        name: 'Nordstrasse',
        points: [
          [0, -100],
          [0, y],
        ],
        oneway,
      },
      {
        name: 'Nordstrasse',
        points: [
          [0, y],
          [0, y + 300],
        ],
        oneway,
      },
      {
        name: 'Querstrasse',
        points: [
          [-300, y],
          [0, y],
        ],
        oneway,
      },
      {
        name: 'Querstrasse',
        points: [
          [0, y],
          [xs + 100, y],
        ],
        oneway,
      },
    ]);
    const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 5 }), { graph });
    expect(trip.mapMatched).toBe(true);
    const f = factor(trip, 'turnEntrySpeedRatio');
    expect(f.available).toBe(true);
    // Entered at about 20 km/h: a ratio of about 0.8 to the 25 km/h reference, full score.
    expect(f.value).toBeGreaterThan(0.7);
    expect(f.value).toBeLessThan(0.95);
    expect(f.score).toBe(100);
  });

  it('is unavailable without a map, like the other map-dependent factors, instead of counting bends', () => {
    const trip = scoreTrip(emit(drive(bend), { imu: 'vehicle', gpsNoiseM: 3, seed: 5 }));
    expect(trip.mapMatched).toBe(false);
    const f = factor(trip, 'turnEntrySpeedRatio');
    expect(f).toMatchObject({ available: false, value: null, score: null });
    expect(f.unavailableReason).toBe('not map-matched to a road network');
  });

  it('leaves roundabouts to roundaboutEntrySpeed, though three roads meet at their entries and exits', () => {
    const truth = drive(roundabout);
    const n = truth.x.length;
    const entry = headingReached(truth, 60);
    const exit = headingReached(truth, 210, entry);
    // The ring: the driven arc, and the rest of the circle back to the entry (counter-clockwise).
    const r = truth.v[entry]! / ((ROUND_DPS * Math.PI) / 180);
    const h = (truth.heading[entry]! * Math.PI) / 180;
    const cx = truth.x[entry]! - r * Math.cos(h);
    const cy = truth.y[entry]! + r * Math.sin(h);
    const exitPoint: [number, number] = [truth.x[exit]!, truth.y[exit]!];
    const entryPoint: [number, number] = [truth.x[entry]!, truth.y[entry]!];
    const a0 = Math.atan2(exitPoint[1] - cy, exitPoint[0] - cx);
    const rest: Array<[number, number]> = [exitPoint];
    for (let k = 1; k < 10; k++) {
      const a = a0 + ((150 * Math.PI) / 180) * (k / 10);
      rest.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
    }
    rest.push(entryPoint);
    const graph = graphOf([
      { name: 'Zufahrt', points: [[truth.x[0]!, truth.y[0]! - 100], ...pathPoints(truth, 0, entry)] },
      { name: 'Kreisel', points: pathPoints(truth, entry, exit, 5), oneway: true, roundabout: true },
      { name: 'Kreisel', points: rest, oneway: true, roundabout: true },
      { name: 'Ausfahrt', points: [...pathPoints(truth, exit, n - 1), [truth.x[n - 1]! - 100, truth.y[n - 1]!]] },
    ]);
    const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 5 }), { graph });
    expect(trip.mapMatched).toBe(true);
    expect(factor(trip, 'roundaboutEntrySpeed').available).toBe(true);
    expect(factor(trip, 'turnEntrySpeedRatio')).toMatchObject({
      available: false,
      unavailableReason: 'no turn of more than 60 degrees at a junction',
    });
  });
});
