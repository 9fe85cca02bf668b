import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGraphFromOsm, matchTrace, type TracePoint } from '../src/index.ts';
import { type FixtureNode, type FixtureWay, ORIGIN, osmXml } from './support/osm-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'roads-cluster-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KX = 111_320 * Math.cos((ORIGIN[1] * Math.PI) / 180);
const KY = 110_574;

describe('matching next to a junction where many roads meet', () => {
  it('keeps the road the vehicle is on as a candidate when a nearer junction node is shared by many roads', async () => {
    // A straight road, east-west; 40 m north of it a square where seven short streets meet at one node, not
    // connected to the road nearby. One fix strays 25 m north: the square's node is 15 m from it, the road 25 m.
    const nodes: FixtureNode[] = [
      { id: 1, eastM: -1000, northM: 0 },
      { id: 2, eastM: 1000, northM: 0 },
      { id: 10, eastM: 0, northM: 40 },
    ];
    const ways: FixtureWay[] = [{ id: 100, nodes: [1, 2], tags: { highway: 'primary', name: 'Main Road' } }];
    for (let k = 0; k < 7; k++) {
      const angle = (Math.PI * (k + 0.5)) / 7;
      nodes.push({ id: 20 + k, eastM: 120 * Math.cos(angle), northM: 40 + 120 * Math.sin(angle) });
      ways.push({ id: 200 + k, nodes: [10, 20 + k], tags: { highway: 'residential', name: `Street ${k}` } });
    }
    const file = join(dir, 'square.osm');
    writeFileSync(file, osmXml(nodes, ways));
    const graph = await buildGraphFromOsm(file, { country: 'FR' });

    const points: TracePoint[] = Array.from({ length: 21 }, (_, i) => ({
      lon: ORIGIN[0] + (-140 + 14 * i) / KX,
      lat: ORIGIN[1] + (i === 10 ? 25 : (i % 3) - 1) / KY,
      timeMs: Date.UTC(2024, 0, 1, 8) + i * 1000,
    }));
    const result = matchTrace(graph, points);
    expect(result.subTraces).toHaveLength(1);
    expect(result.points.every((p) => p.matched && p.wayId === 100)).toBe(true);
  });
});
