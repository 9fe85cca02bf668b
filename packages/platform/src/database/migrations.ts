import { type Kysely, type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';
import { DomainError } from '../errors.ts';
import type { DialectName } from './open-database.ts';

/** A migration failed; the message names it. Earlier migrations of the same run stay applied. */
export class MigrationError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('migration_failed', message, options);
  }
}

/**
 * Applies every pending migration, in name order. Migrations are plain objects (no file discovery), so
 * the same set runs on SQLite and PostgreSQL and under tsx, Vitest or a bundle alike.
 * Returns the names applied by this call.
 */
export async function migrateToLatest(
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  db: Kysely<any>,
  migrations: Record<string, Migration>,
  migrationTable = 'migrations',
): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // On PostgreSQL the bookkeeping tables are named with the schema the connection writes to. Unqualified,
  // Kysely looks for them in every schema: with several schemas in one database (several services, or
  // parallel test files) it could see another schema's lock table, skip creating its own, then fail.
  const schema =
    dialectOf(db) === 'postgres'
      ? (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: migrationTable,
    migrationLockTableName: `${migrationTable}_lock`,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new MigrationError(`migration ${failed} failed: ${reason}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Which SQL dialect a Kysely instance speaks, for the few migrations that must differ. */
// biome-ignore lint/suspicious/noExplicitAny: works for any schema
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
