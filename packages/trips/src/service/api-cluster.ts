import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@svc/platform';
import type { Environment } from '../environment.ts';

const BIN = fileURLToPath(new URL('../../bin/trips.js', import.meta.url));
const RESTART_DELAY_MS = 1000;

export interface ApiCluster {
  /** Base URL of the public API, e.g. `http://127.0.0.1:3000`. */
  url: string;
  workers: number;
  /** Asks every worker to stop gracefully and waits for them (killing any that outlive the bound). */
  stop(): Promise<void>;
}

/**
 * The public API of one environment served by `count` worker processes (node:cluster) sharing one port,
 * for `trips serve` with TRIPS_API_WORKERS > 1: each worker is `trips api-worker --env <environment>`
 * with this process's environment variables, so it reads the same configuration, opens its own database
 * connection and answers requests on its own core; connections are spread over them by the cluster
 * (round-robin on Linux). This process keeps ingest and scoring. A worker that dies is replaced after a
 * second. Resolves once every worker listens; rejects (stopping the others) if one exits before that.
 */
export async function startApiCluster(options: {
  environment: Environment;
  count: number;
  logger: Logger;
  shutdownTimeoutMs: number;
}): Promise<ApiCluster> {
  const { environment, count, logger } = options;
  if (!cluster.isPrimary) throw new Error('an API cluster is started by the main process');
  cluster.setupPrimary({ exec: BIN, args: ['api-worker', '--env', environment] });
  let stopping = false;
  let url = '';
  const workers = new Set<Worker>();

  const fork = (): Promise<string> => {
    const worker = cluster.fork();
    workers.add(worker);
    return new Promise((resolve, reject) => {
      let listening = false;
      worker.once('listening', (address) => {
        listening = true;
        const host = address.address && address.address !== '0.0.0.0' ? address.address : '127.0.0.1';
        resolve(`http://${host.includes(':') ? `[${host}]` : host}:${address.port}`);
      });
      worker.once('exit', (code, signal) => {
        workers.delete(worker);
        if (!listening) {
          reject(new Error(`API worker ${worker.process.pid} exited (${signal ?? code}) before listening`));
          return;
        }
        if (stopping) return;
        logger.error({ environment, pid: worker.process.pid, code, signal }, 'API worker died; starting another');
        setTimeout(() => {
          if (!stopping) fork().catch((err) => logger.error({ err, environment }, 'API worker did not start'));
        }, RESTART_DELAY_MS).unref();
      });
    });
  };

  const stop = async () => {
    stopping = true;
    const exits = [...workers].map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) return resolve();
          const timer = setTimeout(() => worker.process.kill('SIGKILL'), options.shutdownTimeoutMs + 5000);
          worker.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          // A worker that is exiting on its own (a failed bind) may close its channel while the message is on
          // its way: with a callback the EPIPE comes back here instead of as an unhandled 'error' event that
          // would crash this process, and the worker gets a signal instead.
          const signal = () => {
            if (!worker.isDead()) worker.process.kill('SIGTERM');
          };
          if (worker.isConnected()) worker.send({ type: 'shutdown' }, (err) => err && signal());
          else signal();
        }),
    );
    await Promise.all(exits);
  };

  try {
    const urls = await Promise.all(Array.from({ length: count }, fork));
    url = urls[0]!;
  } catch (err) {
    await stop();
    throw err;
  }
  logger.info({ environment, workers: count, api: `${url}/v1` }, 'API workers listening');
  return { url, workers: count, stop };
}
