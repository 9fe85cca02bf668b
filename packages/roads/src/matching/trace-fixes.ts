import type { TracePoint } from '../types.ts';
import type { PointVisitor } from './validate-trace.ts';

/**
 * A trace's fields in typed arrays, each point's read once: the matcher reads them many times over, and trace
 * points arrive in many object shapes (with or without speed, course, accuracy; the bench's synthetic points each
 * have their own), on which every property read is a slow lookup. A value a point does not carry is NaN
 * (`validateTrace` lets no NaN through). Fill it with `add` as `validateTrace`'s visitor, or with `of`.
 */
export class TraceFixes {
  readonly lon: Float64Array;
  readonly lat: Float64Array;
  readonly timeMs: Float64Array;
  readonly accuracyM: Float64Array;
  readonly speedMps: Float64Array;
  readonly courseDeg: Float64Array;
  /** Points added (fewer than the trace's length if it has holes). */
  count = 0;

  constructor(readonly length: number) {
    this.lon = new Float64Array(length);
    this.lat = new Float64Array(length);
    this.timeMs = new Float64Array(length);
    this.accuracyM = new Float64Array(length);
    this.speedMps = new Float64Array(length);
    this.courseDeg = new Float64Array(length);
  }

  /** The fields of the point at index i. */
  readonly add: PointVisitor = (i, lon, lat, timeMs, accuracyM, speedMps, courseDeg) => {
    this.lon[i] = lon;
    this.lat[i] = lat;
    this.timeMs[i] = timeMs ?? Number.NaN;
    this.accuracyM[i] = accuracyM ?? Number.NaN;
    this.speedMps[i] = speedMps ?? Number.NaN;
    this.courseDeg[i] = courseDeg ?? Number.NaN;
    this.count++;
  };

  /** The fields of valid points (not checked here). */
  static of(points: readonly TracePoint[]): TraceFixes {
    const fixes = new TraceFixes(points.length);
    for (let i = 0; i < points.length; i++) {
      const { lon, lat, timeMs, accuracyM, speedMps, courseDeg } = points[i]!;
      fixes.add(i, lon, lat, timeMs, accuracyM, speedMps, courseDeg);
    }
    return fixes;
  }
}
