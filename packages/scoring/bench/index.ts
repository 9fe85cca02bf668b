import { cpus, loadavg } from 'node:os';
import { generateCity } from '@svc/roads';
import { driverProfile, Rng, randomPlace, routeThrough, simulateTrip } from '@svc/simulator';
import { scoreTrip, type TelemetryBatch, validateTelemetry } from '../src/index.ts';

/**
 * Scores a one-hour trip (1 Hz GPS, 25 Hz accelerometer and gyroscope, phone events) end to end, with and
 * without map matching, and prints per-trip time, trips/s and samples/s. Asserts nothing about speed.
 */
const HOUR_MS = 3_600_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

function hourLongTrip(): { batch: TelemetryBatch; graph: ReturnType<typeof generateCity> } {
  const graph = generateCity({ seed: 1 });
  const rng = Rng.from('scoring-bench');
  const driver = driverProfile({ aggressiveness: 0.5 });
  for (let stops = 40; ; stops += 20) {
    const points = Array.from({ length: stops }, () => randomPlace(graph, rng, 'work'));
    const route = routeThrough(
      graph,
      points,
      points.slice(1, -1).map(() => 0),
    );
    const { batch } = simulateTrip({ route, driver, startMs: Date.UTC(2025, 2, 3, 7), seed: 1 });
    const t0 = batch.samples[0]!.t;
    if (batch.samples[batch.samples.length - 1]!.t - t0 < HOUR_MS) continue;
    return { batch: { ...batch, samples: batch.samples.filter((s) => s.t - t0 < HOUR_MS) }, graph };
  }
}

function measure(label: string, run: () => unknown, samples: number): void {
  for (let i = 0; i < 3; i++) run();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i++) run();
  const wallMs = (performance.now() - t0) / RUNS;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / RUNS;
  console.log(
    `${label.padEnd(34)} ${wallMs.toFixed(1).padStart(7)} ms/trip wall  ${cpuMs.toFixed(1).padStart(7)} ms CPU  ` +
      `${(1000 / wallMs).toFixed(1).padStart(6)} trips/s  ${((samples * 1000) / wallMs / 1e6).toFixed(2)} M samples/s`,
  );
}

const { batch, graph } = hourLongTrip();
const counts: Record<string, number> = {};
for (const s of batch.samples) counts[s.type] = (counts[s.type] ?? 0) + 1;
const n = batch.samples.length;
console.log(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, node ${process.version}`);
console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (the machine is shared; CPU time is steadier)`,
);
console.log(
  `trip: 1 hour, ${n} samples (${Object.entries(counts)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ')}); ${RUNS} runs each`,
);
const scored = scoreTrip(batch, { graph });
console.log(
  `      ${scored.distanceKm} km, mapMatched ${scored.mapMatched} (${scored.matchedShare}), overallScore ${scored.overallScore}, ${scored.events.length} events`,
);
measure('validateTelemetry', () => validateTelemetry(batch), n);
measure('scoreTrip without map matching', () => scoreTrip(batch), n);
measure('scoreTrip with map matching', () => scoreTrip(batch, { graph }), n);
