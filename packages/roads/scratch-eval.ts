import { generateCity, loadGraph, type MatchOptions, matchTrace, type RoadGraph } from './src/index.ts';
import { accuracyOf, driveRoute, randomRoutes } from './test/support/synthetic-trace.ts';

const opts: MatchOptions = JSON.parse(process.env.OPTS ?? '{}');
const graphs: Array<[string, RoadGraph]> = [
  ['city', generateCity({ seed: 1 })],
  ['monaco', loadGraph('/tmp/rscratch/monaco.graph')],
  ['andorra', loadGraph('/tmp/rscratch/andorra.graph')],
];
for (const interval of [1, 30]) {
  for (const [name, g] of graphs) {
    const routes = randomRoutes(g, Number(process.env.N ?? 20), 42, interval === 30 ? 3000 : 1500, 10000);
    let tr = 0,
      tp = 0,
      pa = 0,
      worst = 1,
      pts = 0,
      ms = 0,
      wr = 1,
      wp = 1;
    routes.forEach((r, i) => {
      const trace = driveRoute(g, r, {
        intervalS: interval,
        noiseM: 10,
        seed: i + 1,
        signalStopS: Number(process.env.STOP ?? 20),
      });
      const t0 = performance.now();
      const m = matchTrace(g, trace.points, opts);
      ms += performance.now() - t0;
      pts += trace.points.length;
      const a = accuracyOf(r, trace, m);
      const len = r.lengthM;
      tr += a.routeRecall * len;
      tp += a.pathPrecision * len;
      pa += a.pointAccuracy * len;
      worst = Math.min(worst, a.routeRecall, a.pathPrecision);
      if (process.env.V && (a.routeRecall < 0.97 || a.pathPrecision < 0.97))
        console.log('  bad', name, i, a, 'sub', m.subTraces.length, 'share', m.matchedShare.toFixed(3));
    });
    const L = routes.reduce((s, r) => s + r.lengthM, 0);
    console.log(
      `${name} ${interval}s routes=${routes.length} recall=${(tr / L).toFixed(4)} precision=${(tp / L).toFixed(4)} points=${(pa / L).toFixed(4)} worst=${worst.toFixed(3)} pts=${pts} pts/s=${((pts / ms) * 1000).toFixed(0)}`,
    );
  }
}
