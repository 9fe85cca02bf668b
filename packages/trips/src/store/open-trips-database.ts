import { type Database, DomainError, openDatabase } from '@svc/platform';
import { type Kysely, sql } from 'kysely';
import type { Environment } from '../environment.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from './migrations.ts';
import type { TripsSchema } from './schema.ts';

export type TripsDatabase = Database<TripsSchema>;
export type TripsDb = Kysely<TripsSchema>;

/** The database belongs to the other environment (or another service). */
export class EnvironmentMismatchError extends DomainError {
  constructor(message: string) {
    super('environment_mismatch', message);
  }
}

export interface OpenTripsDatabaseOptions {
  environment: Environment;
  /** PostgreSQL URL; SQLite at `sqliteFile` when absent. */
  url?: string | undefined;
  sqliteFile?: string;
  pgSchema?: string;
  poolSize?: number;
}

/**
 * Opens one environment's store, applies the migrations and checks that the database belongs to that
 * environment: the first open records it, and pointing production at the sandbox's database (or the
 * reverse) fails at start-up instead of mixing their data and tokens.
 */
export async function openTripsDatabase(options: OpenTripsDatabaseOptions): Promise<TripsDatabase> {
  const database = await openDatabase<TripsSchema>({
    url: options.url,
    ...(options.sqliteFile ? { sqliteFile: options.sqliteFile } : {}),
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
    ...(options.poolSize ? { poolSize: options.poolSize } : {}),
    migrations: tripsMigrations,
    migrationTable: TRIPS_MIGRATION_TABLE,
  });
  try {
    if (database.dialect === 'sqlite') {
      // An acknowledged upload must survive a power cut, not only a crash: fsync every commit.
      await sql`pragma synchronous = FULL`.execute(database.db);
    }
    await claimEnvironment(database.db, options.environment, database.location);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** Records the environment on first use; throws when the database already belongs to the other one. */
export async function claimEnvironment(db: TripsDb, environment: Environment, location: string): Promise<void> {
  await db
    .insertInto('trips_meta')
    .values({ key: 'environment', value: environment })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('trips_meta')
    .select('value')
    .where('key', '=', 'environment')
    .executeTakeFirstOrThrow();
  if (row.value !== environment) {
    throw new EnvironmentMismatchError(
      `database ${location} belongs to the ${row.value} environment, not ${environment}; give each environment its own database`,
    );
  }
}
