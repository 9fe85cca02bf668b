import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraphFromOsm, type MatchResult, matchTrace, type RoadGraph, type TracePoint } from '../src/index.ts';
import { type FixtureNode, ORIGIN, osmXml } from './support/osm-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'roads-turn-in-place-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KX = 111_320 * Math.cos((ORIGIN[1] * Math.PI) / 180);
const KY = 110_574;

/**
 * Four streets of the Andorra extract near a bus terminus, in metres (east, north) from a point near them: a link
 * street (way 102) whose west end meets a side street (way 100) that climbs north and bends east to the terminus,
 * and whose east end meets a street (way 101) that runs on east-north-east 15-20 m south of the side street; a
 * tertiary road (way 103) leads in. All two-way.
 */
const SIDE: Array<[number, number]> = [
  [1.7, 12.4],
  [8.6, 27.1],
  [39.2, 32],
  [55.3, 36.3],
  [58.4, 44],
  [56.4, 53],
  [33.3, 67.7],
];
const PARALLEL: Array<[number, number]> = [
  [133.4, -42.1],
  [103.4, -33.2],
  [76.4, -20.2],
  [51.8, -1],
  [24.2, 8.3],
  [58.7, 19.3],
  [68.5, 30.4],
  [85.7, 27.5],
  [99, 39.7],
  [101.7, 49.3],
];
const LINK: Array<[number, number]> = [
  [24.2, 8.3],
  [1.7, 12.4],
  [-21.2, 0.8],
];
const TERTIARY: Array<[number, number]> = [
  [18.6, -173.6],
  [65.4, -127.4],
  [84.8, -110.7],
  [129.3, -72.6],
  [138.1, -65],
  [144.2, -54.6],
  [141.9, -44.7],
  [133.4, -42.1],
];

/**
 * A bus of a simulated run over that extract (1 Hz, east, north, Doppler speed m/s, course degrees or null): in
 * along the tertiary road and the parallel street, west along the link street, right into the side street at
 * 5 m/s (fixes 22-25), east to the terminus, where it stands (fixes 33-68) and turns round, then back down the
 * side street and east along the link street. The receiver's error is correlated, up to 10 m.
 */
const FIXES: Array<[number, number, number, number | null]> = [
  [146.3, -67.4, 8.3, 41],
  [153.2, -59.6, 7.8, 30],
  [154.8, -52.6, 6.8, 360],
  [153.5, -48.4, 5.8, 327],
  [148.1, -45.9, 6.2, 290],
  [140.8, -43.8, 7.7, 289],
  [134, -40.3, 8.2, 287],
  [126.1, -37.3, 8.3, 288],
  [119.9, -32.8, 8.3, 291],
  [111.7, -28.9, 8.1, 294],
  [103.7, -26, 8.1, 298],
  [94.3, -21.8, 8.2, 302],
  [87.3, -16.7, 8.2, 303],
  [79.5, -12, 8.2, 308],
  [72.4, -6.6, 8.2, 310],
  [65.5, -1.6, 8.4, 305],
  [58.7, 3.2, 8.3, 298],
  [52.8, 6.7, 8.4, 291],
  [45.1, 10.6, 8.3, 289],
  [38.2, 12.5, 8.3, 285],
  [29.8, 12.5, 8.1, 281],
  [21.9, 13.5, 5.9, 280],
  [15.9, 13.7, 4.8, 310],
  [13.9, 19.6, 4.7, 351],
  [16, 23, 4.9, 22],
  [19.8, 27, 6.2, 50],
  [24.6, 29.8, 6.7, 81],
  [31.4, 31, 8, 82],
  [39.4, 32.6, 7.7, 83],
  [46.5, 30.9, 5.2, 78],
  [49.1, 30, 3, 74],
  [51.2, 30.6, 1.5, 72],
  [51.2, 31.2, 1.3, null],
  [51.9, 31.1, 0, null],
  [53.2, 31.8, 0, null],
  [52.7, 31.3, 0, null],
  [51.5, 31.3, 0, null],
  [51.1, 32, 0, null],
  [50.3, 31.3, 0, null],
  [50, 29.2, 0, null],
  [50, 31.1, 0, null],
  [50.2, 32.7, 0, null],
  [50.4, 33.9, 0, null],
  [47.9, 34.2, 0, null],
  [46.6, 34.2, 0, null],
  [46.2, 34.4, 0, null],
  [45.9, 34.9, 0, null],
  [45, 34.6, 0, null],
  [46.1, 35.5, 0, null],
  [49.1, 36.4, 0, null],
  [47.6, 37.7, 0, null],
  [46.3, 37.2, 0, 267],
  [42.1, 35, 0, 270],
  [40.9, 37.2, 0, null],
  [42.7, 36.8, 0, null],
  [41.7, 36.9, 0, null],
  [41.1, 38.4, 0, null],
  [41.8, 37, 0, null],
  [42.2, 37.2, 0, null],
  [42.4, 37.2, 0, null],
  [42.6, 36.2, 0, null],
  [44.8, 37, 0, null],
  [45.4, 36.4, 0, null],
  [46.7, 37.5, 0, null],
  [47.2, 36.9, 0, null],
  [44.4, 35.1, 0, null],
  [46.1, 34.4, 0, null],
  [45.1, 35.8, 0, null],
  [44.4, 35.7, 1.2, null],
  [41.7, 34.4, 1.6, 259],
  [39.6, 33.4, 2.6, 260],
  [37.2, 31.7, 4.4, 260],
  [31.4, 29.6, 6.1, 260],
  [24, 26.4, 8, 260],
  [14.2, 25.4, 8.6, 260],
  [7.7, 22.1, 6.9, 246],
  [4.6, 14.8, 6.1, 215],
  [2.5, 10.6, 5.2, 191],
  [2.7, 5.2, 5, 146],
  [6.6, 2.3, 5.1, 100],
  [10.3, 1.6, 6.3, 100],
  [17.3, -0.1, 7.9, 103],
  [26.1, -3.1, 9.5, 107],
  [37.4, -6.8, 10.8, 110],
  [48.5, -12.9, 12.2, 117],
  [58.3, -20.1, 13.3, 126],
  [70.3, -27.9, 14.2, 123],
];

