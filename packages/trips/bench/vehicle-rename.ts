// How long `trips vehicles rename` holds the store's write lock: the vehicles with the most trips of the bench
// store (run `npm run bench` once first to create it; 1,000,000 trips, about 1,000 per vehicle) are renamed and
// renamed back, each in its one transaction: `npx tsx bench/vehicle-rename.ts`, or with
// `BENCH_READ_STORE=postgres` on the PostgreSQL bench store. Prints wall time per rename and per 1,000 trips;
// nothing asserted. The bench store's trips were written in bulk without upload rows, so the figures are of the
// trips' rows, list items and sums, which are most of a rename's work.
import os from 'node:os';
import path from 'node:path';
import { renameVehicle } from '../src/store/vehicle-changes.ts';
import { readBenchDatabase } from './bench-data.ts';

const DATA = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'trips-bench');
const TOTAL = Number(process.env.BENCH_TRIPS ?? 1_000_000);
const VEHICLES = Number(process.env.BENCH_RENAMES ?? 5);
const pgUrl =
  process.env.BENCH_READ_STORE === 'postgres'
    ? (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
    : undefined;

const data = await readBenchDatabase(DATA, TOTAL, (s) => process.stdout.write(`${s}\n`), pgUrl);
const db = data.database.db;
const busiest = await db
  .selectFrom('trips')
  .select(['plate', (eb) => eb.fn.countAll<number>().as('n')])
  .groupBy('plate')
  .orderBy('n', 'desc')
  .limit(VEHICLES)
  .execute();

process.stdout.write(
  `vehicles rename on ${TOTAL.toLocaleString('en')} trips in ${pgUrl ? 'PostgreSQL' : 'SQLite'} (one transaction each)\n`,
);
const perThousand: number[] = [];
for (const { plate, n } of busiest) {
  for (const [from, to] of [
    [plate, `${plate}-R`],
    [`${plate}-R`, plate],
  ] as const) {
    const t0 = process.hrtime.bigint();
    const result = await renameVehicle(db, { plate: from, to });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    perThousand.push((ms / result.trips) * 1000);
    process.stdout.write(
      `  ${from.padEnd(14)} -> ${to.padEnd(14)} ${String(result.trips).padStart(6)} trips  ${ms.toFixed(0).padStart(6)} ms  (${((ms / Number(n)) * 1000).toFixed(0)} ms per 1,000 trips)\n`,
    );
  }
}
perThousand.sort((a, b) => a - b);
process.stdout.write(
  `median ${perThousand[Math.floor(perThousand.length / 2)]!.toFixed(0)} ms per 1,000 trips (range ${perThousand[0]!.toFixed(0)}-${perThousand.at(-1)!.toFixed(0)})\n`,
);
await data.database.close();
