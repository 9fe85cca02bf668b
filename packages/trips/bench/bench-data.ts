import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { generateCity, type RoadGraph } from '@svc/roads';
import { scoreTrip, segmentTrips, type TelemetryBatch } from '@svc/scoring';
import { createFleet, planTrips, simulateFleetTrips } from '@svc/simulator';
import { type Insertable, sql } from 'kysely';
import { encodeBreakdown } from '../src/scoring/breakdown-codec.ts';
import { routeGeoJson } from '../src/scoring/route-geojson.ts';
import { tierOf } from '../src/scoring/tiers.ts';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createFleet as createStoreFleet } from '../src/store/fleets.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import type { TripsSchema } from '../src/store/schema.ts';
import { dayOf } from '../src/store/scored-trips.ts';
import { tripItemJson } from '../src/store/trip-item.ts';
import { createVehicle } from '../src/store/vehicles.ts';

export const BENCH_CITY = { seed: 7, blocks: 30 };

/** A synthetic city big enough for 20-minute trips. */
export function benchCity(): RoadGraph {
  return generateCity(BENCH_CITY);
}

/**
 * 20-minute, 1 Hz GPS trips: windows of 1,200 consecutive seconds cut from simulated long drives on the
 * bench city (the simulator's own long stints), each a realistic trip on its own: a window holding a stop of
 * 5 minutes or more is two drives, which the ingest endpoint stores as two trips, so it is left out.
 */
export function twentyMinuteTrips(graph: RoadGraph, count: number): TelemetryBatch[] {
  const fleet = createFleet({ seed: 'bench-ingest', graph, vehicles: 6 });
  const plans = planTrips({ fleet, graph, days: 14, startDate: '2026-09-01' }).filter((p) => p.kind === 'long_stint');
  const out: TelemetryBatch[] = [];
  for (const trip of simulateFleetTrips({ fleet, graph, plans, imuHz: 0 })) {
    const samples = trip.batch.samples;
    for (let start = 0; start + 1200 <= samples.length && out.length < count; start += 1200) {
      const window = samples.slice(start, start + 1200);
      const minutes = (window.at(-1)!.t - window[0]!.t) / 60_000;
      if (minutes < 19 || minutes > 21) continue;
      if (segmentTrips(window).length !== 1) continue;
      out.push({ ...trip.batch, clientTripId: undefined, samples: window } as TelemetryBatch);
    }
    if (out.length >= count) break;
  }
  return out;
}

export interface ReadBenchData {
  database: TripsDatabase;
  /** The SQLite file, or for PostgreSQL the connection URL (as given) and the schema holding the store. */
  store: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema: string };
  token: string;
  tripIds: string[];
  total: number;
}

const FLEETS = 4;
const VEHICLES_PER_FLEET = 250;

/**
 * A store with `total` scored trips over two years in four fleets, written in bulk (a read benchmark needs the
 * rows, not the scoring). Every row is what the scoring pipeline would have written: breakdown values and route
 * come from one real scored trip. SQLite: a file under `dir`; PostgreSQL (`pgUrl`): the schema
 * `trips_read_bench_<total>` of that database. Kept and reused when present.
 */
