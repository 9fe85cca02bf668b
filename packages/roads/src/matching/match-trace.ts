import { haversineM, metresPerDegree } from '../geo.ts';
import type { RoadGraph } from '../graph/road-graph.ts';
import type { TracePoint } from '../types.ts';
import { type MatchOptions, resolveMatchOptions } from './match-options.ts';
import {
  type MatchedPoint,
  type MatchedSegment,
  type MatchResult,
  matchedPoint,
  type SubTrace,
  unmatchedPoint,
} from './match-result.ts';
import { TraceFixes } from './trace-fixes.ts';
import { backtrack, columnConfidence, positionOf, TraceMatcher } from './trace-matcher.ts';
import { validateTrace } from './validate-trace.ts';

/**
 * Map-matches a GPS trace to the road graph with a hidden Markov model (Newson & Krumm 2009): candidates are
 * road positions near each fix, emissions Gaussian in the fix-to-road distance, transitions exponential in
 * |route distance - great-circle distance|, decoded with Viterbi. The trace is split on time gaps and on
 * transitions no road connects; isolated impossible fixes are dropped as outliers.
 */
export function matchTrace(graph: RoadGraph, points: readonly TracePoint[], options: MatchOptions = {}): MatchResult {
  const fixes = new TraceFixes(Array.isArray(points) ? points.length : 0);
  validateTrace(points, 'trace', fixes.add);
  if (fixes.count < fixes.length) {
    // A hole in a sparse array, which validation skips: the matcher cannot read it.
    let hole = 0;
    while (hole in points) hole++;
    throw new RangeError(`trace: point ${hole} is not an object`);
  }
  const o = resolveMatchOptions(options);
  const n = points.length;
  const result: MatchedPoint[] = new Array(n);
  if (n === 0) {
    return {
      matchedShare: 0,
      traceLengthM: 0,
      matchedTraceLengthM: 0,
      meanConfidence: 0,
      path: [],
      segments: [],
      subTraces: [],
      points: [],
    };
  }
  let latSum = 0;
  for (let i = 0; i < n; i++) latSum += fixes.lat[i]!;
  const { kx, ky } = metresPerDegree(latSum / n);
  const matcher = new TraceMatcher(graph, fixes, o, kx, ky);
  const chains = matcher.run();

  // Fill points from the decoded chains.
  const path: MatchedSegment[] = [];
  const subTraces: SubTrace[] = [];
  for (const chain of chains) {
    const subTrace = subTraces.length;
    const chosen = backtrack(chain);
    let confidenceSum = 0;
    chain.forEach((step, k) => {
      const c = positionOf(step, chosen[k]!);
      const confidence = columnConfidence(step.score, chosen[k]!);
      confidenceSum += confidence;
      result[step.point] = matchedPoint(graph, step.point, c, confidence, subTrace);
    });
    const segments = matcher.pathOf(chain, chosen, subTrace);
    matcher.snapThinned(chain, chosen, segments, result, subTrace);
    let lengthM = 0;
    for (const s of segments) lengthM += s.lengthM;
    path.push(...segments);
    subTraces.push({
      fromPoint: chain[0]!.point,
      toPoint: chain[chain.length - 1]!.point,
      lengthM,
      meanConfidence: confidenceSum / chain.length,
    });
  }
  for (let i = 0; i < n; i++) {
    if (result[i]) continue;
    const original = matcher.duplicateOf[i]!;
    if (original >= 0 && result[original]?.matched) result[i] = { ...result[original]!, index: i };
    else result[i] = unmatchedPoint(i, matcher.reasons[i] ?? 'isolated');
  }

  let traceLengthM = 0;
  let matchedTraceLengthM = 0;
  let confidenceSum = 0;
  let matchedCount = 0;
  const { lon, lat } = matcher;
  for (let i = 0; i < n; i++) {
    const r = result[i]!;
    if (r.matched) {
      confidenceSum += r.confidence;
      matchedCount++;
    }
    if (i === 0) continue;
    const d = haversineM(lon[i - 1]!, lat[i - 1]!, lon[i]!, lat[i]!);
    traceLengthM += d;
    const q = result[i - 1]!;
    if (r.matched && q.matched && r.subTrace === q.subTrace) matchedTraceLengthM += d;
  }
  let matchedShare = traceLengthM > 0 ? matchedTraceLengthM / traceLengthM : matchedCount === n ? 1 : 0;
  // A stationary trace has no length; then the share of matched points is the honest answer.
  if (traceLengthM === 0) matchedShare = matchedCount / n;
  return {
    matchedShare,
    traceLengthM,
    matchedTraceLengthM,
    meanConfidence: matchedCount > 0 ? confidenceSum / matchedCount : 0,
    path,
    segments: path,
    subTraces,
    points: result,
  };
}
