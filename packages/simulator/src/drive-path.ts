import type { DriveRoute, JunctionControl, LonLat } from './drive-route.ts';

/**
 * The line a vehicle actually drives: the route's polyline in local metres with every corner replaced by a
 * circular arc (vehicles cannot turn on a point), densely sampled with distance, heading and signed curvature.
 * Junction turns get a tight radius by road class; bends inside a road get the widest arc the geometry allows.
 */

/** Largest spacing of path samples, metres. */
const MAX_STEP_M = 2;
/** Largest heading change between arc samples, radians. */
const MAX_ARC_STEP_RAD = (8 * Math.PI) / 180;
/** Heading change above which a corner counts as a turn (tight radius), radians. */
const TURN_ANGLE_RAD = (25 * Math.PI) / 180;
/** Half-length of the curvature smoothing along the path (transition curves), metres. */
const CURVATURE_SMOOTH_HALF_M = 4;

/** Turn radius at junctions by road class, metres: the smaller road of the two sets the radius. */
const TURN_RADIUS_M: Record<string, number> = {
  motorway: 300,
  trunk: 150,
  motorway_link: 45,
  trunk_link: 35,
  primary: 18,
  primary_link: 20,
  secondary: 16,
  secondary_link: 16,
  tertiary: 13,
  tertiary_link: 13,
  unclassified: 11,
  residential: 9,
  living_street: 7,
  service: 7,
  road: 10,
};

/** A junction (segment boundary) along the path. */
export interface PathJunction {
  /** Distance along the path of the corner's middle, metres. */
  sM: number;
  /** Index of the segment that ends here. */
  segment: number;
  control: JunctionControl | null;
  /** Signed heading change, radians (positive = left). */
  turnRad: number;
}

/** The densely sampled driving line. Arrays are indexed by sample. */
export interface DrivePath {
  /** Sample count. */
  n: number;
  /** Local east/north coordinates, metres from (lon0, lat0). */
  x: Float64Array;
  y: Float64Array;
  /** Distance from the start, metres. */
  sM: Float64Array;
  /** Direction of travel, radians counter-clockwise from east. */
  headingRad: Float64Array;
  /** Signed curvature, 1/m (positive = turning left), smoothed over a few metres. */
  curvature: Float64Array;
  /** Route segment each sample belongs to. */
  segment: Int32Array;
  lengthM: number;
  junctions: PathJunction[];
  /** Distance along the path at the end of each segment, metres. */
  segmentEndM: Float64Array;
  lon0: number;
  lat0: number;
  /** Metres per degree of longitude / latitude at lat0. */
  kx: number;
  ky: number;
}

/** Local projection factors (metres per degree) around a latitude, WGS84 (as cheap-ruler computes them). */
export function metresPerDegree(lat: number): { kx: number; ky: number } {
  const RE = 6378.137;
  const FE = 1 / 298.257223563;
  const E2 = FE * (2 - FE);
  const RAD = Math.PI / 180;
  const m = RAD * RE * 1000;
  const coslat = Math.cos(lat * RAD);
  const w2 = 1 / (1 - E2 * (1 - coslat * coslat));
  const w = Math.sqrt(w2);
  return { kx: m * w * coslat, ky: m * w * w2 * (1 - E2) };
}

/** Position on the path at a distance (clamped), interpolated between samples; `hint` speeds up sequential use. */
export function pathIndexAt(path: DrivePath, sM: number, hint = 0): number {
  const s = path.sM;
  let i = Math.min(Math.max(hint, 0), path.n - 2);
  if (s[i]! > sM) {
    // Binary search backwards when the hint is ahead of the target.
    let lo = 0;
    let hi = i;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= sM) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  while (i < path.n - 2 && s[i + 1]! <= sM) i++;
  return i;
}

/** Lon/lat of a local point. */
export function toLonLat(path: DrivePath, x: number, y: number): LonLat {
  return [path.lon0 + x / path.kx, path.lat0 + y / path.ky];
}

