import { parseTime } from '@svc/roads';
import type { GpsSample } from '@svc/scoring';
import { type FileContents, type FileRejection, gpsSample } from './file-trip.ts';
import { isSampleJson, readSampleJson } from './json-samples-connector.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Per-coordinate times of a LineString feature, as GPS exporters write them. */
function timesOf(props: Json, feature: Json): unknown[] | undefined {
  // GPX converters (togeojson) put them in properties.coordinateProperties.times; `roads match` reads
  // that too, so a file it matches must not be refused here. A feature-level member is read as well.
  const cp = isObject(props.coordinateProperties)
    ? props.coordinateProperties
    : isObject(feature.coordinateProperties)
      ? feature.coordinateProperties
      : undefined;
  for (const candidate of [props.coordTimes, props.times, props.timestamps, cp?.times, cp?.time]) {
    if (Array.isArray(candidate)) return candidate.flat();
  }
  return undefined;
}

/**
 * GeoJSON: a LineString (or MultiLineString) feature with per-point times (`properties.coordTimes`,
 * `times` or `properties.coordinateProperties.times`) is one trip; Point features with a `time` property form
 * trips grouped by `properties.tripId` (one trip when absent), except in a GPX converted by togeojson (lines marked
 * `_gpxType`): there Points are the GPX's waypoints and `_gpxType: "rte"` lines its planned routes, left out and
 * listed as skipped. Positions' third value is the altitude. Locations in messages are `features[i]`.
 */
export function readGeoJson(text: string): FileContents {
  const skipped: FileRejection[] = [];
  const out: FileContents = { trips: [], rejected: [], skipped };
  let doc: unknown;
  try {
    // Windows tools often start UTF-8 files with a byte order mark, which JSON.parse refuses.
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    out.rejected.push({ location: 'file', reason: `not valid JSON: ${(err as Error).message}` });
    return out;
  }
  // A .json file may hold samples rather than GeoJSON (the other commands read those too).
  if (isSampleJson(doc)) return readSampleJson(doc);
  const features: unknown[] = isObject(doc)
    ? doc.type === 'FeatureCollection' && Array.isArray(doc.features)
      ? doc.features
      : doc.type === 'Feature'
        ? [doc]
        : typeof doc.type === 'string' && 'coordinates' in doc
          ? [{ type: 'Feature', geometry: doc, properties: {} }]
          : []
    : [];
  if (features.length === 0) {
    out.rejected.push({
      location: 'file',
      reason: 'no GeoJSON features (expected a FeatureCollection, Feature or geometry)',
    });
    return out;
  }
  // A GPX converted by togeojson marks each line it made `_gpxType: "trk"` (a track) or `"rte"` (a planned route,
  // without times), and makes its waypoints (<wpt>: a depot, a customer, with the time it was saved) Point
  // features: never a track's points. The GPX reader leaves routes and waypoints out; here a timed waypoint was
  // read as a fix and stored as a trip of one fix. So in such a file they are left out, listed as skipped.
  const gpxType = (f: unknown) => (isObject(f) && isObject(f.properties) ? f.properties._gpxType : undefined);
  const fromGpx = features.some((f) => gpxType(f) === 'trk' || gpxType(f) === 'rte');
  const pointTrips = new Map<string, { samples: GpsSample[]; where: string[]; error?: string }>();
  features.forEach((f, fi) => {
    const where = `features[${fi}]`;
    if (!isObject(f) || !isObject(f.geometry)) {
      out.rejected.push({ location: where, reason: 'not a Feature with a geometry' });
      return;
    }
    const props = isObject(f.properties) ? f.properties : {};
    const g = f.geometry;
    if (fromGpx && (g.type === 'Point' || gpxType(f) === 'rte')) {
      const named = typeof props.name === 'string' && props.name.trim() !== '' ? ` "${props.name.trim()}"` : '';
      skipped.push({
        location: `${where}${named}`,
        reason:
          g.type === 'Point'
            ? 'a waypoint of the GPX the file was converted from, not a fix of a trip'
            : 'a planned route (_gpxType "rte"), not a recorded track',
      });
      return;
    }
    if (g.type === 'Point') {
      const key = typeof props.tripId === 'string' || typeof props.tripId === 'number' ? String(props.tripId) : '';
      let trip = pointTrips.get(key);
      if (!trip) {
        trip = { samples: [], where: [] };
        pointTrips.set(key, trip);
      }
      if (trip.error) return;
      const [lon, lat, alt] = Array.isArray(g.coordinates) ? g.coordinates : [];
      const speed =
        typeof props.speedMps === 'number' ? props.speedMps : typeof props.speed === 'number' ? props.speed : undefined;
      const s = gpsSample({
        lon,
        lat,
        t: parseTime(props.time ?? props.timestamp),
        ...(typeof alt === 'number' ? { altitudeM: alt } : {}),
        ...(speed !== undefined ? { speedMps: speed } : {}),
      });
      if (typeof s === 'string') trip.error = `${where}: ${s}`;
      else {
        trip.samples.push(s);
        trip.where.push(where);
      }
      return;
    }
    if (g.type !== 'LineString' && g.type !== 'MultiLineString') {
      out.rejected.push({
        location: where,
        reason: `geometry ${String(g.type)} is not a track (use LineString or Points)`,
      });
      return;
    }
    const coords: unknown[] =
      g.type === 'LineString' ? [g.coordinates] : Array.isArray(g.coordinates) ? g.coordinates : [];
    const positions = coords.flatMap((line) => (Array.isArray(line) ? line : []));
    if (positions.length === 0) {
      out.rejected.push({ location: where, reason: `the ${g.type} has no positions` });
      return;
    }
    const times = timesOf(props, f);
    if (!times || times.length !== positions.length) {
      out.rejected.push({
        location: where,
        reason: `needs one time per position in properties.coordTimes (or times): ${positions.length} positions, ${times?.length ?? 0} times`,
      });
      return;
    }
    const samples: GpsSample[] = [];
    for (let i = 0; i < positions.length; i++) {
      const p = positions[i];
      const [lon, lat, alt] = Array.isArray(p) ? p : [];
      const s = gpsSample({ lon, lat, t: parseTime(times[i]), ...(typeof alt === 'number' ? { altitudeM: alt } : {}) });
      if (typeof s === 'string') {
        out.rejected.push({ location: where, reason: `position ${i}: ${s}` });
        return;
      }
      samples.push(s);
    }
    out.trips.push({ label: where, samples, meta: {}, locate: (i) => `${where} position ${i}` });
  });
  for (const [key, trip] of pointTrips) {
    const label = key ? `points of trip "${key}"` : 'point features';
    if (trip.error) out.rejected.push({ location: label, reason: trip.error });
    else out.trips.push({ label, samples: trip.samples, meta: {}, locate: (i) => trip.where[i] ?? '?' });
  }
  if (out.trips.length === 0 && out.rejected.length === 0) {
    out.rejected.push({ location: 'file', reason: 'the file has waypoints or planned routes but no recorded track' });
  }
  return out;
}
