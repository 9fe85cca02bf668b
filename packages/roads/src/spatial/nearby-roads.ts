import type { RoadGraph } from '../graph/road-graph.ts';

/** A closest approach of one road geometry to a query point. */
export interface GeometryHit {
  geom: number;
  /** Distance from the start of the geometry to the closest point, metres. */
  offsetM: number;
  lon: number;
  lat: number;
  /** Distance from the query point, metres. */
  distanceM: number;
}

/** Closest approaches of one geometry less than this far apart along it are one approach. */
const SAME_APPROACH_M = 15;

interface PieceHit {
  geom: number;
  shape: number;
  t: number;
  offsetM: number;
  px: number;
  py: number;
  distanceM: number;
}

/**
 * Finds the road geometries within `radiusM` of a point and, for each, every local closest approach (a hairpin
 * or a loop passes the same point more than once, and each pass is a separate candidate), nearest first.
 * `kx`/`ky` are metres per degree of longitude/latitude around the point (see `metresPerDegree`).
 */
export function roadsNear(
  graph: RoadGraph,
  lon: number,
  lat: number,
  radiusM: number,
  kx: number,
  ky: number,
): GeometryHit[] {
  const d = graph.data;
  const pieces: PieceHit[] = [];
  const radius2 = radiusM * radiusM;
  const dx = radiusM / kx;
  const dy = radiusM / ky;
  // The filter callback does the work so flatbush never builds a result array.
  graph.index.search(lon - dx, lat - dy, lon + dx, lat + dy, (piece) => {
    const s = d.pieceShape[piece]!;
    const ax = (d.shapeLon[s]! - lon) * kx;
    const ay = (d.shapeLat[s]! - lat) * ky;
    const vx = (d.shapeLon[s + 1]! - lon) * kx - ax;
    const vy = (d.shapeLat[s + 1]! - lat) * ky - ay;
    const len2 = vx * vx + vy * vy;
    let t = len2 > 0 ? -(ax * vx + ay * vy) / len2 : 0;
    if (t < 0) t = 0;
    else if (t > 1) t = 1;
    const px = ax + vx * t;
    const py = ay + vy * t;
    const dist2 = px * px + py * py;
    if (dist2 > radius2) return false;
    const pieceLength = d.shapeCumM[s + 1]! - d.shapeCumM[s]!;
    pieces.push({
      geom: d.shapeGeom[s]!,
      shape: s,
      t,
      offsetM: d.shapeCumM[s]! + pieceLength * t,
      px,
      py,
      distanceM: Math.sqrt(dist2),
    });
    return false;
  });
  if (pieces.length === 0) return [];
  // Local minima of the distance along each geometry: a piece whose closest point lies inside it, or a vertex
  // that every neighbouring piece found agrees is its closest point.
  pieces.sort((a, b) => a.geom - b.geom || a.offsetM - b.offsetM);
  const hits: GeometryHit[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const h = pieces[i]!;
    let minimum = h.t > 0 && h.t < 1;
    if (!minimum) {
      const vertex = h.t === 0 ? h.shape : h.shape + 1;
      minimum = true;
      for (let j = Math.max(0, i - 2); j < Math.min(pieces.length, i + 3); j++) {
        const o = pieces[j]!;
        if (j === i || o.geom !== h.geom) continue;
        const touches = o.shape === vertex || o.shape + 1 === vertex;
        const atVertex = (o.t === 0 && o.shape === vertex) || (o.t === 1 && o.shape + 1 === vertex);
        if (touches && !atVertex) minimum = false;
      }
    }
    if (!minimum) continue;
    const last = hits[hits.length - 1];
    if (last && last.geom === h.geom && h.offsetM - last.offsetM < SAME_APPROACH_M) {
      if (h.distanceM < last.distanceM) {
        last.offsetM = h.offsetM;
        last.distanceM = h.distanceM;
        last.lon = lon + h.px / kx;
        last.lat = lat + h.py / ky;
      }
      continue;
    }
    hits.push({ geom: h.geom, offsetM: h.offsetM, lon: lon + h.px / kx, lat: lat + h.py / ky, distanceM: h.distanceM });
  }
  hits.sort((a, b) => a.distanceM - b.distanceM);
  return hits;
}
