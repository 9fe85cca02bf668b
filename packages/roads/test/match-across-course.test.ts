import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGraphFromOsm, type MatchResult, matchTrace, type RoadGraph, type TracePoint } from '../src/index.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const monacoPbf = `${DATA}osm/monaco.osm.pbf`;

/**
 * The first 41 s of a simulated bus run over the Monaco extract (the fleet of `bench/matching-real.ts` in
 * @svc/scoring, seed 1): 1 Hz fixes with the simulator's correlated GPS error (lon, lat, Doppler speed m/s, course
 * degrees or null). The bus pulls away south on a one-way link of Boulevard du Larvotto (way 353889170, bearing
 * 173), turns round through the one-way loop where Avenue Princesse Grace meets it (ways 254596871 north-east at 44,
 * 254596873 north-west, 353889168 west) and leaves south-west along the boulevard (ways 353889171, 176760117).
 * Within a few metres run other one-way links of the boulevard that it does not drive: way 93137600 at 143 degrees,
 * nearer the first fixes (course 162-176) than the link driven, and ways 93137632 and 93137585 at 112-124, nearer
 * the fixes of the turn (course 40) than the road driven.
 */
const FIXES: Array<[number, number, number, number | null]> = [
  [7.4401144, 43.7508076, 0, null],
  [7.44012, 43.7508228, 0.43, null],
  [7.440108, 43.7508057, 2.18, 162.1],
  [7.4401066, 43.7507717, 3.14, 169.7],
  [7.4401033, 43.7507441, 2.47, 176.4],
  [7.4400777, 43.7507142, 2.74, 141],
  [7.4401052, 43.7507042, 2.71, 40.1],
  [7.4401266, 43.7507086, 3.32, 40.1],
  [7.4401833, 43.7507388, 4.83, 42.9],
  [7.4402014, 43.7507767, 4.5, 24.3],
  [7.4401908, 43.7508151, 4.72, 346.8],
  [7.4401644, 43.750854, 5.72, 322.3],
  [7.4401146, 43.7508827, 6.07, 319.9],
  [7.4400718, 43.7509088, 5.34, 286.7],
  [7.439987, 43.750899, 5.42, 251],
  [7.4399081, 43.7508676, 6.91, 237.2],
  [7.4398513, 43.7508329, 8.68, 223.8],
  [7.4397851, 43.7507589, 10.22, 218.5],
  [7.4396852, 43.7506813, 11.22, 217.9],
  [7.4395939, 43.7505928, 12.38, 219.8],
  [7.4394799, 43.7505069, 13.29, 223.3],
  [7.4393425, 43.7504385, 14.68, 225.9],
  [7.4392065, 43.750361, 15.58, 227.9],
  [7.4390594, 43.7502642, 15.66, 230.1],
  [7.4389146, 43.7501731, 15.72, 232.8],
  [7.4387709, 43.7500954, 15.7, 234.6],
  [7.438607, 43.7500188, 15.59, 237.5],
  [7.4384434, 43.7499389, 15.55, 240.3],
  [7.4383115, 43.7498766, 15.63, 240.5],
  [7.4381317, 43.749822, 15.36, 239.8],
  [7.4379757, 43.7497651, 15.44, 239.7],
  [7.437803, 43.7496993, 15.87, 239],
  [7.437664, 43.74963, 15.95, 239],
  [7.4374846, 43.7495592, 15.92, 239],
  [7.4373144, 43.7494815, 15.9, 239.3],
  [7.4371348, 43.7493965, 16.05, 238.4],
  [7.436965, 43.7493309, 15.89, 238.1],
  [7.4368075, 43.7492371, 14.68, 237.6],
  [7.4366563, 43.7491712, 11.93, 237.3],
  [7.4365369, 43.7491163, 8.73, 236.9],
  [7.4364636, 43.7490832, 5.62, 235.3],
];

const DRIVEN = [353889170, 254596871, 254596873, 353889168, 353889171, 176760117];

function trace(): TracePoint[] {
  const t0 = Date.UTC(2026, 0, 7, 9, 0, 0);
  return FIXES.map(([lon, lat, speedMps, course], i) => ({
    lon,
    lat,
    timeMs: t0 + i * 1000,
    speedMps,
    ...(course === null ? {} : { courseDeg: course }),
  }));
}

describe.skipIf(!existsSync(monacoPbf))(
  'a road across the course of a moving fix, on real Monaco roads (skipped when ../shared/data is absent)',
  () => {
    let graph: RoadGraph;
    let m: MatchResult;
    beforeAll(async () => {
      graph = await buildGraphFromOsm(monacoPbf);
      m = matchTrace(graph, trace());
    });

    it('keeps the fixes of a vehicle turning round a junction loop off the links that cross its course', () => {
      // By distance alone the first ten fixes lie as close to the links crossing the loop as to the roads driven, or
      // closer; only the course tells them apart, at 20-35 degrees and at 70 degrees from it. Costing only a road
      // driven against the course (beyond 90 degrees), the matcher put them on ways 93137600, 93137632 and 93137585
      // (10 of the 41 fixes), which the bus never drove.
      expect(m.points.every((p) => p.matched)).toBe(true);
      const ways = m.points.map((p) => graph.edgeWayId(p.edge!));
      expect(ways.filter((w) => !DRIVEN.includes(w))).toEqual([]);
    });

    it('matches the path the bus drove, way by way', () => {
      const ways = m.path.map((s) => s.wayId).filter((w, k, all) => k === 0 || all[k - 1] !== w);
      expect(ways).toEqual(DRIVEN);
    });
  },
);