function fixture(): string {
  const nodes: FixtureNode[] = [];
  const ids = new Map<string, number>();
  const nodeAt = ([x, y]: [number, number]) => {
    const key = `${x},${y}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size + 1;
      ids.set(key, id);
      nodes.push({ id, eastM: x, northM: y });
    }
    return id;
  };
  const way = (id: number, line: Array<[number, number]>, highway: string) => ({
    id,
    nodes: line.map(nodeAt),
    tags: { highway },
  });
  const ways = [
    way(100, SIDE, 'unclassified'),
    way(101, PARALLEL, 'unclassified'),
    way(102, LINK, 'unclassified'),
    way(103, TERTIARY, 'tertiary'),
  ];
  return osmXml(nodes, ways);
}

function trace(): TracePoint[] {
  const t0 = Date.UTC(2026, 0, 5, 9, 0, 0);
  return FIXES.map(([x, y, speedMps, course], i) => ({
    lon: ORIGIN[0] + x / KX,
    lat: ORIGIN[1] + y / KY,
    timeMs: t0 + i * 1000,
    speedMps,
    ...(course === null ? {} : { courseDeg: course }),
  }));
}

describe('turning round where the vehicle stands, on real street geometry', () => {
  let graph: RoadGraph;
  let m: MatchResult;
  beforeAll(async () => {
    const file = join(dir, 'terminus.osm');
    writeFileSync(file, fixture());
    graph = await buildGraphFromOsm(file, { country: 'AD' });
    m = matchTrace(graph, trace());
  });

  it('keeps a vehicle driving along the side street on its direction of travel until it slows down', () => {
    // Fixes 24-28 drive east along the side street at 5-8 m/s. A vehicle that keeps moving cannot turn round where
    // it is; taking the street's other direction for jitter let the decoder do so for nothing, and the fixes ran
    // backwards along the westbound direction.
    const eastbound = sideStreetEdge(graph, true);
    const moving = [24, 25, 26, 27, 28].map((i) => m.points[i]!);
    expect(moving.map((p) => p.edge)).toEqual(moving.map(() => eastbound));
    for (let k = 1; k < moving.length; k++) expect(moving[k]!.offsetM!).toBeGreaterThanOrEqual(moving[k - 1]!.offsetM!);
  });

  it('matches the whole trace in one piece, with one turn at the terminus', () => {
    expect(m.subTraces).toHaveLength(1);
    expect(m.points.every((p) => p.matched)).toBe(true);
    const ways = m.path.map((s) => s.wayId).filter((w, k, all) => k === 0 || all[k - 1] !== w);
    expect(ways).toEqual([103, 101, 102, 100, 102, 101]);
    const side = m.path.filter((s) => s.wayId === 100).map((s) => s.edge);
    expect(side.filter((e, k) => k === 0 || side[k - 1] !== e)).toEqual([
      sideStreetEdge(graph, true),
      sideStreetEdge(graph, false),
    ]);
  });
});

/** The side street's edge driven east (away from the link street), or west. */
function sideStreetEdge(graph: RoadGraph, east: boolean): number {
  for (let e = 0; e < graph.edgeCount; e++) {
    if (graph.edgeWayId(e) !== 100) continue;
    const c = graph.edgeCoordinates(e);
    if (c[0]![0] < c[c.length - 1]![0] === east) return e;
  }
  return -1;
}
