import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildGraphFromOsm, haversineM, matchTrace, type RoadGraph, type TracePoint } from '@svc/roads';
import { createFleet, planTrips, simulateTripDetailed, type TripInternals } from '@svc/simulator';
import { cleanGps } from '../src/clean/clean-gps.ts';
import { type ScoredTrip, scoreTrip } from '../src/index.ts';
import { splitStreams } from '../src/streams.ts';
import { buildTrack } from '../src/track/track.ts';
import { findTripWindows, sliceTrack } from '../src/track/trip-window.ts';

/**
 * Map matching and the map-dependent factors against the simulator's ground truth, on the real Monaco and
 * Andorra extracts (../shared/data/osm): simulated fleet trips (cars, vans with delivery stops, buses running a
 * line out and back), 1 Hz GPS, no IMU. Prints per extract: mean distance from each matched fix to the vehicle's
 * true position, fixes matched more than 10 m from the true driving line, fixes on an edge the route does not
 * use, the first fixes of each trip, false wrong-way metres and U-turns counted by the scorer.
 * `npx tsx packages/scoring/bench/matching-real.ts [trips per extract]` (default 60). `--verbose` lists the trips
 * with false wrong-way driving, U-turns or fixes on an edge off the route, with the fix indices of those fixes (the
 * trip's own figures, so a change can be traced to the trips and places it moved).
 */
const DATA = fileURLToPath(new URL('../../../../shared/data/osm/', import.meta.url));
const perExtract = Number(process.argv[2] ?? 60);
const verbose = process.argv.includes('--verbose');
// The matcher before speeds and courses were passed to it saw positions and times only (`--positions-only`).
const withMotion = !process.argv.includes('--positions-only');
const SHORT_KINDS = new Set(['commute', 'errand', 'night', 'delivery_round', 'bus_run']);

interface Totals {
  trips: number;
  fixes: number;
  matched: number;
  distanceSumM: number;
  farFromRoute: number;
  offRouteEdge: number;
  firstFixesOffRoute: number;
  firstFixes: number;
  firstDistanceSumM: number;
  firstFar: number;
  wrongWayM: number;
  wrongWayTrips: number;
  uTurns: number;
  trueUTurns: number;
  tripsWithUTurns: number;
  speedingTrips: number;
}

/** Distance along the path driven by a time, metres. */
function trueAlongM(internals: TripInternals, startMs: number, timeMs: number): number {
  const kin = internals.kinematics;
  const k = Math.min(kin.count - 1, Math.max(0, Math.round((timeMs - startMs) / 1000 / kin.dtS)));
  return kin.sM[k]!;
}