function turnRadiusFor(highway: string): number {
  return TURN_RADIUS_M[highway] ?? TURN_RADIUS_M[highway.replace(/_link$/, '')] ?? 10;
}

interface Vertex {
  x: number;
  y: number;
  /** Segment of the polyline piece leaving this vertex. */
  segment: number;
  /** Set when this vertex is the boundary between `segment - 1` and `segment`. */
  junctionOf: number | null;
}

/**
 * Builds the driving line of a route. `minTurnRadiusM` is the vehicle's smallest turn (long vehicles swing wide).
 */
export function buildDrivePath(route: DriveRoute, minTurnRadiusM = 7): DrivePath {
  const segments = route.segments;
  const first = segments[0]!.coordinates[0]!;
  const lon0 = first[0];
  const lat0 = first[1];
  const { kx, ky } = metresPerDegree(lat0);

  // 1. One polyline with segment boundaries marked; consecutive duplicates removed.
  const verts: Vertex[] = [];
  segments.forEach((segment, si) => {
    segment.coordinates.forEach((c, ci) => {
      const x = (c[0] - lon0) * kx;
      const y = (c[1] - lat0) * ky;
      const last = verts[verts.length - 1];
      if (last && Math.hypot(x - last.x, y - last.y) < 0.05) {
        if (ci === 0 && si > 0) {
          last.junctionOf = si - 1;
          last.segment = si;
        }
        return;
      }
      verts.push({ x, y, segment: si, junctionOf: ci === 0 && si > 0 ? si - 1 : null });
    });
  });
  if (verts.length < 2) throw new RangeError('route: the route has no length (all positions coincide)');

  // 2. Fillet every interior vertex: tangent length limited to half of each adjacent piece.
  const m = verts.length;
  const pieceLen = new Float64Array(m - 1);
  const pieceDir = new Float64Array(m - 1);
  for (let i = 0; i < m - 1; i++) {
    const dx = verts[i + 1]!.x - verts[i]!.x;
    const dy = verts[i + 1]!.y - verts[i]!.y;
    pieceLen[i] = Math.hypot(dx, dy);
    pieceDir[i] = Math.atan2(dy, dx);
  }
  const tangent = new Float64Array(m);
  const turn = new Float64Array(m);
  for (let i = 1; i < m - 1; i++) {
    let d = pieceDir[i]! - pieceDir[i - 1]!;
    while (d > Math.PI) d -= 2 * Math.PI;
    while (d < -Math.PI) d += 2 * Math.PI;
    turn[i] = d;
    const a = Math.abs(d);
    if (a < 1e-4) continue;
    // A U-turn cannot be filleted; treat it as the tightest possible turn.
    const half = Math.min(a, (175 * Math.PI) / 180) / 2;
    const v = verts[i]!;
    let preferredR = 1e4;
    if (a > TURN_ANGLE_RAD) {
      const before = segments[verts[i - 1]!.segment]!.highway;
      const after = segments[v.segment]!.highway;
      preferredR = Math.max(minTurnRadiusM, Math.min(turnRadiusFor(before), turnRadiusFor(after)));
    }
    tangent[i] = Math.min(preferredR * Math.tan(half), pieceLen[i - 1]! / 2, pieceLen[i]! / 2);
  }

  // 3. Sample straights and arcs.
  const xs: number[] = [];
  const ys: number[] = [];
  const ss: number[] = [];
  const hs: number[] = [];
  const ks: number[] = [];
  const segs: number[] = [];
  const junctions: PathJunction[] = [];
  let s = 0;
  const push = (x: number, y: number, h: number, k: number, seg: number) => {
    const n = xs.length;
    if (n > 0) {
      const step = Math.hypot(x - xs[n - 1]!, y - ys[n - 1]!);
      if (step < 1e-6) return;
      s += step;
    }
    xs.push(x);
    ys.push(y);
    ss.push(s);
    hs.push(h);
    ks.push(k);
    segs.push(seg);
  };

  push(verts[0]!.x, verts[0]!.y, pieceDir[0]!, 0, verts[0]!.segment);
  for (let i = 0; i < m - 1; i++) {
    const a = verts[i]!;
    const dir = pieceDir[i]!;
    const ux = Math.cos(dir);
    const uy = Math.sin(dir);
    const startOff = tangent[i]!;
    const endOff = pieceLen[i]! - tangent[i + 1]!;
    // Straight part of the piece.
    const straight = endOff - startOff;
    const steps = Math.max(1, Math.ceil(straight / MAX_STEP_M));
    for (let k = 1; k <= steps; k++) {
      const off = startOff + (straight * k) / steps;
      push(a.x + ux * off, a.y + uy * off, dir, 0, a.segment);
    }
    // Arc at the next vertex.
    const j = i + 1;
    if (j >= m - 1) continue;
    const b = verts[j]!;
    const d = turn[j]!;
    const T = tangent[j]!;
    if (Math.abs(d) < 1e-4 || T <= 0) {
      if (b.junctionOf !== null) {
        junctions.push({
          sM: s,
          segment: b.junctionOf,
          control: segments[b.junctionOf]!.endControl ?? null,
          turnRad: d,
        });
      }
      continue;
    }
    const half = Math.min(Math.abs(d), (175 * Math.PI) / 180) / 2;
    const R = T / Math.tan(half);
    const sign = Math.sign(d);
    const k = sign / R;
    // Arc from the tangent point before the vertex, turning by d around the centre on the inside.
    const px = b.x - ux * T;
    const py = b.y - uy * T;
    const cx = px - uy * R * sign;
    const cy = py + ux * R * sign;
    const startAng = Math.atan2(py - cy, px - cx);
    const arcSteps = Math.max(2, Math.ceil(Math.max((R * Math.abs(d)) / MAX_STEP_M, Math.abs(d) / MAX_ARC_STEP_RAD)));
    const nextSeg = verts[j]!.segment;
    for (let q = 1; q <= arcSteps; q++) {
      const ang = startAng + (d * q) / arcSteps;
      const h = dir + (d * q) / arcSteps;
      const seg = q <= arcSteps / 2 ? a.segment : nextSeg;
      push(cx + R * Math.cos(ang), cy + R * Math.sin(ang), h, k, seg);
      if (b.junctionOf !== null && q === Math.floor(arcSteps / 2)) {
        junctions.push({
          sM: s,
          segment: b.junctionOf,
          control: segments[b.junctionOf]!.endControl ?? null,
          turnRad: d,
        });
      }
    }
  }

  const n = xs.length;
  if (n < 2) throw new RangeError('route: the route has no length (all positions coincide)');
  const sM = Float64Array.from(ss);
  const rawK = Float64Array.from(ks);
  // Smooth curvature along distance: real roads enter curves through transition curves, not curvature steps.
  const curvature = new Float64Array(n);
  let lo = 0;
  let hi = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    while (hi < n && sM[hi]! <= sM[i]! + CURVATURE_SMOOTH_HALF_M) sum += rawK[hi++]!;
    while (sM[lo]! < sM[i]! - CURVATURE_SMOOTH_HALF_M) sum -= rawK[lo++]!;
    curvature[i] = sum / (hi - lo);
  }
  const segmentEndM = new Float64Array(segments.length);
  for (let i = 0; i < n; i++) segmentEndM[segs[i]!] = sM[i]!;
  for (let i = 1; i < segments.length; i++) segmentEndM[i] = Math.max(segmentEndM[i]!, segmentEndM[i - 1]!);

  return {
    n,
    x: Float64Array.from(xs),
    y: Float64Array.from(ys),
    sM,
    headingRad: Float64Array.from(hs),
    curvature,
    segment: Int32Array.from(segs),
    lengthM: s,
    junctions,
    segmentEndM,
    lon0,
    lat0,
    kx,
    ky,
  };
}
