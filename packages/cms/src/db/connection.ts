import { type Database, openDatabase } from '@svc/platform';
import type { Migration } from 'kysely';
import type { CmsConfig } from '../config.ts';
import { sqliteFile } from '../config.ts';
import { modules } from '../controllers/index.ts';
import { coreMigrations } from './migrations/index.ts';
import type { CmsDatabase } from './schema.ts';

/** The migration table of the CMS (services may share one PostgreSQL database). */
export const MIGRATION_TABLE = 'cms_migrations';

/** Every migration: the kernel's (0001-0049) and each module's, checked for clashing names. */
export function allMigrations(): Record<string, Migration> {
  const out: Record<string, Migration> = { ...coreMigrations };
  for (const module of modules) {
    for (const [name, migration] of Object.entries(module.migrations ?? {})) {
      if (out[name]) throw new Error(`Migration ${name} of module ${module.name} clashes with another migration`);
      out[name] = migration;
    }
  }
  return out;
}

/** Opens the configured database (SQLite under DATA_DIR, or DATABASE_URL) and applies all migrations. */
export function openCmsDatabase(config: CmsConfig): Promise<Database<CmsDatabase>> {
  return openDatabase<CmsDatabase>({
    ...(config.databaseUrl ? { url: config.databaseUrl } : { sqliteFile: sqliteFile(config) }),
    migrations: allMigrations(),
    migrationTable: MIGRATION_TABLE,
  });
}
