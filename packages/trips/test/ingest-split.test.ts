import { gunzipSync, gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import { generateCity, type RoadGraph } from '@svc/roads';
import type { Sample, TelemetryBatch } from '@svc/scoring';
import { driverProfile, Rng, randomPlace, simulateTrip } from '@svc/simulator';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { findBreakdownBody } from '../src/store/trip-reads.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { inProcessScorer } from './fixtures/in-process-scorer.ts';
import { quietLogger } from './fixtures/world.ts';

const MINUTE_MS = 60_000;

/**
 * A day as a logger records it, from simulated drives on a synthetic city: the positions go on while the car is
 * parked (a fix every 10 s where it stopped, speed 0), and a car may be moved a few metres (a crawl across a yard).
 */
interface Drive {
  samples: Sample[];
  startMs: number;
  endMs: number;
  distanceM: number;
}

function lastFix(samples: readonly Sample[]) {
  const fix = samples.findLast((s) => s.type === 'gps');
  if (fix?.type !== 'gps') throw new Error('no fix');
  return fix;
}

/** Fixes every 10 s at the last position of `samples`, from `fromMs` for `minutes`. */
function parked(samples: readonly Sample[], fromMs: number, minutes: number): Sample[] {
  const at = lastFix(samples);
  const out: Sample[] = [];
  for (let t = fromMs; t < fromMs + minutes * MINUTE_MS; t += 10_000) {
    out.push({ type: 'gps', t, lon: at.lon, lat: at.lat, speedMps: 0, accuracyM: 5 });
  }
  return out;
}

/** 50 s at 9-11 km/h eastwards from the last position of `samples` (some 140 m): too short to be a trip. */
function crawl(samples: readonly Sample[], fromMs: number): Sample[] {
  const at = lastFix(samples);
  const out: Sample[] = [];
  let lon = at.lon;
  for (let s = 0; s <= 50; s++) {
    const speedMps = (10 + Math.sin(s)) / 3.6;
    lon += speedMps / (111_320 * Math.cos((at.lat * Math.PI) / 180));
    out.push({ type: 'gps', t: fromMs + s * 1000, lon, lat: at.lat, speedMps, accuracyM: 5 });
  }
  return out;
}

function simulatedDrives(graph: RoadGraph): Drive[] {
  const driver = driverProfile({ aggressiveness: 0.4 });
  const rng = Rng.from(5);
  const home = randomPlace(graph, rng, 'home');
  const work = randomPlace(graph, rng, 'work');
  const shop = randomPlace(graph, rng, 'work');
  const legs = [
    { from: home, to: work, via: [shop] },
    { from: work, to: home, via: [randomPlace(graph, rng, 'work')] },
  ];
  const drives: Drive[] = [];
  let startMs = Date.UTC(2026, 10, 18, 7);
  for (const [k, leg] of legs.entries()) {
    const { batch, truth } = simulateTrip({ driver, graph, ...leg, viaDwellS: 20, startMs, seed: k + 1, imuHz: 10 });
    drives.push({
      samples: batch.samples as Sample[],
      startMs: truth.startMs,
      endMs: truth.endMs,
      distanceM: truth.distanceM,
    });
    // The next drive after an 8-minute stop: a trip of its own (5 minutes stopped end one), the same stint of
    // driving for the fatigue factors (a break is 15 minutes or more).
    startMs = batch.samples.at(-1)!.t + 8 * MINUTE_MS;
  }
  return drives;
}

describe.each(testDialects())('an upload holding several drives on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let graph: RoadGraph;
    let app: FastifyInstance;
    let key: string;
    let drives: Drive[];
    const queued: string[] = [];
    const now = Date.UTC(2026, 10, 20, 12);
    const clock = () => now;

    beforeAll(async () => {
      graph = generateCity({ seed: 7, blocks: 30 });
      drives = simulatedDrives(graph);
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'production', database.location);
      await createFleet(database.db, { name: 'Split', fleetId: 'fleet_split' });
      for (const plate of ['SP-1', 'SP-2', 'SP-3', 'SP-4', 'SP-5', 'SP-6', 'SP-8', 'SP-9']) {
        await createVehicle(database.db, { fleetId: 'fleet_split', plate });
      }
      key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_split' })).secret;
      app = await buildIngestApp({
        environment: 'production',
        database,
        logger: quietLogger(),
        clock,
        onQueued: (id) => queued.push(id),
      });
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    /** The two drives with the 8 minutes parked between them, as one batch. */
    const day = (vehicle: string, driverId = `drv-${vehicle}`): TelemetryBatch => {
      const [a, b] = drives as [Drive, Drive];
      const gap = parked(a.samples, a.samples.at(-1)!.t + 10_000, 7.5);
      return { schemaVersion: 1, vehicle, driverId, samples: [...a.samples, ...gap, ...b.samples] };
    };
    const post = (idempotencyKey: string, body: unknown, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
          ...headers,
        },
      });
    const uploadsOf = (plate: string) =>
      database.db
        .selectFrom('trip_uploads')
        .select(['trip_id', 'idempotency_key', 'sample_count', 'first_sample_ms', 'status', 'upload_trip_id'])
        .select('telemetry_gz')
        .where('plate', '=', plate)
        .orderBy('first_sample_ms')
        .execute();
    const telemetryOf = (row: { telemetry_gz: Buffer }) =>
      JSON.parse(gunzipSync(row.telemetry_gz).toString('utf8')) as TelemetryBatch;
    const score = () =>
      new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock }).drain();
    const tripsOf = (plate: string) =>
      database.db
        .selectFrom('trips')
        .select(['trip_id', 'start_ms', 'end_ms', 'distance_km'])
        .where('plate', '=', plate)
        .orderBy('start_ms')
        .execute();
    const continuousDrivingMinutes = async (tripId: string) => {
      const body = await findBreakdownBody(database.db, ['fleet_split'], tripId);
      const breakdown = JSON.parse(body!.toString('utf8')) as {
        themes: Array<{ factors: Array<{ key: string; value: number | null }> }>;
      };
      return breakdown.themes.flatMap((t) => t.factors).find((f) => f.key === 'continuousDrivingMinutes')?.value;
    };

    it('stores each drive as a trip, scored with its own times and distance and the earlier drive as fatigue context', async () => {
      const res = await post('day-0001', gzipSync(JSON.stringify(day('SP-1'))), { 'content-encoding': 'gzip' });
      expect(res.statusCode).toBe(202);
      const body = res.json();
      expect(body).toEqual({
        ok: true,
        tripId: expect.stringMatching(/^trip_/),
        status: 'queued',
        tripIds: [body.tripId, expect.stringMatching(/^trip_/)],
        skipped: [],
      });
      expect(queued).toEqual(expect.arrayContaining(body.tripIds));

      // The first drive under the upload's key, the second under `<key>.2`, each with its own samples.
      const rows = await uploadsOf('SP-1');
      expect(rows.map((r) => [r.trip_id, r.idempotency_key, r.upload_trip_id])).toEqual([
        [body.tripIds[0], 'day-0001', body.tripIds[0]],
        [body.tripIds[1], 'day-0001.2', body.tripIds[0]],
      ]);
      const [first, second] = rows.map(telemetryOf) as [TelemetryBatch, TelemetryBatch];
      expect(first.clientTripId).toBe('day-0001');
      expect(second.clientTripId).toBe('day-0001.2');
      expect(first).toMatchObject({ vehicle: 'SP-1', driverId: 'drv-SP-1' });
      expect(lastFix(first.samples).t).toBeLessThan(drives[0]!.endMs + MINUTE_MS);
      expect(second.samples[0]!.t).toBeGreaterThan(drives[1]!.startMs - MINUTE_MS);

      await score();
      expect((await uploadsOf('SP-1')).map((r) => r.status)).toEqual(['scored', 'scored']);
      const trips = await tripsOf('SP-1');
      expect(trips.map((t) => t.trip_id)).toEqual(body.tripIds);
      for (const [k, trip] of trips.entries()) {
        const drive = drives[k]!;
        expect(Math.abs(Number(trip.start_ms) - drive.startMs), `drive ${k + 1} start`).toBeLessThan(MINUTE_MS);
        expect(Math.abs(Number(trip.end_ms) - drive.endMs), `drive ${k + 1} end`).toBeLessThan(MINUTE_MS);
        expect(trip.distance_km).toBeCloseTo(drive.distanceM / 1000, 0);
      }
      // The stop between them is a break shorter than 15 minutes: the second drive continues the first's stint.
      const [t1, t2] = trips as [(typeof trips)[0], (typeof trips)[0]];
      const minutes = (t: (typeof trips)[0]) => (Number(t.end_ms) - Number(t.start_ms)) / MINUTE_MS;
      expect(await continuousDrivingMinutes(t2.trip_id)).toBeCloseTo(minutes(t1) + minutes(t2), 0);
      expect(await continuousDrivingMinutes(t1.trip_id)).toBeCloseTo(minutes(t1), 0);

      // Each trip's status names the upload's trips.
      const status = await app.inject({
        method: 'GET',
        url: `/ingest/v1/trips/${body.tripIds[1]}`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(status.json()).toEqual({ ok: true, tripId: body.tripIds[1], status: 'scored', ...pick(body) });
    }, 120_000);

    it('scores the later drive with the earlier one as context whichever is scored first', async () => {
      const res = await post('day-0002', day('SP-2'));
      expect(res.statusCode).toBe(202);
      const [firstId, secondId] = res.json().tripIds as [string, string];
      // The second drive scored alone first (its context then lacks the first), as a second thread may.
      const worker = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      const requeued: string[] = [];
      await worker.scoreTrips([secondId]);
      const alone = await continuousDrivingMinutes(secondId);
      await worker.runOnce({ tripIds: [firstId], onRequeued: (ids) => requeued.push(...ids) });
      expect(requeued).toEqual([secondId]);
      await worker.drain();
      const trips = await tripsOf('SP-2');
      const minutes = trips.map((t) => (Number(t.end_ms) - Number(t.start_ms)) / MINUTE_MS);
      expect(alone).toBeCloseTo(minutes[1]!, 0);
      expect(await continuousDrivingMinutes(secondId)).toBeCloseTo(minutes[0]! + minutes[1]!, 0);
    }, 120_000);

    it('answers the same upload again, in any form, as a duplicate with the same trips; other telemetry under its key is a 409', async () => {
      const batch = day('SP-3');
      const first = await post('day-0003', batch);
      expect(first.statusCode).toBe(202);
      const rowsBefore = await uploadsOf('SP-3');

      const same = await post('day-0003', batch);
      expect(same.statusCode).toBe(200);
      expect(same.json()).toEqual({ ...first.json(), status: 'duplicate' });
      // Re-serialised: NDJSON with a header line, the fields of every sample in another order, gzip.
      const { samples, ...meta } = batch;
      const reversed = (s: Sample) => JSON.stringify(Object.fromEntries(Object.entries(s).reverse()));
      const ndjson = [JSON.stringify({ type: 'header', ...meta }), ...samples.map(reversed)];
      const reserialised = await post('day-0003', gzipSync(ndjson.join('\n')), {
        'content-type': 'application/x-ndjson',
        'content-encoding': 'gzip',
      });
      expect(reserialised.statusCode).toBe(200);
      expect(reserialised.json()).toEqual({ ...first.json(), status: 'duplicate' });

      // The same drives with a parked fix less is another upload: the key's 409, naming the trips.
      const lessParked = { ...batch, samples: batch.samples.filter((s) => s !== batch.samples.find(isParkedFix)) };
      expect(lessParked.samples.length).toBe(batch.samples.length - 1);
      const conflict = await post('day-0003', lessParked);
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json().error).toContain(
        `Idempotency-Key "day-0003" was already used in this fleet for a different upload (stored as 2 trips, ${first.json().tripIds.join(', ')})`,
      );

      // A drive's key is a key like another: the drive itself sent alone is that trip, other telemetry a 409.
      const secondDrive = telemetryOf(rowsBefore[1]!);
      const alone = await post('day-0003.2', secondDrive);
      expect(alone.statusCode).toBe(200);
      expect(alone.json()).toEqual({
        ok: true,
        tripId: first.json().tripIds[1],
        status: 'duplicate',
        tripIds: [first.json().tripIds[1]],
        skipped: [],
      });
      const other = await post('day-0003.2', { ...secondDrive, clientTripId: undefined, driverId: 'drv-9' });
      expect(other.statusCode).toBe(409);
      expect(other.json().error).toContain(
        `(${first.json().tripIds[1]}, a later drive of the upload whose first trip is ${first.json().tripIds[0]})`,
      );
      const rowsAfter = await uploadsOf('SP-3');
      expect(rowsAfter.map((r) => r.trip_id)).toEqual(rowsBefore.map((r) => r.trip_id));
    });

    it('refuses with 409, storing nothing, an upload whose drive key another trip already has', async () => {
      // A trip sent earlier under the key the second drive would take.
      const single = { schemaVersion: 1, vehicle: 'SP-4', samples: drives[1]!.samples };
      const taken = await post('day-0004.2', single);
      expect(taken.statusCode).toBe(202);
      const res = await post('day-0004', day('SP-4'));
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toBe(
        `this upload holds 2 drives, which would be stored as trips under the keys "day-0004", "day-0004.2", and "day-0004.2" was already used in this fleet for trip ${taken.json().tripId}; nothing was stored: send the upload under another Idempotency-Key`,
      );
      expect((await uploadsOf('SP-4')).map((r) => [r.idempotency_key, r.upload_trip_id])).toEqual([
        ['day-0004.2', null],
      ]);
    });

    it("names no trip of another vehicle to a device key whose upload's drive key that trip has", async () => {
      // SP-8's trip holds the key SP-9's device would store its second drive under. The device may not see SP-8's
      // trips (their ingest status is a 404 for it): its 409 says the key is taken, not by which trip.
      const taken = await post('day-0008.2', { schemaVersion: 1, vehicle: 'SP-8', samples: drives[1]!.samples });
      expect(taken.statusCode).toBe(202);
      const device = (
        await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_split', plate: 'SP-9' })
      ).secret;
      const res = await post('day-0008', day('SP-9'), { authorization: `Bearer ${device}` });
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toBe(
        'this upload holds 2 drives, and the key "day-0008.2" one of them would be stored under was already used in this fleet for a trip of another vehicle; nothing was stored: send the upload under another Idempotency-Key',
      );
      expect(res.body).not.toContain(taken.json().tripId);
      expect(await uploadsOf('SP-9')).toEqual([]);
    });

    it('stores nothing when the transaction fails after the drives were written', async () => {
      // The upload's record is written last, after the drives and the driver: make that statement fail.
      if (dialect.name === 'sqlite') {
        await sql`create trigger fail_split before insert on split_uploads begin select raise(abort, 'injected failure'); end`.execute(
          database.db,
        );
      } else {
        await sql`create function fail_split() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(
          database.db,
        );
        await sql`create trigger fail_split before insert on split_uploads for each row execute function fail_split()`.execute(
          database.db,
        );
      }
      try {
        const res = await post('day-0005', day('SP-5', 'drv-new'));
        expect(res.statusCode).toBe(500);
        expect(await uploadsOf('SP-5')).toEqual([]);
        const driver = await database.db
          .selectFrom('drivers')
          .select('driver_id')
          .where('driver_id', '=', 'drv-new')
          .execute();
        expect(driver).toEqual([]);
      } finally {
        if (dialect.name === 'sqlite') await sql`drop trigger fail_split`.execute(database.db);
        else await sql`drop trigger fail_split on split_uploads`.execute(database.db);
      }
      const again = await post('day-0005', day('SP-5', 'drv-new'));
      expect(again.statusCode).toBe(202);
      expect(await uploadsOf('SP-5')).toHaveLength(2);
    });

    it('stores an upload with one drive and a short movement as the drive, reporting the movement as skipped', async () => {
      const b = drives[1]!;
      const endMs = b.samples.at(-1)!.t;
      const yard = crawl(b.samples, endMs + 20 * MINUTE_MS);
      const batch = {
        schemaVersion: 1,
        vehicle: 'SP-6',
        samples: [
          ...b.samples,
          ...parked(b.samples, endMs + 10_000, 19.9),
          ...yard,
          ...parked(yard, yard.at(-1)!.t + 10_000, 5),
        ],
      };
      const res = await post('yard-0001', batch);
      expect(res.statusCode).toBe(202);
      const body = res.json();
      expect(body).toEqual({
        ok: true,
        tripId: expect.stringMatching(/^trip_/),
        status: 'queued',
        tripIds: [body.tripId],
        skipped: [
          {
            startMs: expect.any(Number),
            endMs: expect.any(Number),
            distanceKm: expect.any(Number),
            movingMin: expect.any(Number),
            reason: expect.stringMatching(
              /^too short to be a trip: 0\.1\d km and \d+ s moving; the minimum is 1 km and 120 s$/,
            ),
          },
        ],
      });
      const [skip] = body.skipped as Array<{ startMs: number; endMs: number; distanceKm: number }>;
      expect(Math.abs(skip!.startMs - yard[0]!.t)).toBeLessThan(30_000);
      expect(Math.abs(skip!.endMs - yard.at(-1)!.t)).toBeLessThan(30_000);
      const rows = await uploadsOf('SP-6');
      expect(rows.map((r) => [r.idempotency_key, r.upload_trip_id])).toEqual([['yard-0001', body.tripId]]);
      expect(lastFix(telemetryOf(rows[0]!).samples).t).toBeLessThan(endMs + MINUTE_MS);

      const again = await post('yard-0001', batch);
      expect(again.json()).toEqual({ ...body, status: 'duplicate' });
      await score();
      const [trip] = await tripsOf('SP-6');
      // The trip is the drive: it does not run on to the movement 20 minutes later.
      expect(Math.abs(Number(trip!.end_ms) - b.endMs)).toBeLessThan(MINUTE_MS);
    }, 120_000);

    it("stores a device's single-drive upload whole, as before, under its key", async () => {
      await createVehicle(database.db, { fleetId: 'fleet_split', plate: 'SP-7' });
      const batch = { schemaVersion: 1, vehicle: 'SP-7', clientTripId: 'sdk-trip-0001', samples: drives[0]!.samples };
      const res = await post('sdk-trip-0001', gzipSync(JSON.stringify(batch)), { 'content-encoding': 'gzip' });
      expect(res.statusCode).toBe(202);
      const tripId = res.json().tripId as string;
      expect(res.json()).toEqual({ ok: true, tripId, status: 'queued', tripIds: [tripId], skipped: [] });
      const rows = await uploadsOf('SP-7');
      expect(rows.map((r) => [r.trip_id, r.idempotency_key, r.sample_count, r.upload_trip_id])).toEqual([
        [tripId, 'sdk-trip-0001', batch.samples.length, null],
      ]);
      expect(telemetryOf(rows[0]!)).toEqual(JSON.parse(JSON.stringify(batch)));
      const again = await post('sdk-trip-0001', batch);
      expect(again.json()).toEqual({ ok: true, tripId, status: 'duplicate', tripIds: [tripId], skipped: [] });
    });
  });
});

function isParkedFix(s: Sample): boolean {
  return s.type === 'gps' && s.speedMps === 0 && s.accuracyM === 5;
}

function pick(body: { tripIds: string[]; skipped: unknown[] }) {
  return { tripIds: body.tripIds, skipped: body.skipped };
}
