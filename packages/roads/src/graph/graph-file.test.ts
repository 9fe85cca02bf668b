import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCity } from '../synthetic/generate-city.ts';
import { GRAPH_FILE_VERSION, loadGraph, parseGraph, serialiseGraph, writeGraph } from './graph-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'roads-graph-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('graph file', () => {
  const city = generateCity({ seed: 3 });

  it('round-trips every edge attribute, node control and the spatial index', () => {
    const file = join(dir, 'city.graph');
    writeGraph(city, file);
    const loaded = loadGraph(file);
    expect(loaded.edgeCount).toBe(city.edgeCount);
    expect(loaded.nodeCount).toBe(city.nodeCount);
    expect(loaded.country).toBe('FR');
    expect(loaded.bbox).toEqual(city.bbox);
    for (let e = 0; e < city.edgeCount; e += 7) expect(loaded.edge(e)).toEqual(city.edge(e));
    for (let n = 0; n < city.nodeCount; n++) expect(loaded.nodeControl(n)).toBe(city.nodeControl(n));
    const [minLon, minLat, maxLon, maxLat] = city.bbox;
    expect(loaded.index.search(minLon, minLat, maxLon, maxLat).length).toBe(
      city.index.search(minLon, minLat, maxLon, maxLat).length,
    );
  });

  it('writes through no file or link put beforehand where it writes its temporary copy', () => {
    // `roads build --out` into a folder others can write (a shared folder): the temporary copy had a name anyone
    // could foresee (the pid) and was opened whether or not something was already there. A link planted under it
    // had the graph written into the file it points to, and a file planted under it became the graph, keeping its
    // planter as owner (who could then change the graph the service scores against).
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'not a graph');
    symlinkSync(victim, join(shared, `.linked.graph.partial-${process.pid}`));
    const planted = join(shared, `.planted.graph.partial-${process.pid}`);
    writeFileSync(planted, '');
    chmodSync(planted, 0o666);
    writeGraph(city, join(shared, 'linked.graph'));
    writeGraph(city, join(shared, 'planted.graph'));
    expect(readFileSync(victim, 'utf8')).toBe('not a graph');
    expect(statSync(planted).size).toBe(0);
    for (const name of ['linked.graph', 'planted.graph']) {
      expect(loadGraph(join(shared, name)).edgeCount).toBe(city.edgeCount);
    }
    // Nothing of its own is left beside them.
    expect(readdirSync(shared).sort()).toEqual([
      `.linked.graph.partial-${process.pid}`,
      `.planted.graph.partial-${process.pid}`,
      'linked.graph',
      'planted.graph',
    ]);
  });

  it('rejects a file without the magic number', () => {
    const file = join(dir, 'not-a-graph.graph');
    writeFileSync(file, 'hello, this is not a graph file at all');
    expect(() => loadGraph(file)).toThrow(
      /not-a-graph\.graph: not a usable road graph file: expected magic "SVCROADS"/,
    );
  });

  it('says an OpenStreetMap extract given as a graph is one, and how to build the graph', () => {
    const file = join(dir, 'town.osm');
    writeFileSync(
      file,
      '<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6"><node id="1" lat="1" lon="1"/></osm>',
    );
    expect(() => loadGraph(file)).toThrow(
      `${file}: not a usable road graph file: it is an OpenStreetMap extract; build a graph from it first: roads build ${file} -o <file>.graph`,
    );
  });

  const monacoPbf = fileURLToPath(new URL('../../../../../shared/data/osm/monaco.osm.pbf', import.meta.url));
  it.skipIf(!existsSync(monacoPbf))(
    'says the real Monaco .osm.pbf given as a graph is an extract (skipped when ../shared/data is absent)',
    () => {
      expect(() => loadGraph(monacoPbf)).toThrow(
        /monaco\.osm\.pbf: not a usable road graph file: it is an OpenStreetMap extract; build a graph from it first: roads build .*monaco\.osm\.pbf -o <file>\.graph$/,
      );
    },
  );

  it('rejects another format version and asks for a rebuild', () => {
    const bytes = serialiseGraph(city);
    bytes.writeUInt32LE(GRAPH_FILE_VERSION + 1, 8);
    expect(() => parseGraph(bytes, 'old.graph')).toThrow(/old\.graph: .*format version 2.*rebuild/);
  });

  it('rejects a truncated file', () => {
    const file = join(dir, 'city.graph');
    const bytes = readFileSync(file);
    expect(() => parseGraph(bytes.subarray(0, Math.floor(bytes.length / 2)), 'cut.graph')).toThrow(
      /cut\.graph: .*truncated/,
    );
  });

  it('names the file it cannot read', () => {
    expect(() => loadGraph(join(dir, 'missing.graph'))).toThrow(/missing\.graph: cannot read graph file \(ENOENT\)/);
  });
});
