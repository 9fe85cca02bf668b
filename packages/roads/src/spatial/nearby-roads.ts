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

/**
 * Scratch space for the pieces one query finds, reused between queries: candidate search runs for every GPS fix,
 * and allocating an object per piece showed up as garbage-collection time.
 */
/** A copy of `a`, `length` long (the rest zeros). */
function grown<T extends Int32Array | Float64Array>(length: number, a: T): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a);
  return b;
}

class PieceScratch {
  size = 0;
  geom = new Int32Array(64);
  shape = new Int32Array(64);
  t = new Float64Array(64);
  offset = new Float64Array(64);
  px = new Float64Array(64);
  py = new Float64Array(64);
  dist = new Float64Array(64);
  order = new Int32Array(64);

  push(geom: number, shape: number, t: number, offset: number, px: number, py: number, dist: number): void {
    if (this.size === this.geom.length) this.grow();
    const i = this.size++;
    this.geom[i] = geom;
    this.shape[i] = shape;
    this.t[i] = t;
    this.offset[i] = offset;
    this.px[i] = px;
    this.py[i] = py;
    this.dist[i] = dist;
  }

  /** Sorts `order` by geometry, then offset along it (insertion sort: a query finds tens of pieces). */
  sort(): void {
    const { order, geom, offset } = this;
    for (let i = 0; i < this.size; i++) {
      let j = i;
      while (j > 0) {
        const a = order[j - 1]!;
        if (geom[a]! < geom[i]! || (geom[a] === geom[i] && offset[a]! <= offset[i]!)) break;
        order[j] = a;
        j--;
      }
      order[j] = i;
    }
  }

  private grow(): void {
    const n = this.geom.length * 2;
    this.geom = grown(n, this.geom);
    this.shape = grown(n, this.shape);
    this.t = grown(n, this.t);
    this.offset = grown(n, this.offset);
    this.px = grown(n, this.px);
    this.py = grown(n, this.py);
    this.dist = grown(n, this.dist);
    this.order = new Int32Array(n);
  }
}

const scratch = new PieceScratch();

/**
 * The closest approaches one query finds, in arrays reused between queries (`roadsNearInto`): the matcher asks for
 * every decoded fix, and an object per approach, its numbers boxed, was garbage to collect. Entry `order[k]` is the
 * k-th nearest.
 */
export class HitList {
  size = 0;
  geom = new Int32Array(32);
  offsetM = new Float64Array(32);
  lon = new Float64Array(32);
  lat = new Float64Array(32);
  distanceM = new Float64Array(32);
  order = new Int32Array(32);

  push(geom: number, offsetM: number, lon: number, lat: number, distanceM: number): void {
    if (this.size === this.geom.length) this.grow();
    const i = this.size++;
    this.geom[i] = geom;
    this.offsetM[i] = offsetM;
    this.lon[i] = lon;
    this.lat[i] = lat;
    this.distanceM[i] = distanceM;
  }

  /** Sorts `order` by distance, stably (insertion sort: the order `Array.prototype.sort` gives, for tens of hits). */
  sort(): void {
    const { order, distanceM } = this;
    for (let i = 0; i < this.size; i++) {
      let j = i;
      while (j > 0 && distanceM[order[j - 1]!]! > distanceM[i]!) {
        order[j] = order[j - 1]!;
        j--;
      }
      order[j] = i;
    }
  }

  private grow(): void {
    const n = this.geom.length * 2;
    this.geom = grown(n, this.geom);
    this.offsetM = grown(n, this.offsetM);
    this.lon = grown(n, this.lon);
    this.lat = grown(n, this.lat);
    this.distanceM = grown(n, this.distanceM);
    this.order = new Int32Array(n);
  }
}

/** The list `roadsNear` fills before copying it out (queries are synchronous, so one list serves all). */
const hitScratch = new HitList();

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
  const list = hitScratch;
  roadsNearInto(list, graph, lon, lat, radiusM, kx, ky);
  const hits: GeometryHit[] = [];
  for (let k = 0; k < list.size; k++) {
    const h = list.order[k]!;
    hits.push({
      geom: list.geom[h]!,
      offsetM: list.offsetM[h]!,
      lon: list.lon[h]!,
      lat: list.lat[h]!,
      distanceM: list.distanceM[h]!,
    });
  }
  return hits;
}

/** `roadsNear` into `hits` (emptied first), without allocating: `hits.order` lists them nearest first. */
export function roadsNearInto(
  hits: HitList,
  graph: RoadGraph,
  lon: number,
  lat: number,
  radiusM: number,
  kx: number,
  ky: number,
): void {
  hits.size = 0;
  const d = graph.data;
  const pieces = scratch;
  pieces.size = 0;
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
    pieces.push(d.shapeGeom[s]!, s, t, d.shapeCumM[s]! + pieceLength * t, px, py, Math.sqrt(dist2));
    return false;
  });
  if (pieces.size === 0) return;
  // Local minima of the distance along each geometry: a piece whose closest point lies inside it, or a vertex
  // that every neighbouring piece found agrees is its closest point.
  pieces.sort();
  const { order, geom, shape, t, offset, px, py, dist } = pieces;
  for (let k = 0; k < pieces.size; k++) {
    const h = order[k]!;
    let minimum = t[h]! > 0 && t[h]! < 1;
    if (!minimum) {
      const vertex = t[h] === 0 ? shape[h]! : shape[h]! + 1;
      minimum = true;
      for (let j = Math.max(0, k - 2); j < Math.min(pieces.size, k + 3); j++) {
        const o = order[j]!;
        if (j === k || geom[o] !== geom[h]) continue;
        const touches = shape[o] === vertex || shape[o]! + 1 === vertex;
        const atVertex = (t[o] === 0 && shape[o] === vertex) || (t[o] === 1 && shape[o]! + 1 === vertex);
        if (touches && !atVertex) minimum = false;
      }
    }
    if (!minimum) continue;
    const last = hits.size - 1;
    if (last >= 0 && hits.geom[last] === geom[h] && offset[h]! - hits.offsetM[last]! < SAME_APPROACH_M) {
      if (dist[h]! < hits.distanceM[last]!) {
        hits.offsetM[last] = offset[h]!;
        hits.distanceM[last] = dist[h]!;
        hits.lon[last] = lon + px[h]! / kx;
        hits.lat[last] = lat + py[h]! / ky;
      }
      continue;
    }
    hits.push(geom[h]!, offset[h]!, lon + px[h]! / kx, lat + py[h]! / ky, dist[h]!);
  }
  hits.sort();
}
