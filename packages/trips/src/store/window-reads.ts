import { DatabaseUnavailableError, type Logger } from '@svc/platform';
import { startThreadPool, ThreadTaskError } from '../threads/thread-pool.ts';
import { listDriverSummaries } from './driver-list.ts';
import { driverProfile } from './driver-profile.ts';
import { fleetProfile, fleetSummaries } from './fleet-profile.ts';
import type { TripsDb } from './open-trips-database.ts';
import { listVehicleSummaries } from './vehicle-list.ts';
import { vehicleProfile } from './vehicle-profile.ts';

/**
 * The reads that sum rolling windows: the vehicle, driver and fleet lists and profiles. Each adds up a few rows
 * of the stats tables for every vehicle, driver or fleet it covers, in one snapshot: on the 1,000,000-trip bench
 * store 90-160 ms of SQLite for a list over 1,000 vehicles and 300-590 ms over 12,000 drivers, against well under a
 * millisecond for a trip page (README, "Window reads on reader threads").
 */
export const WINDOW_READS = {
  vehicleList: listVehicleSummaries,
  vehicleProfile,
  driverList: listDriverSummaries,
  driverProfile,
  fleetList: fleetSummaries,
  fleetProfile,
} as const;

type Reads = typeof WINDOW_READS;
export type WindowReadName = keyof Reads;
type ArgsOf<K extends WindowReadName> = Reads[K] extends (db: TripsDb, ...args: infer A) => Promise<unknown>
  ? A
  : never;
type ResultOf<K extends WindowReadName> = Awaited<ReturnType<Reads[K]>>;

/** Where the window reads of an API process run. */
export interface WindowReads {
  read<K extends WindowReadName>(name: K, ...args: ArgsOf<K>): Promise<ResultOf<K>>;
  /** Reader threads serving them; 0 when they run on the caller's event loop. */
  readonly threads: number;
  close(): Promise<void>;
}

/** The window reads on the caller's connection and event loop: PostgreSQL (whose reads wait without holding it), in-memory stores, tests. */
export function inlineWindowReads(db: TripsDb): WindowReads {
  return {
    read(name, ...args) {
      const fn = WINDOW_READS[name] as (db: TripsDb, ...a: unknown[]) => Promise<never>;
      return fn(db, ...args);
    },
    threads: 0,
    close: async () => {},
  };
}

const THREAD_MODULE = new URL('./window-reads-thread.ts', import.meta.url);

/**
 * The window reads of a SQLite store on `threads` reader threads, each with its own read-only connection to the
 * file. better-sqlite3 runs a statement on the thread that calls it, so on the API's connection a list over a
 * thousand vehicles or ten thousand drivers held the event loop, and every request of the process waited behind
 * it, for 90-590 ms on the bench store. SQLite in WAL mode lets these connections read while the API's connection writes; each read is
 * its own transaction, as on the API's connection, and sees every commit made before it began.
 *
 * The caller has checked the token first (these routes are not `optimisticAuth`), exactly as before. A thread
 * that dies is replaced by the pool; the read it was running is made again on `fallback` (the API's own
 * connection) rather than failing the request.
 */
export async function threadWindowReads(options: {
  file: string;
  threads: number;
  fallback: TripsDb;
  logger: Logger;
  /** The threads' module; tests give one whose thread dies. */
  module?: URL;
}): Promise<WindowReads> {
  const pool = await startThreadPool({
    module: options.module ?? THREAD_MODULE,
    threads: options.threads,
    data: { file: options.file },
    name: 'reader',
  });
  const inline = inlineWindowReads(options.fallback);
  async function read<K extends WindowReadName>(name: K, ...args: ArgsOf<K>): Promise<ResultOf<K>> {
    try {
      return await pool.run<ResultOf<K>>({ op: name, args });
    } catch (err) {
      if (err instanceof ThreadTaskError) throw storeError(err);
      // The thread died (or none is running while one is replaced): the read is made here.
      options.logger.warn({ err, read: name }, 'a reader thread failed; the read was made on the main connection');
      return inline.read(name, ...args);
    }
  }
  return {
    read,
    threads: Math.max(1, options.threads),
    close: () => pool.close(),
  };
}

/** A store failure inside a reader thread keeps the class the API answers it by (503); anything else is a 500. */
function storeError(err: ThreadTaskError): Error {
  if (err.name === 'DatabaseUnavailableError') return new DatabaseUnavailableError(err.message);
  return err;
}