export async function readBenchDatabase(
  dir: string,
  total: number,
  log: (s: string) => void,
  pgUrl?: string,
): Promise<ReadBenchData> {
  let store: ReadBenchData['store'];
  let database: TripsDatabase;
  if (pgUrl) {
    store = { kind: 'postgres', url: pgUrl, schema: `trips_read_bench_${total}` };
    database = await openTripsDatabase({ environment: 'production', url: pgUrl, pgSchema: store.schema });
  } else {
    mkdirSync(dir, { recursive: true });
    store = { kind: 'sqlite', file: path.join(dir, `read-bench-${total}.db`) };
    database = await openTripsDatabase({ environment: 'production', sqliteFile: store.file });
  }
  const db = database.db;
  const have = Number(
    (
      await db
        .selectFrom('trips')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  if (have !== total) {
    if (have !== 0) {
      const where = store.kind === 'sqlite' ? store.file : `schema ${store.schema}`;
      throw new Error(`${where} holds ${have} trips, not ${total}: delete it and run again`);
    }
    await generate(database, total, log);
  }
  // Register the trips' drivers, as the ingest path does (stores generated before this had none).
  const drivers = await sql<{ n: number }>`select count(*) as n from drivers`.execute(db);
  if (Number(drivers.rows[0]?.n ?? 0) === 0) {
    await sql`insert into drivers (fleet_id, driver_id, name, created_at_ms)
      select distinct fleet_id, driver_id, null, 0 from trips where driver_id is not null`.execute(db);
  }
  const token = (
    await createApiToken(db, {
      environment: 'production',
      fleets: Array.from({ length: FLEETS }, (_, f) => `fleet_bench_${f}`),
      admin: true,
      owner: 'bench',
      rateLimitPerMin: 1_000_000,
    })
  ).secret;
  // About one trip in a hundred, spread over the two years: every 97th row on SQLite (as the figures in the
  // README were taken), the trips numbered k with k % 100 = 0 on PostgreSQL (its rows have no rowid).
  const sample =
    store.kind === 'sqlite'
      ? await sql<{ trip_id: string }>`select trip_id from trips where rowid % 97 = 0 limit 20000`.execute(db)
      : await sql<{
          trip_id: string;
        }>`select trip_id from trips where substr(trip_id, 13, 2) = '00' limit 20000`.execute(db);
  return { database, store, token, tripIds: sample.rows.map((r) => r.trip_id), total };
}

async function generate(database: TripsDatabase, total: number, log: (s: string) => void) {
  const db = database.db;
  const graph = benchCity();
  const [sampleTrip] = twentyMinuteTrips(graph, 1);
  const scored = scoreTrip(sampleTrip!, { graph });
  const { catalogueId, catalogueJson, valuesJson } = encodeBreakdown(scored);
  const routeTemplate = routeGeoJson('trip_template', scored);
  const summaryJson = JSON.stringify(scored.summary);
  await db
    .insertInto('score_catalogues')
    .values({
      catalogue_id: catalogueId,
      model_version: scored.modelVersion,
      body_json: catalogueJson,
      created_at_ms: Date.now(),
    })
    .execute();
  const vehicleIds: Array<{ id: string; plate: string; fleet: string }> = [];
  for (let f = 0; f < FLEETS; f++) {
    const fleetId = `fleet_bench_${f}`;
    await createStoreFleet(db, { name: `Bench fleet ${f}`, fleetId });
    for (let v = 0; v < VEHICLES_PER_FLEET; v++) {
      const vehicle = await createVehicle(db, { fleetId, plate: `B${f}-${String(v).padStart(4, '0')}` });
      vehicleIds.push({ id: vehicle.vehicleId, plate: vehicle.plate, fleet: fleetId });
    }
  }
  const sqlite = database.dialect === 'sqlite';
  if (sqlite) await sql`pragma synchronous = OFF`.execute(db);
  const twoYearsMs = 730 * 86_400_000;
  const endMs = Date.UTC(2026, 10, 1);
  const counts = new Map<string, number>();
  const batch = 400;
  const started = Date.now();
  let seed = 12345;
  const rnd = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let done = 0; done < total; done += batch) {
    const n = Math.min(batch, total - done);
    const trips: Insertable<TripsSchema['trips']>[] = [];
    const breakdowns: Insertable<TripsSchema['trip_breakdowns']>[] = [];
    const routes: Insertable<TripsSchema['trip_routes']>[] = [];
    const summaries: Insertable<TripsSchema['trip_summaries']>[] = [];
    for (let i = 0; i < n; i++) {
      const k = done + i;
      const vehicle = vehicleIds[k % vehicleIds.length]!;
      // Trips arrive roughly in time order, as uploads do; start times are whole seconds, so some share
      // a start time and the tie-break on trip id is exercised.
      const startMs = endMs - twoYearsMs + Math.floor(((k + rnd() * 50) / total) * (twoYearsMs / 1000)) * 1000;
      const score = Math.round((35 + rnd() * 65) * 10) / 10;
      const tier = tierOf(score);
      const tripId = `trip_b${String(k).padStart(8, '0')}${Math.floor(rnd() * 1e6).toString(36)}`;
      const day = dayOf(startMs);
      const countKey = `${vehicle.fleet}|${day}|${tier}`;
      counts.set(countKey, (counts.get(countKey) ?? 0) + 1);
      const row = {
        trip_id: tripId,
        fleet_id: vehicle.fleet,
        vehicle_id: vehicle.id,
        plate: vehicle.plate,
        driver_id: `drv-${k % 3000}`,
        start_ms: startMs,
        end_ms: startMs + 1_200_000,
        start_day: day,
        overall_score: score,
        tier,
        map_matched: 1,
        matched_share: 0.97,
        distance_km: Math.round(rnd() * 300) / 10,
        duration_min: 20,
        machine_type: 'car',
        model_version: scored.modelVersion,
        scored_at_ms: startMs + 1_300_000,
        theme_speeding: score,
        theme_braking: score,
        theme_acceleration: score,
        theme_cornering: score,
        theme_distraction: null,
        theme_exposure: score,
        weakest_theme: scored.weakestTheme.id,
      };
      trips.push({ ...row, item_json: tripItemJson(row) });
      summaries.push({ trip_id: tripId, summary_json: summaryJson });
      breakdowns.push({ trip_id: tripId, catalogue_id: catalogueId, values_json: valuesJson });
      // Routes are not benchmarked: a short one keeps the file small.
      routes.push({
        trip_id: tripId,
        geojson:
          routeTemplate.length > 2000
            ? `{"tripId":"${tripId}","type":"FeatureCollection","features":[]}`
            : routeTemplate,
      });
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('trips').values(trips).execute();
      await trx.insertInto('trip_breakdowns').values(breakdowns).execute();
      await trx.insertInto('trip_routes').values(routes).execute();
      await trx.insertInto('trip_summaries').values(summaries).execute();
    });
    if ((done / batch) % 250 === 0)
      log(
        `  generating: ${done.toLocaleString('en')} / ${total.toLocaleString('en')} trips (${Math.round((Date.now() - started) / 1000)} s)`,
      );
  }
  const rows = [...counts].map(([k, trip_count]) => {
    const [fleet_id, day, tier] = k.split('|');
    return { fleet_id: fleet_id!, day: Number(day), tier: tier!, trip_count };
  });
  for (let i = 0; i < rows.length; i += 2000)
    await db
      .insertInto('trip_day_counts')
      .values(rows.slice(i, i + 2000))
      .execute();
  if (sqlite) await sql`pragma synchronous = FULL`.execute(db);
  // PostgreSQL: also the visibility map that autovacuum would set on a serving store after a bulk insert,
  // without which an index-only scan visits the table for every row.
  await sql`${sql.raw(sqlite ? 'analyze' : 'vacuum analyze')}`.execute(db);
  log(`  generated ${total.toLocaleString('en')} trips in ${Math.round((Date.now() - started) / 1000)} s`);
}
