/**
 * Starts the CMS service: configuration, database, app, listening, first-run install. With
 * `CMS_WORKERS` other than 1 (default: one per CPU) a cluster primary applies the migrations and the
 * first-run install once, then forks the workers, which all serve the one port (Node's cluster shares
 * the listening socket). Workers share nothing but the database: per-post caches are keyed by the row's
 * version, and every request first reads the cache generations, so options and credentials another
 * process changed are read again (src/db/cache-generations.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { configSource, createLogger, ensureWritableFolder, type Logger, probeListen, serve } from '@svc/platform';
import { buildApp, type CmsApp } from './app.ts';
import { applySiteUrl, type FirstRunCredentials, installIfNeeded } from './bootstrap.ts';
import { type CmsConfig, loadCmsConfig, resolveSecret } from './config.ts';
import { startSearchIndexer } from './content/search-indexer.ts';
import { openCmsDatabase } from './db/connection.ts';
import { leaveCheckpointsToPrimary, startCheckpoints } from './db/wal-checkpoints.ts';
import { siteEnvironment } from './site/site-runtime.ts';

/** The IPC message a worker shuts down on (a signal could arrive twice: from the terminal and the primary). */
const SHUTDOWN_MESSAGE = 'cms:shutdown';

/** Runs the service until SIGTERM/SIGINT. */
export async function startCms(): Promise<void> {
  const config = loadCmsConfig();
  const logger = createLogger({ level: config.logLevel, name: 'cms' });
  if (cluster.isWorker) return startWorker(config, logger);
  // Uploads are written long after the start; a folder that cannot take them is said now, in one line, not on
  // the first upload as a failed request.
  ensureWritableFolder(siteEnvironment(config).uploadsDir, 'CMS_UPLOADS_DIR');
  const workers = config.workers === 0 ? availableParallelism() : config.workers;
  if (workers <= 1) return startSingle(config, logger);
  return startPrimary(config, logger, workers);
}

/** Opens the database, builds the app and listens; the site URL defaults to where it listens. */
async function listen(config: CmsConfig, logger: Logger, onExit?: (code: number) => void) {
  const secret = resolveSecret(config);
  const database = await openCmsDatabase(config);
  // A worker leaves the WAL checkpoints to the primary (see src/db/wal-checkpoints.ts).
  if (cluster.isWorker && database.dialect === 'sqlite') await leaveCheckpointsToPrimary(database.db);
  const cms = await buildApp({ config, database, logger, secret });
  // A single process brings the search index up to date itself (the primary does it for its workers).
  const indexer =
    !cluster.isWorker && database.dialect === 'sqlite'
      ? startSearchIndexer(database.db, { onError: (err) => logger.warn({ err }, 'search indexing failed') })
      : null;
  const running = await serve(cms.app, {
    host: config.host,
    port: config.port,
    settings: { host: configSource(config, 'host', 'CMS_HOST'), port: 'CMS_PORT' },
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    onShutdown: [async () => indexer?.stop(), () => database.close()],
    ...(onExit ? { onExit } : {}),
  });
  const siteUrl = (config.siteUrl ?? running.url).replace(/\/+$/, '');
  cms.ctx.options.setDefault('siteurl', siteUrl);
  cms.ctx.options.setDefault('home', siteUrl);
  return { cms, database, running, siteUrl };
}

/** One process: listen, then install on the first start. */
async function startSingle(config: CmsConfig, logger: Logger): Promise<void> {
  const { cms, database, running, siteUrl } = await listen(config, logger);
  const first = await installIfNeeded(cms, config);
  await applySiteUrl(cms, config);
  announce(running.url, running.port, await storedSiteUrl(cms, siteUrl), database.location, first);
}

/** A cluster worker: the primary already migrated and installed; serve until told to stop. */
async function startWorker(config: CmsConfig, logger: Logger): Promise<void> {
  // The primary may be gone before this worker's first message to it (it gave up when another worker failed):
  // that is no error to print, with a stack, over the primary's line.
  cluster.worker?.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_IPC_CHANNEL_CLOSED') process.exit(1);
    throw err;
  });
  const { running } = await listen(config, logger, (code) => {
    process.exitCode = code;
    // The IPC channel to the primary would keep the process alive.
    process.disconnect?.();
    setTimeout(() => process.exit(code), 1000).unref();
  });
  process.on('message', (message) => {
    if (message === SHUTDOWN_MESSAGE) void running.shutdown('primary');
  });
  process.on('disconnect', () => void running.shutdown('primary gone'));
}

