import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testDialects } from '@svc/platform/testing';
import { generateCity, writeGraph } from '@svc/roads';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { prepareSandbox } from '../src/sandbox/seed-sandbox.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { quietLogger } from './fixtures/world.ts';

/**
 * Several sandbox nodes started at once on one empty store (a deployment's first rollout): one registers the
 * fleets and seeds, the others neither fail nor send the same trips again.
 */
describe.each(testDialects())('sandbox seeding with several nodes on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-seed-nodes-'));
    const graphFile = path.join(dir, 'city.graph');
    let database: TripsDatabase;
    let second: TripsDatabase | undefined;
    let ingest: FastifyInstance;
    let ingestUrl: string;

    beforeAll(async () => {
      writeGraph(generateCity({ seed: 7 }), graphFile);
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      if (dialect.name === 'postgres') {
        // The other node: its own connection pool on the same schema, as a second process has.
        const schema = (
          await database.db.selectNoFrom((eb) => eb.fn<string>('current_schema').as('s')).executeTakeFirstOrThrow()
        ).s;
        second = await openTripsDatabase({
          environment: 'sandbox',
          url: process.env.TEST_DATABASE_URL!,
          pgSchema: schema,
        });
      }
      ingest = await buildIngestApp({ environment: 'sandbox', database, logger: quietLogger() });
      ingestUrl = await ingest.listen({ host: '127.0.0.1', port: 0 });
    });
    afterAll(async () => {
      await ingest?.close();
      await second?.close();
      await database?.close();
    });

    it('two nodes starting together: one seeds, the other neither fails nor seeds, and a later start seeds nothing', async () => {
      const nowMs = Date.UTC(2026, 10, 2, 12);
      const start = (db: TripsDatabase) =>
        prepareSandbox({
          database: db,
          dataDir: dir,
          graphFile,
          ingestUrl,
          tripCount: 4,
          logger: quietLogger(),
          nowMs,
          imuHz: 1,
        });
      const setups = await Promise.all([start(database), start(second ?? database)]);
      expect(setups.map((s) => s.seedingStarted).sort()).toEqual([false, true]);
      const results = await Promise.all(setups.map((s) => s.seeding));
      expect(results.filter((r) => r !== null)).toEqual([
        expect.objectContaining({ type: 'done', sent: 4, accepted: 4, duplicates: 0, rejected: 0 }),
      ]);
      // One set of seeding keys (one per sandbox fleet), revoked once the seeding ended.
      const keys = await database.db.selectFrom('ingest_keys').select(['revoked_at_ms']).execute();
      expect(keys).toHaveLength(2);
      expect(keys.every((k) => k.revoked_at_ms !== null)).toBe(true);
      expect(await database.db.selectFrom('fleets').select('fleet_id').execute()).toHaveLength(2);
      expect(await database.db.selectFrom('trip_uploads').select('trip_id').execute()).toHaveLength(4);

      const later = await start(second ?? database);
      expect(later).toMatchObject({ seedingStarted: false, seeded: true });
    });
  });
});
