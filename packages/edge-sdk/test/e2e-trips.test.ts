import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createLogger } from '@svc/platform';
import { generateCity, type RoadGraph, writeGraph } from '@svc/roads';
import { planTrips, createFleet as simulateFleet, simulateFleetTrips } from '@svc/simulator';
import {
  buildApiApp,
  buildIngestApp,
  createApiToken,
  createFleet,
  createIngestKey,
  createThreadPoolScorer,
  createVehicle,
  openTripsDatabase,
  ScoringWorker,
  type TripScorer,
  type TripsDatabase,
} from '@svc/trips';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeSdk, type TripStatus } from '../src/index.ts';

/**
 * End to end: a simulated fleet drives through the edge SDK (one SDK per vehicle, as in the vehicles) into the
 * trip-scoring service's real ingest endpoint, scored by the real engine on a road graph; every trip the SDKs
 * send arrives once, is scored, and is readable through the public `/v1` API.
 */

type App = Awaited<ReturnType<typeof buildIngestApp>>;

const FLEET_ID = 'fleet_edge_e2e';
const DAY_MS = 86_400_000;

describe('simulated fleet → edge SDK → trip-scoring ingest → /v1', () => {
  let dir: string;
  let graph: RoadGraph;
  let database: TripsDatabase;
  let scorer: TripScorer;
  let worker: ScoringWorker;
  let ingest: App;
  let api: App;
  let ingestUrl: string;
  let ingestKey: string;
  let token: string;
  const sdks: EdgeSdk[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'edge-sdk-e2e-'));
    graph = generateCity({ seed: 11 });
    const graphFile = path.join(dir, 'city.graph');
    writeGraph(graph, graphFile);
    const logger = createLogger({ level: 'silent' });
    database = await openTripsDatabase({ environment: 'production', sqliteFile: path.join(dir, 'trips.db') });
    await createFleet(database.db, { name: 'Edge SDK e2e', fleetId: FLEET_ID });
    ingestKey = (await createIngestKey(database.db, { environment: 'production', fleetId: FLEET_ID })).secret;
    token = (await createApiToken(database.db, { environment: 'production', fleets: [FLEET_ID] })).secret;
    scorer = await createThreadPoolScorer({ graphFile, threads: 1 });
    worker = new ScoringWorker({ db: database, scorer, logger });
    ingest = await buildIngestApp({
      environment: 'production',
      database,
      logger,
      onQueued: () => worker.notify(),
    });
    ingestUrl = await ingest.listen({ host: '127.0.0.1', port: 0 });
    api = await buildApiApp({ environment: 'production', database, logger });
    worker.start();
  }, 120_000);

  afterAll(async () => {
    for (const sdk of sdks) await sdk.close();
    await ingest?.close();
    await api?.close();
    await worker?.stop();
    await scorer?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const read = async (url: string) => {
    const res = await api.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> };
  };

  it('delivers every trip once, scored and readable through /v1', async () => {
    // Three cars over two days, recent enough for the API's default 90-day window.
    const start = new Date(Date.now() - 4 * DAY_MS).toISOString().slice(0, 10);
    const fleet = simulateFleet({ seed: 5, vehicles: { car: 3 }, graph });
    for (const vehicle of fleet.vehicles) {
      await createVehicle(database.db, { fleetId: FLEET_ID, plate: vehicle.plate, machineType: vehicle.machineType });
    }
    const plans = planTrips({ fleet, graph, days: 2, startDate: start }).slice(0, 8);
    const simulated = [...simulateFleetTrips({ fleet, graph, plans, imuHz: 10 })];
    expect(simulated.length).toBeGreaterThanOrEqual(4);

    // One SDK per vehicle, fed the vehicle's trips in time order, as the sensors would.
    const sent: TripStatus[] = [];
    let discarded = 0;
    for (const vehicle of fleet.vehicles) {
      const trips = simulated
        .filter((t) => t.vehicle.plate === vehicle.plate)
        .sort((a, b) => a.batch.samples[0]!.t - b.batch.samples[0]!.t);
      if (trips.length === 0) continue;
      const sdk = EdgeSdk.open({
        storagePath: path.join(dir, `${vehicle.plate}.db`),
        endpoint: ingestUrl,
        ingestKey,
        deviceId: vehicle.deviceId,
        vehicle: vehicle.plate,
        machineType: vehicle.machineType,
        imuFrame: vehicle.imuFrame,
        timeZone: fleet.timeZone,
        phoneMonitored: true,
        durability: 'normal',
      });
      sdks.push(sdk);
      sdk.on('tripDiscarded', () => discarded++);
      for (const trip of trips) {
        sdk.setDriver(trip.batch.driverId ?? null);
        const samples = trip.batch.samples;
        for (let i = 0; i < samples.length; i += 1000) sdk.recordMany(samples.slice(i, i + 1000));
      }
      sdk.endTrip();
      const flushed = await sdk.flush({ timeoutMs: 60_000 });
      expect(flushed).toMatchObject({ done: true, counts: { failed: 0, pending: 0 } });
      sent.push(...sdk.trips({ state: 'sent' }));
    }
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.every((t) => t.serverStatus === 'queued')).toBe(true);

    // Scored: the ingest status of every trip says so (the worker scores in the background).
    const deadline = Date.now() + 90_000;
    for (const trip of sent) {
      const sdk = sdks.find((s) => s.trip(trip.tripId))!;
      for (;;) {
        const status = await sdk.serverStatus(trip.tripId);
        if (status.status === 'scored') break;
        expect(status.status).toBe('queued');
        if (Date.now() > deadline) throw new Error(`trip ${trip.tripId} not scored in time`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    // Readable through /v1, each exactly once, with a score.
    const list = await read('/v1/trips?limit=100');
    expect(list.status).toBe(200);
    const listed = (list.body.trips as Array<{ tripId: string; overallScore: number }>).map((t) => t.tripId);
    expect([...listed].sort()).toEqual(sent.map((t) => t.serverTripId).sort());
    for (const trip of sent) {
      const one = await read(`/v1/trips/${trip.serverTripId}`);
      expect(one.status).toBe(200);
      expect(JSON.stringify(one.body)).toContain(trip.serverTripId!);
      const breakdown = await read(`/v1/trips/${trip.serverTripId}/score-breakdown`);
      expect(breakdown.status).toBe(200);
    }
    expect(discarded + sent.length).toBeGreaterThanOrEqual(simulated.length);

    // A delivered trip's key sent again with other telemetry changes nothing: the server answers 409 and
    // names the trip it holds under that key.
    const again = sent[0]!;
    const response = await fetch(`${ingestUrl}/ingest/v1/trips`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ingestKey}`,
        'idempotency-key': again.tripId,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: gzipSync(
        JSON.stringify({
          schemaVersion: 1,
          clientTripId: again.tripId,
          vehicle: again.vehicle,
          samples: [{ type: 'gps', t: again.startMs, lon: 4.5, lat: 45.5 }],
        }),
      ),
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ ok: false, error: expect.stringContaining(`(${again.serverTripId})`) });
    expect(((await read('/v1/trips?limit=100')).body.trips as unknown[]).length).toBe(sent.length);
  }, 300_000);
});
