/**
 * Benchmarks for @svc/roads: graph build and load times, map-matching throughput and accuracy.
 * Prints figures and the machine; asserts nothing. Run with `npm run bench -w packages/roads`.
 *
 * Reads the OSM extracts in ../shared/data when present (in place, never copied); the synthetic city always runs.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildGraphFromOsm,
  generateCity,
  loadGraph,
  type MatchResult,
  matchTrace,
  type RoadGraph,
  type RouteResult,
  type TracePoint,
  writeGraph,
} from '../src/index.ts';
import {
  accuracyOf,
  driveRoute,
  randomRoutes,
  type SyntheticTrace,
  withDoppler,
} from '../test/support/synthetic-trace.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/osm/', import.meta.url));
const ROUTES = Number(process.env.BENCH_ROUTES ?? 40);
const dir = mkdtempSync(join(tmpdir(), 'roads-bench-'));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const pct = (value: number) => `${(value * 100).toFixed(2)} %`;

interface Case {
  name: string;
  graph: RoadGraph;
}

function timeLoad(file: string): number {
  const samples: number[] = [];
  for (let i = 0; i < 15; i++) {
    const started = performance.now();
    loadGraph(file);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function graphs(): Promise<Case[]> {
  console.log('\n## Graph build and load');
  console.log('| graph | build | write | load (median of 15) | file | nodes | edges | road km | explicit limits |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const cases: Case[] = [];
  const report = (name: string, graph: RoadGraph, buildMs: number) => {
    const file = join(dir, `${name}.graph`);
    const started = performance.now();
    writeGraph(graph, file);
    const writeMs = performance.now() - started;
    const s = graph.meta.stats;
    console.log(
      `| ${name} | ${ms(buildMs)} | ${ms(writeMs)} | ${ms(timeLoad(file))} | ${(statSync(file).size / 1e6).toFixed(2)} MB | ${graph.nodeCount} | ${graph.edgeCount} | ${(s.roadKm ?? 0).toFixed(0)} | ${pct(s.explicitLimitShare ?? 0)} |`,
    );
    cases.push({ name, graph: loadGraph(file) });
  };
  for (const name of ['monaco', 'andorra']) {
    const file = `${DATA}${name}.osm.pbf`;
    if (!existsSync(file)) {
      console.log(`| ${name} | skipped: ${file} not found | | | | | | | |`);
      continue;
    }
    const started = performance.now();
    const graph = await buildGraphFromOsm(file);
    report(name, graph, performance.now() - started);
  }
  const started = performance.now();
  const city = generateCity({ seed: 1 });
  report('synthetic city (seed 1)', city, performance.now() - started);
  return cases;
}

interface Workload {
  routes: RouteResult[];
  traces: SyntheticTrace[];
  points: number;
}

function workload(graph: RoadGraph, intervalS: number): Workload {
  const routes = randomRoutes(graph, ROUTES, 42, intervalS === 1 ? 1500 : 3000, 10_000);
  const traces = routes.map((r, i) => driveRoute(graph, r, { intervalS, noiseM: 10, seed: i + 1, signalStopS: 20 }));
  return { routes, traces, points: traces.reduce((sum, t) => sum + t.points.length, 0) };
}

/**
 * The same routes and positions, each fix also carrying the Doppler speed and course a receiver reports (velocity
 * error 0.15 m/s per axis, no course below 0.5 m/s), as the scoring engine passes them in production. The positions
 * are unchanged, so the rows differ from the positions-only ones by the speed and course alone.
 */
function withSpeedAndCourse(w: Workload): Workload {
  return { ...w, traces: w.traces.map((t, i) => withDoppler(t, { sigmaMps: 0.15, seed: 1000 + i })) };
}

/**
 * Matched fixes per second, best of three rounds, by CPU time of this process (what one core delivers, even when
 * other work shares the machine) and by wall-clock time.
 */
function throughput(graph: RoadGraph, traces: TracePoint[][], points: number): { cpu: number; wall: number } {
  for (const t of traces.slice(0, 5)) matchTrace(graph, t); // warm up the JIT
  let cpu = 0;
  let wall = 0;
  for (let round = 0; round < 3; round++) {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    for (const t of traces) matchTrace(graph, t);
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpuStart);
    cpu = Math.max(cpu, (points / ((used.user + used.system) / 1000)) * 1000);
    wall = Math.max(wall, (points / wallMs) * 1000);
  }
  return { cpu, wall };
}

