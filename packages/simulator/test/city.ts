import { generateCity, type RoadGraph } from '@svc/roads';
import type { LonLat } from '../src/index.ts';

let cached: RoadGraph | null = null;

/** The synthetic city the integration tests drive in (seed 1, built once per test file). */
export function testCity(): RoadGraph {
  cached ??= generateCity({ seed: 1 });
  return cached;
}

/** A point at fractions (fx, fy) of the city's bounding box. */
export function cityPoint(fx: number, fy: number): LonLat {
  const [w, s, e, n] = testCity().bbox;
  return [w + (e - w) * fx, s + (n - s) * fy];
}

/** Monday 2025-03-03 08:00 UTC. */
export const MONDAY_8AM_MS = Date.UTC(2025, 2, 3, 8, 0, 0);
