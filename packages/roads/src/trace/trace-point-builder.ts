import type { TracePoint } from '../types.ts';
import { parseTime } from './parse-time.ts';
import { TraceInputError } from './trace-input-error.ts';

/**
 * What a record says of the receiver's motion, when it says it: speed in m/s (or km/h) and course in degrees
 * clockwise from north. The matcher uses them to tell a stop from slow driving and one carriageway from the other.
 */
export interface MotionValues {
  speedMps?: unknown;
  speedKmh?: unknown;
  courseDeg?: unknown;
}

/** Validates one record's fields and turns them into a `TracePoint`; `where` names the record in errors. */
export function tracePoint(
  where: string,
  lonValue: unknown,
  latValue: unknown,
  timeValue?: unknown,
  accuracyValue?: unknown,
  motion: MotionValues = {},
): TracePoint {
  const lon = typeof lonValue === 'string' ? Number(lonValue.trim() === '' ? Number.NaN : lonValue) : lonValue;
  const lat = typeof latValue === 'string' ? Number(latValue.trim() === '' ? Number.NaN : latValue) : latValue;
  if (typeof lon !== 'number' || !Number.isFinite(lon)) {
    throw new TraceInputError(`${where}: lon is ${describe(lonValue)}, expected a number`);
  }
  if (typeof lat !== 'number' || !Number.isFinite(lat)) {
    throw new TraceInputError(`${where}: lat is ${describe(latValue)}, expected a number`);
  }
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90) {
    throw new TraceInputError(`${where}: coordinates lon=${lon} lat=${lat} are out of range`);
  }
  const point: TracePoint = { lon, lat };
  if (timeValue !== undefined && timeValue !== null && timeValue !== '') {
    const timeMs = parseTime(timeValue);
    if (!Number.isFinite(timeMs))
      throw new TraceInputError(`${where}: time ${describe(timeValue)} is not a valid time`);
    point.timeMs = timeMs;
  }
  if (accuracyValue !== undefined && accuracyValue !== null && accuracyValue !== '') {
    const accuracyM = Number(accuracyValue);
    if (!Number.isFinite(accuracyM) || accuracyM < 0) {
      throw new TraceInputError(`${where}: accuracy ${describe(accuracyValue)} is not a distance in metres`);
    }
    point.accuracyM = accuracyM;
  }
  const given = (v: unknown) => v !== undefined && v !== null && v !== '';
  const speedValue = given(motion.speedMps) ? motion.speedMps : motion.speedKmh;
  if (given(speedValue)) {
    const speed = Number(speedValue);
    if (!Number.isFinite(speed) || speed < 0) {
      throw new TraceInputError(`${where}: speed ${describe(speedValue)} is not a speed`);
    }
    point.speedMps = given(motion.speedMps) ? speed : speed / 3.6;
  }
  if (given(motion.courseDeg)) {
    const course = Number(motion.courseDeg);
    if (!Number.isFinite(course)) {
      throw new TraceInputError(`${where}: course ${describe(motion.courseDeg)} is not an angle in degrees`);
    }
    point.courseDeg = ((course % 360) + 360) % 360;
  }
  return point;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  return String(value);
}

/** Rejects an empty trace and times going backwards, naming the file and the record. */
export function checkTrace(label: string, points: TracePoint[], recordName: (index: number) => string): TracePoint[] {
  if (points.length === 0) throw new TraceInputError(`${label}: the trace has no points`);
  let last: number | undefined;
  let lastIndex = -1;
  points.forEach((p, i) => {
    if (p.timeMs === undefined) return;
    if (last !== undefined && p.timeMs < last) {
      throw new TraceInputError(
        `${label}: ${recordName(i)}: time ${new Date(p.timeMs).toISOString()} goes backwards (${recordName(lastIndex)} was ${new Date(last).toISOString()})`,
      );
    }
    last = p.timeMs;
    lastIndex = i;
  });
  return points;
}
