import { configSource, createHttpMetrics, type Logger, type Redis, type RunningServer, serve } from '@svc/platform';
import { buildApiApp } from '../api/build-api-app.ts';
import { localBaseUrl } from '../api/openapi-document.ts';
import type { TripsConfig } from '../config.ts';
import type { Environment } from '../environment.ts';
import { buildIngestApp } from '../ingest/build-ingest-app.ts';
import { createPipelineMetrics } from '../ingest/pipeline-metrics.ts';
import { ScoringWorker } from '../ingest/scoring-worker.ts';
import { threadUploadPreparer, type UploadPreparer } from '../ingest/upload-preparer.ts';
import type { TripScorer } from '../scoring/trip-scorer.ts';
import { otherModelsNotice, tripsScoredByOtherModels } from '../store/model-versions.ts';
import { openTripsDatabase, type TripsDatabase } from '../store/open-trips-database.ts';
import { inlineWindowReads, threadWindowReads, type WindowReads } from '../store/window-reads.ts';
import { databaseOptionsFor } from './database-location.ts';
import { type RetentionTask, startLocationRetention } from './location-retention.ts';

export { databaseOptionsFor };

/** Opens (and migrates) one environment's database. */
export async function openEnvironmentDatabase(
  config: Pick<TripsConfig, 'databaseUrl' | 'sandboxDatabaseUrl' | 'dataDir'> & { databasePoolSize?: number },
  environment: Environment,
): Promise<TripsDatabase> {
  const { description: _d, ...options } = databaseOptionsFor(config, environment);
  return openTripsDatabase({ environment, ...options });
}

export interface EnvironmentServiceOptions {
  environment: Environment;
  config: TripsConfig;
  logger: Logger;
  /** The scoring engine; null runs no scoring worker on this node (uploads stay queued for another). */
  scorer: TripScorer | null;
  redis?: Redis | undefined;
  /** An already opened database (the CLI's `serve` opens it first to fail fast). */
  database?: TripsDatabase;
  clock?: () => number;
  /** false: no public API in this process (it is served by API worker processes, see api-cluster.ts). */
  serveApi?: boolean;
  /**
   * The ingest threads (upload-preparer.ts), when several environments of one process share them; by default
   * the environment starts TRIPS_INGEST_THREADS of its own and stops them at shutdown.
   */
  preparer?: UploadPreparer;
}

export interface RunningEnvironment {
  environment: Environment;
  /** The public API's base URL; '' when this process does not serve it (`serveApi: false`). */
  apiUrl: string;
  ingestUrl: string;
  database: TripsDatabase;
  worker: ScoringWorker | null;
  /** Stops both listeners (in-flight requests finish), then the worker, then closes the database. */
  shutdown(): Promise<void>;
}

/**
 * Runs one environment: its public API, its private ingest endpoint and its scoring worker, on its own
 * database. Signals are the caller's business (one process may run both environments).
 */
export async function startEnvironment(options: EnvironmentServiceOptions): Promise<RunningEnvironment> {
  const { config, environment } = options;
  const logger = options.logger.child({ environment });
  const database = options.database ?? (await openEnvironmentDatabase(config, environment));
  const clock = options.clock ?? Date.now;
  // The ingest app's /metrics (private port) carries the pipeline's: uploads, scoring, the queue.
  const ingestMetrics = createHttpMetrics();
  const pipelineMetrics = createPipelineMetrics({ registry: ingestMetrics.registry, db: database.db, logger, clock });
  let worker: ScoringWorker | null = null;
  if (options.scorer && config.scoringWorker === 'on') {
    worker = new ScoringWorker({
      db: database,
      scorer: options.scorer,
      logger,
      concurrency: config.scoringThreads,
      leaseMs: config.scoringLeaseMs,
      clock,
      metrics: pipelineMetrics,
    });
  }
  const ownPreparer = options.preparer ? null : await threadUploadPreparer({ threads: config.ingestThreads });
  const preparer = options.preparer ?? ownPreparer!;
  const windowReads = options.serveApi === false ? undefined : await startWindowReads(config, database, logger);
  const api = windowReads
    ? await buildEnvironmentApi(environment, config, logger, database, options.redis, clock, windowReads)
    : undefined;
  const ingest = await buildIngestApp({
    environment,
    database,
    logger,
    clock,
    bodyLimitBytes: config.ingestBodyLimitMb * 1024 * 1024,
    requestTimeoutMs: config.requestTimeoutMs,
    responseIdleTimeoutMs: config.responseIdleTimeoutMs,
    // Never below one upload of the largest size, which would otherwise be refused for good.
    bodyBudgetBytes:
      Math.max(config.ingestMemoryMb ?? 8 * config.ingestBodyLimitMb, config.ingestBodyLimitMb) * 1024 * 1024,
    rateLimit: { perMinute: config.ingestRateLimitPerMin, redis: options.redis },
    metrics: ingestMetrics,
    pipelineMetrics,
    metricsToken: config.metricsToken,
    ...(worker ? { scoringPausedBy: () => worker?.storeFault ?? null } : {}),
    onQueued: () => worker?.notify(),
    preparer,
  });
  const port = environment === 'production' ? config.port : config.sandboxPort;
  const ingestPort = environment === 'production' ? config.ingestPort : config.sandboxIngestPort;
  const quiet = { signals: [] as NodeJS.Signals[], onExit: () => {}, shutdownTimeoutMs: config.shutdownTimeoutMs };
  let apiServer: RunningServer | undefined;
  let ingestServer: RunningServer | undefined;
  try {
    if (api)
      apiServer = await serve(api, {
        host: config.host,
        port,
        settings: apiSettings(config, environment),
        logger,
        ...quiet,
      });
    ingestServer = await serve(ingest, {
      host: config.ingestHost,
      port: ingestPort,
      settings: {
        host: 'TRIPS_INGEST_HOST',
        port: environment === 'production' ? 'TRIPS_INGEST_PORT' : 'TRIPS_SANDBOX_INGEST_PORT',
      },
      logger,
      ...quiet,
    });
  } catch (err) {
    await apiServer?.shutdown();
    await windowReads?.close();
    await ownPreparer?.close();
    await database.close();
    throw err;
  }
  worker?.start();
  if (options.scorer) await reportOtherModels(database, options.scorer.modelVersion, environment, logger);
  // Retention runs where trips are scored: API-only nodes (scoring worker off) leave it to those.
  const retention: RetentionTask | null =
    worker && config.locationRetentionDays !== undefined
      ? startLocationRetention({ database, days: config.locationRetentionDays, logger, clock })
      : null;
  let stopping: Promise<void> | undefined;
  return {
    environment,
    apiUrl: apiServer?.url ?? '',
    ingestUrl: ingestServer.url,
    database,
    worker,
    shutdown() {
      stopping ??= (async () => {
        await Promise.all([apiServer?.shutdown('stop'), ingestServer.shutdown('stop')]);
        await windowReads?.close();
        await ownPreparer?.close();
        await retention?.stop();
        await worker?.stop();
        await database.close();
      })();
      return stopping;
    },
  };
}

