// CPU per call of the vehicle list (`GET /v1/vehicles`), the fleet list and profile (`GET /v1/fleets`) and the
// driver list (`GET /v1/drivers`) on the 1,000,000-trip bench store (run `npm run
// bench` once first to create it), against grouping the window's trips directly, the way it was summed
// before `vehicle_stats`: `npx tsx bench/vehicle-list-timings.ts`. Figures only, nothing asserted. Run
// it under `flock /tmp/bench.lock` on a shared machine.
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { listDriverSummaries } from '../src/store/driver-list.ts';
import { fleetProfile, fleetSummaries } from '../src/store/fleet-profile.ts';
import { listVehicleSummaries } from '../src/store/vehicle-list.ts';
import { statTerms } from '../src/store/vehicle-stat-terms.ts';
import { readBenchDatabase } from './bench-data.ts';

const DATA = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'trips-bench');
const TOTAL = Number(process.env.BENCH_TRIPS ?? 1_000_000);
const DAY_MS = 86_400_000;

const data = await readBenchDatabase(DATA, TOTAL, (s) => process.stdout.write(`${s}\n`));
const db = data.database.db;
const all = ['fleet_bench_0', 'fleet_bench_1', 'fleet_bench_2', 'fleet_bench_3'];
// The bench store's trips end on 2026-11-01; the windows end a few hours before, off a day boundary.
const nowMs = Date.UTC(2026, 10, 1) - 5 * 3_600_000;
const directSums = statTerms('r', '1')
  .map(([column, term]) => `sum(${term}) as ${column}`)
  .join(', ');

/** CPU time (user + system) of this process per call, in ms: steadier than wall time on a shared machine. */
async function cpuMs(fn: () => Promise<unknown>, rounds: number): Promise<string> {
  await fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await fn();
  const cpu = process.cpuUsage(c0);
  return ((cpu.user + cpu.system) / 1000 / rounds).toFixed(1);
}

for (const [label, fleets] of [
  ['four fleets, 1,000 vehicles', all],
  ['one fleet, 250 vehicles', [all[0]!]],
] as const) {
  for (const windowDays of [30, 90, 365]) {
    const fromMs = nowMs - windowDays * DAY_MS;
    const inFleets = sql.join(fleets.map((f) => sql`${f}`));
    const list = await cpuMs(
      () => listVehicleSummaries(db, fleets, { nowMs, windowDays, sort: 'score', offset: 0, limit: 100 }),
      10,
    );
    const direct = await cpuMs(
      () =>
        sql`select r.plate, ${sql.raw(directSums)}, max(r.start_ms) as last from trips r
          where r.fleet_id in (${inFleets}) and r.start_ms >= ${fromMs} and r.start_ms < ${nowMs}
          group by r.plate`.execute(db),
      windowDays === 365 ? 2 : 5,
    );
    // The fleet list sums each fleet's window and the one before from fleet_stats; a fleet's profile also
    // sums its vehicles (their tiers and the riskiest).
    const fleetList = await cpuMs(() => fleetSummaries(db, fleets, { nowMs, windowDays }), 10);
    const profile = await cpuMs(() => fleetProfile(db, fleets, fleets[0]!, { nowMs, windowDays }), 10);
    // The driver list sums every driver of the scope from driver_stats, as the vehicle list does vehicles.
    const driverList = await cpuMs(
      () => listDriverSummaries(db, fleets, { nowMs, windowDays, sort: 'score', offset: 0, limit: 100 }),
      10,
    );
    process.stdout.write(
      `  ${label.padEnd(28)} ${String(windowDays).padStart(3)} days: list ${list.padStart(6)} ms CPU; grouping the trips: ${direct.padStart(7)} ms CPU; fleet list ${fleetList.padStart(5)} ms CPU; profile of a fleet ${profile.padStart(5)} ms CPU; driver list ${driverList.padStart(6)} ms CPU\n`,
    );
  }
}
await data.database.close();
