import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGraphFromOsm, loadGraph, type RoadGraph, route, writeGraph } from '../src/index.ts';
import { type FixtureNode, type FixtureWay, osmXml } from './support/osm-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'roads-controls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
async function graphOf(nodes: FixtureNode[], ways: FixtureWay[]): Promise<RoadGraph> {
  const file = join(dir, `g${files++}.osm`);
  writeFileSync(file, osmXml(nodes, ways));
  return buildGraphFromOsm(file);
}

const nodeOf = (graph: RoadGraph, osmId: number) => {
  for (let n = 0; n < graph.nodeCount; n++) if (graph.nodeOsmId(n) === osmId) return n;
  throw new Error(`no node ${osmId}`);
};

/** The control a vehicle driving from OSM node `from` to the adjacent node `to` must obey on arriving at `to`. */
function aheadOn(graph: RoadGraph, from: number, to: number) {
  const a = nodeOf(graph, from);
  const b = nodeOf(graph, to);
  for (let e = 0; e < graph.edgeCount; e++) {
    if (graph.edgeFrom(e) === a && graph.edgeTo(e) === b) return graph.controlAhead(e);
  }
  throw new Error(`no edge ${from} -> ${to}`);
}

/**
 * A crossing at node 10: a primary road west (1) to east (2), a residential street south (3) to north (4), the
 * junction tagged with `junctionTags`; 300 m arms.
 */
function crossing(junctionTags: Record<string, string>, minor = 'residential'): [FixtureNode[], FixtureWay[]] {
  return [
    [
      { id: 1, eastM: -300, northM: 0 },
      { id: 2, eastM: 300, northM: 0 },
      { id: 3, eastM: 0, northM: -300 },
      { id: 4, eastM: 0, northM: 300 },
      { id: 10, eastM: 0, northM: 0, tags: junctionTags },
    ],
    [
      { id: 100, nodes: [1, 10, 2], tags: { highway: 'primary' } },
      { id: 101, nodes: [3, 10, 4], tags: { highway: minor } },
    ],
  ];
}

