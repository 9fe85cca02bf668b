import type { LonLat } from '../types.ts';
import { EDGE_REVERSED } from './graph-data.ts';
import type { RoadGraph } from './road-graph.ts';

/** Offset along an edge (driving direction) of a point given as an offset along the edge's geometry. */
export function edgeOffsetOfGeometryOffset(graph: RoadGraph, edge: number, geometryOffsetM: number): number {
  const reversed = (graph.data.edgeFlags[edge]! & EDGE_REVERSED) !== 0;
  return reversed ? graph.data.edgeLengthM[edge]! - geometryOffsetM : geometryOffsetM;
}

/**
 * The part of an edge's geometry between two offsets (metres from the edge's start, driving direction),
 * including interpolated end points. `fromM` > `toM` is treated as an empty stretch at `fromM`.
 */
export function sliceEdge(graph: RoadGraph, edge: number, fromM: number, toM: number): LonLat[] {
  const length = graph.data.edgeLengthM[edge]!;
  const a = Math.min(Math.max(fromM, 0), length);
  const b = Math.max(Math.min(Math.max(toM, 0), length), a);
  const coords = graph.edgeCoordinates(edge);
  const out: LonLat[] = [graph.edgePointAt(edge, a)];
  if (b > a) {
    // Cumulative distances in driving direction come from the geometry's, mirrored when the edge runs backwards.
    const d = graph.data;
    const g = d.edgeGeom[edge]!;
    const start = d.geomStart[g]!;
    const end = d.geomStart[g + 1]!;
    const reversed = (d.edgeFlags[edge]! & EDGE_REVERSED) !== 0;
    for (let k = 1; k < coords.length - 1; k++) {
      const s = reversed ? end - 1 - k : start + k;
      const along = reversed ? length - d.shapeCumM[s]! : d.shapeCumM[s]!;
      if (along > a && along < b) out.push(coords[k]!);
    }
    out.push(graph.edgePointAt(edge, b));
  }
  return out;
}

/** Appends points to a line, skipping a first point that repeats the line's last one. */
export function appendLine(line: LonLat[], points: readonly LonLat[]): void {
  for (const p of points) {
    const last = line[line.length - 1];
    if (last && last[0] === p[0] && last[1] === p[1]) continue;
    line.push(p);
  }
}
