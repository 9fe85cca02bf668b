// In-process timings of the pieces of a read request on the 1,000,000-trip bench store (run `npm run
// bench` once first to create it): `npx tsx bench/read-timings.ts`. Prints the mean time per call of each
// piece; figures only, nothing asserted. Run it under `flock /tmp/bench.lock` on a shared machine.
import os from 'node:os';
import path from 'node:path';
import { arg, runShape } from '@svc/platform';
import { hashSecret } from '../src/auth/secrets.ts';
import { breakdownBytes, breakdownJson, type Catalogue, decodeBreakdown } from '../src/scoring/breakdown-codec.ts';
import { authenticateApiToken } from '../src/store/api-tokens.ts';
import { listTrips } from '../src/store/trip-list.ts';
import { findBreakdownBody, findBreakdownRow } from '../src/store/trip-reads.ts';
import { readBenchDatabase } from './bench-data.ts';

const DATA = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'trips-bench');
const TOTAL = Number(process.env.BENCH_TRIPS ?? 1_000_000);
const ROUNDS = Number(process.env.TIMING_ROUNDS ?? 20_000);

const data = await readBenchDatabase(DATA, TOTAL, (s) => process.stdout.write(`${s}\n`));
const db = data.database.db;
const ids = data.tripIds;
const fleets = ['fleet_bench_0', 'fleet_bench_1', 'fleet_bench_2', 'fleet_bench_3'];

async function time(name: string, fn: (i: number) => unknown, rounds = ROUNDS): Promise<void> {
  for (let i = 0; i < Math.min(2000, rounds); i++) await fn(i);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await fn(i);
  const cpu = process.cpuUsage(c0);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / rounds;
  // CPU time (user + system) of this process per call: less disturbed than wall time by other work on
  // a shared machine.
  const cpuUs = (cpu.user + cpu.system) / rounds;
  process.stdout.write(`  ${name.padEnd(72)} ${us.toFixed(2).padStart(8)} µs  (CPU ${cpuUs.toFixed(2).padStart(7)} µs)
`);
}

const only = process.argv[2];
const want = (group: string) => only === undefined || only === group;

if (want('auth')) {
  process.stdout.write('token\n');
  await time('sha-256 of the token', () => hashSecret(data.token));
  await time('authenticateApiToken (as served)', () => authenticateApiToken(db, 'production', data.token));
  await time('runShape: one-row primary-key lookup (trips_version)', () =>
    runShape(db, 'timing-version', () => db.selectFrom('trips_version').select('version').where('id', '=', 1), []),
  );
}

if (want('breakdown')) {
  process.stdout.write('breakdown\n');
  const [cat] = await db.selectFrom('score_catalogues').select(['body_json']).execute();
  const catalogue = JSON.parse(cat!.body_json) as Catalogue;
  const [row] = await db.selectFrom('trip_breakdowns').select('values_json').limit(1).execute();
  const trip = { tripId: ids[0]!, overallScore: 71.3, mapMatched: true, weakestTheme: 'braking' };
  // Each call gets its own copy of the stored string, as a read from the database does.
  const values = (i: number) => ` ${row!.values_json}${i % 2 ? ' ' : ''}`.trim();
  await time('breakdownBytes (bytes from catalogue fragments and value tokens)', (i) =>
    breakdownBytes(catalogue, values(i), trip),
  );
  await time('breakdownJson (string from catalogue fragments) + UTF-8 bytes', (i) =>
    Buffer.from(breakdownJson(catalogue, values(i), trip)),
  );
  await time('decodeBreakdown + JSON.stringify + UTF-8 bytes', (i) =>
    Buffer.from(JSON.stringify(decodeBreakdown(catalogue, values(i), trip))),
  );
  await time('JSON.parse of the values only', (i) => JSON.parse(values(i)));
  await time('findBreakdownBody (as served: SQL + body), random ids', (i) =>
    findBreakdownBody(db, fleets, ids[(i * 7919) % ids.length]!),
  );
  await time('SQL only: trips join trip_breakdowns, random ids', (i) =>
    runShape(
      db,
      'timing-breakdown-join',
      () =>
        db
          .selectFrom('trips')
          .innerJoin('trip_breakdowns', 'trip_breakdowns.trip_id', 'trips.trip_id')
          .select([
            'trips.overall_score',
            'trips.map_matched',
            'trips.weakest_theme',
            'trip_breakdowns.catalogue_id',
            'trip_breakdowns.values_json',
          ])
          .where('trips.trip_id', '=', arg(0))
          .where(
            'trips.fleet_id',
            'in',
            fleets.map((_, k) => arg(k + 1)),
          ),
      [ids[(i * 7919) % ids.length]!, ...fleets],
    ),
  );
  await time('SQL only: trip columns + values by correlated subqueries (as served)', (i) =>
    findBreakdownRow(db, fleets, ids[(i * 7919) % ids.length]!),
  );
  await time('SQL only: trip_breakdowns alone by primary key, random ids', (i) =>
    runShape(
      db,
      'timing-breakdown-alone',
      () => db.selectFrom('trip_breakdowns').select(['catalogue_id', 'values_json']).where('trip_id', '=', arg(0)),
      [ids[(i * 7919) % ids.length]!],
    ),
  );
  await time('SQL only: trips columns alone by primary key, random ids', (i) =>
    runShape(
      db,
      'timing-trip-alone',
      () =>
        db
          .selectFrom('trips')
          .select(['overall_score', 'map_matched', 'weakest_theme', 'fleet_id'])
          .where('trip_id', '=', arg(0)),
      [ids[(i * 7919) % ids.length]!],
    ),
  );
}

if (want('list')) {
  process.stdout.write('list\n');
  await time('listTrips page 1, limit 100 (as served)', () => listTrips(db, fleets, {}, { offset: 0, limit: 100 }));
  await time('listTrips page 5000, limit 100 (as served)', () =>
    listTrips(db, fleets, {}, { offset: 499_900, limit: 100 }),
  );
  await time('an empty transaction (begin/commit through Kysely)', () =>
    db.transaction().execute(async () => undefined),
  );
}

await data.database.close();
