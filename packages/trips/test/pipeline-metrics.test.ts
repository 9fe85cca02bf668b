import { createHttpMetrics, createLogger } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { createPipelineMetrics } from '../src/ingest/pipeline-metrics.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { seriesValue } from './fixtures/prometheus.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

/** The ingest app's /metrics tell an operator what the pipeline does: uploads, scoring results and delays, the queue. */
describe.each(testDialects())('pipeline metrics on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let app: FastifyInstance;
    let worker: ScoringWorker;
    let key: string;
    let now = Date.UTC(2026, 11, 1, 9);
    const clock = () => now;

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'M', fleetId: 'fleet_m' });
      for (const plate of ['OK-1', 'FAIL-1', 'FAILP-1'])
        await createVehicle(database.db, { fleetId: 'fleet_m', plate });
      key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_m' })).secret;
      const metrics = createHttpMetrics({ processMetrics: false });
      const pipelineMetrics = createPipelineMetrics({
        registry: metrics.registry,
        db: database.db,
        logger: quietLogger(),
        clock,
      });
      app = await buildIngestApp({
        environment: 'production',
        database,
        logger: quietLogger(),
        clock,
        metrics,
        pipelineMetrics,
      });
      worker = new ScoringWorker({
        db: database,
        scorer: fakeScorer(),
        logger: quietLogger(),
        clock,
        metrics: pipelineMetrics,
      });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    const upload = (plate: string, idempotencyKey: string) =>
      app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: JSON.stringify(gpsTrip({ startMs: now - 3_600_000, vehicle: plate })),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
      });
    const scrape = async () => {
      const res = await app.inject({ url: '/metrics' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      return res.payload;
    };

    it('counts uploads, scoring results and delays, and reads the queue from the store', async () => {
      let text = await scrape();
      expect(seriesValue(text, 'trips_store_up')).toBe(1);
      expect(seriesValue(text, 'trips_ingest_uploads_total', { result: 'stored' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_attempts_total', { result: 'scored' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'queued' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_backlog_seconds')).toBe(0);

      expect((await upload('OK-1', 'metrics-ok-1')).statusCode).toBe(202);
      expect((await upload('OK-1', 'metrics-ok-1')).statusCode).toBe(200);
      expect((await upload('FAIL-1', 'metrics-fail-1')).statusCode).toBe(202);
      expect((await upload('FAILP-1', 'metrics-failp-1')).statusCode).toBe(202);
      // A refused upload is no acknowledged upload (its 403 is in http_requests_total).
      expect((await upload('NOT-REGISTERED', 'metrics-unknown-1')).statusCode).toBe(403);
      now += 30_000;

      text = await scrape();
      expect(seriesValue(text, 'trips_ingest_uploads_total', { result: 'stored' })).toBe(3);
      expect(seriesValue(text, 'trips_ingest_uploads_total', { result: 'duplicate' })).toBe(1);
      expect(seriesValue(text, 'trips_ingest_trips_total')).toBe(3);
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'queued' })).toBe(3);
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'failed' })).toBe(0);
      // Queued 30 s ago and due at once: nobody scored them meanwhile.
      expect(seriesValue(text, 'trips_scoring_backlog_seconds')).toBe(30);

      await worker.drain();
      text = await scrape();
      expect(seriesValue(text, 'trips_scoring_attempts_total', { result: 'scored' })).toBe(1);
      expect(seriesValue(text, 'trips_scoring_attempts_total', { result: 'retry' })).toBe(1);
      expect(seriesValue(text, 'trips_scoring_attempts_total', { result: 'not_scorable' })).toBe(1);
      expect(seriesValue(text, 'trips_scoring_attempts_total', { result: 'failed' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_duration_seconds_count')).toBe(1);
      // The scored trip waited the 30 s since its upload arrived.
      expect(seriesValue(text, 'trips_scoring_delay_seconds_count')).toBe(1);
      expect(seriesValue(text, 'trips_scoring_delay_seconds_sum')).toBe(30);
      expect(seriesValue(text, 'trips_scoring_delay_seconds_bucket', { le: '10' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_delay_seconds_bucket', { le: '30' })).toBe(1);
      // The crashed one waits for its retry (not due yet), the unscorable one is kept as failed.
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'queued' })).toBe(1);
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'scoring' })).toBe(0);
      expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'failed' })).toBe(1);
      expect(seriesValue(text, 'trips_scoring_backlog_seconds')).toBe(0);

      // The retry falls due 2 s after its attempt; 12 s later it is 10 s overdue.
      now += 12_000;
      expect(seriesValue(await scrape(), 'trips_scoring_backlog_seconds')).toBe(10);
    });

    it('says when the store does not answer, leaving the queue out, and logs it once', async () => {
      const lines: string[] = [];
      const logger = createLogger({ level: 'warn', destination: { write: (line: string) => lines.push(line) } });
      const metrics = createHttpMetrics({ processMetrics: false });
      const broken: TripsDatabase = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      createPipelineMetrics({ registry: metrics.registry, db: broken.db, logger, clock }).uploadAccepted('stored', 2);
      await broken.close();
      for (let i = 0; i < 3; i++) {
        const text = await metrics.registry.metrics();
        expect(seriesValue(text, 'trips_ingest_trips_total')).toBe(2);
        expect(seriesValue(text, 'trips_store_up')).toBe(0);
        expect(seriesValue(text, 'trips_scoring_queue_jobs', { status: 'queued' })).toBeUndefined();
        expect(seriesValue(text, 'trips_scoring_backlog_seconds')).toBeNaN();
      }
      expect(lines.filter((l) => l.includes('scoring queue could not be read'))).toHaveLength(1);
    });
  });
});
