import { edgeOffsetOfGeometryOffset, sliceEdge } from '../graph/edge-geometry.ts';
import { EDGE_REVERSED } from '../graph/graph-data.ts';
import type { RoadGraph } from '../graph/road-graph.ts';
import { pathSearchFor } from '../routing/route.ts';
import { HitList, roadsNearInto } from '../spatial/nearby-roads.ts';
import type { LonLat, TracePoint } from '../types.ts';
import type { ResolvedMatchOptions } from './match-options.ts';
import {
  type EdgePosition,
  type MatchedPoint,
  type MatchedSegment,
  matchedPoint,
  type UnmatchedReason,
} from './match-result.ts';
import { TraceFixes } from './trace-fixes.ts';

/**
 * Typed-array views carved one after the other out of large buffers: a step's per-candidate arrays without an
 * object per candidate (each with its numbers boxed) nor a separately allocated buffer per array. A trace with
 * courses decodes more steps, and the candidates' objects were most of the garbage collector's work. A full buffer
 * is left to the views into it, never reused.
 */
class Slab<T extends Float64Array | Int32Array | Uint8Array> {
  private buffer: T;
  private used = 0;

  constructor(private readonly make: (length: number) => T) {
    this.buffer = make(0);
  }

  /** A view of n elements, zeros until written. */
  take(n: number): T {
    if (this.used + n > this.buffer.length) {
      this.buffer = this.make(Math.max(SLAB_LENGTH, n));
      this.used = 0;
    }
    this.used += n;
    return this.buffer.subarray(this.used - n, this.used) as T;
  }
}

class Slabs {
  private readonly f64 = new Slab((n) => new Float64Array(n));
  private readonly i32 = new Slab((n) => new Int32Array(n));
  private readonly u8 = new Slab((n) => new Uint8Array(n));

  float64(n: number): Float64Array {
    return this.f64.take(n);
  }

  int32(n: number): Int32Array {
    return this.i32.take(n);
  }

  uint8(n: number): Uint8Array {
    return this.u8.take(n);
  }
}

/** Elements per slab buffer (views of zeros until handed out). */
const SLAB_LENGTH = 8192;

/**
 * How much longer a metre of road counts in transitions, by class. Among routes of (nearly) equal length, which
 * a street grid offers many of when fixes are sparse, drivers take the bigger road; a few percent expresses that
 * without overriding the geometry.
 */
const CLASS_FACTOR: Readonly<Record<string, number>> = {
  motorway: 1,
  motorway_link: 1,
  trunk: 1,
  trunk_link: 1,
  primary: 1,
  primary_link: 1,
  secondary: 1.01,
  secondary_link: 1.01,
  tertiary: 1.02,
  tertiary_link: 1.02,
  unclassified: 1.04,
  residential: 1.04,
  road: 1.04,
  living_street: 1.08,
  service: 1.08,
};

const weightCache = new WeakMap<RoadGraph, { weights: Float64Array; factor: Float64Array }>();

function matchWeights(graph: RoadGraph): { weights: Float64Array; factor: Float64Array } {
  let entry = weightCache.get(graph);
  if (!entry) {
    const factor = new Float64Array(graph.edgeCount);
    const weights = new Float64Array(graph.edgeCount);
    for (let e = 0; e < graph.edgeCount; e++) {
      factor[e] = CLASS_FACTOR[graph.edgeHighway(e)] ?? 1.04;
      weights[e] = graph.data.edgeLengthM[e]! * factor[e]!;
    }
    entry = { weights, factor };
    weightCache.set(graph, entry);
  }
  return entry;
}

const NO_TARGETS: readonly number[] = [];

/** The roads near the fix being decoded (matching is synchronous, so one list serves every matcher). */
const nearby = new HitList();

/**
 * A fix reporting more than this speed is not part of a stop, m/s. Doppler speed errors are about 0.1-0.2 m/s, and
 * a receiver standing still reports 0-0.3; a vehicle creeping in a queue moves at 1 m/s and more.
 */
const STOP_SPEED_MPS = 0.5;

/** Below this speed a receiver's course says little (it turns with the noise), m/s. */
const COURSE_MIN_SPEED_MPS = 2;

/**
 * Log-likelihood cost of a road position whose driving direction opposes the fix's course: this many times
 * max(0, -cos) of the angle between them, on top of the across-course cost below, so a road driven exactly against
 * the course costs as much as lying 3 sigma farther off. Positions cannot tell two one-way carriageways 10 m apart
 * when the GPS error is 8 m and correlated over half a minute; the course, precise to a few degrees while moving,
 * can.
 */
const AGAINST_COURSE_COST = 3;

/**
 * Log-likelihood cost of a road position at 90 degrees (or more) to the fix's course, growing in proportion to the
 * angle: 1.5 / 90 per degree, so 0.17 at 10 degrees (less than lying 0.6 sigma farther off), 0.75 at 45 and 1.5
 * (1.7 sigma) across the course. A fix passing a cross street, a side road or the far leg of a hairpin lies as close
 * to that road as to its own; by positions alone the decoder put it there, and the driven road then went to the
 * wrong road's limit, class and junctions for those seconds (Monaco's fixes on an edge off the route,
 * `bench/matching-real.ts` in @svc/scoring: 400 of 193,418, 228 with this cost).
 *
 * Proportional, without a free band: a tolerance of 20-45 degrees before the cost starts (tried) left the roads that
 * fork at a small angle to the driven one, and cut the off-route fixes less (279-320 in Monaco at 1.5). Course noise
 * at the 2 m/s from which the course counts is a few degrees (Doppler velocity error 0.15 m/s: about 5 degrees at
 * 2 m/s), which costs every candidate about alike. A vehicle turning at a junction is at 45 degrees to both roads
 * halfway round, and pays the same on either; at the junction node itself every road meeting there is a candidate at
 * the same point (its bearing taken over the first or last 2 m of the edge), so the one that follows the course is
 * free. Bends and roundabouts: the bearing is the road's local one, 2 m either side of the position. Weights of 1,
 * 1.25 and 2 were tried too: 1 and 1.25 left more fixes off the route (267, 259), 2 cut them to 207 but put more of
 * the first fixes of a trip, pulling away round a roundabout, more than 10 m from the true position (27 against 22).
 */
const ACROSS_COURSE_COST = 1.5;

/** The fix's course when it is moving fast enough for the course to mean something, else undefined. */
function usableCourse(courseDeg: number | undefined, speedMps: number | undefined): number | undefined {
  return courseDeg !== undefined && speedMps !== undefined && speedMps >= COURSE_MIN_SPEED_MPS ? courseDeg : undefined;
}

/** A number array's value, or undefined for the NaN that stands for a value the fix does not carry. */
function given(value: number): number | undefined {
  return Number.isNaN(value) ? undefined : value;
}

/**
 * `x % 360`, bit for bit, without the library call `%` on doubles costs where a subtraction gives the same: the
 * remainder is exact, and so is x - 360 for x in [360, 720) and x - 720 for x in [720, 1080) (Sterbenz), which is
 * where the differences of courses and bearings and the sums below fall.
 */
function mod360(x: number): number {
  if (x >= 0) {
    if (x < 360) return x;
    if (x < 720) return x - 360;
    if (x < 1080) return x - 720;
  } else if (x > -360) {
    return x;
  }
  return x % 360;
}

/**
 * The cost of being at a road position of bearing `bearingDeg` with a fix of course `courseDeg`: nothing along the
 * course, 1.5 across it, 4.5 against it, rising all the way.
 */