/** The cluster primary: migrations and first-run install, then the workers; stops them on a signal. */
async function startPrimary(config: CmsConfig, logger: Logger, count: number): Promise<void> {
  // Every worker must listen on the same port, so a port chosen by the OS is chosen here, once.
  // A port in use or a host not of this machine: one line from here, not one from each worker.
  await probeListen({
    host: config.host,
    port: config.port,
    settings: { host: configSource(config, 'host', 'CMS_HOST'), port: 'CMS_PORT' },
  });
  const port = config.port === 0 ? await freePort(config.host) : config.port;
  const url = `http://${urlHost(config.host)}:${port}`;
  const siteUrl = (config.siteUrl ?? url).replace(/\/+$/, '');
  const secret = resolveSecret(config);
  const database = await openCmsDatabase(config);
  let first: FirstRunCredentials | null;
  let publicUrl: string;
  try {
    const cms = await buildApp({ config, database, logger, secret });
    cms.ctx.options.setDefault('siteurl', siteUrl);
    cms.ctx.options.setDefault('home', siteUrl);
    first = await installIfNeeded(cms, config);
    await applySiteUrl(cms, config);
    publicUrl = await storedSiteUrl(cms, siteUrl);
    await cms.app.close();
  } catch (err) {
    await database.close();
    throw err;
  }
  // On SQLite the primary keeps its connection to checkpoint the WAL for the workers.
  const checkpoints =
    database.dialect === 'sqlite'
      ? startCheckpoints(database.db, { onError: (err) => logger.warn({ err }, 'WAL checkpoint failed') })
      : null;
  // ... and brings the search index up to date for them (src/content/search-indexer.ts).
  const indexer = checkpoints
    ? startSearchIndexer(database.db, { onError: (err) => logger.warn({ err }, 'search indexing failed') })
    : null;
  if (!checkpoints) await database.close();
  const exit = async (code: number) => {
    if (checkpoints) {
      await indexer?.stop();
      await checkpoints.stop();
      await database.close();
    }
    process.exit(code);
  };

  let stopping = false;
  let exitCode = 0;
  let ready = 0;
  const env = { CMS_PORT: String(port) };
  const workers = new Set<Worker>();
  const fork = () => {
    const worker = cluster.fork(env);
    workers.add(worker);
    return worker;
  };
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, workers: workers.size }, 'stopping the workers');
    for (const worker of workers) if (worker.isConnected()) worker.send(SHUTDOWN_MESSAGE);
    setTimeout(() => {
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, config.shutdownTimeoutMs + 5000).unref();
  };
  await new Promise<void>((resolve, reject) => {
    cluster.on('listening', () => {
      if (++ready === count) resolve();
    });
    cluster.on('exit', (worker, code, signal) => {
      workers.delete(worker);
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (workers.size === 0) void exit(exitCode);
        return;
      }
      if (ready < count) {
        // A worker that cannot start (port taken, database unreachable) would fail again: give up.
        exitCode = 1;
        stopAll('a worker failed to start');
        if (workers.size === 0) void exit(1);
        reject(new Error(`a worker exited (${code ?? signal}) before listening`));
        return;
      }
      logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
      fork();
    });
    for (let i = 0; i < count; i++) fork();
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stopAll(signal));
  announce(url, port, publicUrl, `${database.location}, ${count} workers`, first);
}

/** The URL the site's links are built from: the stored `home`, else the default (where it listens). */
async function storedSiteUrl(cms: CmsApp, fallback: string): Promise<string> {
  return String(await cms.ctx.options.get('home', fallback)).replace(/\/+$/, '');
}

function announce(
  url: string,
  port: number,
  siteUrl: string,
  location: string,
  first: FirstRunCredentials | null,
): void {
  const out = process.stdout;
  out.write(`cms: listening on ${url} (port ${port}); REST API at ${siteUrl}/cms-json/ (${location})\n`);
  if (first) {
    out.write('cms: first start, created the administrator (shown once, store it now):\n');
    out.write(`cms:   login                ${first.login}\n`);
    out.write(`cms:   password             ${first.password}\n`);
    out.write(`cms:   application password ${first.applicationPassword}\n`);
    out.write(
      `cms:   try: curl -u '${first.login}:${first.applicationPassword}' ${siteUrl}/cms-json/cms/v2/users/me\n`,
    );
  }
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** A port the OS considers free on `host` right now. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port: 0 }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
