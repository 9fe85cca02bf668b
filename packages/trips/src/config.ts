import path from 'node:path';
import { baseConfigSpec, type ConfigOf, env, portSchema, positiveIntSchema, urlSchema } from '@svc/platform';
import { z } from 'zod';

const nonNegativeInt = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a whole number >= 0' })
    .int({ error: 'must be a whole number >= 0' })
    .min(0, { error: 'must be a whole number >= 0' })
    .default(fallback);

const optionalPath = z
  .string()
  .optional()
  .transform((p) => (p ? path.resolve(p) : undefined));

/**
 * TRIPS_CORS_ORIGINS: browser origins allowed to call the API, comma-separated (`https://dash.example.com`),
 * or `*` for any. Each must be a bare origin: scheme, host and optional port, nothing after.
 */
const corsOriginsSchema = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const list = (value ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    for (const origin of list) {
      if (origin === '*') continue;
      let parsed: URL | null = null;
      try {
        parsed = new URL(origin);
      } catch {
        parsed = null;
      }
      if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
        ctx.addIssue({
          code: 'custom',
          // loadConfig adds the whole value; this names the entry that is not an origin.
          message: `must be a comma-separated list of origins like https://dash.example.com, or *; ${JSON.stringify(origin.slice(0, 80))} is not one`,
        });
        return z.NEVER;
      }
    }
    return list;
  });

/**
 * TRIPS_PUBLIC_URL and TRIPS_SANDBOX_PUBLIC_URL: an http(s) URL with no query or fragment (a path prefix is
 * kept, for an API behind a proxy at /trips); a trailing slash is dropped, since the document's paths start
 * with one.
 */
const publicUrlSchema = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return undefined;
    let parsed: URL | null = null;
    try {
      parsed = new URL(value.trim());
    } catch {
      parsed = null;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.search || parsed.hash || parsed.username) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be an http:// or https:// base URL such as https://api.example.com, without query or credentials',
      });
      return z.NEVER;
    }
    return parsed.href.replace(/\/+$/, '');
  });

