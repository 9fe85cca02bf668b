import FlatQueue from 'flatqueue';
import type { RoadGraph } from '../graph/road-graph.ts';

/** A start of a search: a node reached at some cost already (e.g. the rest of the edge a position lies on). */
export interface Seed {
  node: number;
  cost: number;
}

/**
 * Reusable Dijkstra / A* state over a graph. Arrays are sized once and invalidated by an epoch counter, so a
 * search costs only what it visits, which matters for the thousands of short searches map matching runs.
 */
export class PathSearch {
  private readonly dist: Float64Array;
  private readonly prev: Int32Array;
  private readonly stamp: Uint32Array;
  private readonly first: Int32Array;
  private readonly queue = new FlatQueue<number>();
  private epoch = 0;
  private limit = Infinity;
  /** Nodes settled by the last run. */
  settled = 0;

  constructor(readonly graph: RoadGraph) {
    const n = graph.nodeCount;
    this.dist = new Float64Array(n);
    this.prev = new Int32Array(n);
    this.stamp = new Uint32Array(n);
    this.first = new Int32Array(n);
  }

  /**
   * Searches from `seeds` over `weights` (per edge) until every node within `maxCost` is settled, or until
   * every node in `targets` is settled. `heuristic` turns it into A* (it must never overestimate the remaining cost).
   * With `noUTurns`, a path never takes the reverse of the edge it arrived by (node-based, so approximate where
   * two paths reach a node from different sides; exact enough for matching and routing on real networks).
   */
  run(
    seeds: readonly Seed[],
    weights: Float64Array,
    maxCost = Infinity,
    targets: readonly number[] = [],
    heuristic?: (node: number) => number,
    noUTurns = false,
  ): void {
    const { dist, prev, stamp, queue, first } = this;
    const { nodeOutStart, edgeTo, edgeReverse } = this.graph.data;
    this.epoch++;
    if (this.epoch === 0xffffffff) {
      stamp.fill(0);
      this.epoch = 1;
    }
    const epoch = this.epoch;
    this.limit = maxCost;
    queue.clear();
    this.settled = 0;
    let targetsLeft = targets.length;
    for (const seed of seeds) {
      if (seed.cost > maxCost) continue;
      if (stamp[seed.node] !== epoch || seed.cost < dist[seed.node]!) {
        stamp[seed.node] = epoch;
        dist[seed.node] = seed.cost;
        prev[seed.node] = -1;
        first[seed.node] = -1;
        queue.push(seed.node, seed.cost + (heuristic ? heuristic(seed.node) : 0));
      }
    }
    while (queue.length > 0) {
      const priority = queue.peekValue()!;
      const node = queue.pop()!;
      const cost = dist[node]!;
      // Lazy deletion: skip entries superseded by a cheaper push.
      if (priority > cost + (heuristic ? heuristic(node) : 0) + 1e-9) continue;
      if (cost > maxCost) break;
      this.settled++;
      if (targetsLeft > 0 && targets.includes(node) && --targetsLeft === 0) break;
      const end = nodeOutStart[node + 1]!;
      const arrivedBy = prev[node]!;
      const back = noUTurns && arrivedBy >= 0 ? edgeReverse[arrivedBy]! : -2;
      const firstEdge = first[node]!;
      for (let e = nodeOutStart[node]!; e < end; e++) {
        if (e === back) continue;
        const next = edgeTo[e]!;
        const c = cost + weights[e]!;
        if (c > maxCost) continue;
        if (stamp[next] !== epoch || c < dist[next]!) {
          stamp[next] = epoch;
          dist[next] = c;
          prev[next] = e;
          first[next] = firstEdge >= 0 ? firstEdge : e;
          queue.push(next, heuristic ? c + heuristic(next) : c);
        }
      }
    }
  }

  /** Cost of reaching a node in the last run, or Infinity when it was not reached within the bound. */
  costTo(node: number): number {
    if (this.stamp[node] !== this.epoch) return Infinity;
    const d = this.dist[node]!;
    return d <= this.limit ? d : Infinity;
  }

  /** First edge of the path to `node` in the last run, or -1 when `node` is a seed or unreached. */
  firstEdgeTo(node: number): number {
    return this.costTo(node) === Infinity ? -1 : this.first[node]!;
  }

  /** Last edge of the path to `node` in the last run, or -1 when `node` is a seed or unreached. */
  lastEdgeTo(node: number): number {
    return this.costTo(node) === Infinity ? -1 : this.prev[node]!;
  }

  /** Edges from a seed to `node` in the last run (empty when `node` is a seed or unreached). */
  edgesTo(node: number): number[] {
    if (this.costTo(node) === Infinity) return [];
    const out: number[] = [];
    let n = node;
    const edgeFrom = this.graph.data.edgeFrom;
    while (this.prev[n]! >= 0) {
      const e = this.prev[n]!;
      out.push(e);
      n = edgeFrom[e]!;
    }
    return out.reverse();
  }
}
