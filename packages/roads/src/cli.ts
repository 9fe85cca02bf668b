import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { runCli } from '@svc/platform/cli';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { graphSummary, matchGeoJson, matchJson } from './cli/cli-output.ts';
import { GRAPH_MAGIC, loadGraph, writeGraph } from './graph/graph-file.ts';
import type { RoadGraph } from './graph/road-graph.ts';
import { DEFAULT_MATCH_OPTIONS, type MatchOptions } from './matching/match-options.ts';
import { matchTrace } from './matching/match-trace.ts';
import { buildGraphFromOsm } from './osm/build-from-osm.ts';
import { generateCity } from './synthetic/generate-city.ts';
import { readTrace } from './trace/read-trace.ts';

/** Files at least this large get a progress bar while they are read (when stderr is a terminal). */
const PROGRESS_MIN_BYTES = 2 * 1024 * 1024;

const positiveNumber = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};

const integer = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(`${name} must be an integer from -9007199254740991 to 9007199254740991`);
  }
  return n;
};

const countryCode = (value: string) => {
  if (!/^[A-Za-z]{2}$/.test(value)) throw new InvalidArgumentError('must be a two-letter ISO 3166-1 code such as FR');
  return value.toUpperCase();
};

async function buildWithProgress(file: string, country: string | undefined): Promise<RoadGraph> {
  let bar: cliProgress.SingleBar | null = null;
  const size = statSync(file).size;
  if (process.stderr.isTTY && size >= PROGRESS_MIN_BYTES) {
    bar = new cliProgress.SingleBar(
      { format: 'reading {bar} {percentage}% | {value}/{total} MB', stream: process.stderr, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.ceil(size / 1e6), 0);
  }
  try {
    return await buildGraphFromOsm(file, {
      ...(country ? { country } : {}),
      ...(bar ? { onProgress: (read: number) => bar?.update(Math.floor(read / 1e6)) } : {}),
    });
  } finally {
    bar?.stop();
  }
}

function isGraphFile(file: string): boolean {
  // A folder is no graph; reading it as an OSM extract then says what it is.
  if (statSync(file).isDirectory()) return false;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(GRAPH_MAGIC.length);
    readSync(fd, head, 0, head.length, 0);
    return head.toString('latin1') === GRAPH_MAGIC;
  } finally {
    closeSync(fd);
  }
}

const program = new Command('roads').description(
  'Road graphs for cars from OpenStreetMap, synthetic cities, and HMM map matching of GPS traces',
);

program
  .command('generate')
  .description('write a seeded synthetic city (grid, arterials, ring road, motorway, roundabouts) as a graph file')
  .requiredOption('--seed <n>', 'random seed (same seed, same city)', integer('--seed'))
  .requiredOption('-o, --output <graph-file>', 'graph file to write')
  .option('--blocks <n>', 'blocks along each side of the grid', integer('--blocks'), 12)
  .option('--block-m <metres>', 'block edge length', positiveNumber('--block-m'), 160)
  .option('--country <code>', 'country whose default speed limits apply', countryCode, 'FR')
  .action((opts: { seed: number; output: string; blocks: number; blockM: number; country: string }) => {
    const started = performance.now();
    const graph = generateCity({ seed: opts.seed, blocks: opts.blocks, blockM: opts.blockM, country: opts.country });
    writeGraph(graph, opts.output);
    process.stdout.write(`${graphSummary(graph, opts.output, (performance.now() - started) / 1000)}\n`);
  });

program
  .command('build')
  .description('build a graph file from an OpenStreetMap extract (.osm.pbf, .osm or .osm.gz)')
  .argument('<osm-file>', 'OpenStreetMap extract')
  .requiredOption('-o, --output <graph-file>', 'graph file to write')
  .option(
    '--country <code>',
    "apply this country's default limits everywhere (default: per road, see README)",
    countryCode,
  )
  .action(async (osmFile: string, opts: { output: string; country?: string }) => {
    const started = performance.now();
    const graph = await buildWithProgress(osmFile, opts.country);
    writeGraph(graph, opts.output);
    process.stdout.write(`${graphSummary(graph, opts.output, (performance.now() - started) / 1000)}\n`);
  });

