import { generateCity, loadGraph, matchTrace } from './src/index.ts';
import { accuracyOf, driveRoute, randomRoutes } from './test/support/synthetic-trace.ts';

const g = process.env.G ? loadGraph(`/tmp/rscratch/${process.env.G}.graph`) : generateCity({ seed: 1 });
const routes = randomRoutes(g, 20, 42, 1500, 10000);
const i = Number(process.env.I ?? 0);
const r = routes[i]!;
const trace = driveRoute(g, r, {
  intervalS: Number(process.env.INT ?? 1),
  noiseM: 10,
  seed: i + 1,
  signalStopS: Number(process.env.STOP ?? 0),
});
const m = matchTrace(g, trace.points, JSON.parse(process.env.OPTS ?? '{}'));
console.log(accuracyOf(r, trace, m), 'subtraces', m.subTraces.length);
const truth = new Set(r.edges);
console.log('truth', r.segments.map((s) => `${s.edge}:${s.lengthM.toFixed(0)}`).join(' '));
console.log(
  'extra',
  m.path
    .filter((s) => !truth.has(s.edge))
    .map((s) => `${s.edge}(${s.highway}):${s.lengthM.toFixed(0)}[${s.fromPoint}-${s.toPoint}]`)
    .join(' '),
);
let k = 0;
for (const p of m.points) {
  if (p.edge !== trace.truthEdges[p.index] && k++ < 15)
    console.log(
      p.index,
      'got',
      p.edge,
      'truth',
      trace.truthEdges[p.index],
      'rev',
      p.edge !== null ? g.edgeReverse(p.edge) : '',
      p.confidence.toFixed(2),
      p.distanceM?.toFixed(1),
      p.reason ?? '',
    );
}
if (process.env.RANGE) {
  const [a, b] = process.env.RANGE.split('-').map(Number);
  for (let k = a!; k <= b!; k++) {
    const p = m.points[k]!;
    console.log(
      k,
      trace.points[k]!.lon.toFixed(6),
      trace.points[k]!.lat.toFixed(6),
      'got',
      p.edge,
      p.offsetM?.toFixed(0),
      'truth',
      trace.truthEdges[k],
      'sub',
      p.subTrace,
      p.reason ?? '',
      p.confidence.toFixed(2),
    );
  }
  console.log(m.subTraces);
  for (const e of [2604, 2584, 2585, 2608, 2603, 2628])
    console.log(
      e,
      g.edgeFrom(e),
      g.edgeTo(e),
      g.edgeLengthM(e).toFixed(0),
      g.edgeName(e),
      JSON.stringify(g.edgeCoordinates(e).filter((_, i, a) => i === 0 || i === a.length - 1)),
    );
}
{
  const mm = new Map<number, number>();
  for (const s of m.path) mm.set(s.edge, (mm.get(s.edge) ?? 0) + s.lengthM);
  for (const s of r.segments) {
    const v = mm.get(s.edge) ?? 0;
    if (Math.abs(v - s.lengthM) > 2)
      console.log(
        'edge',
        s.edge,
        'truth',
        s.lengthM.toFixed(1),
        'matched',
        v.toFixed(1),
        m.path
          .filter((x) => x.edge === s.edge)
          .map((x) => `${x.startM.toFixed(0)}-${x.endM.toFixed(0)}[${x.fromPoint}-${x.toPoint}]`)
          .join(' '),
      );
  }
}
