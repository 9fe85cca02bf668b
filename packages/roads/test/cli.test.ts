import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCity, loadGraph, route } from '../src/index.ts';
import { townFixture } from './support/osm-fixture.ts';
import { driveRoute } from './support/synthetic-trace.ts';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/roads.js', import.meta.url));
const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'roads-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function roads(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('roads CLI', () => {
  const cityFile = join(dir, 'city.graph');
  const csvFile = join(dir, 'trip.csv');
  const gpxFile = join(dir, 'trip.gpx');

  beforeAll(async () => {
    const generated = await roads('generate', '--seed', '7', '-o', cityFile);
    expect(generated.code).toBe(0);
    const city = generateCity({ seed: 7 });
    const r = route(city, [4.489, 45.492], [4.51, 45.507])!;
    const trace = driveRoute(city, r, { intervalS: 1, noiseM: 8, seed: 1 });
    writeFileSync(
      csvFile,
      `lon,lat,time\n${trace.points.map((p) => `${p.lon},${p.lat},${new Date(p.timeMs!).toISOString()}`).join('\n')}\n`,
    );
    writeFileSync(
      gpxFile,
      `<gpx><trk><trkseg>${trace.points.map((p) => `<trkpt lat="${p.lat}" lon="${p.lon}"/>`).join('')}</trkseg></trk></gpx>`,
    );
  });

  it('generate writes a loadable synthetic city and prints a summary', async () => {
    const graph = loadGraph(cityFile);
    expect(graph.meta.source).toBe('synthetic-city seed=7 blocks=12');
    const again = await roads('generate', '--seed', '7', '-o', join(dir, 'again.graph'));
    expect(again.stdout).toMatch(/nodes\s+\d+/);
    expect(again.stdout).toMatch(/explicit limits\s+[\d.]+ %/);
  });

  it('generate refuses a city too large to build or beyond valid coordinates, in one line', async () => {
    for (const args of [
      ['--block-m', '1e9'],
      ['--block-m', '0.000001'],
      ['--blocks', '5000'],
      ['--blocks', '2'],
    ]) {
      const result = await roads('generate', '--seed', '1', ...args, '-o', join(dir, 'huge.graph'));
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^roads: generateCity: (blockM|blocks) must be .*\n$/);
    }
  });

  it('build reads OSM XML and prints nodes, edges, km of road and the share of explicit limits', async () => {
    const osm = join(dir, 'town.osm');
    writeFileSync(osm, townFixture());
    const out = join(dir, 'town.graph');
    const result = await roads('build', osm, '-o', out);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/country\s+FR/);
    expect(result.stdout).toMatch(/nodes\s+\d+/);
    expect(result.stdout).toMatch(/edges\s+\d+ \(directed\)/);
    expect(result.stdout).toMatch(/road length\s+[\d.]+ km/);
    expect(result.stdout).toMatch(/explicit limits\s+[\d.]+ % of road length/);
    expect(loadGraph(out).edgeCount).toBeGreaterThan(10);
  });

  it('match prints JSON with matchedShare, the path and the points', async () => {
    const result = await roads('match', cityFile, csvFile);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.matchedShare).toBeGreaterThan(0.95);
    expect(json.path.length).toBeGreaterThan(3);
    for (const key of ['wayId', 'name', 'highway', 'speedLimitKmh', 'limitSource', 'lengthM']) {
      expect(json.path[0]).toHaveProperty(key);
    }
    expect(json.points[0]).toMatchObject({ index: 0, matched: true });
  });

  it('match says why nothing matched when the trace lies outside the graph, and says nothing when it matched', async () => {
    expect((await roads('match', cityFile, csvFile)).stderr).toBe('');
    const elsewhere = join(dir, 'elsewhere.csv');
    // The same drive 10 degrees east, far from the synthetic city.
    const lines = readFileSync(csvFile, 'utf8').trim().split('\n');
    writeFileSync(
      elsewhere,
      `${lines[0]}\n${lines
        .slice(1)
        .map((l) => {
          const [lon, lat, time] = l.split(',');
          return `${Number(lon) + 10},${lat},${time}`;
        })
        .join('\n')}\n`,
    );
    const result = await roads('match', cityFile, elsewhere);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).matchedShare).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^roads match: no fix matched: the trace \(lon 14\.\d{4}\.\.14\.\d{4}, lat 45\.\d{4}\.\.45\.\d{4}\) lies outside the graph's area \(lon 4\.\d{4}\.\.4\.\d{4}, lat 45\.\d{4}\.\.45\.\d{4}\); match it against a graph built from an extract that covers it$/,
      ),
    ]);
  });

  it('match prints GeoJSON for a GPX track without times', async () => {
    const result = await roads('match', cityFile, gpxFile, '--format', 'geojson');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.type).toBe('FeatureCollection');
    expect(json.features.some((f: { geometry: { type: string } }) => f.geometry.type === 'LineString')).toBe(true);
    expect(json.properties.matchedShare).toBeGreaterThan(0.95);
  });

  it.skipIf(!existsSync(`${DATA}osm/andorra.osm.pbf`))(
    'match builds the graph on the fly from an OSM extract',
    async () => {
      const result = await roads('match', `${DATA}osm/andorra.osm.pbf`, `${DATA}traces/andorra-route.gpx`);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).matchedShare).toBe(1);
    },
  );

  it('answers usage mistakes in one line prefixed by the command, as every CLI of the repository does', async () => {
    for (const [args, message] of [
      [['generate', '--seed', '1', '--bogus', '-o', join(dir, 'z.graph')], "roads: unknown option '--bogus'"],
      [['generate', '-o', join(dir, 'z.graph')], "roads: required option '--seed <n>' not specified"],
      // A mistyped option is named, not hidden behind the required option it leaves missing.
      [['generate', '--sed', '1', '-o', join(dir, 'z.graph')], "roads: unknown option '--sed'"],
      [['info'], "roads: missing required argument 'graph-file'"],
      [['generate', '--seed', '99999999999999999999', '-o', join(dir, 'z.graph')], '--seed must be an integer'],
    ] as const) {
      const result = await roads(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.split('\n')[0], args.join(' ')).toContain(message);
      expect(result.stderr, args.join(' ')).toMatch(/^roads: /);
    }
  });

  it('says what is wrong with an output path, and replaces a graph file whole through a temporary file', async () => {
    const folder = join(dir, 'out-folder');
    mkdirSync(folder, { recursive: true });
    const folderResult = await roads('generate', '--seed', '1', '-o', folder);
    expect(folderResult.code).toBe(1);
    expect(folderResult.stderr).toBe(`roads: cannot write ${folder}: it is a folder, not a file\n`);
    const missing = join(dir, 'no-such-folder', 'x.graph');
    const missingResult = await roads('generate', '--seed', '1', '-o', missing);
    expect(missingResult.code).toBe(1);
    expect(missingResult.stderr).toBe(
      `roads: cannot write ${missing}: folder ${join(dir, 'no-such-folder')} does not exist (create it first)\n`,
    );
    // A successful write replaces the file whole, through a temporary file that does not stay behind.
    const before = loadGraph(cityFile);
    expect((await roads('generate', '--seed', '7', '-o', cityFile)).code).toBe(0);
    expect(loadGraph(cityFile).edgeCount).toBe(before.edgeCount);
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });

  it('shows the bytes of a binary file quoted in a message as ?, not as control characters', async () => {
    const binary = join(dir, 'binary.ndjson');
    writeFileSync(binary, Buffer.from([0x59, 0x01, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 0x00, 0x41]));
    const result = await roads('match', cityFile, binary);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^roads: .*binary\.ndjson: line 1: invalid JSON/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: none may reach the terminal
    expect(result.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f\ufffd]/);
  });

  it('stops quietly when its reader goes away (roads match ... | head -c 10), without a stack trace', async () => {
    // Through a shell pipe, as a user types it; the exit status of roads is printed after the output.
    const { stdout, stderr } = await run('bash', [
      '-c',
      '"$1" "$2" match "$3" "$4" | head -c 10 >/dev/null; echo "status $PIPESTATUS"',
      'bash',
      process.execPath,
      BIN,
      cityFile,
      csvFile,
    ]);
    expect(stderr).toBe('');
    expect(stdout).toBe('status 0\n');
  });

  it('fails with one line on stderr and a non-zero exit for bad input', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['match', cityFile, join(dir, 'absent.csv')], /absent\.csv: cannot read trace \(ENOENT\)/],
      [['match', join(dir, 'absent.graph'), csvFile], /absent\.graph: no such file/],
      [['build', join(dir, 'trip.csv'), '-o', join(dir, 'x.graph')], /trip\.csv: not an OSM file/],
      [['match', cityFile, join(dir, 'backwards.csv')], /backwards\.csv: line 3: time .* goes backwards/],
      [['generate', '--seed', 'abc', '-o', join(dir, 'y.graph')], /--seed must be an integer/],
    ];
    writeFileSync(
      join(dir, 'backwards.csv'),
      'lon,lat,time\n4.5,45.5,2024-01-01T00:00:05Z\n4.5,45.5,2024-01-01T00:00:01Z\n',
    );
    for (const [args, message] of cases) {
      const result = await roads(...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
