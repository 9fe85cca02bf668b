import { TcpRelay, testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger } from './fixtures/world.ts';

const postgres = testDialects().find((d) => d.name === 'postgres')!;

/**
 * PostgreSQL restarting or out of reach for a while: the API answers 500 (the specification's statuses stop there)
 * and the ingest endpoint 503, both with `Retry-After` and an error saying to retry, in their own shape (a load
 * balancer's probe sees `/readyz` fail), and they serve again by themselves once it is back.
 */
describe.skipIf(postgres.skip)(`the service while PostgreSQL is away (${postgres.label})`, () => {
  const relay = TcpRelay.forUrl(process.env.TEST_DATABASE_URL || 'postgres://127.0.0.1:5432/test', 5432);
  let owner: TripsDatabase;
  let database: TripsDatabase;
  let api: FastifyInstance;
  let ingest: FastifyInstance;
  let headers: Record<string, string>;
  let ingestKey: string;

  beforeAll(async () => {
    owner = await postgres.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    await claimEnvironment(owner.db, 'sandbox', owner.location);
    const world = await buildWorld(owner, { tripsPerFleet: 2 });
    headers = { authorization: `Bearer ${world.fleets[0]!.token}` };
    ingestKey = world.fleets[0]!.ingestKey;
    const schema = (
      await owner.db.selectNoFrom((eb) => eb.fn<string>('current_schema').as('s')).executeTakeFirstOrThrow()
    ).s;
    await relay.up();
    // The node under test reaches the same schema through the relay.
    database = await openTripsDatabase({
      environment: 'sandbox',
      url: relay.urlThrough(process.env.TEST_DATABASE_URL!),
      pgSchema: schema,
    });
    api = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger() });
    ingest = await buildIngestApp({ environment: 'sandbox', database, logger: quietLogger() });
  });
  afterAll(async () => {
    await api?.close();
    await ingest?.close();
    await database?.close();
    await relay.down();
    await owner?.close();
  });

  it('answers with Retry-After while the database is out of reach, and serves again once it is back', async () => {
    expect((await api.inject({ url: '/v1/trips', headers })).statusCode).toBe(200);

    await relay.down();
    for (const url of ['/v1/trips', '/v1/vehicles', '/v1/fleets']) {
      const res = await api.inject({ url, headers });
      expect(res.statusCode).toBe(500);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({
        ok: false,
        error: 'the store is unavailable for a moment (nothing is wrong with the request); retry with back-off',
      });
    }
    expect((await api.inject({ url: '/readyz' })).statusCode).toBe(503);
    const upload = await ingest.inject({
      method: 'POST',
      url: '/ingest/v1/trips',
      headers: {
        authorization: `Bearer ${ingestKey}`,
        'idempotency-key': 'outage-probe-1',
        'content-type': 'application/json',
      },
      payload: '{}',
    });
    expect(upload.statusCode).toBe(503);

    await relay.up();
    expect((await api.inject({ url: '/readyz' })).statusCode).toBe(200);
    const back = await api.inject({ url: '/v1/trips', headers });
    expect(back.statusCode).toBe(200);
    expect(back.json().pagination.total).toBe(2);
  });

  it('answers the same 500 with Retry-After when the connection is cut while a statement of the request runs', async () => {
    // Another session's lock holds the request's read inside its transaction, so the cut lands there every time.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = owner.db.transaction().execute(async (trx) => {
      await sql`lock table trips in access exclusive mode`.execute(trx);
      locked();
      await released;
    });
    await lockTaken;
    const pending = api.inject({ url: '/v1/vehicles', headers });
    for (;;) {
      const { n } = (
        await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted`.execute(owner.db)
      ).rows[0]!;
      if (n > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await relay.down();
    const res = await pending;
    release();
    await holder;
    // Before, node-postgres's "not queryable" error from the ROLLBACK on the broken client was an unknown error: a
    // 500 "internal error" without Retry-After.
    expect(res.statusCode).toBe(500);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({
      ok: false,
      error: 'the store is unavailable for a moment (nothing is wrong with the request); retry with back-off',
    });
    await relay.up();
    expect((await api.inject({ url: '/v1/vehicles', headers })).statusCode).toBe(200);
  });
});
