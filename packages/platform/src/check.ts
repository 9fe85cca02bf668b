import { baseConfigSpec, loadConfig } from './config.ts';
import { openDatabase } from './database/open-database.ts';
import { ensureWritableFolder } from './folders.ts';
import { connectRedis } from './redis.ts';

/** What `platform check` verified, one line each. */
export interface CheckReport {
  lines: string[];
}

/**
 * Verifies the shared start-up requirements without starting a service: configuration is valid, the
 * data folder is writable, and PostgreSQL and Redis answer when they are configured. Throws a
 * one-line domain error on the first failure.
 */
export async function checkEnvironment(env: Record<string, string | undefined> = process.env): Promise<CheckReport> {
  const config = loadConfig(baseConfigSpec({ prefix: '', defaultPort: 0 }), { env });
  const lines = ['configuration: valid'];
  ensureWritableFolder(config.dataDir, 'DATA_DIR');
  lines.push(`data folder: ${config.dataDir} (writable)`);
  if (config.databaseUrl) {
    const database = await openDatabase({ url: config.databaseUrl });
    lines.push(`database: ${database.location} (answers)`);
    await database.close();
  } else {
    lines.push('database: embedded SQLite under the data folder');
  }
  if (config.redisUrl) {
    const redis = await connectRedis(config.redisUrl);
    lines.push('redis: answers');
    redis.disconnect();
  } else {
    lines.push('redis: not configured (in-memory state, one node)');
  }
  return { lines };
}