describe('which approaches a node control binds (RoadGraph.controlAhead)', () => {
  it('a stop sign on a junction binds the minor road, not the main road', async () => {
    const graph = await graphOf(...crossing({ highway: 'stop' }));
    expect(graph.nodeControl(nodeOf(graph, 10))).toBe('stop');
    expect(aheadOn(graph, 3, 10)).toBe('stop');
    expect(aheadOn(graph, 4, 10)).toBe('stop');
    expect(aheadOn(graph, 1, 10)).toBeNull();
    expect(aheadOn(graph, 2, 10)).toBeNull();
    // Leaving the junction there is nothing to obey at the far ends.
    expect(aheadOn(graph, 10, 4)).toBeNull();
  });

  it('binds every approach of an all-way stop, of a junction of equal roads, and of traffic signals', async () => {
    for (const [tags, minor] of [
      [{ highway: 'stop', stop: 'all' }, 'residential'],
      [{ highway: 'stop' }, 'primary'],
      [{ highway: 'give_way' }, 'primary_link'],
      [{ highway: 'traffic_signals' }, 'residential'],
    ] as const) {
      const graph = await graphOf(...crossing(tags, minor));
      const kind = tags.highway === 'traffic_signals' ? 'signals' : tags.highway;
      for (const from of [1, 2, 3, 4]) expect(aheadOn(graph, from, 10), `${JSON.stringify(tags)} ${minor}`).toBe(kind);
    }
  });

  /** A residential street 1-20-10 joining a primary road 2-10-3 at 10, with a sign at 20, `gapM` before it. */
  function approach(signTags: Record<string, string>, gapM: number): [FixtureNode[], FixtureWay[]] {
    return [
      [
        { id: 1, eastM: -400, northM: 0 },
        { id: 20, eastM: -gapM, northM: 0, tags: signTags },
        { id: 10, eastM: 0, northM: 0 },
        { id: 2, eastM: 0, northM: -300 },
        { id: 3, eastM: 0, northM: 300 },
      ],
      [
        { id: 100, nodes: [1, 20, 10], tags: { highway: 'residential' } },
        { id: 101, nodes: [2, 10, 3], tags: { highway: 'primary' } },
      ],
    ];
  }

  it('a sign before a junction without a direction binds the traffic heading to the junction, not leaving it', async () => {
    const graph = await graphOf(...approach({ highway: 'stop' }, 8));
    expect(aheadOn(graph, 1, 20)).toBe('stop');
    expect(aheadOn(graph, 10, 20)).toBeNull();
    // Halfway between two junctions the sign cannot be placed: both ways.
    const middle = await graphOf(...approach({ highway: 'give_way' }, 200));
    expect(aheadOn(middle, 1, 20)).toBe('give_way');
    expect(aheadOn(middle, 10, 20)).toBe('give_way');
  });

  it('follows direction=forward|backward (and traffic_signals:direction) against the way the node is on', async () => {
    const forward = await graphOf(...approach({ highway: 'stop', direction: 'forward' }, 8));
    expect(aheadOn(forward, 1, 20)).toBe('stop');
    expect(aheadOn(forward, 10, 20)).toBeNull();
    // Backward along way 100 (1 -> 20 -> 10) is the traffic leaving the junction: unusual, but as tagged.
    const backward = await graphOf(...approach({ highway: 'stop', direction: 'backward' }, 8));
    expect(aheadOn(backward, 1, 20)).toBeNull();
    expect(aheadOn(backward, 10, 20)).toBe('stop');
    const signals = await graphOf(
      ...approach({ highway: 'traffic_signals', 'traffic_signals:direction': 'forward' }, 8),
    );
    expect(aheadOn(signals, 1, 20)).toBe('signals');
    expect(aheadOn(signals, 10, 20)).toBeNull();
    const both = await graphOf(...approach({ highway: 'stop', direction: 'both' }, 8));
    expect(aheadOn(both, 1, 20)).toBe('stop');
    expect(aheadOn(both, 10, 20)).toBe('stop');
  });

  it('a give-way sign where a road enters a roundabout binds the entering road, not the ring', async () => {
    const graph = await graphOf(
      [
        { id: 1, eastM: -300, northM: 0 },
        { id: 10, eastM: -20, northM: 0, tags: { highway: 'give_way' } },
        { id: 11, eastM: 0, northM: 20 },
        { id: 12, eastM: 20, northM: 0 },
        { id: 13, eastM: 0, northM: -20 },
      ],
      [
        { id: 100, nodes: [1, 10], tags: { highway: 'tertiary' } },
        { id: 101, nodes: [10, 11, 12, 13, 10], tags: { highway: 'tertiary', junction: 'roundabout' } },
      ],
    );
    expect(aheadOn(graph, 1, 10)).toBe('give_way');
    // The ring is one edge from node 10 round to it (no other junction on it).
    const ring = Array.from({ length: graph.edgeCount }, (_, e) => e).filter((e) => graph.edge(e).roundabout);
    expect(ring).toHaveLength(1);
    expect(graph.edgeTo(ring[0]!)).toBe(nodeOf(graph, 10));
    expect(graph.controlAhead(ring[0]!)).toBeNull();
  });

  it('keeps the tagged direction through a graph file', async () => {
    const graph = await graphOf(...approach({ highway: 'stop', direction: 'backward' }, 200));
    const file = join(dir, 'scoped.graph');
    writeGraph(graph, file);
    const loaded = loadGraph(file);
    expect(aheadOn(loaded, 1, 20)).toBeNull();
    expect(aheadOn(loaded, 10, 20)).toBe('stop');
    expect(loaded.nodeControl(nodeOf(loaded, 20))).toBe('stop');
  });

  it('routes list the controls the route must obey only', async () => {
    const graph = await graphOf(...crossing({ highway: 'stop' }));
    const lonLat = (id: number) => graph.nodeLonLat(nodeOf(graph, id));
    const main = route(graph, lonLat(1), lonLat(2));
    expect(main?.controls).toEqual([]);
    const minor = route(graph, lonLat(3), lonLat(4));
    expect(minor?.controls.map((c) => c.control)).toEqual(['stop']);
  });
});
