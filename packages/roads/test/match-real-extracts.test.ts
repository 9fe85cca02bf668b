import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGraphFromOsm, haversineM, matchTrace, type RoadGraph, readTrace } from '../src/index.ts';
import { accuracyOf, driveRoute, randomRoutes } from './support/synthetic-trace.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));

function evaluate(graph: RoadGraph, intervalS: number, count: number) {
  const routes = randomRoutes(graph, count, 42, intervalS === 1 ? 1500 : 3000, 10_000);
  let length = 0;
  let recall = 0;
  routes.forEach((r, i) => {
    const trace = driveRoute(graph, r, { intervalS, noiseM: 10, seed: i + 1, signalStopS: 20 });
    recall += accuracyOf(r, trace, matchTrace(graph, trace.points)).routeRecall * r.lengthM;
    length += r.lengthM;
  });
  return { routes: routes.length, recall: recall / length };
}

for (const name of ['monaco', 'andorra']) {
  const file = `${DATA}osm/${name}.osm.pbf`;
  describe.skipIf(!existsSync(file))(
    `synthetic traces along real ${name} routes (skipped when ../shared/data is absent)`,
    () => {
      let graph: RoadGraph;
      beforeAll(async () => {
        graph = await buildGraphFromOsm(file);
      });

      it('puts at least 98 % of the route length on the right edges at 1 Hz with sigma 10 m noise', () => {
        const { routes, recall } = evaluate(graph, 1, 10);
        expect(routes).toBe(10);
        expect(recall).toBeGreaterThanOrEqual(0.98);
      });

      it('puts at least 95 % of the route length on the right edges at one fix per 30 s', () => {
        const { routes, recall } = evaluate(graph, 30, 10);
        expect(routes).toBe(10);
        expect(recall).toBeGreaterThanOrEqual(0.95);
      });
    },
  );
}

const andorraPbf = `${DATA}osm/andorra.osm.pbf`;
const andorraGpx = `${DATA}traces/andorra-route.gpx`;
describe.skipIf(!existsSync(andorraPbf) || !existsSync(andorraGpx))(
  "GraphHopper's Andorra GPX track (no timestamps)",
  () => {
    it('matches the whole track without dead-end detours (matched length under 1.5 x the track length)', async () => {
      const graph = await buildGraphFromOsm(andorraPbf);
      const points = await readTrace(andorraGpx);
      const result = matchTrace(graph, points);
      expect(result.matchedShare).toBe(1);
      expect(result.subTraces).toHaveLength(1);
      let trackM = 0;
      for (let i = 1; i < points.length; i++)
        trackM += haversineM(points[i - 1]!.lon, points[i - 1]!.lat, points[i]!.lon, points[i]!.lat);
      const matchedM = result.path.reduce((sum, s) => sum + s.lengthM, 0);
      expect(matchedM / trackM).toBeLessThan(1.5);
      expect(matchedM / trackM).toBeGreaterThan(0.8);
    });
  },
);
