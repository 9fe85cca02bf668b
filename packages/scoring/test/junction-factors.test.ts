import { beforeAll, describe, expect, it } from 'vitest';
import { type ScoredTrip, scoreTrip } from '../src/index.ts';
import { factor, graphOf, type Road } from './helpers/hand-made-graph.ts';
import { drive, emit, type Phase } from './helpers/synthetic-drive.ts';

/**
 * `junctionDensity` (junction nodes passed per km) and `phoneUseNearJunctions` (phone-use seconds within 50 m of
 * a junction or signal) call a node a junction as `turnEntrySpeedRatio` does: three or more roads meet there
 * (`NodePass.junction`, from `NodePass.roads`), a one-way road counting whichever way it runs. Until this change
 * of model 1.1.2 they asked for three or more edges *leaving* the node, which missed one-way roads leading in: a
 * T-junction whose side road leads in, two one-way roads merging into one, a crossing of two one-way streets
 * (both factors were 0 on each). A node where only two roads meet was not a junction then either.
 */

// A calm driver straight north along x = 0 for about 1.65 km at 50 km/h, passing y = 600 after about 53 s.
const straight: Phase[] = [{ stop: 5 }, { to: 50, a: 1.5 }, { cruise: 110 }, { to: 0, a: 1.5 }, { stop: 5 }];
const NODE: [number, number] = [0, 600];
const START: [number, number] = [0, -100];
const END: [number, number] = [0, 2000];
// Texting for 14 s around the node pass (about 7 s of it within 50 m of the node).
const phone = [
  { atS: 45, event: 'unlock' },
  { atS: 46, event: 'typing_start' },
  { atS: 60, event: 'typing_end' },
  { atS: 61, event: 'lock' },
  { atS: 61, event: 'screen_off' },
];

/** The drive's road, as two ways meeting at NODE (one-way northwards or two-way), plus the given side roads. */
function roadsThrough(oneway: boolean, ...side: Road[]): Road[] {
  return [
    { name: 'Hauptstrasse', points: [START, NODE], oneway },
    { name: 'Hauptstrasse', points: [NODE, END], oneway },
    ...side,
  ];
}

const graphs: Record<string, Road[]> = {
  // Counted before too: four roads, four edges leave the node.
  'a crossroads of two-way streets': roadsThrough(
    false,
    { name: 'Querstrasse', points: [[-300, 600], NODE] },
    { name: 'Querstrasse', points: [NODE, [300, 600]] },
  ),
  // Two edges leave the node (the main road's), three roads meet.
  'a T-junction whose one-way side road leads in': roadsThrough(false, {
    name: 'Einfahrt',
    points: [[-300, 600], NODE],
    oneway: true,
  }),
  // One edge leaves the node, three roads meet: the drive's one-way road and a one-way slip road merge into one.
  'two one-way roads merging into one': roadsThrough(true, {
    name: 'Zubringer',
    points: [[-300, 300], NODE],
    oneway: true,
  }),
  // Two edges leave the node, four roads meet.
  'a crossing of two one-way streets': roadsThrough(
    true,
    {
      name: 'Querstrasse',
      points: [[-300, 600], NODE],
      oneway: true,
    },
    {
      name: 'Querstrasse',
      points: [NODE, [300, 600]],
      oneway: true,
    },
  ),
  // Two roads: the way merely changes at the node (a name or limit change); no junction either way.
  'a two-way road with no side road': roadsThrough(false),
};

function tripOn(roads: Road[]) {
  const truth = drive(straight);
  const trip = scoreTrip(emit(truth, { imu: 'vehicle', gpsNoiseM: 3, seed: 5, phoneMonitored: true, phone }), {
    graph: graphOf(roads),
  });
  expect(trip.mapMatched).toBe(true);
  return trip;
}

describe('junctionDensity and phoneUseNearJunctions count nodes where three or more roads meet', () => {
  let reference: ScoredTrip;
  beforeAll(() => {
    reference = tripOn(graphs['a crossroads of two-way streets']!);
  });

  it('count the node of a crossroads of two-way streets (one junction on about 1.65 km)', () => {
    expect(factor(reference, 'junctionDensity').value).toBeGreaterThan(0.55);
    expect(factor(reference, 'junctionDensity').value).toBeLessThan(0.65);
    expect(factor(reference, 'phoneUseNearJunctions').value).toBeGreaterThan(0);
  });

  it.each([
    'a T-junction whose one-way side road leads in',
    'two one-way roads merging into one',
    'a crossing of two one-way streets',
  ])('count %s as that crossroads', (label) => {
    const trip = tripOn(graphs[label]!);
    // Before: 0 for both, as fewer than three edges leave the node.
    expect(factor(trip, 'junctionDensity').value).toBeCloseTo(factor(reference, 'junctionDensity').value!, 2);
    expect(factor(trip, 'phoneUseNearJunctions').value).toBe(factor(reference, 'phoneUseNearJunctions').value);
  });

  it('do not count a node of a two-way road with no side road', () => {
    const trip = tripOn(graphs['a two-way road with no side road']!);
    expect(factor(trip, 'junctionDensity')).toMatchObject({ available: true, value: 0 });
    expect(factor(trip, 'phoneUseNearJunctions')).toMatchObject({ available: true, value: 0 });
  });
});
