import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildGraphFromOsm,
  haversineM,
  type LonLat,
  matchTrace,
  type RoadGraph,
  type RouteResult,
  type TracePoint,
} from '../src/index.ts';
import { gaussian, randomRoutes, seededRandom } from './support/synthetic-trace.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const monacoPbf = `${DATA}osm/monaco.osm.pbf`;

/** The point `distanceM` along a route's geometry. */
function alongRoute(r: RouteResult, distanceM: number): LonLat {
  const line = r.coordinates;
  let left = distanceM;
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1]!;
    const b = line[i]!;
    const stepM = haversineM(a[0], a[1], b[0], b[1]);
    if (left <= stepM && stepM > 0) {
      const f = left / stepM;
      return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
    }
    left -= stepM;
  }
  return line[line.length - 1]!;
}

/**
 * A 1 Hz trace along a route: 10 m/s, then creeping at 1.5 m/s for 16 s up to a stop line in the middle of the
 * route, 25 s standing there, then 10 m/s again. GPS noise of sigma 3 m per axis.
 */
function creepAndStop(r: RouteResult, seed: number): Array<TracePoint & { alongM: number }> {
  const random = seededRandom(seed);
  const kx = 111_320 * Math.cos((r.coordinates[0]![1] * Math.PI) / 180);
  const ky = 110_574;
  const stopAtM = r.lengthM / 2;
  const creepFromM = stopAtM - 16 * 1.5;
  const points: Array<TracePoint & { alongM: number }> = [];
  const t0 = Date.UTC(2024, 0, 1, 8);
  let s = 0;
  let standS = 0;
  for (let t = 0; s < r.lengthM; t++) {
    const [lon, lat] = alongRoute(r, s);
    points.push({
      lon: lon + (gaussian(random) * 3) / kx,
      lat: lat + (gaussian(random) * 3) / ky,
      timeMs: t0 + t * 1000,
      alongM: s,
    });
    if (s < creepFromM) s = Math.min(creepFromM, s + 10);
    else if (s < stopAtM) s = Math.min(stopAtM, s + 1.5);
    else if (standS < 25) standS++;
    else s += 10;
  }
  return points;
}

describe.skipIf(!existsSync(monacoPbf))(
  'fixes of a stop on real Monaco roads (skipped when ../shared/data is absent)',
  () => {
    let graph: RoadGraph;
    let routes: RouteResult[];
    beforeAll(async () => {
      graph = await buildGraphFromOsm(monacoPbf);
      routes = randomRoutes(graph, 12, 7, 800, 3000);
    });

    it('reports as distanceM the distance from each fix to its own matched position', () => {
      expect(routes).toHaveLength(12);
      const wrong: string[] = [];
      let checked = 0;
      routes.forEach((r, k) => {
        const points = creepAndStop(r, k + 1);
        for (const p of matchTrace(graph, points).points) {
          if (!p.matched) continue;
          const q = points[p.index]!;
          const d = haversineM(q.lon, q.lat, p.snapped![0], p.snapped![1]);
          checked++;
          // The matcher measures on a local plane, this on the sphere: they agree to centimetres at these distances.
          if (Math.abs(d - p.distanceM!) > 0.5)
            wrong.push(`route ${k} fix ${p.index}: ${p.distanceM} m, really ${d} m`);
        }
      });
      expect(checked).toBeGreaterThan(12 * 60);
      expect(wrong).toEqual([]);
    });

    it('puts the fixes of a vehicle creeping up to a stop on the road where they were recorded', () => {
      let worstM = 0;
      let fixes = 0;
      routes.forEach((r, k) => {
        const points = creepAndStop(r, k + 1);
        const m = matchTrace(graph, points);
        expect(m.matchedShare).toBe(1);
        for (const p of m.points) {
          const q = points[p.index]!;
          // The creep, the stop, and the first metres after it; a route's ends are another matter.
          if (q.alongM < r.lengthM / 2 - 40 || q.alongM > r.lengthM / 2 + 40) continue;
          worstM = Math.max(worstM, haversineM(q.lon, q.lat, p.snapped![0], p.snapped![1]));
          fixes++;
        }
      });
      expect(fixes).toBeGreaterThan(12 * 40);
      // Noise of 3 m per axis puts a fix more than 15 m (5 sigma) from its road about never.
      expect(worstM).toBeLessThan(15);
    });
  },
);
