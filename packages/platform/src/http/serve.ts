import type { FastifyInstance } from 'fastify';
import type { Logger } from '../logger.ts';

export interface ServeOptions {
  host: string;
  port: number;
  logger: Logger;
  /** How long in-flight requests may take once a signal arrives; then connections are cut. */
  shutdownTimeoutMs?: number;
  /** Run after the server stopped, in order (close the database, flush queues...). */
  onShutdown?: Array<() => Promise<void> | void>;
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

  const shutdown = (reason = 'requested'): Promise<void> => {
    shutdownPromise ??= (async () => {
      for (const s of signals) process.off(s, onSignal);
      log.info({ reason, timeoutMs }, 'shutting down');
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
      log.info({ exitCode }, 'stopped');
      (options.onExit ?? exitSoon)(exitCode);
    })();
    return shutdownPromise;
  };

  function onSignal(signal: NodeJS.Signals) {
    void shutdown(signal);
  }

  await app.listen({ host: options.host, port: options.port });
  for (const s of signals) process.once(s, onSignal);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { url: `http://${hostForUrl === '0.0.0.0' ? '127.0.0.1' : hostForUrl}:${port}`, port, shutdown };
}

function exitSoon(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 1000).unref();
}
