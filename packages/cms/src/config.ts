/** The CMS configuration, read once from the environment (see README for every variable). */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  baseConfigSpec,
  booleanSchema,
  ConfigError,
  type ConfigOf,
  env,
  type LoadConfigOptions,
  loadConfig,
  makeFolders,
  urlSchema,
} from '@svc/platform';
import { z } from 'zod';

/**
 * The shared entries without `redisUrl`: the CMS's nodes and workers share state through the database alone
 * (src/db/cache-generations.ts), so REDIS_URL and CMS_REDIS_URL are not read, and a value meant for another
 * service in the same environment can neither stop the CMS nor suggest that it uses Redis.
 */
const { redisUrl: _redisIsNotUsed, ...sharedConfigSpec } = baseConfigSpec({ prefix: 'CMS_', defaultPort: 8080 });

export const cmsConfigSpec = {
  ...sharedConfigSpec,
  siteUrl: env('CMS_SITE_URL', urlSchema(['http', 'https']).optional(), {
    doc: 'Public URL of the site, e.g. https://cms.example.com; stored as siteurl/home at every start it is set (never set: http://HOST:PORT)',
  }),
  secret: env('CMS_SECRET', z.string().min(32, { error: 'must be at least 32 characters' }).optional(), {
    secret: true,
    doc: 'Key for application-password hashes; generated into DATA_DIR/cms-secret.key when unset (set it when several nodes share a database)',
  }),
  adminLogin: env('CMS_ADMIN_LOGIN', z.string().min(1).default('admin'), {
    doc: 'Login of the administrator created on first start',
  }),
  adminEmail: env('CMS_ADMIN_EMAIL', z.string().min(3).default('admin@example.com'), {
    doc: 'Email of the administrator created on first start',
  }),
  seedSample: env('CMS_SEED_SAMPLE', booleanSchema(true), { doc: 'Create a little sample content on first start' }),
  workers: env(
    'CMS_WORKERS',
    z.coerce
      .number({ error: 'must be an integer, 0 or more' })
      .int({ error: 'must be an integer, 0 or more' })
      .min(0, { error: 'must be an integer, 0 or more' })
      .default(0),
    { doc: 'Processes serving the API on the one port (`serve`); 0 = one per CPU, 1 = a single process' },
  ),
  maxUploadMb: env(
    'CMS_MAX_UPLOAD_MB',
    z.coerce
      .number({ error: 'must be a positive number of megabytes' })
      .positive({ error: 'must be a positive number of megabytes' })
      .default(64),
    { doc: 'Largest upload in MB (request bodies are also capped at 64 MiB)' },
  ),
  uploadsDir: env('CMS_UPLOADS_DIR', z.string().min(1).optional(), {
    doc: 'Where uploads are stored (default DATA_DIR/uploads)',
  }),
  oembedAllowNetworks: env('CMS_OEMBED_ALLOW_NETWORKS', z.string().optional(), {
    doc: 'Comma-separated CIDRs the oEmbed proxy may reach although private (e.g. 10.0.0.0/8)',
  }),
} as const;

export type CmsConfig = ConfigOf<typeof cmsConfigSpec>;

/** Reads and validates the configuration; throws a one-line ConfigError. */
export function loadCmsConfig(options: LoadConfigOptions = {}): CmsConfig {
  return loadConfig(cmsConfigSpec, options);
}

/** The SQLite file of the embedded store. */
export function sqliteFile(config: CmsConfig): string {
  return path.join(config.dataDir, 'cms.db');
}

/**
 * The server secret: CMS_SECRET, or a random key kept in DATA_DIR/cms-secret.key (created with mode
 * 0600 on first use) so restarts keep application passwords valid.
 */
export function resolveSecret(config: CmsConfig): string {
  if (config.secret) return config.secret;
  const file = path.join(config.dataDir, 'cms-secret.key');
  try {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8').trim();
      if (text.length >= 32) return text;
      throw new ConfigError(`Invalid configuration: ${file} holds a key shorter than 32 characters`);
    }
    makeFolders(config.dataDir);
    const secret = randomBytes(32).toString('base64url');
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return secret;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw new ConfigError(
      `Invalid configuration: cannot read or create the secret key ${file} (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
}
