import { gunzipSync, gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import { generateCity, type RoadGraph } from '@svc/roads';
import type { Sample, TelemetryBatch } from '@svc/scoring';
import { driverProfile, Rng, randomPlace, simulateTrip } from '@svc/simulator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidInputError } from '../src/errors.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { type PrepareRequest, prepareUpload } from '../src/ingest/prepare-upload.ts';
import { inlineUploadPreparer, threadUploadPreparer, type UploadPreparer } from '../src/ingest/upload-preparer.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { quietLogger } from './fixtures/world.ts';

const MINUTE_MS = 60_000;
const NOW_MS = Date.UTC(2026, 10, 20, 12);

/** Two simulated drives 8 minutes apart (parked, fixes every 10 s between them): an upload cut into two trips. */
function drives(graph: RoadGraph): { one: Sample[]; day: Sample[] } {
  const driver = driverProfile({ aggressiveness: 0.4 });
  const rng = Rng.from(11);
  const home = randomPlace(graph, rng, 'home');
  const work = randomPlace(graph, rng, 'work');
  const first = simulateTrip({
    driver,
    graph,
    from: home,
    to: work,
    startMs: Date.UTC(2026, 10, 18, 7),
    seed: 1,
    imuHz: 10,
  });
  const a = first.batch.samples as Sample[];
  const end = a.findLast((s) => s.type === 'gps')!;
  if (end.type !== 'gps') throw new Error('no fix');
  const parked: Sample[] = [];
  const parkedFrom = a.at(-1)!.t + 10_000;
  for (let t = parkedFrom; t < parkedFrom + 7.5 * MINUTE_MS; t += 10_000) {
    parked.push({ type: 'gps', t, lon: end.lon, lat: end.lat, speedMps: 0, accuracyM: 5 });
  }
  const second = simulateTrip({
    driver,
    graph,
    from: work,
    to: home,
    startMs: parkedFrom + 8 * MINUTE_MS,
    seed: 2,
    imuHz: 10,
  });
  return { one: a, day: [...a, ...parked, ...(second.batch.samples as Sample[])] };
}

/** The same batch serialised with its keys in reverse order: the same trip in another form. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reordered(v)]),
  );
}

function ndjson(batch: TelemetryBatch): string {
  const { samples, ...header } = batch;
  return [JSON.stringify({ type: 'header', ...header }), ...samples.map((s) => JSON.stringify(s))].join('\n');
}

describe('upload preparation on ingest threads', () => {
  let graph: RoadGraph;
  let preparer: UploadPreparer;
  let one: Sample[];
  beforeAll(async () => {
    graph = generateCity({ seed: 7, blocks: 30 });
    ({ one } = drives(graph));
    preparer = await threadUploadPreparer({ threads: 2 });
  }, 120_000);
  afterAll(async () => {
    await preparer?.close();
  });

  it('gives what the calling thread gives, bytes for bytes, from raw JSON, NDJSON and a built value', async () => {
    const batch: TelemetryBatch = { schemaVersion: 1, vehicle: 'th-1', driverId: 'drv-1', samples: one };
    const bodies: PrepareRequest['body'][] = [
      { bytes: Buffer.from(JSON.stringify(batch)), format: 'json' as const },
      { bytes: Buffer.from(ndjson(batch)), format: 'ndjson' as const },
      { value: batch },
    ];
    for (const body of bodies) {
      const request = { body, idempotencyKey: 'trip-thread-1', nowMs: NOW_MS, boundPlate: null };
      // The raw body is moved to the thread: the inline run gets its own copy first.
      const inlineBody = 'bytes' in body ? { format: body.format, bytes: Buffer.from(body.bytes) } : body;
      const inline = prepareUpload({ ...request, body: inlineBody });
      const threaded = await preparer.prepare(request);
      expect(threaded.plate).toBe('TH-1');
      expect(threaded.sha256).toBe(inline.sha256);
      expect(threaded.trips.map((t) => ({ ...t, telemetryGz: gunzipSync(t.telemetryGz).toString() }))).toEqual(
        inline.trips.map((t) => ({ ...t, telemetryGz: gunzipSync(t.telemetryGz).toString() })),
      );
      expect(threaded.laterError).toBeNull();
    }
  });

  it('raises the sender’s faults with their own classes, and a malformed driver id only after the vehicle', async () => {
    const request = (value: unknown, boundPlate: string | null = null) => ({
      body: { value },
      idempotencyKey: 'trip-thread-2',
      nowMs: NOW_MS,
      boundPlate,
    });
    await expect(preparer.prepare(request({ schemaVersion: 1, samples: 'none' }))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    const bound = preparer.prepare(request({ schemaVersion: 1, vehicle: 'OTHER', samples: one }, 'TH-1'));
    await expect(bound).rejects.toBeInstanceOf(ForbiddenError);
    await expect(bound).rejects.toThrow(
      'this device key sends for vehicle TH-1 only, and the batch names vehicle "OTHER"',
    );
    const later = await preparer.prepare(
      request({ schemaVersion: 1, vehicle: 'TH-1', driverId: 'bad id!', samples: one }),
    );
    expect(later.laterError?.message).toMatch(/driverId "bad id!" is invalid/);
    expect(later.trips).toEqual([]);
  });

  it('fingerprints stored telemetry on a thread as the calling thread does', async () => {
    const prepared = prepareUpload({
      body: { value: { schemaVersion: 1, vehicle: 'TH-1', samples: one } },
      idempotencyKey: 'trip-thread-3',
      nowMs: NOW_MS,
      boundPlate: null,
    });
    const gz = prepared.trips[0]!.telemetryGz;
    expect(await preparer.fingerprint(gz)).toBe(await inlineUploadPreparer.fingerprint(gz));
    expect(await preparer.fingerprint(gz)).toMatch(/^v1:[0-9a-f]{64}$/);
  });

  it('does the work on another thread than the caller’s', async () => {
    // The thread module answers in its own thread: a value built there cannot have been built here.
    const pool = await threadUploadPreparer({ threads: 1 });
    try {
      const result = await pool.prepare({
        body: { value: { schemaVersion: 1, vehicle: 'TH-1', samples: one } },
        idempotencyKey: 'trip-thread-4',
        nowMs: NOW_MS,
        boundPlate: null,
      });
      // A Buffer crosses threads as a plain Uint8Array: proof that the bytes were made on the other side.
      expect(Buffer.isBuffer(result.trips[0]!.telemetryGz)).toBe(false);
      expect(result.trips[0]!.telemetryGz).toBeInstanceOf(Uint8Array);
    } finally {
      await pool.close();
    }
    await expect(
      pool.prepare({ body: { value: {} }, idempotencyKey: 'trip-thread-5', nowMs: NOW_MS, boundPlate: null }),
    ).rejects.toThrow('the ingest threads are stopped');
  });
});

describe.each(testDialects())('the ingest endpoint with ingest threads on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let preparer: UploadPreparer;
    // Two stores, one per way of preparing, with the same fleet, vehicles and ingest key names.
    const apps = {} as Record<'inline' | 'threads', { app: FastifyInstance; key: string; database: TripsDatabase }>;
    let one: Sample[];
    let day: Sample[];

    beforeAll(async () => {
      ({ one, day } = drives(generateCity({ seed: 7, blocks: 30 })));
      preparer = await threadUploadPreparer({ threads: 1 });
      for (const mode of ['inline', 'threads'] as const) {
        const database: TripsDatabase = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
        await claimEnvironment(database.db, 'production', database.location);
        await createFleet(database.db, { name: 'Threads', fleetId: 'fleet_th' });
        for (const plate of ['TH-1', 'TH-2']) await createVehicle(database.db, { fleetId: 'fleet_th', plate });
        const key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_th' })).secret;
        const app = await buildIngestApp({
          environment: 'production',
          database,
          logger: quietLogger(),
          clock: () => NOW_MS,
          ...(mode === 'threads' ? { preparer } : {}),
        });
        apps[mode] = { app, key, database };
      }
    }, 120_000);
    afterAll(async () => {
      for (const { app, database } of Object.values(apps)) {
        await app.close();
        await database.close();
      }
      await preparer?.close();
    });

    const post = (
      mode: 'inline' | 'threads',
      key: string,
      body: string | Buffer,
      headers: Record<string, string> = {},
    ) =>
      apps[mode].app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: body,
        headers: {
          authorization: `Bearer ${apps[mode].key}`,
          'content-type': 'application/json',
          'idempotency-key': key,
          ...headers,
        },
      });

    /** Posts to both endpoints and checks they answer alike (trip ids aside); returns the threaded answer. */
    async function both(key: string, body: string | Buffer, headers: Record<string, string> = {}) {
      const [inline, threaded] = [await post('inline', key, body, headers), await post('threads', key, body, headers)];
      const shape = (res: typeof inline) => ({
        status: res.statusCode,
        body: JSON.parse(res.body.replace(/trip_[a-z0-9]+/g, 'trip_x')),
      });
      expect(shape(threaded)).toEqual(shape(inline));
      return { status: threaded.statusCode, json: threaded.json() as Record<string, unknown> };
    }

    it('stores uploads, a day cut into drives, repeats and conflicts exactly as on the calling thread', async () => {
      const batch: TelemetryBatch = { schemaVersion: 1, vehicle: 'th-1', driverId: 'drv-1', samples: one };
      const whole = await both('upload-whole-1', gzipSync(JSON.stringify(batch)), { 'content-encoding': 'gzip' });
      expect(whole).toMatchObject({ status: 202, json: { status: 'queued' } });
      const dayBatch: TelemetryBatch = { schemaVersion: 1, vehicle: 'TH-2', driverId: 'drv-2', samples: day };
      const split = await both('upload-day-1', JSON.stringify(dayBatch));
      expect(split.status).toBe(202);
      expect(split.json.tripIds).toHaveLength(2);

      // Repeats in another form: the fingerprints are taken on the thread.
      expect(await both('upload-whole-1', JSON.stringify(reordered(batch)))).toMatchObject({
        status: 200,
        json: { status: 'duplicate' },
      });
      expect(await both('upload-day-1', ndjson(dayBatch), { 'content-type': 'application/x-ndjson' })).toMatchObject({
        status: 200,
        json: { status: 'duplicate', tripIds: split.json.tripIds },
      });
      const other = { ...batch, samples: one.slice(0, -5) };
      expect((await both('upload-whole-1', JSON.stringify(other))).status).toBe(409);

      const stored = async (mode: 'inline' | 'threads') =>
        (
          await apps[mode].database.db
            .selectFrom('trip_uploads')
            .select(['idempotency_key', 'telemetry_gz', 'telemetry_sha256', 'sample_count', 'first_sample_ms'])
            .orderBy('idempotency_key')
            .execute()
        ).map(({ telemetry_gz, ...r }) => ({ ...r, telemetry: gunzipSync(telemetry_gz).toString() }));
      expect(await stored('threads')).toHaveLength(3);
      expect(await stored('threads')).toEqual(await stored('inline'));
    });

    it('answers the sender’s mistakes with the same statuses and messages', async () => {
      const batch = (extra: Record<string, unknown>) => JSON.stringify({ schemaVersion: 1, samples: one, ...extra });
      expect((await both('upload-bad-json', '{"schemaVersion": 1,')).status).toBe(400);
      expect((await both('upload-no-plate', batch({}))).status).toBe(400);
      expect((await both('upload-unknown', batch({ vehicle: 'NOPE-1' }))).status).toBe(403);
      // A malformed driver id for a vehicle of another fleet: the vehicle is what is wrong first.
      expect((await both('upload-unknown-drv', batch({ vehicle: 'NOPE-1', driverId: 'bad id!' }))).status).toBe(403);
      const badDriver = await both('upload-bad-drv', batch({ vehicle: 'TH-1', driverId: 'bad id!' }));
      expect(badDriver.status).toBe(400);
      expect(badDriver.json.error).toMatch(/driverId "bad id!" is invalid/);
      const noGps = JSON.stringify({ schemaVersion: 1, vehicle: 'TH-1', samples: one.filter((s) => s.type !== 'gps') });
      expect((await both('upload-no-gps', noGps)).status).toBe(400);
    });
  });
});