/**
 * Says at start-up when stored trips carry scores of another model than the one this node scores with (after
 * an upgrade): they stay as they are until an operator runs `rescore`, which may be a decision (scores feed
 * underwriting), so it is not started here. A failed count is only logged: it must not keep the service down.
 */
async function reportOtherModels(database: TripsDatabase, current: string, environment: Environment, logger: Logger) {
  try {
    const counts = await tripsScoredByOtherModels(database.db, current);
    const notice = otherModelsNotice(counts, current, environment);
    if (notice) logger.warn({ modelVersions: counts }, notice);
  } catch (err) {
    logger.warn({ err }, 'could not count the trips scored by other model versions');
  }
}

/** The settings the public API of an environment listens by, named when it cannot. */
export function apiSettings(config: TripsConfig, environment: Environment) {
  return {
    host: configSource(config, 'host', 'TRIPS_HOST'),
    port: environment === 'production' ? 'TRIPS_PORT' : 'TRIPS_SANDBOX_PORT',
  };
}

/** The public API app of one environment, as every process serving it builds it. */
function buildEnvironmentApi(
  environment: Environment,
  config: TripsConfig,
  logger: Logger,
  database: TripsDatabase,
  redis: Redis | undefined,
  clock: () => number,
  windowReads: WindowReads,
) {
  return buildApiApp({
    environment,
    database,
    logger,
    clock,
    windowReads,
    rateLimit: { perMinute: config.rateLimitPerMin, redis },
    metricsToken: config.metricsToken,
    corsOrigins: config.corsOrigins,
    serverUrls: {
      production: config.publicUrl ?? localBaseUrl(config.host, config.port),
      sandbox: config.sandboxPublicUrl ?? localBaseUrl(config.host, config.sandboxPort),
    },
    requestTimeoutMs: config.requestTimeoutMs,
    responseIdleTimeoutMs: config.responseIdleTimeoutMs,
  });
}

/**
 * One API worker process of `trips serve` with TRIPS_API_WORKERS > 1 (see api-cluster.ts): the
 * environment's public API only, on its own database connection (and Redis connection for the rate
 * limit), listening on the shared port. Stops gracefully on SIGTERM/SIGINT or when told to by the main
 * process, then exits.
 */
export async function runApiWorker(options: {
  environment: Environment;
  config: TripsConfig;
  logger: Logger;
  redis?: Redis | undefined;
}): Promise<RunningServer> {
  const { config, environment, redis } = options;
  const logger = options.logger.child({ environment, apiWorker: process.pid });
  const database = await openEnvironmentDatabase(config, environment);
  let windowReads: WindowReads | undefined;
  try {
    windowReads = await startWindowReads(config, database, logger);
    const api = await buildEnvironmentApi(environment, config, logger, database, redis, Date.now, windowReads);
    const server = await serve(api, {
      host: config.host,
      port: environment === 'production' ? config.port : config.sandboxPort,
      settings: apiSettings(config, environment),
      logger,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      onShutdown: [() => windowReads?.close(), () => database.close(), () => redis?.disconnect()],
      onExit: (code) => {
        process.exitCode = code;
        // The IPC channel to the main process would keep this process alive.
        process.disconnect?.();
        setTimeout(() => process.exit(code), 1000).unref();
      },
    });
    process.on('message', (message: unknown) => {
      if ((message as { type?: string } | null)?.type === 'shutdown') void server.shutdown('main process stopping');
    });
    return server;
  } catch (err) {
    await windowReads?.close();
    await database.close();
    throw err;
  }
}

/**
 * Where an API process reads the window sums (store/window-reads.ts): TRIPS_READ_THREADS reader threads on a
 * SQLite file, else the API's own connection. Reader threads that cannot start (a file this user may only
 * write through the main connection, say) are logged and the reads stay on the event loop: the API still serves.
 */
async function startWindowReads(config: TripsConfig, database: TripsDatabase, logger: Logger): Promise<WindowReads> {
  const file = database.dialect === 'sqlite' ? database.sqliteFile : undefined;
  if (file === undefined || config.readThreads === 0) return inlineWindowReads(database.db);
  try {
    return await threadWindowReads({ file, threads: config.readThreads, fallback: database.db, logger });
  } catch (err) {
    logger.warn({ err }, 'reader threads did not start; vehicle, driver and fleet reads run on the event loop');
    return inlineWindowReads(database.db);
  }
}
