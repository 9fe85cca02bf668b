import path from 'node:path';
import type { TripsConfig } from '../config.ts';
import type { Environment } from '../environment.ts';

/** Where an environment's data lives, from the configuration. */
export function databaseOptionsFor(
  config: Pick<TripsConfig, 'databaseUrl' | 'sandboxDatabaseUrl' | 'dataDir'>,
  environment: Environment,
): { url?: string; sqliteFile?: string; pgSchema?: string; description: string } {
  if (environment === 'production') {
    if (config.databaseUrl) return { url: config.databaseUrl, description: 'PostgreSQL (TRIPS_DATABASE_URL)' };
    const sqliteFile = path.join(config.dataDir, 'trips-production.db');
    return { sqliteFile, description: `SQLite ${sqliteFile}` };
  }
  if (config.sandboxDatabaseUrl) {
    return { url: config.sandboxDatabaseUrl, description: 'PostgreSQL (TRIPS_SANDBOX_DATABASE_URL)' };
  }
  if (config.databaseUrl) {
    // Same server as production, its own schema: separate tables, migrations and tokens.
    return { url: config.databaseUrl, pgSchema: 'trips_sandbox', description: 'PostgreSQL schema trips_sandbox' };
  }
  const sqliteFile = path.join(config.dataDir, 'trips-sandbox.db');
  return { sqliteFile, description: `SQLite ${sqliteFile}` };
}
