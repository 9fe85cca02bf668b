import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateCity, writeGraph } from '@svc/roads';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { prepareSandbox } from '../src/sandbox/seed-sandbox.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { quietLogger } from './fixtures/world.ts';

const DAY_MS = 86_400_000;

/** The sandbox is filled through the real ingest endpoint, and an interrupted seeding resumes. */
describe('sandbox seeding', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'trips-seed-'));
  const graphFile = path.join(dir, 'city.graph');
  let database: TripsDatabase;
  let ingest: FastifyInstance;
  let ingestUrl: string;

  beforeAll(async () => {
    writeGraph(generateCity({ seed: 7 }), graphFile);
    database = await openTripsDatabase({ environment: 'sandbox', sqliteFile: path.join(dir, 'sandbox.db') });
    ingest = await buildIngestApp({ environment: 'sandbox', database, logger: quietLogger() });
    ingestUrl = await ingest.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await ingest?.close();
    await database?.close();
  });

  const seed = (nowMs: number, tripCount = 6) =>
    prepareSandbox({ database, dataDir: dir, graphFile, ingestUrl, tripCount, logger: quietLogger(), nowMs, imuHz: 1 });
  const uploads = async () =>
    (await database.db.selectFrom('trip_uploads').select(['idempotency_key', 'telemetry_sha256']).execute())
      .map((r) => `${r.idempotency_key} ${r.telemetry_sha256}`)
      .sort();

  it('sends the planned trips through ingest, and a seeding resumed days later sends the same trips again', async () => {
    const firstStart = Date.UTC(2026, 10, 2, 12);
    const first = await seed(firstStart);
    expect(first).toMatchObject({ seedingStarted: true, resumed: false });
    const done = await first.seeding;
    expect(done).toMatchObject({ type: 'done', planned: 6, sent: 6, accepted: 6, duplicates: 0, rejected: 0 });
    const stored = await uploads();
    expect(stored).toHaveLength(6);
    // The seeded trips lie in the four weeks before the first start.
    const starts = await database.db.selectFrom('trip_uploads').select('first_sample_ms').execute();
    for (const { first_sample_ms } of starts) {
      expect(Number(first_sample_ms)).toBeLessThan(firstStart);
      expect(Number(first_sample_ms)).toBeGreaterThan(firstStart - 29 * DAY_MS);
    }

    // As if that seeding had been stopped before it finished, and the service started again 3 days later.
    await database.db.updateTable('trips_meta').set({ value: 'seeding' }).where('key', '=', 'sandbox_seed').execute();
    const resumed = await seed(firstStart + 3 * DAY_MS + 5_000);
    expect(resumed).toMatchObject({ seedingStarted: true, resumed: true });
    expect(await resumed.seeding).toMatchObject({ type: 'done', sent: 6, accepted: 0, duplicates: 6, rejected: 0 });
    expect(await uploads()).toEqual(stored);

    // Finished: a later start does not seed again.
    const later = await seed(firstStart + 10 * DAY_MS);
    expect(later).toMatchObject({ seedingStarted: false, seeded: true });
  });

  it('with a count of 0 registers the fleets but sends nothing, and does not call the sandbox seeded', async () => {
    const empty = await openTripsDatabase({ environment: 'sandbox', sqliteFile: path.join(dir, 'empty.db') });
    try {
      const setup = await prepareSandbox({
        database: empty,
        dataDir: dir,
        graphFile,
        ingestUrl,
        tripCount: 0,
        logger: quietLogger(),
        nowMs: Date.UTC(2026, 10, 2, 12),
      });
      expect(setup).toMatchObject({ seedingStarted: false, seeded: false });
      expect(await setup.seeding).toBeNull();
      const fleets = await empty.db.selectFrom('fleets').select('fleet_id').execute();
      expect(fleets.map((f) => f.fleet_id).sort()).toEqual(setup.fleets.slice().sort());
      expect(await empty.db.selectFrom('trip_uploads').select('trip_id').execute()).toEqual([]);
    } finally {
      await empty.close();
    }
  });
});
