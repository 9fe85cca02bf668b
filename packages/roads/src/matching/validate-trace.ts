import { isValidLonLat } from '../geo.ts';
import type { TracePoint } from '../types.ts';

/** Rejects points a matcher cannot interpret, naming the first bad one. */
export function validateTrace(points: readonly TracePoint[], label = 'trace'): void {
  if (!Array.isArray(points)) throw new TypeError(`${label}: expected an array of points`);
  let lastTime: number | undefined;
  let lastTimeIndex = -1;
  points.forEach((p, i) => {
    if (!p || typeof p !== 'object') throw new RangeError(`${label}: point ${i} is not an object`);
    if (!isValidLonLat(p.lon, p.lat)) {
      throw new RangeError(`${label}: point ${i} has invalid coordinates lon=${String(p.lon)} lat=${String(p.lat)}`);
    }
    if (p.timeMs !== undefined) {
      if (typeof p.timeMs !== 'number' || !Number.isFinite(p.timeMs)) {
        throw new RangeError(`${label}: point ${i} has an invalid time ${String(p.timeMs)}`);
      }
      if (lastTime !== undefined && p.timeMs < lastTime) {
        throw new RangeError(
          `${label}: time goes backwards at point ${i} (${new Date(p.timeMs).toISOString()} after point ${lastTimeIndex} at ${new Date(lastTime).toISOString()})`,
        );
      }
      lastTime = p.timeMs;
      lastTimeIndex = i;
    }
    if (p.accuracyM !== undefined && (typeof p.accuracyM !== 'number' || !(p.accuracyM >= 0))) {
      throw new RangeError(`${label}: point ${i} has an invalid accuracy ${String(p.accuracyM)}`);
    }
    if (p.speedMps !== undefined && (typeof p.speedMps !== 'number' || !(p.speedMps >= 0) || p.speedMps === Infinity)) {
      throw new RangeError(`${label}: point ${i} has an invalid speed ${String(p.speedMps)}`);
    }
    if (p.courseDeg !== undefined && (typeof p.courseDeg !== 'number' || !Number.isFinite(p.courseDeg))) {
      throw new RangeError(`${label}: point ${i} has an invalid course ${String(p.courseDeg)}`);
    }
  });
}
