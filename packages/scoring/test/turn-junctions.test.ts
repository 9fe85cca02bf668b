import { buildGraph, type NetworkSegment, type NetworkWay, type RoadGraph, type SpeedLimit } from '@svc/roads';
import { describe, expect, it } from 'vitest';
import { type ScoredTrip, scoreTrip } from '../src/index.ts';
import { drive, emit, type Phase, type Truth } from './helpers/synthetic-drive.ts';

/**
 * `turnEntrySpeedRatio` is the speed into turns made at junctions (research/telematics.md §5.3): a bend of one
 * road is not a junction turn, however sharp, and without a map the two cannot be told apart.
 */

// The synthetic drive's local plane (emit's defaults): x east, y north, metres from (11.5, 48.1).
const LON0 = 11.5;
const LAT0 = 48.1;
const KX = 111_320 * Math.cos((LAT0 * Math.PI) / 180);
const KY = 111_132;

interface Road {
  name: string;
  points: Array<[number, number]>;
  oneway?: boolean;
  roundabout?: boolean;
}

/** A graph of the given roads (x/y metres in the drive's plane); points shared by several roads are one node. */
function graphOf(roads: readonly Road[]): RoadGraph {
  const lon: number[] = [];
  const lat: number[] = [];
  const index = new Map<string, number>();
  const nodeAt = ([x, y]: [number, number]) => {
    const key = `${x.toFixed(3)},${y.toFixed(3)}`;
    let i = index.get(key);
    if (i === undefined) {
      i = lon.length;
      index.set(key, i);
      lon.push(LON0 + x / KX);
      lat.push(LAT0 + y / KY);
    }
    return i;
  };
  const limit: SpeedLimit = { kmh: 50, source: 'explicit' };
  const ways: NetworkWay[] = [];
  const segments: NetworkSegment[] = [];
  roads.forEach((road, k) => {
    ways.push({ wayId: k + 1, highway: road.roundabout ? 'tertiary' : 'residential', name: road.name });
    segments.push({
      way: k,
      // The ends of a road become graph nodes (shared by the roads that meet there), the points between shape it.
      nodes: road.points.map(nodeAt),
      forward: true,
      backward: road.oneway !== true,
      forwardLimit: limit,
      backwardLimit: limit,
      urban: true,
      roundabout: road.roundabout === true,
    });
  });
  return buildGraph({ nodes: { lon, lat }, ways, segments, source: 'turn-junctions test', country: 'DE' });
}

/** The drive's true path as road geometry, one point every `stepM` metres, from index `from` to `to`. */
function pathPoints(truth: Truth, from: number, to: number, stepM = 10): Array<[number, number]> {
  const out: Array<[number, number]> = [[truth.x[from]!, truth.y[from]!]];
  let last = out[0]!;
  for (let i = from + 1; i <= to; i++) {
    const p: [number, number] = [truth.x[i]!, truth.y[i]!];
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) >= stepM || i === to) {
      out.push(p);
      last = p;
    }
  }
  return out;
}

function factor(trip: ScoredTrip, key: string) {
  for (const t of trip.themes) for (const f of t.factors) if (f.key === key) return f;
  throw new Error(key);
}

/** Index of the true motion at which the heading first comes within 1 degree of `deg` (from index `from`). */
function headingReached(truth: Truth, deg: number, from = 0): number {
  for (let i = from; i < truth.heading.length; i++)
    if (Math.abs(((truth.heading[i]! - deg + 540) % 360) - 180) < 1) return i;
  throw new Error(`heading ${deg} never reached`);
}

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
