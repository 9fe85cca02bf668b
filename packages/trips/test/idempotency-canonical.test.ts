import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import { type Sample, validateTelemetry } from '@svc/scoring';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../src/connectors/import-files.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { quietLogger } from './fixtures/world.ts';

/**
 * A repeat of an upload is the same trip whatever its serialisation: keys in another order, NDJSON instead of
 * JSON, samples of the same time in another order (docs/ingest-protocol.md). Only other data is a 409.
 */

/**
 * A trip of 40 s, its samples in time order: a GPS fix, an accelerometer and a gyroscope reading at every second,
 * and a phone event at the same time as the sixth fix.
 */
function trip(startMs: number): { [key: string]: unknown; samples: Sample[] } {
  const samples: Sample[] = [];
  for (let i = 0; i < 40; i++) {
    const t = startMs + i * 1000;
    samples.push({ type: 'gps', t, lon: 7.42 + i * 0.00017, lat: 43.73, speedMps: 13.9, accuracyM: 5 });
    samples.push({ type: 'accel', t, x: 0.1 * (i % 3), y: -0.05, z: 9.81 });
    samples.push({ type: 'gyro', t, x: 0, y: 0.01, z: i % 2 === 0 ? 0.02 : -0.02 });
    if (i === 5) samples.push({ type: 'phone', t, event: 'screen_on' });
  }
  return {
    vehicle: 'CN-100',
    driverId: 'd-canon',
    deviceId: 'phone-7',
    machineType: 'van',
    timeZone: 'Europe/Paris',
    phoneMonitored: true,
    samples,
  };
}

/** The same object with the keys of the batch and of every sample in reverse order. */
function reversedKeys<T extends { samples: Sample[] }>(batch: T): T {
  const reverse = (o: object) => Object.fromEntries(Object.entries(o).reverse());
  return reverse({ ...batch, samples: batch.samples.map(reverse) }) as T;
}

/** Swaps every run of samples of the same time (gps, accel, gyro at one millisecond) end for end. */
function swappedSameTime(samples: readonly Sample[]): Sample[] {
  const out: Sample[] = [];
  let run: Sample[] = [];
  for (const s of samples) {
    if (run.length > 0 && run[0]!.t !== s.t) {
      out.push(...run.reverse());
      run = [];
    }
    run.push(s);
  }
  out.push(...run.reverse());
  return out;
}

/** The batch as NDJSON: a header line with its fields (in reverse order), then a sample per line. */
function ndjsonOf(batch: { [key: string]: unknown; samples: Sample[] }): string {
  const { samples, ...meta } = batch;
  const header = { type: 'header', ...Object.fromEntries(Object.entries(meta).reverse()) };
  return [JSON.stringify(header), ...samples.map((s) => JSON.stringify(s))].join('\n');
}

