import { testDialects } from '@svc/platform/testing';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  PostgresDialect,
  type QueryResult,
  sql,
} from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverProfile } from '../src/store/driver-profile.ts';
import { fleetProfile } from '../src/store/fleet-profile.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import type { TripsSchema } from '../src/store/schema.ts';
import { removeScoredTrip } from '../src/store/scored-trips.ts';
import { vehicleProfile } from '../src/store/vehicle-profile.ts';
import { buildWorld, type World } from './fixtures/world.ts';

/**
 * A PostgreSQL dialect that runs one statement at a time, in the order they are issued, and runs `between`
 * (once) right after the first statement that reads data has answered, before any other statement runs: a
 * write that commits between two statements of one answer, on demand instead of by chance. (A REPEATABLE READ
 * transaction takes its snapshot at that first statement, not at its `start transaction`.)
 */
function interleavingDialect(pool: pg.Pool, between: () => Promise<void>): Dialect {
  const base = new PostgresDialect({ pool });
  let turn: Promise<void> = Promise.resolve();
  let pending: (() => Promise<void>) | null = between;
  const originals = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    const wrapped: DatabaseConnection = {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const before = turn;
        let done!: () => void;
        turn = new Promise<void>((resolve) => {
          done = resolve;
        });
        await before;
        try {
          const result = await connection.executeQuery<R>(query);
          if (pending && /^\s*select\b/i.test(query.sql)) {
            const run = pending;
            pending = null;
            await run();
          }
          return result;
        } finally {
          done();
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
    originals.set(wrapped, connection);
    return wrapped;
  };
  return {
    createAdapter: () => base.createAdapter(),
    createIntrospector: (db) => base.createIntrospector(db),
    createQueryCompiler: () => base.createQueryCompiler(),
    createDriver(): Driver {
      const driver = base.createDriver();
      return {
        init: () => driver.init(),
        acquireConnection: async () => wrap(await driver.acquireConnection()),
        beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
        commitTransaction: (connection) => driver.commitTransaction(connection),
        rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
        releaseConnection: (connection) => driver.releaseConnection(originals.get(connection) ?? connection),
        destroy: () => driver.destroy(),
      };
    },
  };
}

const postgres = testDialects().filter((d) => d.name === 'postgres');

describe.each(postgres)('profiles read in one snapshot on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let schema: string;
    const nowMs = Date.now();
    const options = { nowMs, windowDays: 90 };
    const pools: pg.Pool[] = [];

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 12, nowMs });
      const row = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
      schema = row.rows[0]!.schema;
    });
    afterAll(async () => {
      for (const pool of pools) await pool.end();
      await database?.close();
    });

    /** A Kysely on the test's schema whose first read of `trips` is followed by the removal of trip `tripId`. */
    function removingBetweenStatements(tripId: string): Kysely<TripsSchema> {
      const pool = new pg.Pool({
        connectionString: process.env.TEST_DATABASE_URL,
        options: `-c search_path=${schema}`,
        max: 4,
        // As the platform's pool reads them: counts and sums as numbers.
        types: {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            oid === 20 || oid === 1700
              ? (value: string) => Number(value)
              : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
        },
      });
      pools.push(pool);
      return new Kysely<TripsSchema>({
        dialect: interleavingDialect(pool, () =>
          database.db.transaction().execute(async (trx) => {
            await removeScoredTrip(trx, tripId);
          }),
        ),
      });
    }

    const tripOf = async (column: 'plate' | 'driver_id' | 'fleet_id', value: string) =>
      (
        await database.db
          .selectFrom('trips')
          .select('trip_id')
          .where(column, '=', value)
          .orderBy('start_ms', 'desc')
          .executeTakeFirstOrThrow()
      ).trip_id;

    it('a vehicle profile is as of one moment, though a trip is removed between its statements', async () => {
      const fleet = world.fleets[0]!;
      const plate = fleet.plates[0]!;
      const before = await vehicleProfile(database.db, [fleet.fleetId], plate, options);
      expect(before!.trips).toBeGreaterThan(1);
      const gated = removingBetweenStatements(await tripOf('plate', plate));
      expect(await vehicleProfile(gated, [fleet.fleetId], plate, options)).toEqual(before);
      // The removal did happen: read again, the profile has one trip fewer.
      const after = await vehicleProfile(database.db, [fleet.fleetId], plate, options);
      expect(after!.lifetime.trips).toBe(before!.lifetime.trips - 1);
    });

    it('so are a driver profile and a fleet profile', async () => {
      const fleet = world.fleets[1]!;
      const driverId = fleet.drivers[0]!;
      const driverBefore = await driverProfile(database.db, fleet.fleetId, driverId, options);
      expect(driverBefore!.trips).toBeGreaterThan(1);
      const gatedDriver = removingBetweenStatements(await tripOf('driver_id', driverId));
      expect(await driverProfile(gatedDriver, fleet.fleetId, driverId, options)).toEqual(driverBefore);
      expect((await driverProfile(database.db, fleet.fleetId, driverId, options))!.lifetime.trips).toBe(
        driverBefore!.lifetime.trips - 1,
      );

      const other = world.fleets[2]!;
      const fleetBefore = await fleetProfile(database.db, [other.fleetId], other.fleetId, options);
      const gatedFleet = removingBetweenStatements(await tripOf('fleet_id', other.fleetId));
      expect(await fleetProfile(gatedFleet, [other.fleetId], other.fleetId, options)).toEqual(fleetBefore);
      expect(await fleetProfile(database.db, [other.fleetId], other.fleetId, options)).not.toEqual(fleetBefore);
    });
  });
});
