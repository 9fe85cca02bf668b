import type { RoadGraph } from '../graph/road-graph.ts';

/** The closest point of one road geometry to a query point. */
export interface GeometryHit {
  geom: number;
  /** Distance from the start of the geometry to the closest point, metres. */
  offsetM: number;
  lon: number;
  lat: number;
  /** Distance from the query point, metres. */
  distanceM: number;
}

/**
 * Finds, for every road geometry with a piece within `radiusM` of a point, its closest point, nearest first.
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
  const hits: GeometryHit[] = [];
  const radius2 = radiusM * radiusM;
  const dx = radiusM / kx;
  const dy = radiusM / ky;
  // The filter callback does the work so flatbush never builds a result array.
  graph.index.search(lon - dx, lat - dy, lon + dx, lat + dy, (piece) => {
    const s = d.pieceShape[piece]!;
    const ax = (d.shapeLon[s]! - lon) * kx;
    const ay = (d.shapeLat[s]! - lat) * ky;
    const bx = (d.shapeLon[s + 1]! - lon) * kx;
    const by = (d.shapeLat[s + 1]! - lat) * ky;
    const vx = bx - ax;
    const vy = by - ay;
    const len2 = vx * vx + vy * vy;
    let t = len2 > 0 ? -(ax * vx + ay * vy) / len2 : 0;
    if (t < 0) t = 0;
    else if (t > 1) t = 1;
    const px = ax + vx * t;
    const py = ay + vy * t;
    const dist2 = px * px + py * py;
    if (dist2 > radius2) return false;
    const g = d.shapeGeom[s]!;
    const pieceLength = d.shapeCumM[s + 1]! - d.shapeCumM[s]!;
    const offsetM = d.shapeCumM[s]! + pieceLength * t;
    const distanceM = Math.sqrt(dist2);
    for (const h of hits) {
      if (h.geom === g) {
        if (distanceM < h.distanceM) {
          h.offsetM = offsetM;
          h.distanceM = distanceM;
          h.lon = lon + px / kx;
          h.lat = lat + py / ky;
        }
        return false;
      }
    }
    hits.push({ geom: g, offsetM, lon: lon + px / kx, lat: lat + py / ky, distanceM });
    return false;
  });
  hits.sort((a, b) => a.distanceM - b.distanceM);
  return hits;
}
