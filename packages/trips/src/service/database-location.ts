import path from 'node:path';
import type { TripsConfig } from '../config.ts';
import type { Environment } from '../environment.ts';

/** Where an environment's data lives, from the configuration. */
export function databaseOptionsFor(
  config: Pick<TripsConfig, 'databaseUrl' | 'sandboxDatabaseUrl' | 'dataDir'> & { databasePoolSize?: number },
  environment: Environment,
): { url?: string; sqliteFile?: string; pgSchema?: string; poolSize?: number; description: string } {
  const pool = config.databasePoolSize === undefined ? {} : { poolSize: config.databasePoolSize };
  if (environment === 'production') {
    if (config.databaseUrl) return { url: config.databaseUrl, ...pool, description: 'PostgreSQL (TRIPS_DATABASE_URL)' };
    const sqliteFile = path.join(config.dataDir, 'trips-production.db');
    return { sqliteFile, description: `SQLite ${sqliteFile}` };
  }
  if (config.sandboxDatabaseUrl) {
    return { url: config.sandboxDatabaseUrl, ...pool, description: 'PostgreSQL (TRIPS_SANDBOX_DATABASE_URL)' };
  }
  if (config.databaseUrl) {
    // Same server as production, its own schema: separate tables, migrations and tokens.
    return {
      url: config.databaseUrl,
      pgSchema: 'trips_sandbox',
      ...pool,
      description: 'PostgreSQL schema trips_sandbox',
    };
  }
  const sqliteFile = path.join(config.dataDir, 'trips-sandbox.db');
  return { sqliteFile, description: `SQLite ${sqliteFile}` };
}
