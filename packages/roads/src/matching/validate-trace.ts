import { isValidLonLat } from '../geo.ts';
import type { TracePoint } from '../types.ts';

/** Receives each valid point's fields, read once (see `validateTrace`). */
export type PointVisitor = (
  index: number,
  lon: number,
  lat: number,
  timeMs: number | undefined,
  accuracyM: number | undefined,
  speedMps: number | undefined,
  courseDeg: number | undefined,
) => void;

/**
 * Rejects points a matcher cannot interpret, naming the first bad one; `visit`, if given, gets each point's fields
 * once it is checked (holes in a sparse array are skipped).
 */
export function validateTrace(points: readonly TracePoint[], label = 'trace', visit?: PointVisitor): void {
  if (!Array.isArray(points)) throw new TypeError(`${label}: expected an array of points`);
  let lastTime: number | undefined;
  let lastTimeIndex = -1;
  points.forEach((p, i) => {
    if (!p || typeof p !== 'object') throw new RangeError(`${label}: point ${i} is not an object`);
    // Each field read once: the points come in several shapes (with or without speed, course, accuracy), and on
    // those every property read is a lookup.
    const { lon, lat, timeMs, accuracyM, speedMps, courseDeg } = p;
    if (!isValidLonLat(lon, lat)) {
      throw new RangeError(`${label}: point ${i} has invalid coordinates lon=${String(lon)} lat=${String(lat)}`);
    }
    if (timeMs !== undefined) {
      if (typeof timeMs !== 'number' || !Number.isFinite(timeMs)) {
        throw new RangeError(`${label}: point ${i} has an invalid time ${String(timeMs)}`);
      }
      if (lastTime !== undefined && timeMs < lastTime) {
        throw new RangeError(
          `${label}: time goes backwards at point ${i} (${new Date(timeMs).toISOString()} after point ${lastTimeIndex} at ${new Date(lastTime).toISOString()})`,
        );
      }
      lastTime = timeMs;
      lastTimeIndex = i;
    }
    if (accuracyM !== undefined && (typeof accuracyM !== 'number' || !(accuracyM >= 0))) {
      throw new RangeError(`${label}: point ${i} has an invalid accuracy ${String(accuracyM)}`);
    }
    if (speedMps !== undefined && (typeof speedMps !== 'number' || !(speedMps >= 0) || speedMps === Infinity)) {
      throw new RangeError(`${label}: point ${i} has an invalid speed ${String(speedMps)}`);
    }
    if (courseDeg !== undefined && (typeof courseDeg !== 'number' || !Number.isFinite(courseDeg))) {
      throw new RangeError(`${label}: point ${i} has an invalid course ${String(courseDeg)}`);
    }
    visit?.(i, lon, lat, timeMs, accuracyM, speedMps, courseDeg);
  });
}
