import { generateCity } from '@svc/roads';
import { driverProfile, Rng, randomPlace, routeThrough, simulateTrip } from '@svc/simulator';
import { scoreTrip } from './src/index.ts';

const graph = generateCity({ seed: 1 });
const rng = Rng.from('scoring-population');
const points = Array.from({ length: 8 }, () => randomPlace(graph, rng, 'work'));
const route = routeThrough(
  graph,
  points,
  points.slice(1, -1).map(() => 0),
);
const { batch } = simulateTrip({
  route,
  driver: driverProfile({ aggressiveness: 0.5 }),
  startMs: Date.UTC(2025, 2, 3, 8),
  seed: 1,
});
for (let i = 0; i < 5; i++) scoreTrip(batch, { graph });
for (const g of [undefined, graph]) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < 60; i++) scoreTrip(batch, { graph: g });
  const c = process.cpuUsage(c0);
  console.log(
    g ? 'graph' : 'nograph',
    'wall',
    ((performance.now() - t0) / 60).toFixed(1),
    'cpu',
    ((c.user + c.system) / 1000 / 60).toFixed(1),
    'ms',
    batch.samples.length,
  );
}
