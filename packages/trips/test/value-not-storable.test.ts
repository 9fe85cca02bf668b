/**
 * A value the store cannot hold that got past the service's own checks (the platform's ValueNotStorableError:
 * PostgreSQL's data exceptions such as 22021 for U+0000 in text, 22001 too long, 22003 out of range) is the
 * client's bad input: a 400 `{ ok: false, error }` on the read API and on ingest, never a 500, and an upload
 * refused this way stores nothing.
 */
import { ValueNotStorableError } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

describe('the read API answers a value the store cannot hold', () => {
  let app: FastifyInstance;
  afterAll(async () => app?.close());

  it('with 400 { ok: false, error }, not a logged 500', async () => {
    // The API's parameters are all checked against patterns and ranges before a query, so no request reaches
    // this; a route added for the test throws what the platform's dialect would.
    app = await buildApiApp({ environment: 'sandbox', database: {} as TripsDatabase, logger: quietLogger() });
    app.get('/test/not-storable', async () => {
      throw new ValueNotStorableError('a number is out of range for its column', '22003');
    });
    const res = await app.inject({ method: 'GET', url: '/test/not-storable' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      ok: false,
      error: 'a value in the request is not one the store can hold (a number is out of range for its column)',
    });
  });
});

describe.each(testDialects().filter((d) => d.name === 'postgres'))('ingest on $label', (dialect) => {
  describe.skipIf(dialect.skip)('a value PostgreSQL refuses', () => {
    let database: TripsDatabase;
    let app: FastifyInstance;
    let key: string;

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'Acme', fleetId: 'fleet_acme' });
      await createVehicle(database.db, { fleetId: 'fleet_acme', plate: 'AC-100' });
      key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_acme' })).secret;
      app = await buildIngestApp({ environment: 'production', database, logger: quietLogger() });
      // Ingest checks every field it stores, so no upload reaches PostgreSQL's data exceptions today; a trigger
      // raises the one U+0000 in a text column gives, as a value that slipped past a check would.
      await sql
        .raw(`
          create function refuse_upload() returns trigger language plpgsql as $$
          begin
            raise exception 'invalid byte sequence for encoding "UTF8": 0x00' using errcode = '22021';
          end $$;
          create trigger refuse_upload before insert on trip_uploads
            for each row when (new.idempotency_key = 'refused-by-store') execute function refuse_upload();
        `)
        .execute(database.db);
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it('is a 400 { ok: false, error } and stores nothing', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 1, 8), vehicle: 'AC-100' })),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': 'refused-by-store',
        },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({
        ok: false,
        error:
          'a value in the upload is not one the store can hold (a value holds a character the database cannot store); nothing was stored',
      });
      const rows = await database.db.selectFrom('trip_uploads').select('trip_id').execute();
      expect(rows).toEqual([]);
    });
  });
});
