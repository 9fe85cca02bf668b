import {
  buildGraph,
  type ControlScope,
  type NetworkSegment,
  type NetworkWay,
  type NodeControl,
  type RoadGraph,
  type SpeedLimit,
} from '@svc/roads';
import type { ScoredTrip } from '../../src/index.ts';
import type { Truth } from './synthetic-drive.ts';

/**
 * Hand-made road graphs in the plane of the synthetic drive (`synthetic-drive.ts`), for tests that need to know
 * exactly which roads meet at a node (the junction factors: turn-junctions, junction-factors).
 */

// The synthetic drive's local plane (emit's defaults): x east, y north, metres from (11.5, 48.1).
const LON0 = 11.5;
const LAT0 = 48.1;
const KX = 111_320 * Math.cos((LAT0 * Math.PI) / 180);
const KY = 111_132;

export interface Road {
  name: string;
  points: Array<[number, number]>;
  /** Drivable only in the order of `points`. */
  oneway?: boolean;
  roundabout?: boolean;
  /** OSM class (default residential; tertiary for a roundabout). */
  highway?: string;
}

/** A traffic control on the node at `at` (a road's end point), as OSM would tag it. */
export interface Control {
  at: [number, number];
  control: NodeControl;
  scope?: ControlScope;
}

/** A graph of the given roads (x/y metres in the drive's plane); points shared by several roads are one node. */
export function graphOf(
  roads: readonly Road[],
  source = 'hand-made test graph',
  controls: readonly Control[] = [],
): RoadGraph {
  const lon: number[] = [];
  const lat: number[] = [];
  const index = new Map<string, number>();
  const nodeAt = ([x, y]: [number, number]) => {
    const key = `${x.toFixed(3)},${y.toFixed(3)}`;
    let i = index.get(key);
    if (i === undefined) {
      i = lon.length;
      index.set(key, i);
      lon.push(LON0 + x / KX);
      lat.push(LAT0 + y / KY);
    }
    return i;
  };
  const limit: SpeedLimit = { kmh: 50, source: 'explicit' };
  const ways: NetworkWay[] = [];
  const segments: NetworkSegment[] = [];
  roads.forEach((road, k) => {
    ways.push({
      wayId: k + 1,
      highway: road.highway ?? (road.roundabout ? 'tertiary' : 'residential'),
      name: road.name,
    });
    segments.push({
      way: k,
      // The ends of a road become graph nodes (shared by the roads that meet there), the points between shape it.
      nodes: road.points.map(nodeAt),
      forward: true,
      backward: road.oneway !== true,
      forwardLimit: limit,
      backwardLimit: limit,
      urban: true,
      roundabout: road.roundabout === true,
    });
  });
  const controlAt = new Map(controls.map((c) => [nodeAt(c.at), c]));
  return buildGraph({
    nodes: {
      lon,
      lat,
      control: (i) => controlAt.get(i)?.control ?? null,
      controlScope: (i) => controlAt.get(i)?.scope ?? null,
    },
    ways,
    segments,
    source,
    country: 'DE',
  });
}

/** The drive's true path as road geometry, one point every `stepM` metres, from index `from` to `to`. */
export function pathPoints(truth: Truth, from: number, to: number, stepM = 10): Array<[number, number]> {
  const out: Array<[number, number]> = [[truth.x[from]!, truth.y[from]!]];
  let last = out[0]!;
  for (let i = from + 1; i <= to; i++) {
    const p: [number, number] = [truth.x[i]!, truth.y[i]!];
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) >= stepM || i === to) {
      out.push(p);
      last = p;
    }
  }
  return out;
}

/** Index of the true motion at which the heading first comes within 1 degree of `deg` (from index `from`). */
export function headingReached(truth: Truth, deg: number, from = 0): number {
  for (let i = from; i < truth.heading.length; i++)
    if (Math.abs(((truth.heading[i]! - deg + 540) % 360) - 180) < 1) return i;
  throw new Error(`heading ${deg} never reached`);
}

export function factor(trip: ScoredTrip, key: string) {
  for (const t of trip.themes) for (const f of t.factors) if (f.key === key) return f;
  throw new Error(key);
}
