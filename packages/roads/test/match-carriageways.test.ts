import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraphFromOsm, matchTrace, type RoadGraph, type TracePoint } from '../src/index.ts';
import { ORIGIN, osmXml } from './support/osm-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'roads-carriageways-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KX = 111_320 * Math.cos((ORIGIN[1] * Math.PI) / 180);
const KY = 110_574;

/**
 * The end of a dual carriageway, as at the eastern end of Avenue Gabriel Hanotaux in the Monaco extract: the
 * northbound carriageway (way 100, x = 0) and the southbound one (way 101, x = -12 m) meet at a tip node 15 m
 * beyond the point where they part, so a vehicle turns round there. A side road (way 102) leaves the northbound
 * carriageway 300 m before the tip.
 */
const NORTH_X = 0;
const SOUTH_X = -12;
const TIP: [number, number] = [-6, 15];

function fixture(): string {
  return osmXml(
    [
      { id: 1, eastM: NORTH_X, northM: -400 },
      { id: 2, eastM: NORTH_X, northM: -300 },
      { id: 3, eastM: NORTH_X, northM: 0 },
      { id: 4, eastM: TIP[0], northM: TIP[1] },
      { id: 5, eastM: SOUTH_X, northM: 0 },
      { id: 6, eastM: SOUTH_X, northM: -400 },
      { id: 7, eastM: 200, northM: -300 },
    ],
    [
      { id: 100, nodes: [1, 2, 3, 4], tags: { highway: 'secondary', oneway: 'yes', name: 'Avenue Nord' } },
      { id: 101, nodes: [4, 5, 6], tags: { highway: 'secondary', oneway: 'yes', name: 'Avenue Sud' } },
      { id: 102, nodes: [2, 7], tags: { highway: 'residential', name: 'Rue Est' } },
    ],
  );
}

interface Drive {
  points: TracePoint[];
  /** Whether the vehicle had reached the tip (turned round) at each fix. */
  turned: boolean[];
}

/**
 * Drives north at 14 m/s, slows to `turnSpeedMps` over the last 40 m, goes round the tip and back south,
 * speeding up again; 1 Hz fixes with the receiver's speed and course. The GPS error is a steady 7 m west and 3 m
 * north (receivers' errors are correlated over tens of seconds), which puts the fixes on the northbound
 * carriageway's last metres nearer the southbound one.
 */
function turnaround(turnSpeedMps: number, withMotion: boolean): Drive {
  // The driving line as a polyline: up the northbound carriageway, round the tip, down the southbound one.
  const line: Array<[number, number]> = [
    [NORTH_X, -380],
    [NORTH_X, 0],
    [NORTH_X - 1, 9],
    TIP,
    [SOUTH_X + 1, 9],
    [SOUTH_X, 0],
    [SOUTH_X, -380],
  ];
  const cum = [0];
  for (let i = 1; i < line.length; i++) {
    cum.push(cum[i - 1]! + Math.hypot(line[i]![0] - line[i - 1]![0], line[i]![1] - line[i - 1]![1]));
  }
  const tipAtM = cum[3]!;
  const total = cum[cum.length - 1]!;
  const at = (s: number): { x: number; y: number; courseDeg: number } => {
    let i = 1;
    while (i < line.length - 1 && cum[i]! < s) i++;
    const [ax, ay] = line[i - 1]!;
    const [bx, by] = line[i]!;
    const f = Math.min(1, Math.max(0, (s - cum[i - 1]!) / (cum[i]! - cum[i - 1]!)));
    const courseDeg = ((Math.atan2(bx - ax, by - ay) * 180) / Math.PI + 360) % 360;
    return { x: ax + (bx - ax) * f, y: ay + (by - ay) * f, courseDeg };
  };
  const speedAt = (s: number) => {
    const fromTip = Math.abs(s - tipAtM);
    return fromTip < 40 ? turnSpeedMps + ((14 - turnSpeedMps) * fromTip) / 40 : 14;
  };
  const points: TracePoint[] = [];
  const turned: boolean[] = [];
  const t0 = Date.UTC(2024, 0, 1, 8);
  for (let t = 0, s = 0; s < total; t++) {
    const { x, y, courseDeg } = at(s);
    const point: TracePoint = { lon: ORIGIN[0] + (x - 7) / KX, lat: ORIGIN[1] + (y + 3) / KY, timeMs: t0 + t * 1000 };
    if (withMotion) {
      point.speedMps = speedAt(s);
      point.courseDeg = courseDeg;
    }
    points.push(point);
    turned.push(s >= tipAtM);
    s += speedAt(s);
  }
  return { points, turned };
}

describe('turning round where the two carriageways of a road meet', () => {
  let graph: RoadGraph;
  beforeAll(async () => {
    const file = join(dir, 'carriageways.osm');
    writeFileSync(file, fixture());
    graph = await buildGraphFromOsm(file, { country: 'FR' });
  });

  for (const turnSpeedMps of [3, 5]) {
    it(`keeps each fix on the carriageway the vehicle was driving, turning round at ${turnSpeedMps} m/s`, () => {
      const { points, turned } = turnaround(turnSpeedMps, true);
      const m = matchTrace(graph, points);
      const wrong = m.points
        .filter((p) => p.matched && p.wayId !== (turned[p.index] ? 101 : 100))
        .map((p) => `fix ${p.index} on way ${p.wayId} (${turned[p.index] ? 'after' : 'before'} the tip)`);
      expect(m.points.every((p) => p.matched)).toBe(true);
      expect(wrong).toEqual([]);
    });
  }

  it('still matches the same trace without speeds and courses, with positions only', () => {
    const { points, turned } = turnaround(3, false);
    const m = matchTrace(graph, points);
    expect(m.matchedShare).toBe(1);
    // Far from the tip the carriageways are told apart by position alone.
    const far = m.points.filter((p) => Math.abs(p.index - turned.indexOf(true)) > 10);
    expect(far.every((p) => p.wayId === (turned[p.index] ? 101 : 100))).toBe(true);
  });
});