function courseCost(courseDeg: number | undefined, bearingDeg: number): number {
  if (courseDeg === undefined || !Number.isFinite(bearingDeg)) return 0;
  const angleDeg = Math.abs(mod360(mod360(courseDeg - bearingDeg) + 540) - 180);
  const across = (ACROSS_COURSE_COST * Math.min(angleDeg, 90)) / 90;
  // Up to 90 degrees the cosine is positive (90 × pi / 180 rounds to just below pi / 2), so the against term is
  // exactly 0 and adding it changes no bit: most candidates lie along the course, and this skips their cosine.
  if (angleDeg <= 90) return across;
  const against = AGAINST_COURSE_COST * Math.max(0, -Math.cos((angleDeg * Math.PI) / 180));
  return across + against;
}

const ROUTE = 0;
const FORWARD = 1;
const STAY = 2;
const U_TURN = 3;

export interface Step {
  point: number;
  /** The observation decoded: the fix itself, or the centroid of a stop's fixes. */
  lon: number;
  lat: number;
  /** Times the vehicle arrived at and left the observed position (equal unless it is a stop). */
  timeInMs: number | undefined;
  timeOutMs: number | undefined;
  /** The candidates, one entry per candidate in each array: the directed edge, the offset along it, the road
   * position and its distance from the observation, and the emission log-likelihood. */
  edge: Int32Array;
  offsetM: Float64Array;
  snapLon: Float64Array;
  snapLat: Float64Array;
  distanceM: Float64Array;
  logEmission: Float64Array;
  /** Viterbi log score per candidate, normalised so the best is 0. */
  score: Float64Array;
  back: Int32Array;
  kind: Uint8Array;
  sigmaM: number;
  /** The decoded fix's course while moving (undefined for a stop, or without a usable course). */
  courseDeg: number | undefined;
}

/**
 * How far the course may turn from the last decoded fix's before a close fix is decoded rather than thinned,
 * degrees. A vehicle pulling away from a stop, or going round a roundabout or a turnaround, stays within two
 * sigmas of where it was for several fixes while its path bends; thinned, those fixes left the decoder a straight
 * jump from the stop to the first distant fix, which it explained by the shortest route (a simulated trip started
 * on the exit road of a roundabout it went three quarters round).
 */
const THIN_MAX_TURN_DEG = 45;

/** True when a fix's usable course (NaN if none) shows the vehicle has turned (or moved off) since a decoded step. */
function turnedSince(tail: Step, course: number): boolean {
  if (Number.isNaN(course)) return false;
  if (tail.courseDeg === undefined) return true;
  const turnDeg = Math.abs(mod360(mod360(course - tail.courseDeg) + 540) - 180);
  return turnDeg > THIN_MAX_TURN_DEG;
}

/**
 * How far the courses just before and just after a slow stretch must differ for a turn round in place during it,
 * degrees. Turning round ends some 180 degrees from where it began; a vehicle that stopped at a signal or a give-way
 * line and drove on, straight or round a corner, leaves at 0-100 degrees from its arrival.
 */
const TURN_ROUND_MIN_DEG = 135;

/** `droveOnBetween`: how far (in sigmas) the fixes compared lie from the steps, and within how many seconds. */
const ON_MIN_SIGMAS = 4;
const ON_WINDOW_S = 60;
/** `droveOnBetween` looks at most this many fixes each way (the bound for a trace without times, or a dense one). */
const ON_MAX_FIXES = 600;

/** How many seconds of courses before and after a slow stretch `turnableFixes` compares (at least one fix each). */
const TURN_ROUND_WINDOW_S = 10;

/**
 * For each fix, the last fix at or before it where the vehicle may have turned round in place, or -1. Only fixes
 * without a usable course (NaN: slow, or no course given) can be such a fix, and only when their slow stretch (the
 * run of such fixes) is not framed by courses that rule a turn out: when the moving fixes within
 * `TURN_ROUND_WINDOW_S` before the stretch and those after it all lie within `TURN_ROUND_MIN_DEG` of one another,
 * the vehicle left the way it arrived (or round a corner), so it did not turn round where it stood. A stretch at
 * either end of the trace, or in a trace without courses, is not framed and allows a turn, as before courses
 * counted (a trace without courses is judged by positions instead where the decoder turns round: `droveOnBetween`). Without this a vehicle waiting at a signal could turn round for free: the decoder put the stop a few
 * metres onto the reverse direction or a cross street at the node and came back (the synthetic city's signal
 * waits in the roads bench).
 */
function turnableFixes(course: Float64Array, timeMs: Float64Array): Int32Array {
  const n = course.length;
  const last = new Int32Array(n);
  let turnable = -1;
  let i = 0;
  while (i < n) {
    if (!Number.isNaN(course[i]!)) {
      last[i] = turnable;
      i++;
      continue;
    }
    let end = i;
    while (end + 1 < n && Number.isNaN(course[end + 1]!)) end++;
    const allowed = i === 0 || end === n - 1 || reversedAround(course, timeMs, i - 1, end + 1);
    for (let k = i; k <= end; k++) {
      if (allowed) turnable = k;
      last[k] = turnable;
    }
    i = end + 1;
  }
  return last;
}

/**
 * Whether a usable course among the moving fixes ending at `before` (going back) and one among those starting at
 * `after` (going on), each within `TURN_ROUND_WINDOW_S` of the stretch between them, differ by `TURN_ROUND_MIN_DEG`
 * or more. Both runs stop at the next fix without a usable course.
 */
function reversedAround(course: Float64Array, timeMs: Float64Array, before: number, after: number): boolean {
  const windowMs = TURN_ROUND_WINDOW_S * 1000;
  for (let a = before; a >= 0 && !Number.isNaN(course[a]!); a--) {
    if (a < before && !(timeMs[before]! - timeMs[a]! <= windowMs)) break;
    for (let b = after; b < course.length && !Number.isNaN(course[b]!); b++) {
      if (b > after && !(timeMs[b]! - timeMs[after]! <= windowMs)) break;
      if (Math.abs(mod360(mod360(course[b]! - course[a]!) + 540) - 180) >= TURN_ROUND_MIN_DEG) return true;
    }
  }
  return false;
}

/** Candidate c of a step as a road position (for the result). */
export function positionOf(step: Step, c: number): EdgePosition {
  return {
    edge: step.edge[c]!,
    offsetM: step.offsetM[c]!,
    lon: step.snapLon[c]!,
    lat: step.snapLat[c]!,
    distanceM: step.distanceM[c]!,
  };
}

/** The best final candidate and its predecessors: the decoded candidate index per step. */
export function backtrack(chain: Step[]): number[] {
  const chosen = new Array<number>(chain.length);
  const last = chain[chain.length - 1]!;
  let best = 0;
  for (let c = 1; c < last.score.length; c++) if (last.score[c]! > last.score[best]!) best = c;
  for (let k = chain.length - 1; k >= 0; k--) {
    chosen[k] = best;
    best = chain[k]!.back[best]!;
  }
  return chosen;
}

/** Probability share of one candidate in a Viterbi column (a max-product marginal). */
export function columnConfidence(score: Float64Array, chosen: number): number {
  let sum = 0;
  for (const s of score) if (s > -Infinity) sum += Math.exp(s);
  return sum > 0 ? Math.exp(score[chosen]!) / sum : 0;
}

/** The state of one transition computation, reused (closures per call cost allocation and GC time). */
interface Transition {
  prev: Step;
  cur: Step;
  best: Float64Array;
  gcM: number;
  boundM: number;
  invBeta: number;
}

/** Offers a way from candidate p of the previous fix to candidate c of the current one, `routeM` long. */
function consider(t: Transition, p: number, c: number, routeM: number, kind: number): void {
  if (routeM > t.boundM) return;
  const s = t.prev.score[p]! - Math.abs(routeM - t.gcM) * t.invBeta;
  if (s > t.best[c]!) {
    t.best[c] = s;
    t.cur.back[c] = p;
    t.cur.kind[c] = kind;
  }
}

