import type { Logger } from '@svc/platform';
import { type Kysely, sql } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { TripsSchema } from '../store/schema.ts';

/**
 * What the ingest endpoint and the scoring worker report to the Prometheus registry of the ingest app (its
 * `/metrics`, on the private port): the uploads taken, the trips scored and how long they waited, and the queue as
 * the store holds it. The counters and histograms are this process's; the queue gauges are read from the store
 * when scraped, so every node of a shared database reports the same queue (aggregate them with max, not sum).
 */
export interface PipelineMetrics {
  /** An upload acknowledged: `stored` with the trips it queued (a day cut into drives stores several), or a repeat. */
  uploadAccepted(result: 'stored' | 'duplicate', trips: number): void;
  /**
   * A trip scored and written: the engine's time in seconds, and, for a trip's first score, the seconds since its
   * upload arrived (null for a trip scored again, whose upload arrived long before).
   */
  tripScored(scoringS: number, sinceReceivedS: number | null): void;
  /**
   * An attempt that ended without a score: `retry` (it runs again after a back-off), `not_scorable` (the model's
   * verdict on the data, kept with its reason), `failed` (retries exhausted, or the telemetry cannot be read) or
   * `store_fault` (the store failed, not the trip: it runs again without counting the attempt).
   */
  attemptFailed(result: 'retry' | 'not_scorable' | 'failed' | 'store_fault'): void;
}

/** Upload statuses the queue gauge reports (`scored` grows with the store, and the trip list counts it). */
const QUEUE_STATUSES = ['queued', 'scoring', 'failed'] as const;

/**
 * Registers the pipeline's metrics on `registry` (the ingest app's, see createHttpMetrics) and returns what the
 * ingest route and the scoring worker call. A scrape reads the queue with two indexed statements; while the store
 * does not answer, `trips_store_up` is 0, the queue counts are left out and the backlog is NaN, and the failure is
 * logged once until a scrape succeeds again.
 */
export function createPipelineMetrics(options: {
  registry: Registry;
  db: Kysely<TripsSchema>;
  logger: Logger;
  clock?: () => number;
}): PipelineMetrics {
  const { registry, db, logger } = options;
  const clock = options.clock ?? Date.now;
  const uploads = new Counter({
    name: 'trips_ingest_uploads_total',
    help: 'Uploads acknowledged by the ingest endpoint: stored (new trips queued) or duplicate (a repeat)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const trips = new Counter({
    name: 'trips_ingest_trips_total',
    help: 'Trips stored and queued for scoring by acknowledged uploads',
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'trips_scoring_attempts_total',
    help: 'Scoring attempts by this process, by result: scored, retry, not_scorable, failed or store_fault',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const scoring = new Histogram({
    name: 'trips_scoring_duration_seconds',
    help: "The engine's time to score a trip (map-matching included), on this process's scoring threads",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const delay = new Histogram({
    name: 'trips_scoring_delay_seconds',
    help: 'Time from an upload arriving to its trip being scored and served, for trips scored the first time',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });
  // The counters' series exist from the start, at zero, so that a rate over them is defined before the first event.
  for (const result of ['stored', 'duplicate'] as const) uploads.inc({ result }, 0);
  for (const result of ['scored', 'retry', 'not_scorable', 'failed', 'store_fault'] as const) {
    attempts.inc({ result }, 0);
  }

  // One read of the queue serves the three gauges of a scrape: prom-client starts their collect() together, and
  // they share the read in flight.
  let failing = false;
  let inFlight: Promise<QueueSnapshot | null> | undefined;
  const readQueue = (): Promise<QueueSnapshot | null> => {
    inFlight ??= queueSnapshot(db)
      .then(
        (queue) => {
          failing = false;
          return queue;
        },
        (err: unknown) => {
          if (!failing) logger.warn({ err }, 'metrics: the scoring queue could not be read; trips_store_up is 0');
          failing = true;
          return null;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  new Gauge({
    name: 'trips_store_up',
    help: 'Whether the last scrape could read the scoring queue from the store (1) or not (0)',
    registers: [registry],
    async collect() {
      this.set((await readQueue()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'trips_scoring_queue_jobs',
    help: 'Uploads in the scoring queue by status (queued, scoring, failed), as the store holds them',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const queue = await readQueue();
      if (!queue) return;
      for (const status of QUEUE_STATUSES) this.set({ status }, queue.counts[status]);
    },
  });
  new Gauge({
    name: 'trips_scoring_backlog_seconds',
    help: 'How long the most overdue runnable job has waited past its due time (0 when the workers keep up)',
    registers: [registry],
    async collect() {
      const queue = await readQueue();
      if (!queue) this.set(Number.NaN);
      else this.set(queue.earliestDueMs === null ? 0 : Math.max(0, (clock() - queue.earliestDueMs) / 1000));
    },
  });

  return {
    uploadAccepted(result, count) {
      uploads.inc({ result });
      if (result === 'stored') trips.inc(count);
    },
    tripScored(scoringS, sinceReceivedS) {
      attempts.inc({ result: 'scored' });
      scoring.observe(scoringS);
      if (sinceReceivedS !== null) delay.observe(Math.max(0, sinceReceivedS));
    },
    attemptFailed(result) {
      attempts.inc({ result });
    },
  };
}

interface QueueSnapshot {
  counts: Record<(typeof QUEUE_STATUSES)[number], number>;
  /** When the earliest runnable or running job is (or was) due: a queued job's next attempt, a claim's lease end. */
  earliestDueMs: number | null;
}

/** The queue as the store holds it, from two indexed statements (the status index and the claim's own). */
async function queueSnapshot(db: Kysely<TripsSchema>): Promise<QueueSnapshot> {
  const rows = await db
    .selectFrom('trip_uploads')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('status', 'in', [...QUEUE_STATUSES])
    .groupBy('status')
    .execute();
  const due = await sql<{ due: number | string | null }>`
    select min(next_attempt_at_ms) as due from trip_uploads where status in ('queued', 'scoring')`.execute(db);
  const counts = { queued: 0, scoring: 0, failed: 0 };
  for (const row of rows) if (row.status in counts) counts[row.status as keyof typeof counts] = Number(row.n);
  const earliest = due.rows[0]?.due;
  return { counts, earliestDueMs: earliest === null || earliest === undefined ? null : Number(earliest) };
}
