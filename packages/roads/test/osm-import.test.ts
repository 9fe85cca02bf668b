import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraphFromOsm, OsmInputError, type RoadGraph } from '../src/index.ts';
import { osmXml, townFixture } from './support/osm-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'roads-osm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DATA = fileURLToPath(new URL('../../../../shared/data/osm/', import.meta.url));
const MONACO = `${DATA}monaco.osm.pbf`;
const ANDORRA = `${DATA}andorra.osm.pbf`;

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function edgesOfWay(graph: RoadGraph, wayId: number) {
  const out = [];
  for (let e = 0; e < graph.edgeCount; e++) if (graph.edgeWayId(e) === wayId) out.push(graph.edge(e));
  return out;
}

function nodeByOsmId(graph: RoadGraph, id: number): number {
  for (let n = 0; n < graph.nodeCount; n++) if (graph.nodeOsmId(n) === id) return n;
  return -1;
}

describe('OSM XML import', () => {
  let graph: RoadGraph;
  beforeAll(async () => {
    graph = await buildGraphFromOsm(file('town.osm', townFixture()));
  });

  it('builds the car graph from .osm XML', () => {
    expect(graph.country).toBe('FR');
    expect(graph.meta.source).toBe('town.osm');
  });

  it('keeps drivable roads only (no footways, no private drives)', () => {
    expect(edgesOfWay(graph, 106)).toEqual([]);
    expect(edgesOfWay(graph, 107)).toEqual([]);
  });

  it('splits ways at junctions and at signal-controlled nodes, in both directions of two-way roads', () => {
    const a = edgesOfWay(graph, 100);
    // 1-2, 2-6 and 6-3, each both ways.
    expect(a).toHaveLength(6);
    expect(a.every((e) => e.name === 'Rue A' && e.highway === 'residential' && e.surface === 'asphalt')).toBe(true);
    expect(a.every((e) => !e.oneway && e.reverseEdge !== null)).toBe(true);
    const total = a.reduce((sum, e) => sum + e.lengthM, 0) / 2;
    expect(total).toBeCloseTo(200, 0);
  });

  it('records traffic signals and stop signs on their nodes', () => {
    expect(graph.nodeControl(nodeByOsmId(graph, 6))).toBe('signals');
    expect(graph.nodeControl(nodeByOsmId(graph, 5))).toBe('stop');
    expect(graph.nodeControl(nodeByOsmId(graph, 2))).toBeNull();
  });

  it('converts mph limits and marks them explicit', () => {
    for (const e of edgesOfWay(graph, 100)) {
      expect(e.speedLimitKmh).toBeCloseTo(48.28, 2);
      expect(e.limitSource).toBe('explicit');
    }
  });

  it('drives oneway=-1 against the node order only', () => {
    const b = edgesOfWay(graph, 101);
    expect(b).toHaveLength(2);
    for (const e of b) {
      expect(e.oneway).toBe(true);
      expect(e.reverseEdge).toBeNull();
      // Node order is 4, 2, 5: driving goes 5 -> 2 -> 4.
      expect(e.coordinates[0]![1]).toBeLessThan(e.coordinates[e.coordinates.length - 1]![1]);
    }
    // Urban secondary road in France without maxspeed: the 50 km/h default; lanes kept.
    expect(b[0]!.speedLimitKmh).toBe(50);
    expect(b[0]!.limitSource).toBe('default');
    expect(b[0]!.urban).toBe(true);
    expect(b[0]!.lanes).toBe(1);
  });

  it('uses per-direction limits', () => {
    const c = edgesOfWay(graph, 102);
    expect(c.map((e) => e.speedLimitKmh).sort()).toEqual([50, 70]);
    const forward = c.find((e) => e.coordinates[0]![0] < e.coordinates[e.coordinates.length - 1]![0])!;
    expect(forward.speedLimitKmh).toBe(70);
    expect(forward.ref).toBe('D 1');
  });

  it('makes roundabouts one-way and flags them', () => {
    const r = edgesOfWay(graph, 103);
    expect(r.length).toBeGreaterThanOrEqual(2);
    expect(r.every((e) => e.oneway && e.roundabout)).toBe(true);
  });

  it('applies the rural default outside the built-up area and zone tags where present', () => {
    const rural = edgesOfWay(graph, 104);
    expect(rural.every((e) => !e.urban && e.speedLimitKmh === 80 && e.limitSource === 'default')).toBe(true);
    const zoned = edgesOfWay(graph, 105);
    expect(zoned.every((e) => e.urban && e.speedLimitKmh === 50 && e.limitSource === 'explicit')).toBe(true);
  });

  it('reads the lanes of each direction and keeps roundabouts off the motorway default (rural France)', async () => {
    // A rural road with a climbing lane (two lanes up, one down), a roundabout tagged motorway_link where the slip
    // roads meet it, and a slip road; no landuse or place nearby, so all rural.
    const rural = await buildGraphFromOsm(
      file(
        'rural-lanes.osm',
        osmXml(
          [
            { id: 1, eastM: 0, northM: 0 },
            { id: 2, eastM: 2000, northM: 0 },
            { id: 3, eastM: 2040, northM: 0 },
            { id: 4, eastM: 2020, northM: 20 },
            { id: 5, eastM: 2020, northM: -20 },
            { id: 6, eastM: 2020, northM: -1000 },
          ],
          [
            {
              id: 1,
              nodes: [1, 2],
              tags: { highway: 'primary', lanes: '3', 'lanes:forward': '2', 'lanes:backward': '1' },
            },
            {
              id: 2,
              nodes: [2, 5, 3, 4, 2],
              tags: { highway: 'motorway_link', junction: 'roundabout', lanes: '2' },
            },
            { id: 3, nodes: [6, 5], tags: { highway: 'motorway_link', oneway: 'yes' } },
          ],
        ),
      ),
    );
    const road = edgesOfWay(rural, 1);
    const east = road.find((e) => e.coordinates[0]![0] < e.coordinates[e.coordinates.length - 1]![0])!;
    const west = road.find((e) => e !== east)!;
    expect([east.speedLimitKmh, east.limitSource]).toEqual([90, 'default']);
    expect([west.speedLimitKmh, west.limitSource]).toEqual([80, 'default']);
    const ring = edgesOfWay(rural, 2);
    expect(ring.length).toBeGreaterThan(0);
    expect(ring.every((e) => e.roundabout && !e.urban && e.speedLimitKmh === 80)).toBe(true);
    expect(edgesOfWay(rural, 3).map((e) => e.speedLimitKmh)).toEqual([130]);
  });

  it('reads the same network from .osm.gz', async () => {
    const gz = await buildGraphFromOsm(file('town.osm.gz', gzipSync(townFixture())));
    expect(gz.edgeCount).toBe(graph.edgeCount);
    expect(gz.nodeCount).toBe(graph.nodeCount);
    expect(gz.edge(3)).toEqual(graph.edge(3));
  });

  it('lets the caller override the country', async () => {
    const de = await buildGraphFromOsm(file('town-de.osm', townFixture()), { country: 'de' });
    expect(de.country).toBe('DE');
    expect(edgesOfWay(de, 104).every((e) => e.speedLimitKmh === 100 && e.country === 'DE')).toBe(true);
  });
});

