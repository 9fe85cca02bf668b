import { generateCity, loadGraph, matchTrace } from './src/index.ts';
import { driveRoute, randomRoutes } from './test/support/synthetic-trace.ts';

const g = process.env.G ? loadGraph(`/tmp/rscratch/${process.env.G}.graph`) : generateCity({ seed: 1 });
const routes = randomRoutes(g, 12, 42, 1500, 10000);
const stats: Record<string, number> = {};
routes.forEach((r, i) => {
  const trace = driveRoute(g, r, { intervalS: 1, noiseM: 10, seed: i + 1, signalStopS: 0 });
  const m = matchTrace(g, trace.points, JSON.parse(process.env.OPTS ?? '{}'));
  const routeEdges = new Set(r.edges);
  m.points.forEach((p, k) => {
    const t = trace.truthEdges[k]!;
    let key = 'ok';
    if (!p.matched) key = 'unmatched-' + p.reason;
    else if (p.edge !== t) {
      const thinned = false;
      if (p.edge === g.edgeReverse(t)) key = 'reverse';
      else if (routeEdges.has(p.edge!)) key = 'adjacent-route-edge';
      else if (g.edgeReverse(p.edge!) >= 0 && routeEdges.has(g.edgeReverse(p.edge!))) key = 'reverse-of-route-edge';
      else key = 'other';
    }
    stats[key] = (stats[key] ?? 0) + 1;
  });
});
console.log(stats);