/** Index of the last path vertex at or before a distance along it. */
function vertexAt(internals: TripInternals, s: number): number {
  const { path } = internals;
  let lo = 0;
  let hi = path.n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (path.sM[mid]! <= s) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** True position of the vehicle at a time, from the simulated motion. */
function truePosition(internals: TripInternals, startMs: number, timeMs: number): [number, number] {
  const { path } = internals;
  const s = trueAlongM(internals, startMs, timeMs);
  const lo = vertexAt(internals, s);
  const hi = Math.min(path.n - 1, lo + 1);
  const span = path.sM[hi]! - path.sM[lo]!;
  const f = span > 0 ? Math.min(1, Math.max(0, (s - path.sM[lo]!) / span)) : 0;
  const x = path.x[lo]! + (path.x[hi]! - path.x[lo]!) * f;
  const y = path.y[lo]! + (path.y[hi]! - path.y[lo]!) * f;
  return [path.lon0 + x / path.kx, path.lat0 + y / path.ky];
}

/** Distance from a point to the driving line within 300 m of where the vehicle was, metres. */
function distanceToLine(internals: TripInternals, alongM: number, lon: number, lat: number): number {
  const { path } = internals;
  const from = Math.max(1, vertexAt(internals, alongM - 300));
  const to = Math.min(path.n, vertexAt(internals, alongM + 300) + 2);
  const px = (lon - path.lon0) * path.kx;
  const py = (lat - path.lat0) * path.ky;
  let best = Number.POSITIVE_INFINITY;
  for (let i = from; i < to; i++) {
    const ax = path.x[i - 1]!;
    const ay = path.y[i - 1]!;
    const vx = path.x[i]! - ax;
    const vy = path.y[i]! - ay;
    const len2 = vx * vx + vy * vy;
    const t = len2 > 0 ? Math.min(1, Math.max(0, ((px - ax) * vx + (py - ay) * vy) / len2)) : 0;
    best = Math.min(best, Math.hypot(ax + vx * t - px, ay + vy * t - py));
  }
  return best;
}

const factorValue = (t: ScoredTrip, key: string) =>
  t.themes.flatMap((x) => x.factors).find((f) => f.key === key)?.value ?? null;

function run(name: string, graph: RoadGraph, seed: number): Totals {
  const fleet = createFleet({ seed, vehicles: { car: 6, van: 3, bus: 2 }, graph, timeZone: 'Europe/Monaco' });
  const plans = planTrips({ fleet, graph, days: 7 });
  const drivers = new Map(fleet.drivers.map((d) => [d.id, d]));
  const vehicles = new Map(fleet.vehicles.map((v) => [v.id, v]));
  const t: Totals = {
    trips: 0,
    fixes: 0,
    matched: 0,
    distanceSumM: 0,
    farFromRoute: 0,
    offRouteEdge: 0,
    firstFixesOffRoute: 0,
    firstFixes: 0,
    firstDistanceSumM: 0,
    firstFar: 0,
    wrongWayM: 0,
    wrongWayTrips: 0,
    uTurns: 0,
    trueUTurns: 0,
    tripsWithUTurns: 0,
    speedingTrips: 0,
  };
  for (const plan of plans) {
    if (t.trips >= perExtract) break;
    // Long stints and hauls run for hours (hundreds of km): a few of them would outweigh every other trip.
    if (!SHORT_KINDS.has(plan.kind)) continue;
    let trip: ReturnType<typeof simulateTripDetailed>;
    try {
      trip = simulateTripDetailed({
        graph,
        from: plan.from,
        to: plan.to,
        via: plan.via,
        viaDwellS: plan.viaDwellS,
        driver: drivers.get(plan.driverId)!,
        vehicle: vehicles.get(plan.vehicleId)!,
        startMs: plan.startMs,
        seed: plan.seed,
        timeZone: 'Europe/Monaco',
        imuHz: 0,
        phone: false,
      });
    } catch {
      continue;
    }
    if (trip.truth.distanceM < 1000) continue;
    t.trips++;
    const routeEdges = new Set(trip.truth.routeEdges);
    // The points the scorer matches: the cleaned 1 s track of the trip window, with its measured speed and heading.
    const full = buildTrack(cleanGps(splitStreams(trip.batch.samples).gps), {});
    const windows = findTripWindows(full, Number.POSITIVE_INFINITY);
    const track = sliceTrack(full, windows[0]![0], windows[windows.length - 1]![1]);
    const points: TracePoint[] = [];
    for (let i = 0; i < track.n; i++) {
      if (track.gap[i]) continue;
      const point: TracePoint = { lon: track.lon[i]!, lat: track.lat[i]!, timeMs: track.tMs[i]! };
      if (withMotion && Number.isFinite(track.speedMps[i])) {
        point.speedMps = Math.max(0, track.speedMps[i]!);
        if (Number.isFinite(track.headingDeg[i])) point.courseDeg = track.headingDeg[i]!;
      }
      points.push(point);
    }
    const m = matchTrace(graph, points);
    let firstChecked = 0;
    const offRouteFixes: number[] = [];
    let tripFar = 0;
    for (const p of m.points) {
      t.fixes++;
      if (!p.matched) continue;
      t.matched++;
      const [lon, lat] = truePosition(trip.internals, trip.truth.startMs, points[p.index]!.timeMs!);
      const toTrueM = haversineM(lon, lat, p.snapped![0], p.snapped![1]);
      t.distanceSumM += toTrueM;
      if (
        distanceToLine(
          trip.internals,
          trueAlongM(trip.internals, trip.truth.startMs, points[p.index]!.timeMs!),
          p.snapped![0],
          p.snapped![1],
        ) > 10
      ) {
        t.farFromRoute++;
        tripFar++;
      }
      const offEdge = !routeEdges.has(p.edge!);
      if (offEdge) {
        t.offRouteEdge++;
        offRouteFixes.push(p.index);
      }
      if (firstChecked < 5) {
        firstChecked++;
        if (offEdge) t.firstFixesOffRoute++;
        t.firstFixes++;
        t.firstDistanceSumM += toTrueM;
        if (toTrueM > 10) t.firstFar++;
      }
    }
    // The simulator turns a vehicle round only where it stands at a via stop, and a reversal made standing is no
    // heading change while moving: `uTurnCount` has nothing to count on these trips but turns round a block.
    const edges = trip.truth.routeEdges;
    let trueUTurns = 0;
    for (let i = 1; i < edges.length; i++) if (graph.data.edgeReverse[edges[i - 1]!] === edges[i]) trueUTurns++;
    const scored = scoreTrip(trip.batch, { graph, timeZone: 'Europe/Monaco' });
    const wrongWayM = factorValue(scored, 'wrongWayDistance') ?? 0;
    const uTurns = factorValue(scored, 'uTurnCount') ?? 0;
    t.wrongWayM += wrongWayM;
    if (wrongWayM > 0) t.wrongWayTrips++;
    t.uTurns += uTurns;
    t.trueUTurns += trueUTurns;
    if (uTurns > 0) t.tripsWithUTurns++;
    if (verbose && (wrongWayM > 0 || uTurns > 0 || offRouteFixes.length > 0)) {
      console.log(
        `  ${name} ${plan.id} ${plan.kind}: wrong way ${wrongWayM} m, U-turns ${uTurns} (the route turns back ${trueUTurns} times standing), ${(trip.truth.distanceM / 1000).toFixed(1)} km, ` +
          `${offRouteFixes.length} fixes on an edge off the route${offRouteFixes.length > 0 ? ` (${runsOf(offRouteFixes)})` : ''}, ${tripFar} more than 10 m from the driven line`,
      );
    }
  }
  return t;
}

/** Consecutive fix indices as ranges: `12-40, 97`. */
function runsOf(indices: readonly number[]): string {
  const runs: string[] = [];
  let from = indices[0]!;
  for (let k = 1; k <= indices.length; k++) {
    if (k < indices.length && indices[k]! === indices[k - 1]! + 1) continue;
    const to = indices[k - 1]!;
    runs.push(from === to ? `${from}` : `${from}-${to}`);
    from = indices[k]!;
  }
  return runs.join(', ');
}

function report(name: string, t: Totals): void {
  const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(2)} %`;
  console.log(
    `${name}: ${t.trips} trips, ${t.fixes} fixes, matched ${pct(t.matched, t.fixes)}; mean fix-to-true ${(t.distanceSumM / Math.max(1, t.matched)).toFixed(2)} m; ` +
      `> 10 m off the route ${t.farFromRoute} (${pct(t.farFromRoute, t.matched)}); on an edge off the route ${t.offRouteEdge} (${pct(t.offRouteEdge, t.matched)}); ` +
      `first 5 fixes: on an edge off the route ${t.firstFixesOffRoute}, mean ${(t.firstDistanceSumM / Math.max(1, t.firstFixes)).toFixed(2)} m from the true position, ${t.firstFar} more than 10 m; false wrong-way ${t.wrongWayM.toFixed(1)} m on ${t.wrongWayTrips} trips; ` +
      `U-turns counted ${t.uTurns} on ${t.tripsWithUTurns} trips (the routes turn back ${t.trueUTurns} times, all standing at a stop)`,
  );
}

for (const [name, file, seed] of [
  ['monaco', 'monaco.osm.pbf', 1],
  ['andorra', 'andorra.osm.pbf', 2],
] as const) {
  if (!existsSync(`${DATA}${file}`)) {
    console.log(`${name}: ${DATA}${file} absent, skipped`);
    continue;
  }
  const graph = await buildGraphFromOsm(`${DATA}${file}`);
  report(name, run(name, graph, seed));
}