/**
 * Faults of a matched path as a map would show them: joins where a segment does not start where the one before it
 * ended (in one sub-trace), and U-turn pairs (an edge followed by its reverse) that the route itself does not make.
 */
function pathFaults(graph: RoadGraph, route: RouteResult, result: MatchResult): { breaks: number; uTurns: number } {
  const d = graph.data;
  let breaks = 0;
  let uTurns = 0;
  for (let k = 1; k < result.path.length; k++) {
    const a = result.path[k - 1]!;
    const b = result.path[k]!;
    if (a.subTrace !== b.subTrace) continue;
    const joined =
      a.edge === b.edge
        ? Math.abs(b.startM - a.endM) <= 0.01
        : d.edgeTo[a.edge] === d.edgeFrom[b.edge] && a.endM >= d.edgeLengthM[a.edge]! - 0.01 && b.startM <= 0.01;
    if (!joined) breaks++;
    if (d.edgeFrom[a.edge] === d.edgeTo[b.edge] && d.edgeTo[a.edge] === d.edgeFrom[b.edge]) {
      const inRoute = route.edges.some((e, j) => j > 0 && e === b.edge && route.edges[j - 1] === a.edge);
      if (!inRoute) uTurns++;
    }
  }
  return { breaks, uTurns };
}

function accuracy(graph: RoadGraph, w: Workload) {
  let breaks = 0;
  let uTurns = 0;
  let length = 0;
  let recall = 0;
  let precision = 0;
  let pointsRight = 0;
  let share = 0;
  w.routes.forEach((r, i) => {
    const trace = w.traces[i]!;
    const result: MatchResult = matchTrace(graph, trace.points);
    const a = accuracyOf(r, trace, result);
    length += r.lengthM;
    recall += a.routeRecall * r.lengthM;
    precision += a.pathPrecision * r.lengthM;
    pointsRight += a.pointAccuracy * trace.points.length;
    share += result.matchedShare;
    const faults = pathFaults(graph, r, result);
    breaks += faults.breaks;
    uTurns += faults.uTurns;
  });
  return {
    recall: recall / length,
    precision: precision / length,
    points: pointsRight / w.points,
    share: share / w.routes.length,
    breaks,
    uTurns,
  };
}

async function main() {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log('# @svc/roads benchmark');
  console.log(
    `machine: ${cpu}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}; node ${process.version}; one core used`,
  );
  const cases = await graphs();

  console.log(
    '\n## Map matching (sigma 10 m GPS noise, 20 s waits at signals, synthetic traces along random routes; "+ speed/course": the same fixes with Doppler speed and course, 0.15 m/s error per axis)',
  );
  console.log(
    `| graph | sampling | routes | fixes | matched fixes/s (CPU) | matched fixes/s (wall) | route length on right edges | matched path on route | fixes on right edge | mean matchedShare | path joins broken | U-turn pairs |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const { name, graph } of cases) {
    for (const intervalS of [1, 30]) {
      const positions = workload(graph, intervalS);
      const sampling = intervalS === 1 ? '1 Hz' : '1 fix / 30 s';
      for (const [label, w] of [
        [sampling, positions],
        [`${sampling} + speed/course`, withSpeedAndCourse(positions)],
      ] as const) {
        const rate = throughput(
          graph,
          w.traces.map((t) => t.points),
          w.points,
        );
        const a = accuracy(graph, w);
        console.log(
          `| ${name} | ${label} | ${w.routes.length} | ${w.points} | ${Math.round(rate.cpu).toLocaleString('en-US')} | ${Math.round(rate.wall).toLocaleString('en-US')} | ${pct(a.recall)} | ${pct(a.precision)} | ${pct(a.points)} | ${a.share.toFixed(3)} | ${a.breaks} | ${a.uTurns} |`,
        );
      }
    }
  }
  console.log(
    '\n"route length on right edges": share of the driven route whose edges are in the matched path; "matched path on route": share of the matched path on edges of the route (1 - detours); "fixes on right edge": fixes matched to the edge they were on (near junctions a fix on the neighbouring edge counts as wrong); "path joins broken": consecutive segments of the matched path where one does not start where the one before ended; "U-turn pairs": an edge of the matched path followed by its reverse where the route does not turn so.',
  );
  rmSync(dir, { recursive: true, force: true });
}

await main();