/** The Viterbi decoder over one trace; `run` returns the chains (sub-traces) of steps. */
export class TraceMatcher {
  readonly duplicateOf: Int32Array;
  /** For fixes skipped as too close to the previous decoded fix: that fix's index. */
  readonly thinnedAfter: Int32Array;
  /** For the first fix of a stop decoded as one observation: the stop's last fix (else -1). */
  readonly stopUntil: Int32Array;
  readonly reasons: Array<UnmatchedReason | undefined>;
  private readonly search;
  private readonly maxSpeedMps: number;
  /** Edge lengths as the matcher weighs them, and the factor over the true length per edge. */
  private readonly weights: Float64Array;
  private readonly roadFactor: Float64Array;
  /** The fixes' fields (`TraceFixes`) and what the decoder derives from them; NaN where a fix has no value. */
  readonly lon: Float64Array;
  readonly lat: Float64Array;
  private readonly timeMs: Float64Array;
  /** The fix's course where usable (`usableCourse`), else NaN. */
  private readonly course: Float64Array;
  private readonly sigmaM: Float64Array;
  /** 1 where the fix reports a speed over `STOP_SPEED_MPS`. */
  private readonly moving: Uint8Array;
  /**
   * The last fix at or before each one where the vehicle may have turned round in place, or -1: a fix without a
   * usable course in a slow stretch that does not show the vehicle leaving the way it came (`turnableFixes`).
   */
  private readonly lastTurnable: Int32Array;
  /** Whether any fix has a usable course (else turning round is judged by positions: `droveOnBetween`). */
  private readonly hasCourses: boolean;
  /** Views of the step's per-candidate arrays come from here. */
  private readonly slabs = new Slabs();
  /** The candidates of the fix being decoded, before they are copied into views of their exact length. */
  private readonly found: Pick<Step, 'edge' | 'offsetM' | 'snapLon' | 'snapLat' | 'distanceM' | 'logEmission'>;
  private readonly scratch: Transition = {
    prev: undefined as unknown as Step,
    cur: undefined as unknown as Step,
    best: new Float64Array(0),
    gcM: 0,
    boundM: 0,
    invBeta: 0,
  };

