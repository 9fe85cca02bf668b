import type { Logger } from '@svc/platform';
import { deleteLocationData } from '../store/location-data.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';

const DAY_MS = 86_400_000;

/** How often a node that scores trips applies the retention period. */
export const RETENTION_INTERVAL_MS = 3_600_000;

export interface RetentionTask {
  /** Runs one pass now (also what the timer runs); resolves with the uploads whose telemetry went. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a pass in progress, so the database can be closed after it. */
  stop(): Promise<void>;
}

/**
 * TRIPS_LOCATION_RETENTION_DAYS: deletes the location data (telemetry and routes) of trips older than the
 * period, at start and then every hour, on each node that runs a scoring worker. Passes of several nodes
 * may overlap: each batch re-checks what it deletes in its transaction, and a pass that fails (a deadlock
 * between two nodes on PostgreSQL, the database briefly away) is logged and the next one finishes the job.
 */
export function startLocationRetention(options: {
  database: TripsDatabase;
  days: number;
  logger: Logger;
  clock: () => number;
  intervalMs?: number;
}): RetentionTask {
  const { database, days, logger, clock } = options;
  let running: Promise<number> | null = null;
  let stopped = false;
  const pass = async (): Promise<number> => {
    const nowMs = clock();
    const result = await deleteLocationData(database.db, { beforeMs: nowMs - days * DAY_MS, nowMs });
    if (result.uploads > 0) {
      logger.info({ uploads: result.uploads, trips: result.trips, retentionDays: days }, 'location data deleted');
    }
    return result.uploads;
  };
  const runOnce = () => {
    running ??= pass()
      .catch((err: unknown) => {
        logger.warn({ err }, 'location data retention pass failed; the next pass retries');
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void runOnce();
  }, options.intervalMs ?? RETENTION_INTERVAL_MS);
  timer.unref();
  void runOnce();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
