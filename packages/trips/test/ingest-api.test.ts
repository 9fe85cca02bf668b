import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { createApiToken } from '../src/store/api-tokens.ts';
import { deleteFleet } from '../src/store/fleet-deletion.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey, revokeIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

describe.each(testDialects())('ingest endpoint on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let app: FastifyInstance;
    let connectorKey: string;
    let deviceKey: string;
    let otherFleetKey: string;
    const queued: string[] = [];

    const post = (body: string | Buffer, headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/ingest/v1/trips', payload: body, headers });

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      const db = database.db;
      await createFleet(db, { name: 'Acme', fleetId: 'fleet_acme' });
      await createFleet(db, { name: 'Other', fleetId: 'fleet_other' });
      await createVehicle(db, { fleetId: 'fleet_acme', plate: 'AC-100' });
      await createVehicle(db, { fleetId: 'fleet_acme', plate: 'AC-200' });
      await createVehicle(db, { fleetId: 'fleet_other', plate: 'OT-100' });
      connectorKey = (await createIngestKey(db, { environment: 'production', fleetId: 'fleet_acme' })).secret;
      deviceKey = (await createIngestKey(db, { environment: 'production', fleetId: 'fleet_acme', plate: 'AC-200' }))
        .secret;
      otherFleetKey = (await createIngestKey(db, { environment: 'production', fleetId: 'fleet_other' })).secret;
      app = await buildIngestApp({
        environment: 'production',
        database,
        logger: quietLogger(),
        bodyLimitBytes: 2 * 1024 * 1024,
        onQueued: (id) => queued.push(id),
      });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    const auth = (key: string) => ({ authorization: `Bearer ${key}` });

    it('accepts a JSON batch with 202, then answers a repeat with 200 and the same trip id', async () => {
      const batch = gpsTrip({ startMs: Date.UTC(2026, 10, 1, 8), vehicle: 'ac-100' });
      const headers = {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'trip-json-0001',
      };
      const first = await post(JSON.stringify(batch), headers);
      expect(first.statusCode).toBe(202);
      expect(first.json()).toMatchObject({ ok: true, status: 'queued', tripId: expect.stringMatching(/^trip_/) });
      const again = await post(JSON.stringify(batch), headers);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({
        ok: true,
        tripId: first.json().tripId,
        status: 'duplicate',
        tripIds: [first.json().tripId],
        skipped: [],
      });
      const rows = await database.db
        .selectFrom('trip_uploads')
        .select('trip_id')
        .where('idempotency_key', '=', 'trip-json-0001')
        .execute();
      expect(rows).toHaveLength(1);
      expect(queued).toContain(first.json().tripId);
    });

    it('answers a key already used for other telemetry with 409 and keeps the first trip as it was', async () => {
      const batch = gpsTrip({ startMs: Date.UTC(2026, 10, 1, 9), vehicle: 'AC-100' });
      const headers = {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'trip-reused-01',
      };
      const first = await post(JSON.stringify(batch), headers);
      expect(first.statusCode).toBe(202);
      const stored = () =>
        database.db
          .selectFrom('trip_uploads')
          .select(['trip_id', 'telemetry_sha256', 'plate', 'sample_count'])
          .where('idempotency_key', '=', 'trip-reused-01')
          .execute();
      const before = await stored();

      // The same trip re-sent in another form (gzip NDJSON, samples out of order) is still a repeat.
      const shuffled = [...batch.samples].reverse();
      const ndjson = [JSON.stringify({ type: 'header', vehicle: 'ac-100' }), ...shuffled.map((x) => JSON.stringify(x))];
      const repeat = await post(gzipSync(ndjson.join('\n')), {
        ...headers,
        'content-type': 'application/x-ndjson',
        'content-encoding': 'gzip',
      });
      expect(repeat.statusCode).toBe(200);
      expect(repeat.json()).toEqual({
        ok: true,
        tripId: first.json().tripId,
        status: 'duplicate',
        tripIds: [first.json().tripId],
        skipped: [],
      });

      // Another trip, another vehicle or a device key of another vehicle under the same key: a conflict.
      const otherTrip = gpsTrip({ startMs: Date.UTC(2026, 10, 1, 15), vehicle: 'AC-100' });
      for (const [body, key] of [
        [otherTrip, connectorKey],
        [{ ...batch, vehicle: 'AC-200' }, connectorKey],
        [{ ...batch, vehicle: undefined }, deviceKey],
        [{ ...batch, driverId: 'd-9' }, connectorKey],
      ] as const) {
        const res = await post(JSON.stringify(body), { ...headers, ...auth(key) });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toEqual({
          ok: false,
          error: expect.stringContaining('Idempotency-Key "trip-reused-01" was already used in this fleet'),
        });
      }
      expect(await stored()).toEqual(before);
    });

    it('accepts gzip-compressed NDJSON with a header line', async () => {
      const batch = gpsTrip({ startMs: Date.UTC(2026, 10, 2, 8), vehicle: 'AC-100', driverId: 'd-7' });
      const ndjson = [
        JSON.stringify({ type: 'header', vehicle: 'AC-100', driverId: 'd-7' }),
        ...batch.samples.map((s) => JSON.stringify(s)),
      ].join('\n');
      const res = await post(gzipSync(ndjson), {
        ...auth(connectorKey),
        'content-type': 'application/x-ndjson',
        'content-encoding': 'gzip',
        'idempotency-key': 'trip-ndjson-0001',
      });
      expect(res.statusCode).toBe(202);
      const status = await app.inject({ url: `/ingest/v1/trips/${res.json().tripId}`, headers: auth(connectorKey) });
      expect(status.json()).toEqual({
        ok: true,
        tripId: res.json().tripId,
        status: 'queued',
        tripIds: [res.json().tripId],
        skipped: [],
      });
      const driver = await database.db
        .selectFrom('drivers')
        .selectAll()
        .where('driver_id', '=', 'd-7')
        .executeTakeFirst();
      expect(driver?.fleet_id).toBe('fleet_acme');
    });

    it('keeps a "__proto__" field of an NDJSON header as a plain field, as in a JSON body, without changing a prototype', async () => {
      const batch = gpsTrip({ startMs: Date.UTC(2026, 10, 2, 10), vehicle: 'AC-100' });
      const samples = batch.samples.map((s) => JSON.stringify(s));
      // JSON.stringify never writes a "__proto__" key from an object literal: the bodies are written by hand.
      const proto = '"__proto__":{"driverId":"d-proto","machineType":"rocket"}';
      const headers = { ...auth(connectorKey), 'idempotency-key': 'trip-proto-0001' };
      const first = await post(`{"schemaVersion":1,"vehicle":"AC-100",${proto},"samples":[${samples.join(',')}]}`, {
        ...headers,
        'content-type': 'application/json',
      });
      expect(first.statusCode).toBe(202);
      // The same trip as NDJSON is the same trip: a duplicate, not a 409 (nor a 400 about a machineType it never sent).
      const repeat = await post([`{"type":"header","vehicle":"AC-100",${proto}}`, ...samples].join('\n'), {
        ...headers,
        'content-type': 'application/x-ndjson',
      });
      expect(repeat.json()).toEqual({
        ok: true,
        tripId: first.json().tripId,
        status: 'duplicate',
        tripIds: [first.json().tripId],
        skipped: [],
      });
      expect(repeat.statusCode).toBe(200);
      const row = await database.db
        .selectFrom('trip_uploads')
        .select(['driver_id', 'telemetry_gz'])
        .where('trip_id', '=', first.json().tripId)
        .executeTakeFirstOrThrow();
      expect(row.driver_id).toBeNull();
      const stored = JSON.parse(gunzipSync(row.telemetry_gz).toString('utf8'));
      expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(stored, '__proto__')?.value).toEqual({
        driverId: 'd-proto',
        machineType: 'rocket',
      });
      expect(stored.driverId).toBeUndefined();
    });

    it('reports scored and failed status with the reason after the worker ran', async () => {
      const worker = new ScoringWorker({ db: database, scorer: fakeScorer(), logger: quietLogger() });
      await worker.drain();
      const rows = await database.db.selectFrom('trip_uploads').select(['trip_id', 'status']).execute();
      expect(rows.every((r) => r.status === 'scored')).toBe(true);
      const res = await app.inject({ url: `/ingest/v1/trips/${rows[0]!.trip_id}`, headers: auth(connectorKey) });
      expect(res.json().status).toBe('scored');
      // Another fleet's key cannot see it.
      const foreign = await app.inject({ url: `/ingest/v1/trips/${rows[0]!.trip_id}`, headers: auth(otherFleetKey) });
      expect(foreign.statusCode).toBe(404);
    });

    it('lets a device key send only for its own vehicle', async () => {
      const own = await post(
        JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 3), clientTripId: 'device-trip-01' })),
        {
          ...auth(deviceKey),
          'content-type': 'application/json',
          'idempotency-key': 'device-trip-01',
        },
      );
      expect(own.statusCode).toBe(202);
      const other = await post(JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 3), vehicle: 'AC-100' })), {
        ...auth(deviceKey),
        'content-type': 'application/json',
        'idempotency-key': 'device-trip-02',
      });
      expect(other.statusCode).toBe(403);
      expect(other.json().error).toContain('sends for vehicle AC-200 only');
    });

    it("does not name another vehicle's trip to a device key whose Idempotency-Key that trip has", async () => {
      // A connector key stores a trip of AC-100; a device key of AC-200 (a compromised device, say) sends under the
      // same key. Keys are unique per fleet, so it is a 409, but the device may not see AC-100's trips: their status
      // is a 404 for it, and the 409 named the trip id.
      const victim = await post(JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 9, 8), vehicle: 'AC-100' })), {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'ac100-trip-0001',
      });
      expect(victim.statusCode).toBe(202);
      const tripId = victim.json().tripId as string;
      const status = await app.inject({ url: `/ingest/v1/trips/${tripId}`, headers: auth(deviceKey) });
      expect(status.statusCode).toBe(404);

      const probe = await post(JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 9, 8) })), {
        ...auth(deviceKey),
        'content-type': 'application/json',
        'idempotency-key': 'ac100-trip-0001',
      });
      expect(probe.statusCode).toBe(409);
      expect(probe.json()).toEqual({
        ok: false,
        error:
          'Idempotency-Key "ac100-trip-0001" was already used in this fleet for a trip of another vehicle: a new trip needs a new key',
      });
      expect(probe.body).not.toContain('trip_');

      // The connector key, which reaches every vehicle of the fleet, is still told which trip has the key.
      const connector = await post(JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 9, 9), vehicle: 'AC-200' })), {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'ac100-trip-0001',
      });
      expect(connector.statusCode).toBe(409);
      expect(connector.json().error).toContain(tripId);
    });

    it('refuses a vehicle outside the key fleet with 403, the same as an unknown vehicle', async () => {
      // A NUL character cannot even be a query parameter on PostgreSQL: still the same 403, not a 500.
      for (const vehicle of ['OT-100', 'ZZ-999', 'AC-100\u0000', 'x'.repeat(200)]) {
        const res = await post(JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 4), vehicle })), {
          ...auth(connectorKey),
          'content-type': 'application/json',
          'idempotency-key': `foreign-${vehicle.replace(/[^A-Za-z0-9-]/g, '_').slice(0, 20)}`,
        });
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toBe(
          `vehicle "${vehicle}" is not registered in fleet fleet_acme (npx trips vehicles create)`,
        );
      }
    });

    it('answers invalid uploads with 400 naming the problem', async () => {
      const good = gpsTrip({ startMs: Date.UTC(2026, 10, 5), vehicle: 'AC-100' });
      const bad = { ...good, samples: good.samples.map((s, i) => (i === 3 ? { ...s, lat: 123 } : s)) };
      const cases: Array<[string | Buffer, Record<string, string>, string]> = [
        [JSON.stringify(good), { 'content-type': 'application/json' }, 'missing Idempotency-Key'],
        [
          JSON.stringify(good),
          { 'content-type': 'application/json', 'idempotency-key': 'short' },
          'Idempotency-Key must be',
        ],
        ['{not json', { 'content-type': 'application/json', 'idempotency-key': 'bad-json-01' }, 'not valid JSON'],
        // Node joins a repeated header with ", ".
        [
          JSON.stringify(good),
          { 'content-type': 'application/json', 'idempotency-key': 'twice-0001, twice-0002' },
          'Idempotency-Key is given more than once: send one (the client trip id)',
        ],
        [
          JSON.stringify(bad),
          { 'content-type': 'application/json', 'idempotency-key': 'bad-lat-001' },
          'samples[3].lat',
        ],
        [
          JSON.stringify({ ...good, clientTripId: 'other-id-01' }),
          { 'content-type': 'application/json', 'idempotency-key': 'mismatch-01' },
          'differs from the Idempotency-Key',
        ],
        [
          '{"type":"gps"}\nnope',
          { 'content-type': 'application/x-ndjson', 'idempotency-key': 'bad-ndjson1' },
          'line 2',
        ],
        [
          JSON.stringify(good),
          { 'content-type': 'text/plain', 'idempotency-key': 'bad-type-01' },
          'unsupported Content-Type',
        ],
        // No Content-Type at all (an HTTP client given a Buffer sends none): the same clear answer.
        [
          JSON.stringify(good),
          { 'content-type': '', 'idempotency-key': 'no-type-01' },
          'unsupported Content-Type "": send application/json or application/x-ndjson',
        ],
        // A body in another charset than UTF-8 would be read as UTF-8, garbled: refused, naming the charset.
        [
          Buffer.from(JSON.stringify(good), 'utf16le'),
          { 'content-type': 'application/json; charset=UTF-16', 'idempotency-key': 'utf16-0001' },
          'unsupported charset "utf-16" in Content-Type "application/json; charset=UTF-16": send the body as UTF-8',
        ],
        [
          '{"type":"gps"}',
          { 'content-type': 'application/x-ndjson;charset="iso-8859-1"', 'idempotency-key': 'latin1-0001' },
          'unsupported charset "iso-8859-1"',
        ],
        [
          Buffer.from('not gzip at all'),
          { 'content-type': 'application/json', 'content-encoding': 'gzip', 'idempotency-key': 'bad-gzip-01' },
          'cannot be decompressed',
        ],
        [
          JSON.stringify(good),
          { 'content-type': 'application/json', 'content-encoding': 'br', 'idempotency-key': 'br-000001' },
          'Content-Encoding',
        ],
        // A driver id no client could reach over HTTP (URL parsers resolve it as a path step) is not registered.
        [
          JSON.stringify({ ...good, clientTripId: 'dot-driver', driverId: '..' }),
          { 'content-type': 'application/json', 'idempotency-key': 'dot-driver' },
          'driverId ".." is invalid: "." and ".." cannot be reached in a URL path',
        ],
      ];
      for (const [body, headers, fragment] of cases) {
        const res = await post(body, { ...auth(connectorKey), ...headers });
        expect(res.statusCode, fragment).toBe(400);
        expect(res.json().ok).toBe(false);
        expect(res.json().error, fragment).toContain(fragment);
      }
    });

    it('accepts a body declared as UTF-8 or US-ASCII, in any case, quoted or not', async () => {
      for (const [i, charset] of ['utf-8', 'UTF-8', '"utf-8"', 'US-ASCII', 'utf8'].entries()) {
        const batch = gpsTrip({ startMs: Date.UTC(2026, 10, 6, 8 + i), vehicle: 'AC-100' });
        const res = await post(JSON.stringify(batch), {
          ...auth(connectorKey),
          'content-type': `application/json; charset=${charset}`,
          'idempotency-key': `charset-ok-${i}`,
        });
        expect(res.statusCode, charset).toBe(202);
      }
    });

    it('accepts sample times with a fraction of a millisecond and stores whole milliseconds', async () => {
      const batch = gpsTrip({ startMs: Date.UTC(2026, 10, 7, 8), vehicle: 'AC-100' });
      // Epoch seconds with decimals times 1000, as a CSV export or a device clock gives them.
      batch.samples = batch.samples.map((s, i) => ({ ...s, t: (s.t / 1000 + i * 0.0001) * 1000 }));
      const res = await post(JSON.stringify(batch), {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'fractional-ms-1',
      });
      expect(res.statusCode).toBe(202);
      const row = await database.db
        .selectFrom('trip_uploads')
        .select(['first_sample_ms', 'telemetry_gz'])
        .where('trip_id', '=', res.json().tripId)
        .executeTakeFirstOrThrow();
      expect(Number(row.first_sample_ms)).toBe(Date.UTC(2026, 10, 7, 8));
      const stored = JSON.parse(gunzipSync(row.telemetry_gz).toString()) as { samples: Array<{ t: number }> };
      expect(stored.samples.map((s) => s.t)).toEqual(batch.samples.map((s) => Math.round(s.t)));
    });

    it('refuses a trip that ends more than a day after the server clock (a wrong device clock) with 400, storing nothing', async () => {
      const headers = (key: string) => ({
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': key,
      });
      for (const [key, startMs] of [
        ['future-2090-01', Date.UTC(2090, 0, 1, 8)],
        ['future-2days-1', Date.now() + 2 * 86_400_000],
      ] as const) {
        const res = await post(JSON.stringify(gpsTrip({ startMs, vehicle: 'AC-100' })), headers(key));
        expect(res.statusCode, key).toBe(400);
        expect(res.json().ok).toBe(false);
        expect(res.json().error).toMatch(
          /^invalid telemetry: the samples end at \S+Z, more than 24 h after the server's clock \(\S+Z\): the device clock is wrong/,
        );
        const stored = await database.db
          .selectFrom('trip_uploads')
          .select('trip_id')
          .where('idempotency_key', '=', key)
          .execute();
        expect(stored, key).toEqual([]);
      }
      // A device clock a few minutes fast is within the tolerance: its trip is taken.
      const skewed = await post(
        JSON.stringify(gpsTrip({ startMs: Date.now() + 10 * 60_000, vehicle: 'AC-100' })),
        headers('future-10min-1'),
      );
      expect(skewed.statusCode).toBe(202);
    });

    it('refuses an upload whose positions span more than a day with 400, storing nothing', async () => {
      const first = gpsTrip({ startMs: Date.UTC(2026, 10, 2, 8), vehicle: 'AC-100', points: 30 });
      const second = gpsTrip({ startMs: Date.UTC(2026, 10, 8, 17), vehicle: 'AC-100', points: 30 });
      const week = { ...first, samples: [...first.samples, ...second.samples] };
      const res = await post(JSON.stringify(week), {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'span-week-01',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(
        "invalid telemetry: the GPS positions span 153.0 h (2026-11-02T08:00:00.000Z to 2026-11-08T17:00:29.000Z), more than 24 h: send at most a day of positions per upload (a day's drives may come together: they are stored as one trip each; `trips import` splits a file into trips)",
      );
      const stored = await database.db
        .selectFrom('trip_uploads')
        .select('trip_id')
        .where('idempotency_key', '=', 'span-week-01')
        .execute();
      expect(stored).toEqual([]);
    });

    it('answers 400, not 500, to a batch whose unknown field is nested too deeply to be stored', async () => {
      const good = JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 5, 9), vehicle: 'AC-100' }));
      const deep = `${good.slice(0, -1)},"extra":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
      const res = await post(deep, {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'deep-nesting-1',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ ok: false, error: expect.stringContaining('nested too deeply') });
    });

    it('answers a body over the limit with 413, also when it only grows once decompressed', async () => {
      const big = JSON.stringify({
        schemaVersion: 1,
        vehicle: 'AC-100',
        samples: [],
        pad: 'x'.repeat(3 * 1024 * 1024),
      });
      const plain = await post(big, {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'idempotency-key': 'big-plain-1',
      });
      expect(plain.statusCode).toBe(413);
      const bomb = gzipSync(big);
      expect(bomb.length).toBeLessThan(100_000);
      const zipped = await post(bomb, {
        ...auth(connectorKey),
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'idempotency-key': 'big-gzip-01',
      });
      expect(zipped.statusCode).toBe(413);
      // The answer says what the limit is and that it counts the decompressed bytes.
      for (const res of [plain, zipped]) {
        expect(res.json()).toEqual({
          ok: false,
          error:
            'body too large: the limit is 2 MiB of JSON or NDJSON after decompression (TRIPS_INGEST_BODY_LIMIT_MB); send one trip per request',
        });
      }
    });

    it('says an access token was sent when one is the ingest key, the same for one that exists and one that does not', async () => {
      const real = (await createApiToken(database.db, { environment: 'production', fleets: ['fleet_acme'] })).secret;
      const headers = { 'content-type': 'application/json', 'idempotency-key': 'wrong-door-01' };
      const body = JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 6), vehicle: 'AC-100' }));
      for (const [token, prefix] of [
        [real, 'trips_live_'],
        [`trips_live_${'A'.repeat(43)}`, 'trips_live_'],
        [`trips_sandbox_${'A'.repeat(43)}`, 'trips_sandbox_'],
      ] as const) {
        const res = await post(body, { ...headers, ...auth(token) });
        expect(res.statusCode, token).toBe(401);
        expect(res.json(), token).toEqual({
          ok: false,
          error: `an access token (${prefix}...) was sent as the ingest key: access tokens are for the /v1 API; the ingest endpoint takes an ingest key, "ingest_live_" followed by 43 base64url characters (npx trips ingest-keys create)`,
        });
      }
      // The status endpoint answers the same.
      const status = await app.inject({ url: '/ingest/v1/trips/trip_x', headers: auth(real) });
      expect(status.statusCode).toBe(401);
      expect(status.json().error).toMatch(/^an access token \(trips_live_\.\.\.\) was sent as the ingest key/);
    });

    it('answers bad keys with 401 and a sandbox key with 403', async () => {
      const headers = { 'content-type': 'application/json', 'idempotency-key': 'auth-case-01' };
      const body = JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 6), vehicle: 'AC-100' }));
      expect((await post(body, headers)).statusCode).toBe(401);
      expect((await post(body, { ...headers, authorization: `Bearer ingest_live_${'x'.repeat(43)}` })).statusCode).toBe(
        401,
      );
      const sandbox = await post(body, { ...headers, authorization: `Bearer ingest_sandbox_${'x'.repeat(43)}` });
      expect(sandbox.statusCode).toBe(403);
      expect(sandbox.json().error).toContain('sandbox ingest key');
    });

    /**
     * A body that arrives in two parts, `between` running after the first (a device on a slow network: the key
     * was checked when the request began, and the upload is still arriving).
     */
    const arrivingSlowly = (body: string, between: () => Promise<unknown>) =>
      Readable.from(
        (async function* () {
          yield Buffer.from(body.slice(0, 100));
          await between();
          yield Buffer.from(body.slice(100));
        })(),
      );

    it('refuses with 401 an upload whose key was revoked while it arrived, storing nothing', async () => {
      const created = await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_acme' });
      const body = JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 7, 8), vehicle: 'AC-100' }));
      const res = await app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: arrivingSlowly(body, () => revokeIngestKey(database.db, created.key.keyId)),
        headers: { ...auth(created.secret), 'content-type': 'application/json', 'idempotency-key': 'revoked-midway' },
      });
      expect(res.json()).toEqual({ ok: false, error: 'ingest key has been revoked' });
      expect(res.statusCode).toBe(401);
      const stored = await database.db
        .selectFrom('trip_uploads')
        .select('trip_id')
        .where('idempotency_key', '=', 'revoked-midway')
        .execute();
      expect(stored).toEqual([]);
    });

    it("answers 401, not 500, to a device key's upload whose fleet was deleted while it arrived", async () => {
      const db = database.db;
      await createFleet(db, { name: 'Gone', fleetId: 'fleet_gone' });
      await createVehicle(db, { fleetId: 'fleet_gone', plate: 'GO-100' });
      const device = (await createIngestKey(db, { environment: 'production', fleetId: 'fleet_gone', plate: 'GO-100' }))
        .secret;
      const body = JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 7, 9) }));
      const res = await app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: arrivingSlowly(body, () => deleteFleet(db, 'fleet_gone', { nowMs: Date.now() })),
        headers: { ...auth(device), 'content-type': 'application/json', 'idempotency-key': 'fleet-gone-01' },
      });
      expect(res.json()).toEqual({ ok: false, error: 'unknown ingest key' });
      expect(res.statusCode).toBe(401);
      expect(
        await db.selectFrom('trip_uploads').select('trip_id').where('fleet_id', '=', 'fleet_gone').execute(),
      ).toEqual([]);
    });
  });
});

describe('ingest rate limit', () => {
  it('answers 429 with Retry-After once a key is over its limit, before reading the body', async () => {
    const dialect = testDialects()[0]!;
    const database: TripsDatabase = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    await claimEnvironment(database.db, 'production', database.location);
    await createFleet(database.db, { name: 'Acme', fleetId: 'fleet_acme' });
    await createVehicle(database.db, { fleetId: 'fleet_acme', plate: 'AC-100' });
    const key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_acme' })).secret;
    const other = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_acme' })).secret;
    const app = await buildIngestApp({
      environment: 'production',
      database,
      logger: quietLogger(),
      rateLimit: { perMinute: 2 },
    });
    try {
      const upload = (secret: string, n: number, body?: Buffer) =>
        app.inject({
          method: 'POST',
          url: '/ingest/v1/trips',
          payload:
            body ?? gzipSync(JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 3, 8 + n), vehicle: 'AC-100' }))),
          headers: {
            authorization: `Bearer ${secret}`,
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'idempotency-key': `trip-limit-${n}-0000`,
          },
        });
      expect((await upload(key, 1)).statusCode).toBe(202);
      expect((await upload(key, 2)).statusCode).toBe(202);
      const limited = await upload(key, 3);
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.json()).toEqual({
        ok: false,
        error: expect.stringMatching(/^rate limit exceeded: 2 uploads per minute/),
      });
      // A body that cannot even be decompressed: the limit answers first, so it was never read.
      const corrupt = await upload(key, 4, Buffer.from('this is not gzip'));
      expect(corrupt.statusCode).toBe(429);
      // Other keys have their own budget, and the limited key stored nothing more.
      expect((await upload(other, 5)).statusCode).toBe(202);
      const stored = await database.db.selectFrom('trip_uploads').select('idempotency_key').execute();
      expect(stored.map((r) => r.idempotency_key).sort()).toEqual([
        'trip-limit-1-0000',
        'trip-limit-2-0000',
        'trip-limit-5-0000',
      ]);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
