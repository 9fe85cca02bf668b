import {
  CONTROL_KIND_MASK,
  CONTROL_NONE,
  CONTROL_SCOPE_ALL,
  CONTROL_SCOPE_BACKWARD,
  CONTROL_SCOPE_FORWARD,
  CONTROL_SCOPE_SHIFT,
  CONTROL_SIGNALS,
  EDGE_REVERSED,
  EDGE_ROUNDABOUT,
  type GraphArrays,
} from './graph-data.ts';

/**
 * Importance of each highway class (index of HIGHWAY_CLASSES) for telling the major road of a junction from the
 * minor ones: a link ranks as its road, unclassified and residential streets (and `road`) alike.
 */
const CLASS_RANK = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 5];

/** How far along a road the distance to the next junction is looked for, metres and vertices. */
const WALK_MAX_M = 1000;
const WALK_MAX_STEPS = 50;

/**
 * For every directed edge, the control (CONTROL_* kind, or CONTROL_NONE) a vehicle on it must obey at the node
 * where it ends. OSM tags a stop or give-way sign either on the junction node, where it binds the minor roads,
 * or on a node of the approach a few metres before the junction, often without saying for which direction.
 * Counting every vehicle that passes such a node made a car on the main road, or one leaving the junction past
 * the sign of the other carriageway, "roll through a stop sign". The rules, in order:
 * - a scope in the tags (`direction=forward|backward`, `stop=all`, `direction=both`) is followed;
 * - traffic signals bind every approach;
 * - a stop or give-way sign where three or more roads meet never binds the traffic going round a roundabout (it has
 *   the right of way), and binds the roads of lower class than the junction's main road; where all its roads are
 *   of one class (an all-way stop, or a class the map cannot rank), all;
 * - one on a road between junctions binds the traffic heading to the nearer junction: a vehicle whose next
 *   junction is no further ahead than its last one is behind (within 1 km), both ways when they are as far.
 */
export function controlsAhead(data: GraphArrays): Uint8Array {
  const { nodeControl, edgeFrom, edgeTo, edgeGeom, edgeFlags, edgeLengthM, edgeWay, wayHighway } = data;
  const nodeCount = nodeControl.length;
  const edgeCount = edgeFrom.length;
  const rankOf = (e: number) => CLASS_RANK[wayHighway[edgeWay[e]!]!] ?? 5;

  // The roads (geometries) meeting at each node, once each whatever their directions, a loop (a ring with one
  // junction) at both its ends: a compact adjacency, counted as incidentRoadCounts of @svc/scoring counts them.
  const degree = new Uint32Array(nodeCount + 1);
  const seen = new Uint8Array(data.geomForward.length);
  const roads: Array<[geom: number, a: number, b: number, lengthM: number, rank: number]> = [];
  for (let e = 0; e < edgeCount; e++) {
    const g = edgeGeom[e]!;
    if (seen[g]) continue;
    seen[g] = 1;
    roads.push([g, edgeFrom[e]!, edgeTo[e]!, edgeLengthM[e]!, rankOf(e)]);
    degree[edgeFrom[e]! + 1]!++;
    degree[edgeTo[e]! + 1]!++;
  }
  for (let n = 0; n < nodeCount; n++) degree[n + 1]! += degree[n]!;
  const adjacent = new Int32Array(degree[nodeCount]!);
  const fill = degree.slice(0, nodeCount);
  roads.forEach(([, a, b], r) => {
    adjacent[fill[a]!++] = r;
    adjacent[fill[b]!++] = r;
  });
  const roadsAt = (n: number) => degree[n + 1]! - degree[n]!;

  /** Metres from node `n` along the road `road` (leaving n) to the next junction or dead end, up to WALK_MAX_M. */
  const toJunctionM = (n: number, road: number): number => {
    let metres = 0;
    let at = n;
    let via = road;
    for (let step = 0; step < WALK_MAX_STEPS && metres < WALK_MAX_M; step++) {
      const [, a, b, lengthM] = roads[via]!;
      metres += lengthM;
      at = a === at ? b : a;
      if (roadsAt(at) !== 2) return metres;
      const lo = degree[at]!;
      via = adjacent[lo] === via ? adjacent[lo + 1]! : adjacent[lo]!;
    }
    return Math.min(metres, WALK_MAX_M);
  };

  const ahead = new Uint8Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) {
    const v = edgeTo[e]!;
    const code = nodeControl[v]!;
    const kind = code & CONTROL_KIND_MASK;
    if (kind === CONTROL_NONE) continue;
    const scope = code >> CONTROL_SCOPE_SHIFT;
    let binds: boolean;
    if (scope === CONTROL_SCOPE_FORWARD || scope === CONTROL_SCOPE_BACKWARD) {
      // Along the way's direction is an edge that runs its geometry forwards.
      binds = (scope === CONTROL_SCOPE_FORWARD) === ((edgeFlags[e]! & EDGE_REVERSED) === 0);
    } else if (scope === CONTROL_SCOPE_ALL || kind === CONTROL_SIGNALS) {
      binds = true;
    } else if (roadsAt(v) >= 3 && (edgeFlags[e]! & EDGE_ROUNDABOUT) !== 0) {
      binds = false;
    } else if (roadsAt(v) >= 3) {
      let major = Number.POSITIVE_INFINITY;
      let minor = Number.NEGATIVE_INFINITY;
      for (let k = degree[v]!; k < degree[v + 1]!; k++) {
        const rank = roads[adjacent[k]!]![4];
        major = Math.min(major, rank);
        minor = Math.max(minor, rank);
      }
      binds = major === minor || rankOf(e) > major;
    } else if (roadsAt(v) === 2) {
      const g = edgeGeom[e]!;
      const lo = degree[v]!;
      const here = roads[adjacent[lo]!]![0] === g ? adjacent[lo]! : adjacent[lo + 1]!;
      const next = adjacent[lo] === here ? adjacent[lo + 1]! : adjacent[lo]!;
      binds = toJunctionM(v, next) <= toJunctionM(v, here);
    } else {
      binds = true; // a dead end: the road goes nowhere else
    }
    if (binds) ahead[e] = kind;
  }
  return ahead;
}
