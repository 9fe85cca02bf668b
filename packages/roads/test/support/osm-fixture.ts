/** Builds small OSM XML documents for tests, with node positions given in metres from an origin. */
export interface FixtureNode {
  id: number;
  eastM: number;
  northM: number;
  tags?: Record<string, string>;
}

export interface FixtureWay {
  id: number;
  nodes: number[];
  tags: Record<string, string>;
}

/** Paris: France's defaults apply. */
export const ORIGIN: [number, number] = [2.35, 48.85];

const KX = 111_320 * Math.cos((ORIGIN[1] * Math.PI) / 180);
const KY = 110_574;

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function osmXml(nodes: FixtureNode[], ways: FixtureWay[], extra = ''): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6" generator="roads-test">'];
  const tags = (t: Record<string, string> | undefined) =>
    Object.entries(t ?? {})
      .map(([k, v]) => `    <tag k="${escapeXml(k)}" v="${escapeXml(v)}"/>`)
      .join('\n');
  for (const n of nodes) {
    const lon = (ORIGIN[0] + n.eastM / KX).toFixed(7);
    const lat = (ORIGIN[1] + n.northM / KY).toFixed(7);
    if (n.tags) lines.push(`  <node id="${n.id}" lat="${lat}" lon="${lon}">`, tags(n.tags), '  </node>');
    else lines.push(`  <node id="${n.id}" lat="${lat}" lon="${lon}"/>`);
  }
  for (const w of ways) {
    lines.push(`  <way id="${w.id}">`, ...w.nodes.map((n) => `    <nd ref="${n}"/>`), tags(w.tags), '  </way>');
  }
  lines.push(extra, '</osm>');
  return lines.join('\n');
}

/**
 * A small French town: a signal-controlled residential street in mph (to test units), a contraflow one-way,
 * a road with per-direction limits leading out of town, a roundabout, a footway and a private drive (both
 * excluded), a zone-tagged road and a residential landuse polygon marking the built-up area.
 */
export function townFixture(): string {
  const nodes: FixtureNode[] = [
    { id: 1, eastM: 0, northM: 0 },
    { id: 2, eastM: 100, northM: 0 },
    { id: 6, eastM: 150, northM: 0, tags: { highway: 'traffic_signals' } },
    { id: 3, eastM: 200, northM: 0 },
    { id: 4, eastM: 100, northM: 100 },
    { id: 5, eastM: 100, northM: -100, tags: { highway: 'stop' } },
    { id: 11, eastM: 1500, northM: 0 },
    { id: 12, eastM: 3000, northM: 0 },
    { id: 20, eastM: 1500, northM: 0 },
    { id: 21, eastM: 1520, northM: 20 },
    { id: 22, eastM: 1540, northM: 0 },
    { id: 23, eastM: 1520, northM: -20 },
    { id: 30, eastM: 3000, northM: 1500 },
    { id: 40, eastM: -50, northM: -150 },
    { id: 41, eastM: 400, northM: -150 },
    { id: 42, eastM: 400, northM: 150 },
    { id: 43, eastM: -50, northM: 150 },
    { id: 50, eastM: 0, northM: 100 },
  ];
  const ways: FixtureWay[] = [
    {
      id: 100,
      nodes: [1, 2, 6, 3],
      tags: { highway: 'residential', name: 'Rue A', maxspeed: '30 mph', surface: 'asphalt' },
    },
    { id: 101, nodes: [4, 2, 5], tags: { highway: 'secondary', name: 'Rue B', oneway: '-1', lanes: '1' } },
    {
      id: 102,
      nodes: [3, 11],
      tags: { highway: 'primary', ref: 'D 1', lanes: '2', 'maxspeed:forward': '70', 'maxspeed:backward': '50' },
    },
    { id: 103, nodes: [20, 21, 22, 23, 20], tags: { highway: 'primary', junction: 'roundabout' } },
    { id: 104, nodes: [22, 12], tags: { highway: 'tertiary', name: 'Route de la Plaine' } },
    { id: 105, nodes: [12, 30], tags: { highway: 'unclassified', 'source:maxspeed': 'FR:urban' } },
    { id: 106, nodes: [1, 50], tags: { highway: 'footway' } },
    { id: 107, nodes: [50, 4], tags: { highway: 'service', access: 'private' } },
    { id: 108, nodes: [40, 41, 42, 43, 40], tags: { landuse: 'residential' } },
  ];
  // Way 102 ends at node 11, which the roundabout reaches through node 20 at the same place: join them.
  ways[2]!.nodes = [3, 20];
  return osmXml(nodes, ways);
}
