import { describe, expect, it } from 'vitest';
import { graphSummary } from '../src/cli/cli-output.ts';
import type { RoadGraph } from '../src/graph/road-graph.ts';

describe('graphSummary', () => {
  it('never prints a negative unknown-limit share when the explicit and default shares add up to 1', () => {
    // Monaco's shares sum to a hair over 1 in floating point, which printed "unknown -0.0 %".
    const explicitLimitShare = 0.10435886704156111;
    const graph = {
      meta: {
        source: 'monaco.osm.pbf',
        stats: { roadKm: 345, explicitLimitShare, defaultLimitShare: 0.8956411329584394, urbanShare: 0.8 },
      },
      country: 'FR',
      nodeCount: 2279,
      edgeCount: 4339,
    } as unknown as RoadGraph;
    expect(graphSummary(graph, 'monaco.graph', 0.8)).toContain('(default 89.6 %, unknown 0.0 %)');
  });
});