describe('bad OSM input', () => {
  const reject = (path: string) => expect(buildGraphFromOsm(path)).rejects.toBeInstanceOf(OsmInputError);

  it('names the file for an empty or non-OSM file', async () => {
    await reject(file('empty.osm', ''));
    await expect(buildGraphFromOsm(file('empty2.osm', ''))).rejects.toThrow(/empty2\.osm: the file is empty/);
    await expect(buildGraphFromOsm(file('junk.osm.pbf', Buffer.from('\x00\x00\x00\x05garbage here')))).rejects.toThrow(
      /junk\.osm\.pbf: not an OSM file/,
    );
    await expect(buildGraphFromOsm(join(dir, 'absent.osm.pbf'))).rejects.toThrow(
      /absent\.osm\.pbf: cannot read OSM file \(ENOENT\)/,
    );
  });

  it('names the record for broken coordinates', async () => {
    const nan = osmXml([{ id: 7, eastM: 0, northM: 0 }], []).replace(/lat="[^"]+"/, 'lat="abc"');
    await expect(buildGraphFromOsm(file('nan.osm', nan))).rejects.toThrow(/nan\.osm: node 7: lat is "abc" at line 3/);
    const far = osmXml([{ id: 8, eastM: 0, northM: 0 }], []).replace(/lon="[^"]+"/, 'lon="190"');
    await expect(buildGraphFromOsm(file('far.osm', far))).rejects.toThrow(
      /far\.osm: node 8: coordinates 190,.* out of range/,
    );
  });

  it('rejects truncated XML and truncated gzip', async () => {
    const xml = townFixture();
    await expect(buildGraphFromOsm(file('cut.osm', xml.slice(0, xml.length / 2)))).rejects.toThrow(
      /cut\.osm: malformed OSM XML/,
    );
    const gz = gzipSync(xml);
    await expect(buildGraphFromOsm(file('cut.osm.gz', gz.subarray(0, gz.length / 2)))).rejects.toThrow(
      /cut\.osm\.gz: corrupt or truncated gzip data/,
    );
  });

  it('says so when an extract has no drivable roads', async () => {
    await expect(
      buildGraphFromOsm(
        file(
          'paths.osm',
          osmXml(
            [
              { id: 1, eastM: 0, northM: 0 },
              { id: 2, eastM: 9, northM: 0 },
            ],
            [{ id: 1, nodes: [1, 2], tags: { highway: 'footway' } }],
          ),
        ),
      ),
    ).rejects.toThrow(/paths\.osm: no drivable roads/);
  });

  it.skipIf(!existsSync(ANDORRA))('rejects a truncated PBF, naming the file and the last element read', async () => {
    const bytes = readFileSync(ANDORRA);
    const cut = file('andorra-cut.osm.pbf', bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    await expect(buildGraphFromOsm(cut)).rejects.toThrow(
      /andorra-cut\.osm\.pbf: corrupt or truncated PBF after \d+ elements \(last: (node|way|relation) \d+/,
    );
    const corrupt = Buffer.from(bytes);
    corrupt.fill(0x55, 200_000, 200_400);
    await expect(buildGraphFromOsm(file('andorra-corrupt.osm.pbf', corrupt))).rejects.toThrow(
      /andorra-corrupt\.osm\.pbf: corrupt or truncated PBF/,
    );
  });
});

describe.skipIf(!existsSync(MONACO))('Monaco extract (../shared/data/osm/monaco.osm.pbf; skipped when absent)', () => {
  let graph: RoadGraph;
  beforeAll(async () => {
    graph = await buildGraphFromOsm(MONACO);
  });

  it('imports the drivable network with its signals, roundabouts and limits', () => {
    expect(graph.edgeCount).toBeGreaterThan(4000);
    expect(graph.meta.stats.roadKm).toBeGreaterThan(300);
    // 21 highway=traffic_signals nodes in the extract, plus a stop and a give-way sign.
    expect(graph.meta.stats.controlledNodes).toBeGreaterThanOrEqual(21);
    let roundabout = 0;
    let explicit = 0;
    for (let e = 0; e < graph.edgeCount; e++) {
      const edge = graph.edge(e);
      if (edge.roundabout) {
        roundabout++;
        expect(edge.oneway).toBe(true);
      }
      if (edge.limitSource === 'explicit') explicit++;
      expect(edge.limitSource).not.toBe('unknown');
    }
    expect(roundabout).toBeGreaterThan(50);
    expect(explicit).toBeGreaterThan(0);
  });

  it("gives roads inside Monaco Monaco's 50 km/h default and the French Riviera France's", () => {
    let inMonaco = 0;
    let inFrance = 0;
    for (let e = 0; e < graph.edgeCount; e++) {
      const edge = graph.edge(e);
      if (edge.limitSource !== 'default') continue;
      const [lon, lat] = edge.coordinates[0]!;
      if (lon > 7.415 && lon < 7.435 && lat > 43.728 && lat < 43.745) {
        inMonaco++;
        expect(edge.country).toBe('MC');
        expect(edge.speedLimitKmh).toBe(50);
      }
      if (lon < 7.36) {
        inFrance++;
        expect(edge.country).toBe('FR');
      }
    }
    expect(inMonaco).toBeGreaterThan(100);
    expect(inFrance).toBeGreaterThan(10);
  });
});

describe.skipIf(!existsSync(ANDORRA))(
  'Andorra extract (../shared/data/osm/andorra.osm.pbf; skipped when absent)',
  () => {
    it("uses Andorra's defaults: 90 on rural CG roads, 50 in town", async () => {
      const graph = await buildGraphFromOsm(ANDORRA);
      expect(graph.country).toBe('AD');
      let ruralCg = 0;
      let urbanDefault = 0;
      for (let e = 0; e < graph.edgeCount; e++) {
        const edge = graph.edge(e);
        if (edge.limitSource !== 'default' || edge.country !== 'AD') continue;
        if (!edge.urban && edge.ref?.startsWith('CG')) {
          ruralCg++;
          expect(edge.speedLimitKmh).toBe(90);
        }
        if (edge.urban) {
          urbanDefault++;
          expect(edge.speedLimitKmh).toBe(edge.highway === 'living_street' ? 20 : 50);
        }
      }
      expect(ruralCg).toBeGreaterThan(10);
      expect(urbanDefault).toBeGreaterThan(100);
      // About 13 % of Andorra's highway ways carry maxspeed; by length the explicit share is similar.
      expect(graph.meta.stats.explicitLimitShare).toBeGreaterThan(0.08);
      expect(graph.meta.stats.explicitLimitShare).toBeLessThan(0.3);
    });
  },
);
