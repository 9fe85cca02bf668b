import { generateCity } from '@svc/roads';
import { Rng, randomPlace, routeThrough } from '@svc/simulator';

/**
 * The route every population run drives (tests and the calibration benches): the synthetic city of seed 1 and a
 * drive through eight places drawn from the "scoring-population" stream, without stops between them. Shared so
 * that the calibration figures in the README and the tests measure the same 12.5 km.
 */
export function populationRoute() {
  const graph = generateCity({ seed: 1 });
  const rng = Rng.from('scoring-population');
  const points = Array.from({ length: 8 }, () => randomPlace(graph, rng, 'work'));
  const route = routeThrough(
    graph,
    points,
    points.slice(1, -1).map(() => 0),
  );
  return { graph, route };
}