  constructor(
    private readonly graph: RoadGraph,
    trace: readonly TracePoint[] | TraceFixes,
    private readonly o: ResolvedMatchOptions,
    private readonly kx: number,
    private readonly ky: number,
  ) {
    const fixes = trace instanceof TraceFixes ? trace : TraceFixes.of(trace);
    const n = fixes.length;
    this.duplicateOf = new Int32Array(n).fill(-1);
    this.thinnedAfter = new Int32Array(n).fill(-1);
    this.stopUntil = new Int32Array(n).fill(-1);
    this.reasons = new Array(n);
    this.lon = fixes.lon;
    this.lat = fixes.lat;
    this.timeMs = fixes.timeMs;
    this.course = new Float64Array(n);
    this.sigmaM = new Float64Array(n);
    this.moving = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const speedMps = given(fixes.speedMps[i]!);
      this.course[i] = usableCourse(given(fixes.courseDeg[i]!), speedMps) ?? Number.NaN;
      this.sigmaM[i] = this.sigmaFor(given(fixes.accuracyM[i]!));
      this.moving[i] = speedMps !== undefined && speedMps > STOP_SPEED_MPS ? 1 : 0;
    }
    this.lastTurnable = turnableFixes(this.course, this.timeMs);
    this.hasCourses = this.course.some((c) => !Number.isNaN(c));
    const most = 2 * o.maxCandidates;
    this.found = {
      edge: new Int32Array(most),
      offsetM: new Float64Array(most),
      snapLon: new Float64Array(most),
      snapLat: new Float64Array(most),
      distanceM: new Float64Array(most),
      logEmission: new Float64Array(most),
    };
    this.search = pathSearchFor(graph);
    this.maxSpeedMps = o.maxSpeedKmh / 3.6;
    ({ weights: this.weights, factor: this.roadFactor } = matchWeights(graph));
  }

  run(): Step[][] {
    const { o, lon, lat, timeMs } = this;
    const count = lon.length;
    const chains: Step[][] = [];
    let chain: Step[] = [];
    let pending: number[] = [];
    let previous = -1;
    const close = () => {
      if (chain.length > 0) chains.push(chain);
      chain = [];
    };
    for (let i = 0; i < count; i++) {
      if (previous >= 0) {
        if (lon[i] === lon[previous] && lat[i] === lat[previous]) {
          this.duplicateOf[i] = this.duplicateOf[previous]! >= 0 ? this.duplicateOf[previous]! : previous;
          continue;
        }
      }
      previous = i;
      const tail = chain[chain.length - 1];
      // The last fix is always decoded: it fixes where the path ends.
      if (tail && pending.length === 0 && o.minSpacingSigmas > 0 && i < count - 1) {
        const closeM = Math.hypot((lon[i]! - tail.lon) * this.kx, (lat[i]! - tail.lat) * this.ky);
        const gapS =
          !Number.isNaN(timeMs[i]!) && tail.timeOutMs !== undefined ? (timeMs[i]! - tail.timeOutMs) / 1000 : 0;
        if (
          closeM < o.minSpacingSigmas * Math.min(tail.sigmaM, this.sigmaM[i]!) &&
          gapS <= o.maxGapS &&
          !turnedSince(tail, this.course[i]!)
        ) {
          this.thinnedAfter[i] = tail.point;
          continue;
        }
      }
      const stop = pending.length === 0 ? this.stopAt(i) : null;
      const step = stop
        ? this.candidates(i, stop.lon, stop.lat, stop.sigmaM, given(timeMs[i]!), given(timeMs[stop.last]!))
        : this.candidates(
            i,
            lon[i]!,
            lat[i]!,
            this.sigmaM[i]!,
            given(timeMs[i]!),
            given(timeMs[i]!),
            given(this.course[i]!),
          );
      if (!step) {
        this.reasons[i] = 'no-road';
        continue;
      }
      if (stop) {
        this.stopUntil[i] = stop.last;
        for (let k = i + 1; k <= stop.last; k++) this.thinnedAfter[k] = i;
        i = stop.last;
        previous = stop.last;
      }
      const last = chain[chain.length - 1];
      if (!last) {
        chain.push(step);
        continue;
      }
      const dtS =
        step.timeInMs !== undefined && last.timeOutMs !== undefined ? (step.timeInMs - last.timeOutMs) / 1000 : null;
      if (dtS !== null && dtS > o.maxGapS) {
        for (const k of pending) this.reasons[k] = 'outlier';
        pending = [];
        close();
        chain.push(step);
        continue;
      }
      const mayStand = this.hasCourses ? this.stoodBetween(last.point, i) : !this.droveOnBetween(last, step, i);
      if (this.transition(last, step, dtS, mayStand)) {
        for (const k of pending) this.reasons[k] = 'outlier';
        pending = [];
        chain.push(step);
        continue;
      }
      pending.push(i);
      if (pending.length > o.maxOutlierRun) {
        // Too many fixes in a row cannot be reached: the vehicle really went somewhere the chain cannot follow.
        // Restart at the first unreachable fix; duplicate detection repeats identically from there.
        close();
        i = pending[0]! - 1;
        previous = -1;
        pending = [];
      }
    }
    for (const k of pending) this.reasons[k] = 'outlier';
    close();
    return chains;
  }

  /**
   * Without courses: whether the positions around two decoded steps show the vehicle driving on rather than turning
   * round between them. The direction it arrived from (from the last fix `ON_MIN_SIGMAS` sigmas before the first
   * step's position) and the one it left in (to the first fix that far after the second step's last fix), each within
   * `ON_WINDOW_S` and `ON_MAX_FIXES`, are compared: less than `TURN_ROUND_MIN_DEG` apart, it did not turn round.
   * False when either is missing.
   */
  private droveOnBetween(a: Step, b: Step, bPoint: number): boolean {
    const { lon, lat, timeMs, kx, ky } = this;
    const windowMs = ON_WINDOW_S * 1000;
    let before = -1;
    // The fixes' own sigmas: a stop's step has the smaller sigma of its centroid.
    const reachA = ON_MIN_SIGMAS * this.sigmaM[a.point]!;
    const firstLooked = Math.max(0, a.point - ON_MAX_FIXES);
    for (let i = a.point - 1; i >= firstLooked && !(timeMs[a.point]! - timeMs[i]! > windowMs); i--) {
      if (Math.hypot((lon[i]! - a.lon) * kx, (lat[i]! - a.lat) * ky) >= reachA) {
        before = i;
        break;
      }
    }
    if (before < 0) return false;
    const bLast = this.stopUntil[bPoint]! >= 0 ? this.stopUntil[bPoint]! : bPoint;
    const reachB = ON_MIN_SIGMAS * this.sigmaM[bLast]!;
    let after = -1;
    const lastLooked = Math.min(lon.length - 1, bLast + ON_MAX_FIXES);
    for (let i = bLast + 1; i <= lastLooked && !(timeMs[i]! - timeMs[bLast]! > windowMs); i++) {
      if (Math.hypot((lon[i]! - b.lon) * kx, (lat[i]! - b.lat) * ky) >= reachB) {
        after = i;
        break;
      }
    }
    if (after < 0) return false;
    const inX = (a.lon - lon[before]!) * kx;
    const inY = (a.lat - lat[before]!) * ky;
    const outX = (lon[after]! - b.lon) * kx;
    const outY = (lat[after]! - b.lat) * ky;
    const cos = (inX * outX + inY * outY) / (Math.hypot(inX, inY) * Math.hypot(outX, outY));
    return cos > Math.cos((TURN_ROUND_MIN_DEG * Math.PI) / 180);
  }

  /**
   * True when a fix after `from` up to `to` shows the vehicle slow enough to turn round where it stands (no usable
   * course, so below `COURSE_MIN_SPEED_MPS`) in a stretch whose courses around it allow a turn (`turnableFixes`).
   */
  private stoodBetween(from: number, to: number): boolean {
    return this.lastTurnable[to]! > from;
  }

  /**
   * Compass bearing of an edge's driving direction at an offset, degrees: from the point 2 m behind to the point 2 m
   * ahead, clamped to the edge. Computes the same two points as `edgePointAt`, with the same arithmetic, without
   * allocating them: a trace with courses asks for one per candidate of every decoded fix. At the edge's ends (a
   * candidate at a junction node, where every road meeting there is one) the bearing is cached per graph.
   */
  private edgeBearingDeg(edge: number, offsetM: number): number {
    const d = this.graph.data;
    const lengthM = d.edgeLengthM[edge]!;
    const fromM = Math.max(0, Math.min(offsetM, lengthM) - 2);
    const toM = Math.min(lengthM, Math.max(offsetM, 0) + 2);
    const g = d.edgeGeom[edge]!;
    const first = d.geomStart[g]!;
    const last = d.geomStart[g + 1]!;
    const cum = d.shapeCumM;
    const lon = d.shapeLon;
    const lat = d.shapeLat;
    const geometryM = cum[last - 1]!;
    let alongA = Math.min(Math.max(fromM, 0), geometryM);
    let alongB = Math.min(Math.max(toM, 0), geometryM);
    if ((d.edgeFlags[edge]! & EDGE_REVERSED) !== 0) {
      alongA = geometryM - alongA;
      alongB = geometryM - alongB;
    }
    // The piece of each point, as `edgePointAt` finds it by walking from the first shape point. Cumulative
    // distances never decrease, so the walk for the farther point can start at the nearer point's piece.
    const lo = Math.min(alongA, alongB);
    let s = first;
    while (s < last - 2 && cum[s + 1]! < lo) s++;
    let sA = s;
    let sB = s;
    if (alongA > alongB) while (sA < last - 2 && cum[sA + 1]! < alongA) sA++;
    else while (sB < last - 2 && cum[sB + 1]! < alongB) sB++;
    const a0 = cum[sA]!;
    const a1 = cum[sA + 1] ?? a0;
    const tA = a1 > a0 ? (alongA - a0) / (a1 - a0) : 0;
    const b0 = cum[sB]!;
    const b1 = cum[sB + 1] ?? b0;
    const tB = b1 > b0 ? (alongB - b0) / (b1 - b0) : 0;
    const ax = lon[sA]! + (lon[sA + 1]! - lon[sA]!) * tA;
    const ay = lat[sA]! + (lat[sA + 1]! - lat[sA]!) * tA;
    const bx = lon[sB]! + (lon[sB + 1]! - lon[sB]!) * tB;
    const by = lat[sB]! + (lat[sB + 1]! - lat[sB]!) * tB;
    const dx = (bx - ax) * this.kx;
    const dy = (by - ay) * this.ky;
    const bearingDeg = dx === 0 && dy === 0 ? Number.NaN : (Math.atan2(dx, dy) * 180) / Math.PI;
    return bearingDeg;
  }

  /** The position error of a fix reporting `accuracyM` (or none), metres. */
  private sigmaFor(accuracyM: number | undefined): number {
    if (this.o.useReportedAccuracy && accuracyM !== undefined && accuracyM > 0) {
      return Math.min(50, Math.max(this.o.minSigmaM, accuracyM));
    }
    return this.o.sigmaM;
  }

  /**
   * A stop starting at fix i: at least `stopMinFixes` consecutive fixes all within 2.5 sigma of their centroid,
   * whose first and second halves are centred less than 1.5 sigma apart (a slow drive drifts, a stop does not).
   * The vehicle is standing still, so the fixes are decoded as one observation at their centroid, whose error
   * shrinks with the number of fixes averaged. Matching each jittering fix on its own lets the decoder wander
   * into the side streets of the junction the vehicle waits at.
   *
   * Fixes that carry a speed must also say the vehicle stands (`STOP_SPEED_MPS`). Positions alone cannot tell
   * a vehicle creeping at 1-2 m/s in a queue, or turning round slowly (out and back, its centroid unmoved), from
   * one standing with GPS noise of 10 m; both were taken for stops, decoded at a centroid between the roads.
   * A Doppler speed is precise to a few tenths of a metre per second.
   */
  private stopAt(i: number): { last: number; lon: number; lat: number; sigmaM: number } | null {
    const { o, kx, ky, lon, lat, timeMs, moving } = this;
    const count = lon.length;
    if (o.stopMinFixes <= 0) return null;
    if (moving[i] === 1) return null;
    const sigmaM = this.sigmaM[i]!;
    const radiusM = 2.5 * sigmaM;
    // Quick reject: a vehicle that moved more than the stop's diameter in one fix is not stopping here.
    if (i + 1 >= count || Math.hypot((lon[i + 1]! - lon[i]!) * kx, (lat[i + 1]! - lat[i]!) * ky) > 2 * radiusM) {
      return null;
    }
    let sumLon = 0;
    let sumLat = 0;
    let n = 0;
    let last = i;
    // An upper bound on the distance of the fixes so far from the centroid: it grows by what the centroid moves
    // (triangle inequality), and all fixes are measured again only when it exceeds the radius. Measuring them
    // all at every fix made a long standstill quadratic (two parked hours at 1 Hz took seconds).
    let farthestM = 0;
    for (let j = i; j < count; j++) {
      if (j > i) {
        // A fix without a time is NaN, and a comparison with NaN is false: no gap, as before.
        if (timeMs[j]! - timeMs[j - 1]! > o.maxGapS * 1000) break;
        if (moving[j] === 1) break;
      }
      const qLon = lon[j]!;
      const qLat = lat[j]!;
      const cLon = (sumLon + qLon) / (n + 1);
      const cLat = (sumLat + qLat) / (n + 1);
      if (n > 0) farthestM += Math.hypot((cLon - sumLon / n) * kx, (cLat - sumLat / n) * ky);
      farthestM = Math.max(farthestM, Math.hypot((qLon - cLon) * kx, (qLat - cLat) * ky));
      if (farthestM > radiusM) {
        farthestM = 0;
        for (let k = i; k <= j && farthestM <= radiusM; k++) {
          farthestM = Math.max(farthestM, Math.hypot((lon[k]! - cLon) * kx, (lat[k]! - cLat) * ky));
        }
        if (farthestM > radiusM) break;
      }
      sumLon += qLon;
      sumLat += qLat;
      n++;
      last = j;
    }
    if (n < o.stopMinFixes) return null;
    const half = i + Math.floor(n / 2);
    const centre = (from: number, to: number) => {
      let x = 0;
      let y = 0;
      for (let k = from; k < to; k++) {
        x += lon[k]!;
        y += lat[k]!;
      }
      return [x / (to - from), y / (to - from)] as const;
    };
    const [x1, y1] = centre(i, half);
    const [x2, y2] = centre(half, last + 1);
    if (Math.hypot((x2 - x1) * kx, (y2 - y1) * ky) >= 1.5 * sigmaM) return null;
    return { last, lon: sumLon / n, lat: sumLat / n, sigmaM: Math.max(o.minSigmaM, sigmaM / Math.sqrt(n)) };
  }

  private candidates(
    i: number,
    lon: number,
    lat: number,
    sigmaM: number,
    timeInMs: number | undefined,
    timeOutMs: number | undefined,
    courseDeg?: number,
  ): Step | null {
    const { graph, o } = this;
    const radiusM = Math.max(o.radiusM, 4 * sigmaM);
    const hits = nearby;
    roadsNearInto(hits, graph, lon, lat, radiusM, this.kx, this.ky);
    if (hits.size === 0) return null;
    const found = this.found;
    let m = 0;
    // Candidates at the same point as the previous hit do not count towards the cap: the roads meeting at one
    // junction node all touch it there, and counting each of them crowded out a road a few metres further away
    // (a cluster of short junction edges in Monaco dropped the road the vehicle was on for one fix, which killed
    // the right hypothesis and broke the trace). A hard limit keeps the work bounded.
    let counted = 0;
    let lastLon = Number.NaN;
    let lastLat = Number.NaN;
    for (let k = 0; k < hits.size; k++) {
      const h = hits.order[k]!;
      const hLon = hits.lon[h]!;
      const hLat = hits.lat[h]!;
      const hDistanceM = hits.distanceM[h]!;
      const samePoint = hLon === lastLon && hLat === lastLat;
      if (!samePoint && counted >= o.maxCandidates) break;
      lastLon = hLon;
      lastLat = hLat;
      const geom = hits.geom[h]!;
      for (let direction = 0; direction < 2; direction++) {
        const edge = direction === 0 ? graph.data.geomForward[geom]! : graph.data.geomBackward[geom]!;
        if (edge < 0 || m >= 2 * o.maxCandidates || (!samePoint && counted >= o.maxCandidates)) continue;
        if (!samePoint) counted++;
        const z = hDistanceM / sigmaM;
        const offsetM = edgeOffsetOfGeometryOffset(graph, edge, hits.offsetM[h]!);
        const course = courseDeg === undefined ? 0 : courseCost(courseDeg, this.edgeBearingDeg(edge, offsetM));
        found.edge[m] = edge;
        found.offsetM[m] = offsetM;
        found.snapLon[m] = hLon;
        found.snapLat[m] = hLat;
        found.distanceM[m] = hDistanceM;
        found.logEmission[m] = -0.5 * z * z - course;
        m++;
      }
    }
    const slabs = this.slabs;
    const step: Step = {
      point: i,
      lon,
      lat,
      timeInMs,
      timeOutMs,
      edge: slabs.int32(m),
      offsetM: slabs.float64(m),
      snapLon: slabs.float64(m),
      snapLat: slabs.float64(m),
      distanceM: slabs.float64(m),
      logEmission: slabs.float64(m),
      score: slabs.float64(m),
      back: slabs.int32(m).fill(-1),
      kind: slabs.uint8(m),
      sigmaM,
      courseDeg,
    };
    for (let c = 0; c < m; c++) {
      step.edge[c] = found.edge[c]!;
      step.offsetM[c] = found.offsetM[c]!;
      step.snapLon[c] = found.snapLon[c]!;
      step.snapLat[c] = found.snapLat[c]!;
      step.distanceM[c] = found.distanceM[c]!;
      step.logEmission[c] = found.logEmission[c]!;
      step.score[c] = found.logEmission[c]!;
    }
    normalise(step.score);
    return step;
  }

  /** Fills `cur`'s scores from `prev`; false when no candidate of `cur` is reachable. */
  private transition(prev: Step, cur: Step, dtS: number | null, mayStand: boolean): boolean {
    const { graph, o } = this;
    const d = graph.data;
    const a = prev;
    const b = cur;
    const gcM = Math.hypot((b.lon - a.lon) * this.kx, (b.lat - a.lat) * this.ky);
    const radiusM = Math.max(o.radiusM, 4 * Math.max(prev.sigmaM, cur.sigmaM));
    // With times, the vehicle could have driven at most maxSpeed for the time between the fixes (a detour,
    // turning round at a motorway end); without, the route may be maxRouteFactor times the straight line.
    const reachM = dtS !== null ? Math.max(dtS, 1) * this.maxSpeedMps : gcM * o.maxRouteFactor;
    const bound = Math.min(o.maxRouteDistanceM, reachM + 2 * radiusM);
    // How far a fix may fall back along the road while the vehicle goes forward or stands: three standard
    // deviations of the difference of two independent position errors (sqrt(2) sigma for equal sigmas). The
    // larger sigma alone dropped valid fixes on one-way roads and at bends, and pushed the decoder onto a
    // parallel two-way road it then could not leave.
    const stayM = 3 * Math.hypot(prev.sigmaM, cur.sigmaM);
    const invBeta = 1 / o.betaM;
    const weights = this.weights;
    const w = this.roadFactor;
    const m = cur.edge.length;
    const n = prev.edge.length;
    const t: Transition = this.scratch;
    if (t.best.length < m) t.best = new Float64Array(2 * m);
    const best = t.best.fill(-Infinity, 0, m);

    t.prev = prev;
    t.cur = cur;
    t.best = best;
    t.gcM = gcM;
    t.boundM = bound;
    t.invBeta = invBeta;

    // Moves along the same edge, stationary jitter and turning around mid-road need no search.
    const exitNodes: number[] = [];
    for (let p = 0; p < n; p++) {
      if (prev.score[p] === -Infinity) continue;
      const pEdge = prev.edge[p]!;
      const pOffsetM = prev.offsetM[p]!;
      for (let c = 0; c < m; c++) {
        const cEdge = cur.edge[c]!;
        const cOffsetM = cur.offsetM[c]!;
        if (cEdge === pEdge) {
          if (cOffsetM >= pOffsetM) consider(t, p, c, (cOffsetM - pOffsetM) * w[pEdge]!, FORWARD);
          else if (pOffsetM - cOffsetM <= stayM) consider(t, p, c, 0, STAY);
        } else if (cEdge === d.edgeReverse[pEdge]) {
          const turnAt = d.edgeLengthM[pEdge]! - pOffsetM;
          consider(t, p, c, Math.abs(cOffsetM - turnAt) + o.uTurnPenaltyM, U_TURN);
        }
      }
      const exit = d.edgeTo[pEdge]!;
      if (!exitNodes.includes(exit)) exitNodes.push(exit);
    }

    // Stationary jitter across a junction: the new position lies a few metres BEHIND the old one on the same
    // road (typical on roundabouts and at stop lines). Without this, the only way back is around the block.
    for (let c = 0; c < m; c++) {
      const cEdge = cur.edge[c]!;
      const ahead = d.edgeLengthM[cEdge]! - cur.offsetM[c]!;
      if (ahead >= stayM) continue;
      let sameRoad = false;
      for (let p = 0; p < n; p++) {
        const pEdge = prev.edge[p]!;
        if (pEdge !== cEdge && d.edgeWay[pEdge] === d.edgeWay[cEdge]) sameRoad = true;
      }
      if (!sameRoad) continue;
      this.search.run([{ node: d.edgeTo[cEdge]!, cost: 0 }], d.edgeLengthM, stayM - ahead, NO_TARGETS, undefined, true);
      for (let p = 0; p < n; p++) {
        const pEdge = prev.edge[p]!;
        if (prev.score[p] === -Infinity || pEdge === cEdge || d.edgeWay[pEdge] !== d.edgeWay[cEdge]) continue;
        const via = this.search.costTo(d.edgeFrom[pEdge]!);
        if (via === Infinity || ahead + via + prev.offsetM[p]! > stayM) continue;
        // Turning round where it stands needs a vehicle that slowed down; a moving one pays for a U-turn.
        if (!mayStand && this.turnsRoundBetween(cEdge, pEdge, via)) continue;
        consider(t, p, c, 0, STAY);
      }
    }

    // Everything else goes through the graph: one bounded search per distinct exit node.
    for (const exit of exitNodes) {
      let reach = -Infinity;
      for (let p = 0; p < n; p++) {
        const pEdge = prev.edge[p]!;
        if (prev.score[p] === -Infinity || d.edgeTo[pEdge] !== exit) continue;
        reach = Math.max(reach, bound - (d.edgeLengthM[pEdge]! - prev.offsetM[p]!) * w[pEdge]!);
      }
      if (reach < 0) continue;
      this.search.run([{ node: exit, cost: 0 }], weights, reach, NO_TARGETS, undefined, true);
      for (let p = 0; p < n; p++) {
        const pEdge = prev.edge[p]!;
        if (prev.score[p] === -Infinity || d.edgeTo[pEdge] !== exit) continue;
        const exitCost = (d.edgeLengthM[pEdge]! - prev.offsetM[p]!) * w[pEdge]!;
        const turnBack = d.edgeReverse[pEdge]!;
        for (let c = 0; c < m; c++) {
          const cEdge = cur.edge[c]!;
          const entry = d.edgeFrom[cEdge]!;
          const via = this.search.costTo(entry);
          if (via === Infinity) continue;
          // Driving to the end of the edge and straight back is a U-turn at the junction: rare, so penalised.
          const turnsBack =
            (turnBack >= 0 && (via === 0 ? cEdge === turnBack : this.search.firstEdgeTo(entry) === turnBack)) ||
            (via > 0 && this.search.lastEdgeTo(entry) === d.edgeReverse[cEdge]);
          const uTurn = turnsBack ? o.uTurnPenaltyM : 0;
          consider(t, p, c, exitCost + via + cur.offsetM[c]! * w[cEdge]! + uTurn, ROUTE);
        }
      }
    }

    let any = false;
    for (let c = 0; c < m; c++) {
      if (best[c] === -Infinity) {
        cur.score[c] = -Infinity;
      } else {
        cur.score[c] = best[c]! + cur.logEmission[c]!;
        any = true;
      }
    }
    if (any) normalise(cur.score);
    return any;
  }

  /**
   * True when the way found by the last search from the end of edge `behind` to the start of edge `ahead` (`viaM`
   * long) turns round: `ahead` is the reverse of `behind`, or the way starts back along `behind` or ends along the
   * reverse of `ahead`. Jitter backwards is a position behind on the road in the same direction of travel; both
   * directions of a two-way road belong to the same way, and the reverse direction passed for jitter made a free
   * U-turn (a bus turning into a side road was put on the reverse of the road it came by and then on a parallel
   * street, 20 m from where it drove, on simulated Andorra trips).
   */
  private turnsRoundBetween(behind: number, ahead: number, viaM: number): boolean {
    const d = this.graph.data;
    if (ahead === d.edgeReverse[behind]) return true;
    if (viaM === 0) return false;
    // The way's first and last edges only (no array of the whole way: this runs for many candidate pairs).
    const entry = d.edgeFrom[ahead]!;
    const first = this.search.firstEdgeTo(entry);
    if (first < 0) return false;
    return first === d.edgeReverse[behind] || this.search.lastEdgeTo(entry) === d.edgeReverse[ahead];
  }

  /**
   * Matches the fixes skipped by thinning: each goes to the closest point of the path driven between the decoded
   * fixes around it (or of the edge of the fix before it, when the vehicle did not move). The fixes of a stop,
   * its first one included, may also go to the path driven into it: the stop was decoded at the centroid of its
   * fixes, and a vehicle creeping up to a line or into a roundabout has its first fixes behind that centroid.
   * Before, they were put on the path after the centroid, and the first fix at the centroid's own match, up to
   * 50 m from where it was recorded (simulated traces over the Monaco extract).
   *
   * The moving fixes of one gap (those with a usable course) are placed in the order they were recorded: none goes
   * behind the moving fix before it, nor past the next decoded fix (nor behind a thinned fix's anchor), and a
   * position across or against the fix's course costs as in the emission. Snapped one by one to the closest point,
   * the slow fixes of a turnaround where two one-way carriageways meet went onto the carriageway the vehicle had
   * not reached yet, running backwards along it (false wrong-way driving on simulated Monaco trips).
   */
  snapThinned(
    chain: Step[],
    chosen: number[],
    segments: MatchedSegment[],
    out: MatchedPoint[],
    subTrace: number,
  ): void {
    const { graph } = this;
    const last = chain[chain.length - 1]!.point;
    let k = 0;
    let first = 0;
    // The gap being placed: its anchor, the candidate stretches with their start along the path, and the bounds.
    let gapOf = -1;
    let pieces: Array<{ s: MatchedSegment; baseM: number }> = [];
    let cursorM = 0;
    let limitM = Number.POSITIVE_INFINITY;
    const along = (edge: number, offsetM: number, fromM: number): number => {
      for (const { s, baseM } of pieces) {
        if (s.edge !== edge || offsetM < s.startM - 1e-6 || offsetM > s.endM + 1e-6) continue;
        const u = baseM + Math.min(Math.max(offsetM - s.startM, 0), s.endM - s.startM);
        if (u >= fromM - 1e-6) return u;
      }
      return Number.NaN;
    };
    for (let i = chain[0]!.point; i < this.lon.length; i++) {
      let a = this.thinnedAfter[i]!;
      if (a < 0 && this.stopUntil[i]! >= 0) a = i;
      if (a < 0) {
        if (i > last) break;
        continue;
      }
      while (k + 1 < chain.length && chain[k + 1]!.point <= a) k++;
      if (chain[k]!.point !== a) continue;
      const step = chain[k]!;
      const beforeEdge = step.edge[chosen[k]!]!;
      const beforeOffsetM = step.offsetM[chosen[k]!]!;
      const stop = this.stopUntil[a]! >= 0;
      if (gapOf !== a) {
        gapOf = a;
        const next = chain[k + 1]?.point ?? Infinity;
        // A stop's fixes may lie on the stretch that ends at the stop; other thinned fixes come after their anchor.
        const fromStretchEnding = stop ? a : Math.min(next, last);
        // Segments come in driving order: skip those that end before this fix's decoded neighbour.
        while (first < segments.length && segments[first]!.toPoint < a) first++;
        pieces = [];
        let baseM = 0;
        for (let j = first; j < segments.length; j++) {
          const s = segments[j]!;
          if (s.fromPoint > a) break;
          if (s.toPoint < fromStretchEnding) continue;
          pieces.push({ s, baseM });
          baseM += s.endM - s.startM;
        }
        cursorM = stop ? 0 : along(beforeEdge, beforeOffsetM, 0);
        if (!Number.isFinite(cursorM)) cursorM = 0;
        const after = chain[k + 1];
        limitM = after ? along(after.edge[chosen[k + 1]!]!, after.offsetM[chosen[k + 1]!]!, cursorM) : Number.NaN;
        // The next decoded fix behind the anchor (jitter while standing) leaves no order to keep.
        if (!Number.isFinite(limitM)) limitM = Number.POSITIVE_INFINITY;
      }
      const pLon = this.lon[i]!;
      const pLat = this.lat[i]!;
      const course = given(this.course[i]!);
      const sigmaM = this.sigmaM[i]!;
      let bestCost = Number.POSITIVE_INFINITY;
      let bestEdge = -1;
      let bestOffsetM = 0;
      let bestLon = 0;
      let bestLat = 0;
      let bestDistanceM = 0;
      let bestU = 0;
      // Only a moving fix is held to the order: the fixes of a vehicle standing at a signal jitter back and forth,
      // and holding each to the farthest one before it walked them forward across the junction.
      const ordered = course !== undefined;
      for (const { s, baseM } of pieces) {
        const fromM = ordered ? cursorM - baseM : Number.NEGATIVE_INFINITY;
        const toM = ordered ? limitM - baseM : Number.POSITIVE_INFINITY;
        if (toM < -1e-6 || fromM > s.endM - s.startM + 1e-6) continue;
        const hit = projectOntoLine(s.coordinates, pLon, pLat, this.kx, this.ky, fromM, toM);
        const z = hit.distanceM / sigmaM;
        const distanceCost = 0.5 * z * z;
        // The course cost is never negative: a stretch already as costly by its distance cannot win.
        if (distanceCost >= bestCost) continue;
        const cost = distanceCost + courseCost(course, course === undefined ? Number.NaN : hit.bearingDeg());
        if (cost < bestCost) {
          bestCost = cost;
          bestEdge = s.edge;
          bestOffsetM = s.startM + hit.alongM;
          bestLon = hit.lon;
          bestLat = hit.lat;
          bestDistanceM = hit.distanceM;
          bestU = baseM + hit.alongM;
        }
      }
      if (bestEdge >= 0) {
        if (ordered) cursorM = Math.max(cursorM, bestU);
      } else {
        const line = graph.edgeCoordinates(beforeEdge);
        const hit = projectOntoLine(line, pLon, pLat, this.kx, this.ky);
        bestEdge = beforeEdge;
        bestOffsetM = hit.alongM;
        bestLon = hit.lon;
        bestLat = hit.lat;
        bestDistanceM = hit.distanceM;
      }
      const confidence = out[a]?.confidence ?? 0;
      const position = { edge: bestEdge, offsetM: bestOffsetM, lon: bestLon, lat: bestLat, distanceM: bestDistanceM };
      out[i] = matchedPoint(graph, i, position, confidence, subTrace);
    }
  }

  /** The driven edges of a decoded chain, as path segments. */
  pathOf(chain: Step[], chosen: number[], subTrace: number): MatchedSegment[] {
    const { graph } = this;
    const d = graph.data;
    interface Stretch {
      edge: number;
      startM: number;
      endM: number;
      fromPoint: number;
      toPoint: number;
    }
    const stretches: Stretch[] = [];
    const drive = (edge: number, startM: number, endM: number, fromPoint: number, toPoint: number) => {
      const last = stretches[stretches.length - 1];
      // Continuing on the same edge, possibly from slightly behind after stationary jitter: one stretch.
      if (last && last.edge === edge && startM <= last.endM + 1e-6 && startM >= last.startM - 1e-6) {
        last.endM = Math.max(last.endM, endM);
        last.toPoint = toPoint;
        return;
      }
      stretches.push({ edge, startM, endM, fromPoint, toPoint });
    };
    // After stationary jitter backwards, the vehicle is still where it was: the next drive starts again from
    // the position behind, and the part up to the furthest position reached is not driven twice.
    let frontier: { edge: number; offsetM: number } | null = null;
    // The decoded fix the frontier was reached at.
    let frontierPoint = -1;
    // The edges jitter went back onto that the path had not driven (a position behind on the same way across a
    // junction): moving along them towards the frontier is not driving either.
    const jitterEdges: number[] = [];
    const behindAt = (piece: readonly [number, number, number]) =>
      drivenStretch(stretches, piece) >= 0 ||
      jitterEdges.includes(piece[0]) ||
      (frontier !== null && piece[0] === frontier.edge && piece[2] <= frontier.offsetM + 1e-6);
    // The vehicle is at this road position at decoded fix `point`: when the path has driven it, the fixes thinned
    // after that one may be snapped to that stretch. False when the path has not driven it.
    const standsOn = (edge: number, offsetM: number, point: number): boolean => {
      const on = drivenStretch(stretches, [edge, offsetM, offsetM]);
      if (on < 0) return false;
      stretches[on]!.toPoint = Math.max(stretches[on]!.toPoint, point);
      return true;
    };
    for (let k = 1; k < chain.length; k++) {
      const prev = chain[k - 1]!;
      const cur = chain[k]!;
      const pc = { edge: prev.edge[chosen[k - 1]!]!, offsetM: prev.offsetM[chosen[k - 1]!]! };
      const cc = { edge: cur.edge[chosen[k]!]!, offsetM: cur.offsetM[chosen[k]!]! };
      const kind = cur.kind[chosen[k]!]!;
      if (kind === STAY) {
        if (!frontier) {
          frontier = { edge: pc.edge, offsetM: pc.offsetM };
          frontierPoint = prev.point;
        }
        if (!standsOn(cc.edge, cc.offsetM, cur.point)) jitterEdges.push(cc.edge);
        continue;
      }
      const pieces: Array<[edge: number, startM: number, endM: number]> = [];
      if (kind === FORWARD) {
        pieces.push([pc.edge, pc.offsetM, cc.offsetM]);
      } else if (kind === U_TURN) {
        const turnAt = d.edgeLengthM[pc.edge]! - pc.offsetM;
        pieces.push([cc.edge, Math.min(turnAt, cc.offsetM), cc.offsetM]);
      } else {
        const exit = d.edgeTo[pc.edge]!;
        const entry = d.edgeFrom[cc.edge]!;
        this.search.run(
          [{ node: exit, cost: 0 }],
          this.weights,
          1.1 * this.o.maxRouteDistanceM,
          [entry],
          undefined,
          true,
        );
        pieces.push([pc.edge, pc.offsetM, d.edgeLengthM[pc.edge]!]);
        for (const e of this.search.edgesTo(entry)) pieces.push([e, 0, d.edgeLengthM[e]!]);
        pieces.push([cc.edge, 0, cc.offsetM]);
      }
      let from = 0;
      if (frontier) {
        const f = frontier;
        const at = pieces.findIndex(([e, a, b]) => e === f.edge && a <= f.offsetM + 1e-6 && b >= f.offsetM - 1e-6);
        if (at >= 0) {
          from = at;
          pieces[at]![1] = Math.max(pieces[at]![1], f.offsetM);
          frontier = null;
        } else {
          let behind = 0;
          while (behind < pieces.length && behindAt(pieces[behind]!)) behind++;
          if (behind === pieces.length) {
            // Still behind the furthest position, on the road already driven (pulling away from a stop whose
            // centroid lay past the stop line): nothing new was driven, and the frontier stays.
            standsOn(cc.edge, cc.offsetM, cur.point);
            continue;
          }
          // The move leaves the road already driven before reaching the furthest position: the path went on past
          // a junction (onto a cross street, or straight on) to explain positions the decoder then took for jitter
          // back, and the vehicle left the junction another way. Unless it turned round there (which the courses
          // around its stop tell: `turnableFixes`), it never drove that stretch: the path ends where this move
          // leaves it and goes on from there. A vehicle that may have turned round keeps it (a bus that turned
          // into a side street to its stop and came back out; without courses, any stop).
          const turned = this.lastTurnable[cur.point]! >= frontierPoint;
          const at = behind > 0 && !turned ? leavingStretch(d, stretches, pieces[behind - 1]!) : -1;
          if (at >= 0) {
            stretches.length = at + 1;
            if (stretches[at]!.edge === pieces[behind - 1]![0]) stretches[at]!.endM = pieces[behind - 1]![2];
            from = behind;
          }
          frontier = null;
        }
        if (!frontier) jitterEdges.length = 0;
      }
      for (let j = from; j < pieces.length; j++) drive(...pieces[j]!, prev.point, cur.point);
    }
    return stretches
      .filter((s) => s.endM - s.startM > 1e-6)
      .map((s) => ({
        edge: s.edge,
        wayId: graph.edgeWayId(s.edge),
        name: graph.edgeName(s.edge),
        ref: graph.edgeRef(s.edge),
        highway: graph.edgeHighway(s.edge),
        speedLimitKmh: graph.edgeSpeedLimitKmh(s.edge),
        limitSource: graph.edgeLimitSource(s.edge),
        unlimited: graph.edgeUnlimited(s.edge),
        urban: graph.edgeUrban(s.edge),
        lengthM: s.endM - s.startM,
        startM: s.startM,
        endM: s.endM,
        coordinates: sliceEdge(graph, s.edge, s.startM, s.endM),
        subTrace,
        fromPoint: s.fromPoint,
        toPoint: s.toPoint,
      }));
  }
}

