import { generateCity, loadGraph, matchTrace } from './src/index.ts';
import { DEBUG } from './src/matching/match-trace.ts';
import { driveRoute, randomRoutes } from './test/support/synthetic-trace.ts';

const g = process.env.G ? loadGraph(`/tmp/rscratch/${process.env.G}.graph`) : generateCity({ seed: 1 });
const routes = randomRoutes(g, 12, 42, 1500, 10000);
const i = Number(process.env.I);
const r = routes[i]!;
const trace = driveRoute(g, r, { intervalS: 1, noiseM: 10, seed: i + 1, signalStopS: 0 });
const [a, b] = process.env.RANGE!.split('-').map(Number);
DEBUG.on = true;
DEBUG.log = (l) => {
  const m = /step (\d+)->(\d+)/.exec(l);
  if (m) DEBUG.show = Number(m[2]) >= a! && Number(m[1]) <= b!;
  if ((DEBUG as any).show) console.log(l);
};
const m = matchTrace(g, trace.points, JSON.parse(process.env.OPTS ?? '{}'));
for (let k = a!; k <= b!; k++)
  console.log(k, 'truth', trace.truthEdges[k], 'got', m.points[k]!.edge, m.points[k]!.reason ?? '');
const seen = new Set<number>();
for (let k = a!; k <= b!; k++) {
  const e = trace.truthEdges[k]!;
  if (!seen.has(e)) {
    seen.add(e);
    console.log(
      'edge',
      e,
      g.edgeFrom(e),
      '->',
      g.edgeTo(e),
      g.edgeLengthM(e).toFixed(0),
      g.edgeHighway(e),
      g.edgeName(e),
      'rev',
      g.edgeReverse(e),
    );
  }
}
