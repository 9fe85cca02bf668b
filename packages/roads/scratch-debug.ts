import { generateCity, matchTrace } from './src/index.ts';
import { accuracyOf, driveRoute, randomRoutes } from './test/support/synthetic-trace.ts';

const g = generateCity({ seed: 1 });
const routes = randomRoutes(g, 20, 42, 1500, 10000);
const i = Number(process.env.I ?? 0);
const r = routes[i]!;
const trace = driveRoute(g, r, { intervalS: 1, noiseM: 10, seed: i + 1, signalStopS: Number(process.env.STOP ?? 20) });
const m = matchTrace(g, trace.points, JSON.parse(process.env.OPTS ?? '{}'));
console.log(accuracyOf(r, trace, m));
console.log('truth', r.segments.map((s) => `${s.edge}:${s.lengthM.toFixed(0)}`).join(' '));
console.log('match', m.path.map((s) => `${s.edge}:${s.lengthM.toFixed(0)}[${s.fromPoint}-${s.toPoint}]`).join(' '));
m.points.forEach((p, k) => {
  if (p.edge !== trace.truthEdges[k])
    console.log(
      k,
      'got',
      p.edge,
      'rev',
      p.edge !== null ? g.edgeReverse(p.edge) : '-',
      'truth',
      trace.truthEdges[k],
      p.confidence.toFixed(2),
      p.reason ?? '',
    );
});