/** How many of the last stretches of a path a move after stationary jitter may lie on (`drivenStretch`). */
const JITTER_STRETCHES = 4;

/**
 * The index of the latest of the last stretches of the path built so far that a piece of a move (edge, start and end
 * offsets) lies on, or -1: after stationary jitter backwards, a move over road already driven.
 */
function drivenStretch(
  stretches: ReadonlyArray<{ edge: number; startM: number; endM: number }>,
  [edge, startM, endM]: readonly [number, number, number],
): number {
  for (let k = stretches.length - 1; k >= 0 && k >= stretches.length - JITTER_STRETCHES; k--) {
    const s = stretches[k]!;
    if (s.edge === edge && startM >= s.startM - 1e-6 && endM <= s.endM + 1e-6) return k;
  }
  return -1;
}

/**
 * The stretch a move after stationary jitter leaves the path at, from the last of its pieces still behind the
 * furthest position: the stretch that piece lies on, or, for a piece on an edge only jitter went back onto, ending
 * at the junction the piece ends at, the last stretch that ends at that junction too (the vehicle left the junction
 * from there). -1 when there is none.
 */
function leavingStretch(
  d: RoadGraph['data'],
  stretches: ReadonlyArray<{ edge: number; startM: number; endM: number }>,
  piece: readonly [number, number, number],
): number {
  const on = drivenStretch(stretches, piece);
  if (on >= 0) return on;
  const [edge, , endM] = piece;
  if (endM < d.edgeLengthM[edge]! - 1e-6) return -1;
  const node = d.edgeTo[edge]!;
  for (let k = stretches.length - 1; k >= 0 && k >= stretches.length - JITTER_STRETCHES; k--) {
    const s = stretches[k]!;
    if (d.edgeTo[s.edge] === node && s.endM >= d.edgeLengthM[s.edge]! - 1e-6) return k;
  }
  return -1;
}