/** A whole number from `min` to `max`, `fallback` when unset; one message for every way of missing it. */
const integerBetween = (min: number, max: number, fallback: number) => {
  const error = `must be an integer between ${min} and ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback);
};

/** Every setting of the trip-scoring service (environment variables, or a CONFIG_FILE). */
const apiWorkersSchema = integerBetween(1, 64, 1);

export const tripsConfigSpec = {
  ...baseConfigSpec({ prefix: 'TRIPS_', defaultPort: 3000 }),
  sandboxPort: env('TRIPS_SANDBOX_PORT', portSchema(3001), { doc: 'Port of the sandbox public API' }),
  publicUrl: env('TRIPS_PUBLIC_URL', publicUrlSchema, {
    doc: "Base URL clients reach the production API at (https://api.example.com, before /v1), named in the served OpenAPI document; default: this node's host and port",
  }),
  sandboxPublicUrl: env('TRIPS_SANDBOX_PUBLIC_URL', publicUrlSchema, {
    doc: "Base URL clients reach the sandbox API at, named in the served OpenAPI document; default: this node's host and sandbox port",
  }),
  ingestHost: env('TRIPS_INGEST_HOST', z.string().min(1).default('127.0.0.1'), {
    doc: 'Interface of the private ingest endpoints (keep it off the public network)',
  }),
  ingestPort: env('TRIPS_INGEST_PORT', portSchema(3100), { doc: 'Port of the production ingest endpoint' }),
  sandboxIngestPort: env('TRIPS_SANDBOX_INGEST_PORT', portSchema(3101), {
    doc: 'Port of the sandbox ingest endpoint',
  }),
  sandboxDatabaseUrl: env('TRIPS_SANDBOX_DATABASE_URL', urlSchema(['postgres', 'postgresql']).optional(), {
    secret: true,
    doc: 'PostgreSQL URL of the sandbox; default: the production server in schema trips_sandbox, or SQLite',
  }),
  roadGraph: env('TRIPS_ROAD_GRAPH', optionalPath, {
    doc: 'Road graph file to score against (npx trips roads build); default: built from TRIPS_OSM_FILE or a synthetic city',
  }),
  osmFile: env('TRIPS_OSM_FILE', optionalPath, {
    doc: 'OpenStreetMap extract (.osm.pbf, .osm, .osm.gz) to build the road graph from at start-up (cached)',
  }),
  citySeed: env(
    'TRIPS_CITY_SEED',
    z.coerce.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }).default(7),
    { doc: 'Seed of the synthetic city used when no graph or OSM file is configured' },
  ),
  rateLimitPerMin: env('TRIPS_RATE_LIMIT_PER_MIN', positiveIntSchema(1200), {
    doc: 'Requests per minute per API token (a token may carry its own limit)',
  }),
  ingestRateLimitPerMin: env('TRIPS_INGEST_RATE_LIMIT_PER_MIN', positiveIntSchema(6000), {
    doc: 'Uploads per minute per ingest key',
  }),
  ingestBodyLimitMb: env('TRIPS_INGEST_BODY_LIMIT_MB', positiveIntSchema(64), {
    doc: 'Largest upload after decompression, in MiB',
  }),
  ingestMemoryMb: env(
    'TRIPS_INGEST_MEMORY_MB',
    z.coerce
      .number({ error: 'must be a positive integer' })
      .int({ error: 'must be a positive integer' })
      .positive({ error: 'must be a positive integer' })
      .optional(),
    {
      doc: 'Upload bodies an ingest process holds at once, in MiB (past it: 503 and Retry-After); default 8x TRIPS_INGEST_BODY_LIMIT_MB, never less than it',
    },
  ),
  ingestThreads: env('TRIPS_INGEST_THREADS', positiveIntSchema(1), {
    doc: 'Worker threads parsing, checking and compressing uploads, so that no upload holds the event loop that serves the API',
  }),
  // Capped as the API workers are: each thread is another connection and page cache.
  readThreads: env('TRIPS_READ_THREADS', integerBetween(0, 64, 1), {
    doc: 'Worker threads per API process reading the vehicle, driver and fleet lists and profiles from a SQLite store, so that summing a large fleet does not hold the event loop (0: read them on the event loop; not used on PostgreSQL)',
  }),
  scoringThreads: env('TRIPS_SCORING_THREADS', positiveIntSchema(1), {
    doc: 'Worker threads scoring trips (each holds a copy of the road graph)',
  }),
  scoringLeaseMs: env('TRIPS_SCORING_LEASE_MS', positiveIntSchema(120_000), {
    doc: 'How long a node may hold a scoring job without renewing it before another node takes it over',
  }),
  scoringWorker: env('TRIPS_SCORING_WORKER', z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'), {
    doc: 'off: this node only serves; another node scores the queue',
  }),
  // Capped: a typo such as 1000 would otherwise fork a thousand processes.
  apiWorkers: env('TRIPS_API_WORKERS', apiWorkersSchema, {
    doc: 'Processes serving the public API of `trips serve` on one shared port (node:cluster); the main process keeps ingest and scoring. Above 1, per-token rate limits are one budget only with REDIS_URL',
  }),
  sandboxSeedTrips: env('TRIPS_SANDBOX_SEED_TRIPS', nonNegativeInt(300), {
    doc: 'Simulated trips sent through ingest into an empty sandbox at first start (0: none)',
  }),
  locationRetentionDays: env(
    'TRIPS_LOCATION_RETENTION_DAYS',
    z.coerce
      .number({ error: 'must be a whole number of days from 1 to 36500' })
      .int({ error: 'must be a whole number of days from 1 to 36500' })
      .min(1, { error: 'must be a whole number of days from 1 to 36500' })
      .max(36_500, { error: 'must be a whole number of days from 1 to 36500' })
      .optional(),
    {
      doc: 'Days the GPS telemetry and routes of a trip are kept; scores stay. Nodes that score trips delete older location data every hour. Unset: kept for good',
    },
  ),
  databasePoolSize: env('TRIPS_DATABASE_POOL_SIZE', integerBetween(1, 500, 10), {
    doc: 'PostgreSQL connections each process keeps per environment (its API, ingest and scoring share them); more helps only when the database has CPUs to spare (on one 2-CPU machine with the database, 25 served fewer pages than 10). SQLite: not used',
  }),
  corsOrigins: env('TRIPS_CORS_ORIGINS', corsOriginsSchema, {
    doc: 'Browser origins allowed to call the public API (CORS), comma-separated, or *; none when unset',
  }),
} as const;

export type TripsConfig = ConfigOf<typeof tripsConfigSpec>;