describe.each(testDialects())('idempotency by the canonical fingerprint on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let app: FastifyInstance;
    let key: string;
    let vehicleId: string;
    const queued: string[] = [];
    let hour = 0;
    /** A new trip an hour after the last one, so that every test has its own. */
    const nextTrip = () => trip(Date.UTC(2026, 9, 5, 6) + hour++ * 3_600_000);

    const postJson = (idempotencyKey: string, body: unknown) =>
      app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: JSON.stringify(body),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
      });
    const postNdjson = (idempotencyKey: string, text: string) =>
      app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: gzipSync(text),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          'idempotency-key': idempotencyKey,
        },
      });
    /** Every stored row of a key, whole: a repeat must change none of it. */
    const rowsOf = (idempotencyKey: string) =>
      database.db
        .selectFrom('trip_uploads')
        .selectAll()
        .where('fleet_id', '=', 'fleet_canon')
        .where('idempotency_key', '=', idempotencyKey)
        .execute();
    const uploadCount = async () =>
      Number(
        (
          await database.db
            .selectFrom('trip_uploads')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('fleet_id', '=', 'fleet_canon')
            .executeTakeFirstOrThrow()
        ).n,
      );

    type Post = () => ReturnType<typeof postJson>;
    /** Posts `first`, then each repeat, expecting every repeat to be a duplicate that stores nothing. */
    async function expectDuplicates(idempotencyKey: string, first: Post, repeats: Post[]) {
      const created = await first();
      expect(created.statusCode).toBe(202);
      const tripId = created.json().tripId as string;
      const before = await rowsOf(idempotencyKey);
      const count = await uploadCount();
      const queuedBefore = queued.length;
      for (const repeat of repeats) {
        const res = await repeat();
        expect(res.json()).toEqual({ ok: true, tripId, status: 'duplicate', tripIds: [tripId], skipped: [] });
        expect(res.statusCode).toBe(200);
      }
      expect(await rowsOf(idempotencyKey)).toEqual(before);
      expect(before).toHaveLength(1);
      expect(await uploadCount()).toBe(count);
      expect(queued.length).toBe(queuedBefore);
      return tripId;
    }

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'Canon', fleetId: 'fleet_canon' });
      vehicleId = (await createVehicle(database.db, { fleetId: 'fleet_canon', plate: 'CN-100' })).vehicleId;
      key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_canon' })).secret;
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

    it('answers the same trip with its keys in another order as a duplicate', async () => {
      const batch = nextTrip();
      await expectDuplicates('canon-keys-0001', () => postJson('canon-keys-0001', batch), [
        () => postJson('canon-keys-0001', reversedKeys(batch)),
        () => postJson('canon-keys-0001', { schemaVersion: 1, ...reversedKeys(batch) }),
        () => postJson('canon-keys-0001', { ...batch, clientTripId: 'canon-keys-0001', schemaVersion: 1 }),
      ]);
    });

    it('answers the same trip as NDJSON after JSON (and JSON after NDJSON) as a duplicate', async () => {
      const batch = nextTrip();
      await expectDuplicates('canon-form-0001', () => postJson('canon-form-0001', batch), [
        () => postNdjson('canon-form-0001', ndjsonOf(batch)),
      ]);
      const other = nextTrip();
      await expectDuplicates('canon-form-0002', () => postNdjson('canon-form-0002', ndjsonOf(other)), [
        () => postJson('canon-form-0002', other),
        () => postJson('canon-form-0002', reversedKeys(other)),
      ]);
    });

    it('answers the same trip with samples of the same time in another order as a duplicate', async () => {
      const batch = nextTrip();
      const swapped = { ...batch, samples: swappedSameTime(batch.samples) };
      expect(swapped.samples.map((s) => s.type).slice(0, 3)).toEqual(['gyro', 'accel', 'gps']);
      await expectDuplicates('canon-order-0001', () => postJson('canon-order-0001', batch), [
        () => postJson('canon-order-0001', swapped),
        () => postNdjson('canon-order-0001', ndjsonOf(reversedKeys(swapped))),
        // Reversed whole: every stream steps back a second at a time (taken: within 60 s) and every time's
        // samples come in reverse order too.
        () => postJson('canon-order-0001', { ...batch, samples: [...batch.samples].reverse() }),
      ]);
    });

    it('still answers a really different trip under the same key with 409, keeping the stored one', async () => {
      const batch = nextTrip();
      const first = await postJson('canon-diff-0001', batch);
      expect(first.statusCode).toBe(202);
      const before = await rowsOf('canon-diff-0001');
      const samples = batch.samples;
      const changedAccel = samples.map((s, i) => (i === 4 && s.type === 'accel' ? { ...s, x: s.x + 0.001 } : s));
      expect(changedAccel).not.toEqual(samples);
      const others: unknown[] = [
        nextTrip(),
        { ...batch, samples: changedAccel },
        { ...batch, samples: samples.filter((s) => s.type !== 'gyro') },
        { ...batch, samples: samples.slice(0, -1) },
        // A sample twice is stored twice: not the same trip.
        { ...batch, samples: [...samples, samples[7]!] },
        { ...batch, machineType: 'truck' },
        { ...batch, timeZone: 'Europe/Berlin' },
        { ...batch, driverId: 'd-other' },
        { ...batch, driverId: undefined },
        { ...batch, deviceId: 'phone-8' },
        { ...batch, phoneMonitored: false },
        { ...batch, imuFrame: 'vehicle' },
        { ...batch, firmware: '2.1' },
      ];
      for (const body of others) {
        const res = await postJson('canon-diff-0001', body);
        expect(res.json()).toEqual({
          ok: false,
          error: expect.stringContaining(
            `Idempotency-Key "canon-diff-0001" was already used in this fleet for a different trip (${first.json().tripId})`,
          ),
        });
        expect(res.statusCode).toBe(409);
      }
      expect(await rowsOf('canon-diff-0001')).toEqual(before);
    });

    it('stores the telemetry and the SHA-256 of its bytes as before (the fingerprint is computed only for a repeat)', async () => {
      const batch = nextTrip();
      const res = await postJson('canon-store-0001', batch);
      const [row] = await rowsOf('canon-store-0001');
      expect(row?.trip_id).toBe(res.json().tripId);
      const bytes = gunzipSync(row!.telemetry_gz);
      expect(row?.telemetry_sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      // The stored telemetry is the sender's batch as before: validated, time-ordered, with the resolved identity.
      const stored = JSON.parse(bytes.toString('utf8'));
      expect(stored).toEqual({ ...batch, schemaVersion: 1, clientTripId: 'canon-store-0001' });
    });

    /**
     * A row as a previous version stored it (or a node of it during a deploy): its telemetry is the validated
     * batch in the sender's key order.
     */
    async function insertOldStyleRow(idempotencyKey: string, body: Record<string, unknown>, tripId: string) {
      const result = validateTelemetry(body);
      if (!result.ok) throw new Error('invalid test batch');
      const json = JSON.stringify({ ...result.batch, clientTripId: idempotencyKey, vehicle: 'CN-100' });
      const nowMs = Date.now();
      await database.db
        .insertInto('trip_uploads')
        .values({
          trip_id: tripId,
          fleet_id: 'fleet_canon',
          vehicle_id: vehicleId,
          plate: 'CN-100',
          driver_id: typeof body.driverId === 'string' ? body.driverId : null,
          idempotency_key: idempotencyKey,
          ingest_key_id: null,
          source: 'ingest',
          received_at_ms: nowMs,
          sample_count: result.batch.samples.length,
          first_sample_ms: result.batch.samples[0]!.t,
          telemetry_gz: gzipSync(json),
          telemetry_sha256: createHash('sha256').update(json).digest('hex'),
          status: 'scored',
          attempts: 1,
          next_attempt_at_ms: nowMs,
          lease_owner: null,
          last_error: null,
          scored_at_ms: nowMs,
          model_version: '1.1.2',
        })
        .execute();
    }

    it('compares a repeat of a row a previous version stored from its telemetry', async () => {
      const batch = nextTrip();
      await insertOldStyleRow('canon-old-0001', batch, 'trip_canonold0001');
      const before = await rowsOf('canon-old-0001');
      const count = await uploadCount();
      const swapped = { ...batch, samples: swappedSameTime(batch.samples) };
      for (const repeat of [
        () => postJson('canon-old-0001', batch),
        () => postJson('canon-old-0001', reversedKeys(batch)),
        () => postNdjson('canon-old-0001', ndjsonOf(swapped)),
        () => postJson('canon-old-0001', reversedKeys(swapped)),
      ]) {
        const res = await repeat();
        expect(res.json()).toEqual({
          ok: true,
          tripId: 'trip_canonold0001',
          status: 'duplicate',
          tripIds: ['trip_canonold0001'],
          skipped: [],
        });
        expect(res.statusCode).toBe(200);
      }
      for (const other of [
        { ...batch, machineType: 'car' },
        { ...batch, samples: batch.samples.slice(1) },
      ]) {
        expect((await postJson('canon-old-0001', other)).statusCode).toBe(409);
      }
      // Nothing written: the old row keeps its telemetry.
      expect(await rowsOf('canon-old-0001')).toEqual(before);
      expect(await uploadCount()).toBe(count);
    });

    it('compares a repeat of an old row whose telemetry was deleted by its SHA-256, as before', async () => {
      const batch = nextTrip();
      await insertOldStyleRow('canon-old-0002', batch, 'trip_canonold0002');
      await database.db
        .updateTable('trip_uploads')
        .set({ telemetry_gz: Buffer.alloc(0), telemetry_deleted_at_ms: Date.now() })
        .where('trip_id', '=', 'trip_canonold0002')
        .execute();
      const same = await postJson('canon-old-0002', batch);
      expect(same.json()).toEqual({
        ok: true,
        tripId: 'trip_canonold0002',
        status: 'duplicate',
        tripIds: ['trip_canonold0002'],
        skipped: [],
      });
      // Only the bytes are left to compare: another serialisation cannot be told from another trip.
      expect((await postJson('canon-old-0002', reversedKeys(batch))).statusCode).toBe(409);
    });

    it('applies the same rule to trips import: a re-serialised file reports a duplicate', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'trips-canon-'));
      const batch = { clientTripId: 'canon-import-0001', ...nextTrip() };
      const firstFile = path.join(dir, 'first.ndjson');
      writeFileSync(firstFile, ndjsonOf(batch));
      const first = await importFile(database.db, firstFile, { fleetId: 'fleet_canon' });
      expect(first).toMatchObject({ imported: 1, duplicates: 0, rejected: [] });

      const again = path.join(dir, 'again.ndjson');
      writeFileSync(again, ndjsonOf(reversedKeys({ ...batch, samples: swappedSameTime(batch.samples) })));
      const repeat = await importFile(database.db, again, { fleetId: 'fleet_canon' });
      expect(repeat).toMatchObject({ imported: 0, duplicates: 1, rejected: [], tripIds: first.tripIds });

      const changed = path.join(dir, 'changed.ndjson');
      writeFileSync(changed, ndjsonOf({ ...batch, samples: batch.samples.slice(3) }));
      const conflict = await importFile(database.db, changed, { fleetId: 'fleet_canon' });
      expect(conflict).toMatchObject({ imported: 0, duplicates: 0 });
      expect(conflict.rejected).toEqual([
        {
          location: expect.any(String),
          reason: expect.stringContaining(`for a different trip (${first.tripIds[0]})`),
        },
      ]);
      expect(await rowsOf('canon-import-0001')).toHaveLength(1);
    });
  });
});
