import type { TracePoint } from '../types.ts';
import { TraceInputError } from './trace-input-error.ts';
import { checkTrace, tracePoint } from './trace-point-builder.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first property present among several spellings. */
function pick(props: Json | undefined, keys: readonly string[]): unknown {
  if (!props) return undefined;
  for (const k of keys) if (props[k] !== undefined) return props[k];
  return undefined;
}

const TIME_KEYS = ['time', 'timestamp', 'timeMs', 't'] as const;
const ACCURACY_KEYS = ['accuracyM', 'accuracy', 'horizontalAccuracyM'] as const;
const SPEED_KEYS = ['speedMps', 'speed'] as const;
const COURSE_KEYS = ['courseDeg', 'course', 'headingDeg', 'heading', 'bearing'] as const;

/**
 * Reads a GeoJSON trace: a LineString / MultiLineString (times, if any, from `properties.coordinateProperties.times`,
 * `properties.times` or `properties.coordTimes`, as written by GPX converters) or Point features with a `time`
 * property (also `timestamp`, `timeMs`, `t`) and optional `accuracy`, `speed` (m/s, or `speedKmh`) and `course` (or
 * `heading`, `bearing`, degrees). Accepts a FeatureCollection, a Feature or a
 * bare geometry.
 */
export function parseGeoJsonTrace(json: unknown, label = 'GeoJSON'): TracePoint[] {
  const features: Json[] = [];
  if (isObject(json) && json.type === 'FeatureCollection' && Array.isArray(json.features)) {
    json.features.forEach((f, i) => {
      if (!isObject(f)) throw new TraceInputError(`${label}: features[${i}] is not an object`);
      features.push(f);
    });
  } else if (isObject(json) && json.type === 'Feature') features.push(json);
  else if (isObject(json) && typeof json.type === 'string' && 'coordinates' in json) {
    features.push({ type: 'Feature', geometry: json, properties: {} });
  } else throw new TraceInputError(`${label}: not a GeoJSON FeatureCollection, Feature or geometry`);

  const points: TracePoint[] = [];
  const names: string[] = [];
  features.forEach((feature, f) => {
    const geometry = feature.geometry;
    const props = isObject(feature.properties) ? feature.properties : undefined;
    const featureName = features.length > 1 ? `features[${f}]` : 'feature';
    if (!isObject(geometry)) throw new TraceInputError(`${label}: ${featureName} has no geometry`);
    const coords = geometry.coordinates;
    if (geometry.type === 'Point') {
      const c = Array.isArray(coords) ? coords : [];
      const where = `${label}: ${featureName}`;
      points.push(
        tracePoint(where, c[0], c[1], pick(props, TIME_KEYS), pick(props, ACCURACY_KEYS), {
          speedMps: pick(props, SPEED_KEYS),
          speedKmh: props?.speedKmh,
          courseDeg: pick(props, COURSE_KEYS),
        }),
      );
      names.push(featureName);
    } else if (geometry.type === 'LineString' || geometry.type === 'MultiLineString') {
      const lines = (geometry.type === 'LineString' ? [coords] : coords) as unknown[];
      if (!Array.isArray(lines)) throw new TraceInputError(`${label}: ${featureName} has no coordinates`);
      const coordProps = isObject(props?.coordinateProperties) ? props.coordinateProperties : undefined;
      const times = pick(coordProps, ['times']) ?? pick(props, ['times', 'coordTimes']);
      lines.forEach((line, l) => {
        if (!Array.isArray(line)) throw new TraceInputError(`${label}: ${featureName} line ${l} is not an array`);
        const lineTimes = geometry.type === 'MultiLineString' && Array.isArray(times) ? times[l] : times;
        line.forEach((c, k) => {
          const name = `${featureName} coordinate ${k}${geometry.type === 'MultiLineString' ? ` of line ${l}` : ''}`;
          const pair = Array.isArray(c) ? c : [];
          const time = Array.isArray(lineTimes) ? lineTimes[k] : undefined;
          points.push(tracePoint(`${label}: ${name}`, pair[0], pair[1], time));
          names.push(name);
        });
      });
    } else {
      throw new TraceInputError(`${label}: ${featureName} is a ${String(geometry.type)}; expected Point or LineString`);
    }
  });
  return checkTrace(label, points, (i) => names[i]!);
}
