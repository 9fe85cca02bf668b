import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.ts';
import type { Logger } from '../logger.ts';

export interface ServeOptions {
  host: string;
  port: number;
  logger: Logger;
  /** How long in-flight requests may take once a signal arrives; then connections are cut. */
  shutdownTimeoutMs?: number;
  /** Run after the server stopped, in order (close the database, flush queues...). */
  onShutdown?: Array<() => Promise<void> | void>;
  /**
   * The settings `host` and `port` come from (e.g. `{ host: 'TRIPS_HOST', port: 'TRIPS_PORT' }`), named when
   * the address cannot be listened on.
   */
  settings?: { host: string; port: string };
  /** Signals that start a graceful shutdown. */
  signals?: NodeJS.Signals[];
  /**
   * Called when shutdown finished. The default sets process.exitCode and, should a stray timer or
   * socket keep the event loop alive, exits one second later.
   */
  onExit?: (code: number) => void;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:3000` */
  url: string;
  port: number;
  /** Graceful stop, as on SIGTERM. Idempotent. */
  shutdown(reason?: string): Promise<void>;
}

/**
 * Starts listening and installs graceful shutdown: on SIGTERM/SIGINT the server stops accepting
 * connections (new requests get 503), lets in-flight requests finish within the bound (also those whose
 * client went away, on an app made by createHttpApp), then runs the `onShutdown` hooks (closing the
 * database last).
 */
export async function serve(app: FastifyInstance, options: ServeOptions): Promise<RunningServer> {
  const timeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const log = options.logger;
  let shutdownPromise: Promise<void> | undefined;
  // Named in the shutdown lines: a process serving several addresses (an API and its ingest) logs each.
  let url = '';

  const shutdown = (reason = 'requested'): Promise<void> => {
    shutdownPromise ??= (async () => {
      for (const s of signals) process.off(s, onSignal);
      log.info({ url, reason, timeoutMs }, 'shutting down');
      let exitCode = 0;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      // The connections first, then the requests still in process without one (their client went away):
      // the onShutdown hooks close what those may still use.
      const drained = app.close().then(() => (app.requestsSettled ? app.requestsSettled() : undefined));
      const outcome = await Promise.race([drained.then(() => 'closed' as const), timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        exitCode = 1;
        log.warn({ timeoutMs }, 'in-flight requests did not finish in time; closing their connections');
        app.server.closeAllConnections();
      }
      for (const hook of options.onShutdown ?? []) {
        try {
          await hook();
        } catch (err) {
          exitCode = 1;
          log.error({ err }, 'shutdown hook failed');
        }
      }
      log.info({ url, exitCode }, 'stopped');
      (options.onExit ?? exitSoon)(exitCode);
    })();
    return shutdownPromise;
  };

  function onSignal(signal: NodeJS.Signals) {
    void shutdown(signal);
  }

  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (err) {
    throw listenError(err, options);
  }
  for (const s of signals) process.once(s, onSignal);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  url = `http://${hostForUrl === '0.0.0.0' ? '127.0.0.1' : hostForUrl}:${port}`;
  return { url, port, shutdown };
}

function exitSoon(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 1000).unref();
}

/**
 * Checks that `host:port` can be listened on now, by binding it and letting go at once; throws the
 * {@link ListenError} serve() would. For a process that hands the address to others (a cluster primary
 * whose workers listen), so that a port in use is one line from it rather than one from every worker.
 */
export async function probeListen(options: Pick<ServeOptions, 'host' | 'port' | 'settings'>): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: options.host, port: options.port, exclusive: true }, () => resolve());
    });
  } catch (err) {
    throw listenError(err, options);
  } finally {
    await new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()));
  }
}

/** The address cannot be listened on: the port is taken, needs privileges, or the host is not this machine's. */
export class ListenError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('listen_failed', message, options);
  }
}

/** A failure to listen as one line naming the setting to change; other errors are returned as they are. */
function listenError(err: unknown, options: Pick<ServeOptions, 'host' | 'port' | 'settings'>): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const portSetting = options.settings ? ` (${options.settings.port})` : '';
  const hostSetting = options.settings ? ` (${options.settings.host})` : '';
  const where = `port ${options.port} of ${options.host}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ListenError(
        `${where} is already in use${portSetting}: stop what uses it, or set ${options.settings?.port ?? 'the port'} to a free port`,
        { cause: err },
      );
    case 'EACCES':
      return new ListenError(
        `no permission to listen on ${where}${portSetting}: use a port above 1023, or give the process the right to bind it`,
        { cause: err },
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new ListenError(
        `cannot listen on ${options.host}${hostSetting}: not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses`,
        { cause: err },
      );
    default:
      return err;
  }
}
