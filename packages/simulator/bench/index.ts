import os from 'node:os';
import { generateCity } from '@svc/roads';
import { batchToNdjson, driverProfile, Rng, randomPlace, routeThrough, simulateTrip } from '../src/index.ts';

/**
 * Trips simulated per second for a one-hour trip (1 Hz GPS + 25 Hz IMU), and the same at 10 Hz GPS and with OBD.
 * Prints figures only; asserts nothing about speed.
 */

const graph = generateCity({ seed: 1 });
// Random places on city roads chained until the route is about an hour of city driving (~25 km).
const rng = Rng.from('bench');
const points: Array<[number, number]> = [randomPlace(graph, rng, 'home')];
let route = routeThrough(graph, [points[0]!, randomPlace(graph, rng, 'work')]);
while (route.lengthM < 25_000) {
  points.push(randomPlace(graph, rng, 'work'));
  route = routeThrough(
    graph,
    points,
    points.map(() => 0),
  );
}
const driver = driverProfile({ aggressiveness: 0.5 });
const startMs = Date.UTC(2025, 2, 3, 8);

function run(label: string, options: { gpsHz: number; imuHz: number; obdHz?: number }, rounds: number) {
  // Warm-up: let the JIT optimise the hot loops before timing.
  for (let i = 0; i < 2; i++) simulateTrip({ route, driver, startMs, seed: -1 - i, ...options });
  let samples = 0;
  let durationS = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) {
    const trip = simulateTrip({ route, driver, startMs, seed: i + 1, ...options });
    samples += trip.batch.samples.length;
    durationS += trip.truth.durationS;
  }
  const elapsedS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // CPU time as well as wall time: on a shared machine wall time mostly measures the neighbours.
  const cpuS = (cpu.user + cpu.system) / 1e6;
  console.log(
    `${label.padEnd(38)} ${(rounds / elapsedS).toFixed(2).padStart(6)} trips/s  ${((elapsedS / rounds) * 1000).toFixed(0).padStart(5)} ms/trip (cpu ${((cpuS / rounds) * 1000).toFixed(0)} ms)  ${(samples / elapsedS / 1e6).toFixed(2)} M samples/s  (trip ${(durationS / rounds / 60).toFixed(0)} min, ${Math.round(samples / rounds)} samples)`,
  );
}

console.log(
  `@svc/simulator bench — ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}), node ${process.version}, ${os.platform()} ${os.arch()}`,
);
console.log(`route: ${(route.lengthM / 1000).toFixed(1)} km, ${route.segments.length} segments`);
run('1 h trip, GPS 1 Hz + IMU 25 Hz', { gpsHz: 1, imuHz: 25 }, 5);
run('1 h trip, GPS 10 Hz + IMU 25 Hz', { gpsHz: 10, imuHz: 25 }, 3);
run('1 h trip, GPS 1 Hz only', { gpsHz: 1, imuHz: 0 }, 5);
run('1 h trip, GPS 1 Hz + IMU 25 Hz + OBD', { gpsHz: 1, imuHz: 25, obdHz: 1 }, 3);
const trip = simulateTrip({ route, driver, startMs, seed: 1 });
const t0 = performance.now();
const text = batchToNdjson(trip.batch);
console.log(
  `NDJSON of one 1 h trip: ${(text.length / 1e6).toFixed(1)} MB in ${(performance.now() - t0).toFixed(0)} ms`,
);
