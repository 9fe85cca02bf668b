import { describe, expect, it } from 'vitest';
import { metresPerDegree } from '../geo.ts';
import { generateCity } from '../synthetic/generate-city.ts';
import type { TracePoint } from '../types.ts';
import { resolveMatchOptions } from './match-options.ts';
import { TraceMatcher } from './trace-matcher.ts';

const graph = generateCity({ seed: 1 });

/** 20 fixes at 1 Hz along the first edge of the city, moving `speedMps`, with a small wobble. */
function fixes(speedMps: number, reportSpeed: boolean): TracePoint[] {
  const [lon0, lat0] = graph.edgePointAt(0, 0);
  const { kx, ky } = metresPerDegree(lat0);
  const [lon1, lat1] = graph.edgePointAt(0, 10);
  const ux = ((lon1 - lon0) * kx) / 10;
  const uy = ((lat1 - lat0) * ky) / 10;
  return Array.from({ length: 20 }, (_, t) => {
    const s = speedMps * t;
    const wobbleM = t % 2 === 0 ? 1.5 : -1.5;
    const point: TracePoint = {
      lon: lon0 + (ux * s - uy * wobbleM) / kx,
      lat: lat0 + (uy * s + ux * wobbleM) / ky,
      timeMs: Date.UTC(2024, 0, 1, 8) + t * 1000,
    };
    if (reportSpeed) point.speedMps = speedMps === 0 ? 0.1 : speedMps;
    return point;
  });
}

function stopsOf(points: TracePoint[]): number {
  const { kx, ky } = metresPerDegree(points[0]!.lat);
  const matcher = new TraceMatcher(graph, points, resolveMatchOptions(), kx, ky);
  matcher.run();
  return matcher.stopUntil.filter((last) => last >= 0).length;
}

describe('stop detection', () => {
  it('takes fixes that stand still for a stop, whether or not they report a speed', () => {
    expect(stopsOf(fixes(0, false))).toBe(1);
    expect(stopsOf(fixes(0, true))).toBe(1);
  });

  it('does not take a vehicle creeping at 1 m/s for a stop when its fixes report the speed', () => {
    // 19 m in 19 s stays within the 25 m radius and drifts 10 m between the halves (under the 15 m allowed):
    // by positions alone it is a stop.
    expect(stopsOf(fixes(1, false))).toBe(1);
    expect(stopsOf(fixes(1, true))).toBe(0);
  });
});