/** The closest point `projectOntoLine` found, reused between calls (matching is synchronous). */
class Projection {
  distanceM = Number.POSITIVE_INFINITY;
  alongM = 0;
  lon = 0;
  lat = 0;
  /** The direction of the line's piece the point lies on, in local metres (both 0 with `pieceOk` false if none). */
  vx = 0;
  vy = 0;
  pieceOk = false;

  /** Compass bearing of that piece, degrees (NaN for a piece of no length): computed only for a fix with a course. */
  bearingDeg(): number {
    return this.pieceOk ? (Math.atan2(this.vx, this.vy) * 180) / Math.PI : Number.NaN;
  }
}

const projection = new Projection();

/**
 * Closest point of a polyline to a point, with the distance along the line to it (local metric), optionally only
 * among the points between `fromM` and `toM` along the line. Returns the shared `Projection`, valid until the next
 * call.
 */
function projectOntoLine(
  line: readonly LonLat[],
  lon: number,
  lat: number,
  kx: number,
  ky: number,
  fromM = Number.NEGATIVE_INFINITY,
  toM = Number.POSITIVE_INFINITY,
): Projection {
  const best = projection;
  best.distanceM = Infinity;
  best.alongM = 0;
  best.lon = line[0]![0];
  best.lat = line[0]![1];
  best.vx = 0;
  best.vy = 0;
  best.pieceOk = false;
  let along = 0;
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1]!;
    const b = line[i]!;
    const ax = (a[0] - lon) * kx;
    const ay = (a[1] - lat) * ky;
    const vx = (b[0] - a[0]) * kx;
    const vy = (b[1] - a[1]) * ky;
    const len2 = vx * vx + vy * vy;
    const len = Math.sqrt(len2);
    const lo = len > 0 ? Math.max(0, (fromM - along) / len) : 0;
    const hi = len > 0 ? Math.min(1, (toM - along) / len) : 1;
    if (lo > hi + 1e-9) {
      along += len;
      continue;
    }
    const t = len2 > 0 ? Math.min(hi, Math.max(lo, -(ax * vx + ay * vy) / len2)) : 0;
    const px = ax + vx * t;
    const py = ay + vy * t;
    const d = Math.hypot(px, py);
    if (d < best.distanceM) {
      best.distanceM = d;
      best.alongM = along + len * t;
      best.lon = lon + px / kx;
      best.lat = lat + py / ky;
      best.vx = vx;
      best.vy = vy;
      best.pieceOk = len > 0;
    }
    along += len;
  }
  if (line.length === 1) best.distanceM = Math.hypot((line[0]![0] - lon) * kx, (line[0]![1] - lat) * ky);
  return best;
}

/** Shifts log scores so the best is 0, keeping long chains clear of underflow. */
function normalise(score: Float64Array): void {
  let max = -Infinity;
  for (const s of score) if (s > max) max = s;
  if (max === -Infinity) return;
  for (let i = 0; i < score.length; i++) score[i] = score[i]! - max;
}
