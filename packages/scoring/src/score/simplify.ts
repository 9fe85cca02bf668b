import { eastM, type LocalProjection } from '../geo.ts';
import type { LonLat } from '../result.ts';

/** Douglas-Peucker simplification in local metres: drops points within `toleranceM` of the line. */
export function simplifyLine(points: LonLat[], projection: LocalProjection, toleranceM: number): LonLat[] {
  const n = points.length;
  if (n < 3) return points;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = eastM(projection, points[i]![0]);
    y[i] = (points[i]![1] - projection.lat0) * projection.ky;
  }
  const keep = new Uint8Array(n);
  keep[0] = 1;
  keep[n - 1] = 1;
  const stack: Array<[number, number]> = [[0, n - 1]];
  const tol2 = toleranceM * toleranceM;
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    const dx = x[b]! - x[a]!;
    const dy = y[b]! - y[a]!;
    const len2 = dx * dx + dy * dy;
    let worst = -1;
    let worstD = tol2;
    for (let i = a + 1; i < b; i++) {
      let t = len2 > 0 ? ((x[i]! - x[a]!) * dx + (y[i]! - y[a]!) * dy) / len2 : 0;
      t = Math.max(0, Math.min(1, t));
      const ex = x[a]! + t * dx - x[i]!;
      const ey = y[a]! + t * dy - y[i]!;
      const d2 = ex * ex + ey * ey;
      if (d2 > worstD) {
        worstD = d2;
        worst = i;
      }
    }
    if (worst >= 0) {
      keep[worst] = 1;
      stack.push([a, worst], [worst, b]);
    }
  }
  const out: LonLat[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(points[i]!);
  return out;
}