program
  .command('match')
  .description('map-match a GPS trace (GPX, GeoJSON, CSV lon,lat,time, NDJSON samples) and print the matched path')
  .argument('<graph>', 'graph file, or an OpenStreetMap extract to build one from on the fly')
  .argument('<trace-file>', 'GPS trace')
  .addOption(new Option('--format <format>', 'output format').choices(['json', 'geojson']).default('json'))
  .option('--sigma <metres>', 'GPS noise sigma when fixes carry no accuracy', positiveNumber('--sigma'))
  .option('--beta <metres>', 'transition scale on |route - straight-line distance|', positiveNumber('--beta'))
  .option('--radius <metres>', 'candidate search radius', positiveNumber('--radius'))
  .option('--country <code>', 'when building from OSM: country whose default limits apply', countryCode)
  .action(
    async (
      graphFile: string,
      traceFile: string,
      opts: { format: 'json' | 'geojson'; sigma?: number; beta?: number; radius?: number; country?: string },
    ) => {
      const graph = isGraphFile(graphFile) ? loadGraph(graphFile) : await buildWithProgress(graphFile, opts.country);
      const points = await readTrace(traceFile);
      const options: MatchOptions = {
        ...(opts.sigma ? { sigmaM: opts.sigma } : {}),
        ...(opts.beta ? { betaM: opts.beta } : {}),
        ...(opts.radius ? { radiusM: opts.radius } : {}),
      };
      const result = matchTrace(graph, points, options);
      const document = opts.format === 'geojson' ? matchGeoJson(result) : matchJson(result);
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      const note = nothingMatchedNote(graph, points, result.points, opts.radius ?? DEFAULT_MATCH_OPTIONS.radiusM);
      if (note) process.stderr.write(`roads match: ${note}\n`);
    },
  );

program
  .command('info')
  .description('print what a graph file holds')
  .argument('<graph-file>')
  .action((graphFile: string) => {
    const started = performance.now();
    const graph = loadGraph(graphFile);
    const ms = performance.now() - started;
    process.stdout.write(
      `${JSON.stringify({ file: graphFile, loadMs: Math.round(ms * 10) / 10, nodes: graph.nodeCount, edges: graph.edgeCount, ...graph.meta }, null, 2)}\n`,
    );
  });

/**
 * Why not one fix matched, when none did: a trace from another area than the graph's (it then prints a share of
 * 0 that looks like a matcher failure), or fixes too far from every road for the search radius.
 */
function nothingMatchedNote(
  graph: RoadGraph,
  points: ReadonlyArray<{ lon: number; lat: number }>,
  matched: ReadonlyArray<{ matched: boolean; reason?: string }>,
  radiusM: number,
): string | null {
  if (points.length === 0 || matched.some((p) => p.matched)) return null;
  const [minLon, minLat, maxLon, maxLat] = graph.bbox;
  // Roughly the search radius in degrees, so a trace just outside the road network's box still counts as inside.
  const marginDeg = radiusM / 111_000;
  const inside = points.some(
    (p) =>
      p.lon >= minLon - marginDeg &&
      p.lon <= maxLon + marginDeg &&
      p.lat >= minLat - marginDeg &&
      p.lat <= maxLat + marginDeg,
  );
  const box = (a: number, b: number, c: number, d: number) =>
    `lon ${a.toFixed(4)}..${c.toFixed(4)}, lat ${b.toFixed(4)}..${d.toFixed(4)}`;
  if (!inside) {
    let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const p of points) {
      west = Math.min(west, p.lon);
      east = Math.max(east, p.lon);
      south = Math.min(south, p.lat);
      north = Math.max(north, p.lat);
    }
    const traceBox = box(west, south, east, north);
    return `no fix matched: the trace (${traceBox}) lies outside the graph's area (${box(minLon, minLat, maxLon, maxLat)}); match it against a graph built from an extract that covers it`;
  }
  if (matched.every((p) => p.reason === 'no-road')) {
    return `no fix matched: none lies within ${radiusM} m of a road of the graph (--radius sets the search radius)`;
  }
  return null;
}

// Usage mistakes and failures are one line on stderr and exit status 1; `| head` ends quietly.
await runCli(program);
