import { generateCity, loadGraph, matchTrace } from './src/index.ts';
import { driveRoute, randomRoutes } from './test/support/synthetic-trace.ts';

const g = process.env.G ? loadGraph(`/tmp/rscratch/${process.env.G}.graph`) : generateCity({ seed: 1 });
const routes = randomRoutes(g, 12, 42, 1500, 10000);
routes.forEach((r, i) => {
  const trace = driveRoute(g, r, { intervalS: 1, noiseM: 10, seed: i + 1, signalStopS: 0 });
  const m = matchTrace(g, trace.points, JSON.parse(process.env.OPTS ?? '{}'));
  if (m.subTraces.length > 1 || m.points.some((p) => !p.matched)) {
    console.log(
      'route',
      i,
      'subtraces',
      m.subTraces.map((s) => `${s.fromPoint}-${s.toPoint}`).join(' '),
      'unmatched',
      m.points
        .filter((p) => !p.matched)
        .map((p) => `${p.index}:${p.reason}`)
        .join(' '),
    );
  }
});
