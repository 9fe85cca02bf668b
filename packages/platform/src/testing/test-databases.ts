import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Kysely, type Migration, sql } from 'kysely';
import { type Database, type DialectName, openDatabase } from '../database/open-database.ts';

/** One database flavour a repository test runs against. */
export interface TestDialect {
  name: DialectName;
  /** Why this flavour is skipped, or false when it runs. */
  skip: string | false;
  /** Test title fragment, e.g. `postgres` or `postgres (skipped: ...)`. */
  label: string;
  /**
   * Opens a fresh, migrated, private database: a new SQLite file, or a new schema in the PostgreSQL
   * database of TEST_DATABASE_URL. `close()` deletes it.
   */
  open<DB>(migrations?: Record<string, Migration>, options?: { migrationTable?: string }): Promise<Database<DB>>;
}

/**
 * Whether services the test kit cannot reach must fail the run instead of being skipped: CI sets
 * `REQUIRE_TEST_SERVICES=1` so a PostgreSQL or Redis leg can never silently disappear.
 */
export function servicesRequired(): boolean {
  return /^(1|true|yes)$/i.test(process.env.REQUIRE_TEST_SERVICES ?? '');
}

/**
 * The dialects repository tests run on: SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set.
 * Use with `describe.each(testDialects())('... on $label', (d) => ...)` and `describe.skipIf(d.skip)`.
 */
export function testDialects(): TestDialect[] {
  const pgUrl = process.env.TEST_DATABASE_URL?.trim();
  let pgSkip: string | false = false;
  if (!pgUrl) {
    if (servicesRequired()) throw new Error('REQUIRE_TEST_SERVICES is set but TEST_DATABASE_URL is not');
    pgSkip = 'TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)';
  }
  return [
    { name: 'sqlite', skip: false, label: 'sqlite', open: openTestSqlite },
    {
      name: 'postgres',
      skip: pgSkip,
      label: pgSkip ? `postgres (skipped: ${pgSkip})` : 'postgres',
      open: (migrations, options) => openTestPostgres(pgUrl ?? '', migrations, options),
    },
  ];
}

async function openTestSqlite<DB>(
  migrations?: Record<string, Migration>,
  options: { migrationTable?: string } = {},
): Promise<Database<DB>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-test-'));
  const database = await openDatabase<DB>({
    sqliteFile: path.join(dir, 'test.db'),
    ...(migrations ? { migrations } : {}),
    ...(options.migrationTable ? { migrationTable: options.migrationTable } : {}),
  });
  return {
    ...database,
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openTestPostgres<DB>(
  url: string,
  migrations?: Record<string, Migration>,
  options: { migrationTable?: string } = {},
): Promise<Database<DB>> {
  const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const database = await openDatabase<DB>({
    url,
    pgSchema: schema,
    poolSize: 4,
    ...(migrations ? { migrations } : {}),
    ...(options.migrationTable ? { migrationTable: options.migrationTable } : {}),
  });
  return {
    ...database,
    async close() {
      try {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db as Kysely<unknown>);
      } finally {
        await database.close();
      }
    },
  };
}
