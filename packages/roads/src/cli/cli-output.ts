import type { RoadGraph } from '../graph/road-graph.ts';
import type { MatchResult } from '../matching/match-result.ts';

/** `roads build` / `roads generate` summary lines. */
export function graphSummary(graph: RoadGraph, file: string, seconds: number): string {
  const s = graph.meta.stats;
  const pct = (share: number | undefined) => `${((share ?? 0) * 100).toFixed(1)} %`;
  return [
    `wrote ${file} in ${seconds.toFixed(2)} s`,
    `  source            ${graph.meta.source}`,
    `  country           ${graph.country ?? 'unknown'}`,
    `  nodes             ${graph.nodeCount}`,
    `  edges             ${graph.edgeCount} (directed)`,
    `  road length       ${(s.roadKm ?? 0).toFixed(1)} km`,
    `  explicit limits   ${pct(s.explicitLimitShare)} of road length (default ${pct(s.defaultLimitShare)}, unknown ${pct(Math.max(0, 1 - (s.explicitLimitShare ?? 0) - (s.defaultLimitShare ?? 0)))})`,
    `  urban             ${pct(s.urbanShare)} of road length`,
    `  signals/stop/give-way nodes ${s.controlledNodes ?? 0}`,
  ].join('\n');
}

/** The JSON document `roads match` prints: the match without per-segment geometry. */
export function matchJson(result: MatchResult): unknown {
  return {
    matchedShare: round(result.matchedShare, 4),
    meanConfidence: round(result.meanConfidence, 3),
    traceLengthM: round(result.traceLengthM, 1),
    matchedTraceLengthM: round(result.matchedTraceLengthM, 1),
    subTraces: result.subTraces.map((s) => ({
      ...s,
      lengthM: round(s.lengthM, 1),
      meanConfidence: round(s.meanConfidence, 3),
    })),
    path: result.path.map((s) => ({
      edge: s.edge,
      wayId: s.wayId,
      name: s.name,
      ref: s.ref,
      highway: s.highway,
      speedLimitKmh: s.speedLimitKmh,
      limitSource: s.limitSource,
      unlimited: s.unlimited,
      urban: s.urban,
      lengthM: round(s.lengthM, 1),
      subTrace: s.subTrace,
      fromPoint: s.fromPoint,
      toPoint: s.toPoint,
    })),
    points: result.points.map((p) => ({
      index: p.index,
      matched: p.matched,
      ...(p.reason ? { reason: p.reason } : {}),
      edge: p.edge,
      wayId: p.wayId,
      snapped: p.snapped ? [round(p.snapped[0], 7), round(p.snapped[1], 7)] : null,
      distanceM: p.distanceM === null ? null : round(p.distanceM, 1),
      confidence: round(p.confidence, 3),
      speedLimitKmh: p.speedLimitKmh,
      limitSource: p.limitSource,
      highway: p.highway,
      subTrace: p.subTrace,
    })),
  };
}

/** The match as a GeoJSON FeatureCollection: path segments as LineStrings, matched points as Points. */
export function matchGeoJson(result: MatchResult): unknown {
  const features: unknown[] = result.path.map((s) => ({
    type: 'Feature',
    geometry: { type: 'LineString', coordinates: s.coordinates },
    properties: {
      kind: 'path',
      edge: s.edge,
      wayId: s.wayId,
      name: s.name,
      highway: s.highway,
      speedLimitKmh: s.speedLimitKmh,
      limitSource: s.limitSource,
      lengthM: round(s.lengthM, 1),
      subTrace: s.subTrace,
    },
  }));
  for (const p of result.points) {
    if (!p.snapped) continue;
    features.push({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: p.snapped },
      properties: { kind: 'point', index: p.index, edge: p.edge, wayId: p.wayId, confidence: round(p.confidence, 3) },
    });
  }
  return {
    type: 'FeatureCollection',
    properties: { matchedShare: round(result.matchedShare, 4), meanConfidence: round(result.meanConfidence, 3) },
    features,
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
