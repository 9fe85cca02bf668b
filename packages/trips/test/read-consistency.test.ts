import { gunzipSync, gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import { generateCity, type RoadGraph } from '@svc/roads';
import type { ScoredTrip, TelemetryBatch } from '@svc/scoring';
import { createFleet as simulatedFleet, simulateFleetTrips } from '@svc/simulator';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload, planTrips } from '../src/ingest/accept-upload.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { loadScoringEngine, scoreStoredTrip } from '../src/scoring/engine.ts';
import { rescore } from '../src/scoring/rescore.ts';
import { tierOf } from '../src/scoring/tiers.ts';
import { type TripScorer, UnscorableTripError } from '../src/scoring/trip-scorer.ts';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { deleteLocationData, driverDataCounts, eraseDriver } from '../src/store/location-data.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import type { TripItem } from '../src/store/trip-item.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { inProcessScorer } from './fixtures/in-process-scorer.ts';
import { prng } from './fixtures/prng.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { quietLogger, sandboxApiApp } from './fixtures/world.ts';

/**
 * The read API agrees with itself. A fleet manager or an underwriter who adds things up compares figures that
 * different code paths compute: the stored list items, the per-day counts behind the list's totals and deep
 * pages, the single trip, its breakdown and route, the vehicle, driver and fleet sums kept by triggers, the
 * rolling windows. A store is built through the real ingest path and scored by the real engine (trips of
 * the simulator, placed on the edges that matter: the window's first millisecond, UTC and local midnights,
 * both DST changes of the fleet's zone, week starts, equal start times, a trip running past "now" and one
 * after it, an unscorable upload, trips arriving out of order), then changed as production changes it
 * (rescore, a driver's erasure, retention, a late upload). After every step every figure is compared, over
 * HTTP, with what a client computes from the trip list itself.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const NOW = Date.UTC(2026, 10, 20, 12); // Friday 2026-11-20 12:00 UTC
const WINDOWS = [7, 30, 90, 365] as const;
const THEMES = ['speeding', 'braking', 'acceleration', 'cornering', 'distraction', 'exposure'] as const;
type Theme = (typeof THEMES)[number];

/** A list item as the API answers it. */
type Item = TripItem;

interface Pagination {
  page: number;
  limit: number;
  totalPages: number;
  total: number;
}

const FLEET_A = 'fleet_consist_a';
const FLEET_B = 'fleet_consist_b';
const PLATES: Record<string, string> = {
  A0: 'CA-100-AA',
  A1: 'CA-101-AA',
  A2: 'CA-102-AA',
  A3: 'CA-103-AA', // never driven
  B0: 'CB-200-BB',
};
const FLEET_OF: Record<string, string> = {
  A0: FLEET_A,
  A1: FLEET_A,
  A2: FLEET_A,
  A3: FLEET_A,
  B0: FLEET_B,
};

/** Where a trip goes: when it starts, in which vehicle, who drove it (null: no identified driver). */
interface Slot {
  key: string;
  startMs: number;
  vehicle: keyof typeof PLATES;
  driverId: string | null;
}

const from = (days: number) => NOW - days * DAY_MS;

/**
 * The trips of the store, chronologically. Drivers' trips never overlap; trips sharing a start time are of
 * different vehicles and drivers. `drv-a1` is a driver id of both fleets (two people).
 */
function slots(): Slot[] {
  const s: Slot[] = [];
  const add = (key: string, startMs: number, vehicle: keyof typeof PLATES, driverId: string | null) =>
    s.push({ key, startMs, vehicle, driverId });
  // Before every window but the longest, and the DST start (2026-03-29 01:00 UTC) in Paris.
  add('old-1', Date.UTC(2026, 1, 10, 8), 'A0', 'drv-a1');
  add('dst-start', Date.UTC(2026, 2, 29, 0, 50), 'A0', null);
  add('dst-start-b', Date.UTC(2026, 2, 29, 1, 0), 'B0', 'drv-a1');
  // The 90-day window's first millisecond, and the one before it (previous window).
  add('w90-before', from(90) - 1, 'A1', 'drv-a2');
  add('w90-first', from(90), 'A0', 'drv-a1');
  add('w90-first-b', from(90), 'B0', 'drv-b1');
  // Trips of the previous windows, for the trends.
  for (let i = 0; i < 4; i++) add(`prev90-${i}`, from(150) + i * 5 * DAY_MS + 9 * HOUR_MS, 'A0', `drv-a${1 + (i % 3)}`);
  // DST end (2026-10-25 01:00 UTC in Paris): local midnight before it, a trip across it, one starting on it.
  add('dst-end-midnight', Date.UTC(2026, 9, 24, 22), 'A1', 'drv-a1');
  add('dst-end-across', Date.UTC(2026, 9, 25, 0, 45), 'A0', 'drv-a2');
  add('dst-end-on', Date.UTC(2026, 9, 25, 1), 'A2', null);
  add('dst-end-later', Date.UTC(2026, 9, 25, 1, 30), 'B0', 'drv-a1');
  // The 30-day window's first millisecond, and the one before.
  add('w30-before', from(30) - 1, 'A2', 'drv-a3');
  add('w30-first', from(30), 'A1', 'drv-a2');
  // UTC midnight: across it, on it; local (Paris, UTC+1) midnight.
  add('utc-midnight-across', Date.UTC(2026, 10, 10, 23, 55), 'A0', 'drv-a1');
  add('utc-midnight-on', Date.UTC(2026, 10, 11, 0), 'A1', null);
  add('local-midnight', Date.UTC(2026, 10, 11, 23), 'A2', 'drv-a3');
  // The 7-day window's first millisecond and the one before.
  add('w7-before', from(7) - 1, 'A0', null);
  add('w7-first', from(7), 'A1', 'drv-a1');
  // A week's last millisecond and its Monday's first (2026-11-16 is a Monday).
  add('week-last', Date.UTC(2026, 10, 16) - 1, 'B0', 'drv-b1');
  add('week-first', Date.UTC(2026, 10, 16), 'A2', 'drv-a2');
  // Equal start times: three vehicles, three drivers (or none): the tie-break by trip id.
  for (const [i, v] of (['A0', 'A1', 'B0'] as const).entries()) {
    add(`tie-${i}`, Date.UTC(2026, 10, 18, 7, 30), v, [null, 'drv-a3', 'drv-b1'][i]!);
  }
  // A day with several trips of one vehicle and several drivers.
  add('day-1', Date.UTC(2026, 10, 19, 6), 'A0', 'drv-a1');
  add('day-2', Date.UTC(2026, 10, 19, 9), 'A0', 'drv-a2');
  add('day-3', Date.UTC(2026, 10, 19, 13), 'A0', null);
  add('day-4', Date.UTC(2026, 10, 19, 17), 'A0', 'drv-a3');
  // Running past "now", starting on it (out of every window), and one after it (a clock a little ahead).
  add('running', NOW - 2 * MINUTE_MS, 'A2', 'drv-a1');
  add('at-now', NOW, 'A1', 'drv-a2');
  add('future', NOW + HOUR_MS, 'B0', 'drv-b1');
  return s.sort((a, b) => a.startMs - b.startMs || a.key.localeCompare(b.key));
}

/**
 * Simulated trips of a small fleet (Europe/Paris), shortest first: realistic, varied scores. Each with how long
 * after its first GPS fix the engine starts the trip (its clean-up drops the first fixes), so that a trip can
 * be placed to start on the millisecond wanted.
 */
let simulated: TelemetryBatch[] | undefined;
const startOffsets = new Map<TelemetryBatch, number>();
const firstFix = (b: TelemetryBatch) => Math.min(...b.samples.filter((x) => x.type === 'gps').map((x) => x.t));
async function simulatedBatches(graph: RoadGraph, count: number): Promise<TelemetryBatch[]> {
  if (!simulated) {
    const fleet = simulatedFleet({ seed: 'read-consistency', graph, vehicles: 4, driversPerVehicle: 2 });
    simulated = [...simulateFleetTrips({ fleet, graph, days: 6, limit: count + 25, imuHz: 10 })]
      .map((t) => t.batch as TelemetryBatch)
      // Well above the engine's minimum (1 km, 2 min moving): the unscorable upload is made on purpose.
      .filter((b) => {
        const gps = b.samples.filter((x) => x.type === 'gps') as Array<{ t: number; lon: number; lat: number }>;
        let m = 0;
        for (let i = 1; i < gps.length; i++) {
          const kx = 111_320 * Math.cos((gps[i]!.lat * Math.PI) / 180);
          m += Math.hypot((gps[i]!.lon - gps[i - 1]!.lon) * kx, (gps[i]!.lat - gps[i - 1]!.lat) * 110_540);
        }
        return m > 2000 && gps.at(-1)!.t - gps[0]!.t > 5 * MINUTE_MS;
      })
      // One drive each: a simulated delivery round with stops of 5 minutes or more is stored as several trips
      // (accept-upload.ts), which would not start on the millisecond a slot places it at.
      .filter((b) => planTrips(b).kind === 'whole')
      .sort((a, b) => a.samples.length - b.samples.length);
    const engine = loadScoringEngine();
    for (const batch of simulated) {
      const telemetryGz = gzipSync(JSON.stringify(batch));
      const scored = await scoreStoredTrip(engine, graph, { telemetryGz, previousTrips: [] });
      startOffsets.set(batch, scored.startMs - firstFix(batch));
    }
  }
  return simulated;
}

/** `batch` moved to start at `startMs`, in `plate`, driven by `driverId`, with its own trip id. */
function placed(batch: TelemetryBatch, slot: Slot): TelemetryBatch {
  const shift = slot.startMs - startOffsets.get(batch)! - firstFix(batch);
  const { driverId: _driver, machineType: _type, ...rest } = batch as TelemetryBatch & { machineType?: string };
  return {
    ...rest,
    vehicle: PLATES[slot.vehicle]!,
    clientTripId: `consist:${slot.key}`,
    ...(slot.driverId ? { driverId: slot.driverId } : {}),
    samples: batch.samples.map((x) => ({ ...x, t: x.t + shift })),
  } as TelemetryBatch;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/** Distance-weighted mean of `value` over `items` (plain mean when all distances are 0); null without items. */
function weighted(items: Item[], value: (i: Item) => number | null): number | null {
  const measured = items.filter((i) => value(i) !== null);
  if (measured.length === 0) return null;
  const d = measured.reduce((a, i) => a + i.distanceKm, 0);
  if (d > 0) return measured.reduce((a, i) => a + value(i)! * i.distanceKm, 0) / d;
  return measured.reduce((a, i) => a + value(i)!, 0) / measured.length;
}

/** A shown score is the true figure rounded to 0.1 (README "Vehicle profile"); its tier is the shown score's. */
function expectScore(shown: number | null, exact: number | null, what: string) {
  if (exact === null) {
    expect(shown, what).toBeNull();
    return;
  }
  expect(shown, what).not.toBeNull();
  expect(Math.abs(shown! - exact), `${what}: shown ${shown}, from the trips ${exact}`).toBeLessThanOrEqual(0.05 + 1e-9);
}

/** The trend the README describes, from the two shown scores and the trips of both windows. */
function expectTrend(
  trend: { direction: string; change?: number | null; previousScore: number | null },
  score: number | null,
  trips: number,
  previousTrips: number,
  what: string,
) {
  if (score === null || trend.previousScore === null || trips < 3 || previousTrips < 3) {
    expect([trend.direction, trend.change], `${what} trend`).toEqual(['insufficient_data', null]);
    return;
  }
  const change = round1(score - trend.previousScore);
  const direction = change >= 2 ? 'improving' : change <= -2 ? 'worsening' : 'stable';
  expect([trend.direction, trend.change], `${what} trend`).toEqual([direction, change]);
}

const sum = (items: Item[], f: (i: Item) => number) => items.reduce((a, i) => a + f(i), 0);
const lastStart = (items: Item[]) =>
  items.length === 0
    ? null
    : items
        .map((i) => i.startDate)
        .sort()
        .at(-1)!;
const inRange = (items: Item[], lo: string, hi: string) => items.filter((i) => i.startDate >= lo && i.startDate < hi);

describe.each(testDialects())('read API consistency on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let graph: RoadGraph;
    let app: FastifyInstance;
    const tokens: Record<string, string> = {};
    const tripOfKey = new Map<string, string>();
    let checkedTrips = 0;
    const clock = () => NOW;

    const get = async (url: string, token: string, fleet?: string) => {
      const res = await app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${token}`, ...(fleet ? { 'x-fleet-id': fleet } : {}) },
      });
      return { status: res.statusCode, body: res.json() as Record<string, unknown> & { ok: boolean } };
    };

    const sender = (fleetId: string) => ({ fleetId, vehicleId: null, keyId: null, source: 'test' });
    const upload = async (batch: TelemetryBatch, fleetId: string) => {
      const { tripId } = await acceptUpload(database.db, sender(fleetId), String(batch.clientTripId), batch, NOW);
      tripOfKey.set(String(batch.clientTripId).replace('consist:', ''), tripId);
      return tripId;
    };

    beforeAll(async () => {
      graph = generateCity({ seed: 7 });
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      await createFleet(database.db, { name: 'Consistency A', fleetId: FLEET_A });
      await createFleet(database.db, { name: 'Consistency B', fleetId: FLEET_B });
      for (const [v, plate] of Object.entries(PLATES)) {
        await createVehicle(database.db, { fleetId: FLEET_OF[v]!, plate, machineType: v === 'A2' ? 'van' : 'car' });
      }
      await createVehicle(database.db, { fleetId: FLEET_A, plate: 'FAIL-1' });
      const environment = 'sandbox';
      tokens.a = (await createApiToken(database.db, { environment, fleets: [FLEET_A] })).secret;
      tokens.b = (await createApiToken(database.db, { environment, fleets: [FLEET_B] })).secret;
      tokens.admin = (
        await createApiToken(database.db, { environment, fleets: [FLEET_A, FLEET_B], admin: true })
      ).secret;
      app = await sandboxApiApp(database, NOW);

      const plan = slots();
      const batches = await simulatedBatches(graph, plan.length);
      const worker = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      // In the order driven, except `day-3` (arrives after `day-4` was scored: `day-4` is scored again).
      for (const [i, slot] of plan.entries()) {
        if (slot.key === 'day-3') continue;
        await upload(placed(batches[i % batches.length]!, slot), FLEET_OF[slot.vehicle]!);
      }
      await worker.drain();
      const late = plan.findIndex((p) => p.key === 'day-3');
      await upload(placed(batches[late % batches.length]!, plan[late]!), FLEET_A);
      // An upload the engine cannot score (40 s of driving): failed, never listed.
      await upload(
        {
          ...scorableTrip({ startMs: NOW - 3 * DAY_MS, vehicle: 'CA-100-AA', seed: 3, minutes: 0.7 }),
          clientTripId: 'consist:too-short',
          driverId: 'drv-a1',
        },
        FLEET_A,
      );
      await worker.drain();
    }, 240_000);

    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    /** Walks every page of `query` (limit `limit`) and checks each page against the others; returns the items. */
    async function walk(query: string, token: string, fleet?: string, limit = 10): Promise<Item[]> {
      const items: Item[] = [];
      let total: number | undefined;
      for (let page = 1; ; page++) {
        const sep = query ? '&' : '';
        const { status, body } = await get(`/v1/trips?${query}${sep}limit=${limit}&page=${page}`, token, fleet);
        expect(status, `${query} page ${page}: ${JSON.stringify(body)}`).toBe(200);
        const trips = body.trips as Item[];
        const pagination = body.pagination as Pagination;
        total ??= pagination.total;
        expect(pagination, `${query} page ${page}`).toEqual({
          page,
          limit,
          total,
          totalPages: Math.ceil(total / limit),
        });
        const expected = Math.max(0, Math.min(limit, total - (page - 1) * limit));
        expect(trips.length, `${query}: items on page ${page} of ${total}`).toBe(expected);
        items.push(...trips);
        if (trips.length === 0) break;
      }
      expect(items.length, `${query}: items walked against pagination.total`).toBe(total);
      expect(new Set(items.map((i) => i.tripId)).size, `${query}: no trip on two pages`).toBe(items.length);
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [items[i - 1]!, items[i]!];
        const ordered = a.startDate > b.startDate || (a.startDate === b.startDate && a.tripId > b.tripId);
        expect(ordered, `${query}: ${a.tripId} (${a.startDate}) before ${b.tripId} (${b.startDate})`).toBe(true);
      }
      return items;
    }

    interface Snapshot {
      all: Item[];
      themes: Map<string, Record<Theme, number | null>>;
    }

    /** Every trip as the list shows it, each one checked against its own resources. */
    async function snapshot(): Promise<Snapshot> {
      const all = await walk('', tokens.admin!, undefined, 100);
      // Every scored upload is listed, and nothing else.
      const scored = await database.db
        .selectFrom('trip_uploads')
        .select('trip_id')
        .where('status', '=', 'scored')
        .execute();
      expect(all.map((i) => i.tripId).sort()).toEqual(scored.map((r) => r.trip_id).sort());
      const themes = new Map<string, Record<Theme, number | null>>();
      for (const item of all) {
        const token = item.fleetId === FLEET_A ? tokens.a! : tokens.b!;
        const trip = (await get(`/v1/trips/${item.tripId}`, token)).body.trip as Item & {
          summary: { distanceKm: number; durationMin: number; eventCounts: Record<string, number> };
          weakestTheme: { id: string };
          links: { gps: string | null };
        };
        const { summary, weakestTheme, links, ...rest } = trip;
        // The single trip carries the list item's fields with the same values.
        expect(Object.fromEntries(Object.keys(item).map((k) => [k, (rest as Record<string, unknown>)[k]]))).toEqual(
          item,
        );
        expect(item.tier).toBe(tierOf(item.overallScore));
        const minutes = (Date.parse(item.endDate) - Date.parse(item.startDate)) / MINUTE_MS;
        expect(Math.abs(item.durationMin - minutes), `${item.tripId} durationMin`).toBeLessThanOrEqual(0.005 + 1e-9);
        expect([summary.distanceKm, summary.durationMin], `${item.tripId} summary`).toEqual([
          item.distanceKm,
          item.durationMin,
        ]);
        const breakdown = (await get(`/v1/trips/${item.tripId}/score-breakdown`, token)).body.breakdown as {
          tripId: string;
          overallScore: number;
          mapMatched: boolean;
          weakestTheme: { id: string };
          themes: Array<{ id: Theme; themeScore: number | null; available: boolean }>;
        };
        expect([breakdown.tripId, breakdown.overallScore, breakdown.mapMatched, breakdown.weakestTheme.id]).toEqual([
          item.tripId,
          item.overallScore,
          item.mapMatched,
          weakestTheme.id,
        ]);
        themes.set(
          item.tripId,
          Object.fromEntries(breakdown.themes.map((t) => [t.id, t.available ? t.themeScore : null])) as Record<
            Theme,
            number | null
          >,
        );
        const route = await get(`/v1/trips/${item.tripId}/route`, token);
        if (links.gps === null) {
          expect(route.status).toBe(404);
        } else {
          expect(links.gps).toBe(`/v1/trips/${item.tripId}/route`);
          expect(route.status).toBe(200);
          expect([route.body.tripId, route.body.mapMatched]).toEqual([item.tripId, item.mapMatched]);
          const events = (route.body.features as Array<{ properties: { kind: string; eventType?: string } }>)
            .filter((f) => f.properties.kind === 'event')
            .map((f) => f.properties.eventType!);
          const counted: Record<string, number> = {};
          for (const e of events) counted[e] = (counted[e] ?? 0) + 1;
          const summaryCounts = Object.fromEntries(Object.entries(summary.eventCounts).filter(([, n]) => n > 0));
          expect(counted, `${item.tripId}: route events against summary.eventCounts`).toEqual(summaryCounts);
        }
        // Out of scope is a 404, as absent.
        const other = item.fleetId === FLEET_A ? tokens.b! : tokens.a!;
        expect((await get(`/v1/trips/${item.tripId}`, other)).status).toBe(404);
      }
      checkedTrips += all.length;
      return { all, themes };
    }

    /** What a window's trips add up to, as a client computes it from the list and the breakdowns. */
    function expectWindowSums(
      shown: {
        trips: number;
        distanceKm: number;
        durationMin: number;
        score: number | null;
        tier: string | null;
        lastTripDate: string | null;
        themes: Array<{ id: Theme; score: number | null }>;
        weakestTheme: { id: Theme } | null;
      },
      items: Item[],
      snap: Snapshot,
      what: string,
    ) {
      expect(shown.trips, `${what} trips`).toBe(items.length);
      expect(Math.abs(shown.distanceKm - sum(items, (i) => i.distanceKm)), `${what} distanceKm`).toBeLessThanOrEqual(
        0.005 + 1e-9,
      );
      expect(Math.abs(shown.durationMin - sum(items, (i) => i.durationMin)), `${what} durationMin`).toBeLessThanOrEqual(
        0.05 + 1e-9,
      );
      expectScore(
        shown.score,
        weighted(items, (i) => i.overallScore),
        `${what} score`,
      );
      expect(shown.tier, `${what} tier`).toBe(shown.score === null ? null : tierOf(shown.score));
      expect(shown.lastTripDate, `${what} lastTripDate`).toBe(lastStart(items));
      for (const theme of THEMES) {
        const t = shown.themes.find((x) => x.id === theme)!;
        expectScore(
          t.score,
          weighted(items, (i) => snap.themes.get(i.tripId)![theme]),
          `${what} theme ${theme}`,
        );
      }
      const lowest = shown.themes
        .filter((t) => t.score !== null)
        .reduce<(typeof shown.themes)[number] | null>((w, t) => (w === null || t.score! < w.score! ? t : w), null);
      expect(shown.weakestTheme?.id ?? null, `${what} weakestTheme`).toBe(lowest?.id ?? null);
    }

    async function checkVehicles(snap: Snapshot) {
      for (const window of WINDOWS) {
        const listed = new Map<string, Record<string, unknown>>();
        for (const [token, fleet] of [
          [tokens.a!, FLEET_A],
          [tokens.b!, FLEET_B],
        ] as const) {
          for (let page = 1; ; page++) {
            const { body } = await get(`/v1/vehicles?window=${window}&limit=10&page=${page}`, token);
            const vehicles = body.vehicles as Array<Record<string, unknown>>;
            expect((body.pagination as Pagination).total).toBe(fleet === FLEET_A ? 5 : 1);
            for (const v of vehicles) {
              expect(v.fleetId).toBe(fleet);
              listed.set(v.plate as string, v);
            }
            if (vehicles.length < 10) break;
          }
        }
        expect([...listed.keys()].sort()).toEqual(Object.values(PLATES).concat('FAIL-1').sort());
        for (const [plate, row] of listed) {
          const token = row.fleetId === FLEET_A ? tokens.a! : tokens.b!;
          const { body } = await get(`/v1/vehicles/${plate}?window=${window}`, token);
          const profile = body.vehicle as Parameters<typeof expectWindowSums>[0] & {
            window: { from: string; to: string };
            trend: {
              direction: string;
              change: number | null;
              previousScore: number | null;
              previousWindow: { from: string; to: string };
            };
            lifetime: { trips: number; distanceKm: number; firstTripDate: string | null; lastTripDate: string | null };
            drivers: Array<{
              driverId: string | null;
              trips: number;
              distanceKm: number;
              score: number | null;
              tier: string | null;
              lastTripDate: string;
            }>;
          };
          const what = `${plate} window ${window}`;
          expect(profile.window.from).toBe(new Date(from(window)).toISOString());
          const ofVehicle = snap.all.filter((i) => i.vehicle === plate);
          const items = inRange(ofVehicle, profile.window.from, profile.window.to);
          // The trips summed are the ones the list gives for the window's bounds (by start time).
          const range = `from=${profile.window.from}&to=${profile.window.to}`;
          expect((await walk(`vehicle=${plate}&${range}`, token)).map((i) => i.tripId)).toEqual(
            items.map((i) => i.tripId),
          );
          expectWindowSums(profile, items, snap, what);
          // The list row is the profile without trend, lifetime and roster.
          const { trend, lifetime, drivers, window: _w, ...summary } = profile;
          expect(row, `${what}: list row against profile`).toEqual(summary);
          // Trend: the window before, summed the same way.
          const previous = inRange(ofVehicle, trend.previousWindow.from, trend.previousWindow.to);
          expectScore(
            trend.previousScore,
            weighted(previous, (i) => i.overallScore),
            `${what} previous score`,
          );
          expectTrend(trend, profile.score, items.length, previous.length, what);
          expect(lifetime.trips, `${what} lifetime`).toBe(ofVehicle.length);
          expect(Math.abs(lifetime.distanceKm - sum(ofVehicle, (i) => i.distanceKm))).toBeLessThanOrEqual(0.005 + 1e-9);
          expect(lifetime.lastTripDate).toBe(lastStart(ofVehicle));
          expect(lifetime.firstTripDate).toBe(ofVehicle.map((i) => i.startDate).sort()[0] ?? null);
          // The roster: each driver of the window (null: trips without an identified driver).
          const byDriver = new Map<string | null, Item[]>();
          for (const i of items) byDriver.set(i.driverId, [...(byDriver.get(i.driverId) ?? []), i]);
          expect(drivers.map((d) => d.driverId).sort(), `${what} roster`).toEqual([...byDriver.keys()].sort());
          for (const d of drivers) {
            const mine = byDriver.get(d.driverId)!;
            const who = `${what} roster ${d.driverId}`;
            expect(d.trips, who).toBe(mine.length);
            expect(Math.abs(d.distanceKm - sum(mine, (i) => i.distanceKm)), who).toBeLessThanOrEqual(0.005 + 1e-9);
            expectScore(
              d.score,
              weighted(mine, (i) => i.overallScore),
              `${who} score`,
            );
            expect(d.tier, who).toBe(d.score === null ? null : tierOf(d.score));
            expect(d.lastTripDate, who).toBe(lastStart(mine));
          }
          expect(sum(drivers as unknown as Item[], (d) => (d as unknown as { trips: number }).trips)).toBe(
            profile.trips,
          );
        }
      }
    }

    async function checkFleets(snap: Snapshot) {
      for (const window of WINDOWS) {
        const { body } = await get(`/v1/fleets?window=${window}`, tokens.admin!);
        const fleets = body.fleets as Array<
          Parameters<typeof expectWindowSums>[0] & { fleetId: string; window: { from: string; to: string } }
        >;
        expect(fleets.map((f) => f.fleetId).sort()).toEqual([FLEET_A, FLEET_B]);
        const vehicles = (await get(`/v1/vehicles?window=${window}&limit=100`, tokens.admin!)).body.vehicles as Array<{
          fleetId: string;
          trips: number;
          distanceKm: number;
          durationMin: number;
          score: number | null;
          tier: string | null;
          plate: string;
        }>;
        for (const fleet of fleets) {
          const what = `${fleet.fleetId} window ${window}`;
          const items = inRange(
            snap.all.filter((i) => i.fleetId === fleet.fleetId),
            fleet.window.from,
            fleet.window.to,
          );
          expectWindowSums(fleet, items, snap, what);
          // The fleet's sums are its vehicles' added up (each vehicle rounded as shown).
          const own = vehicles.filter((v) => v.fleetId === fleet.fleetId);
          expect(fleet.trips, `${what}: trips against its vehicles`).toBe(
            sum(own as unknown as Item[], (v) => (v as unknown as { trips: number }).trips),
          );
          expect(Math.abs(fleet.distanceKm - own.reduce((a, v) => a + v.distanceKm, 0))).toBeLessThanOrEqual(
            0.005 * (own.length + 1) + 1e-9,
          );
          const profile = (await get(`/v1/fleets/${fleet.fleetId}?window=${window}`, tokens.admin!)).body.fleet as {
            vehicles: { total: number; withTrips: number; byTier: Record<string, number> };
            riskiestVehicles: Array<{ plate: string; score: number | null }>;
            score: number | null;
            trips: number;
          };
          expect([profile.score, profile.trips]).toEqual([fleet.score, fleet.trips]);
          expect(profile.vehicles.withTrips).toBe(own.filter((v) => v.trips > 0).length);
          const byTier: Record<string, number> = { Critical: 0, Fair: 0, Good: 0, Safe: 0 };
          for (const v of own) if (v.tier) byTier[v.tier]!++;
          expect(profile.vehicles.byTier).toEqual(byTier);
          const riskiest = own
            .filter((v) => v.score !== null)
            .sort((x, y) => x.score! - y.score! || (x.plate < y.plate ? -1 : 1))
            .slice(0, 5);
          for (const [tier, n] of Object.entries(profile.vehicles.byTier)) {
            const filtered = await get(`/v1/vehicles?window=${window}&tier=${tier}`, tokens.admin!, fleet.fleetId);
            expect((filtered.body.pagination as Pagination).total, `${what} ${tier} vehicles`).toBe(n);
          }
          expect(profile.riskiestVehicles.map((v) => [v.plate, v.score])).toEqual(
            riskiest.map((v) => [v.plate, v.score]),
          );
        }
      }
    }

    async function checkDrivers(snap: Snapshot) {
      for (const window of WINDOWS) {
        const { body } = await get(`/v1/drivers?window=${window}&limit=100`, tokens.admin!);
        const drivers = body.drivers as Array<
          Parameters<typeof expectWindowSums>[0] & { fleetId: string; driverId: string }
        >;
        const registered = await database.db.selectFrom('drivers').select(['fleet_id', 'driver_id']).execute();
        expect(drivers.map((d) => `${d.fleetId}/${d.driverId}`).sort()).toEqual(
          registered.map((d) => `${d.fleet_id}/${d.driver_id}`).sort(),
        );
        for (const d of drivers) {
          const what = `${d.fleetId}/${d.driverId} window ${window}`;
          const { body: one } = await get(`/v1/drivers/${d.driverId}?window=${window}`, tokens.admin!, d.fleetId);
          const profile = one.driver as typeof d & {
            window: { from: string; to: string };
            vehicles: Array<{
              plate: string;
              trips: number;
              distanceKm: number;
              score: number | null;
              lastTripDate: string;
            }>;
            lifetime: { trips: number };
          };
          const mine = snap.all.filter((i) => i.fleetId === d.fleetId && i.driverId === d.driverId);
          const items = inRange(mine, profile.window.from, profile.window.to);
          expectWindowSums(profile, items, snap, what);
          const {
            trend: _t,
            lifetime,
            vehicles,
            window: _w,
            ...summary
          } = profile as typeof profile & { trend: unknown };
          expect(d, `${what}: list row against profile`).toEqual(summary);
          expect(lifetime.trips).toBe(mine.length);
          const byPlate = new Map<string, Item[]>();
          for (const i of items) byPlate.set(i.vehicle, [...(byPlate.get(i.vehicle) ?? []), i]);
          expect(vehicles.map((v) => v.plate).sort()).toEqual([...byPlate.keys()].sort());
          for (const v of vehicles) {
            const of = byPlate.get(v.plate)!;
            expect(v.trips).toBe(of.length);
            expectScore(
              v.score,
              weighted(of, (i) => i.overallScore),
              `${what} vehicle ${v.plate}`,
            );
            expect(v.lastTripDate).toBe(lastStart(of));
          }
        }
      }
    }

    /** Every filter alone and in combination, in every scope: the pages walked are the full list filtered. */
    async function checkFilters(snap: Snapshot, random: () => number, combinations: number) {
      const rng = { int: (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1)) };
      const plates = [undefined, PLATES.A0, PLATES.A1, PLATES.B0, 'ca-102-aa', 'ZZ-999'];
      const drivers = [undefined, 'drv-a1', 'drv-a2', 'drv-b1', 'drv-nobody'];
      const tiers = [undefined, 'Safe', 'good,fair', 'Critical', 'critical,Fair,GOOD,safe'];
      const ranges: Array<[string | undefined, string | undefined]> = [
        [undefined, undefined],
        [new Date(from(90)).toISOString(), undefined],
        [undefined, new Date(from(30)).toISOString()],
        ['2026-10-25', '2026-10-25'],
        ['2026-10-25T02:30:00%2B02:00', '2026-10-25T02:30:00%2B01:00'],
        ['2026-11-10', '2026-11-11'],
        ['2026-11-11T00:00:00%2B01:00', '2026-11-12T00:00:00%2B01:00'],
        [new Date(from(7)).toISOString(), new Date(NOW).toISOString()],
        ['2026-03-29T02:00:00%2B01:00', '2026-03-29T03:30:00%2B02:00'],
      ];
      const scopes: Array<[string, string, string | undefined, string[]]> = [
        ['fleet a', tokens.a!, undefined, [FLEET_A]],
        ['fleet b', tokens.b!, undefined, [FLEET_B]],
        ['admin', tokens.admin!, undefined, [FLEET_A, FLEET_B]],
        ['admin, x-fleet-id a', tokens.admin!, FLEET_A, [FLEET_A]],
      ];
      const instant = (v: string, end: boolean) => {
        const text = decodeURIComponent(v);
        const ms = /^\d{4}-\d{2}-\d{2}$/.test(text)
          ? Date.parse(`${text}T00:00:00Z`) + (end ? DAY_MS : 0)
          : Date.parse(text);
        return new Date(ms).toISOString();
      };
      const cases: Array<[number, number, number, number, number]> = [];
      // Each filter alone in each scope, then random combinations.
      for (let s = 0; s < scopes.length; s++) {
        for (let p = 1; p < plates.length; p++) cases.push([s, p, 0, 0, 0]);
        for (let d = 1; d < drivers.length; d++) cases.push([s, 0, d, 0, 0]);
        for (let t = 1; t < tiers.length; t++) cases.push([s, 0, 0, t, 0]);
        for (let r = 1; r < ranges.length; r++) cases.push([s, 0, 0, 0, r]);
      }
      for (let c = 0; c < combinations; c++) {
        cases.push([
          rng.int(0, scopes.length - 1),
          rng.int(0, plates.length - 1),
          rng.int(0, drivers.length - 1),
          rng.int(0, tiers.length - 1),
          rng.int(0, ranges.length - 1),
        ]);
      }
      for (const [s, p, d, t, r] of cases) {
        const [label, token, fleet, fleets] = scopes[s]!;
        const plate = plates[p];
        const driver = drivers[d];
        const tier = tiers[t];
        const [lo, hi] = ranges[r]!;
        const params = [
          plate && `vehicle=${encodeURIComponent(plate)}`,
          driver && `driver=${driver}`,
          tier && `tier=${tier}`,
          lo && `from=${lo}`,
          hi && `to=${hi}`,
        ].filter(Boolean);
        const query = params.join('&');
        // A driver id of two fleets in scope is two people: the list asks which one.
        if (driver === 'drv-a1' && fleets.length > 1) {
          const res = await get(`/v1/trips?${query}`, token, fleet);
          expect(res.status, `${label} ${query}`).toBe(400);
          continue;
        }
        const tierSet = tier
          ? new Set(tier.split(',').map((x) => x[0]!.toUpperCase() + x.slice(1).toLowerCase()))
          : null;
        const canonical = plate?.toUpperCase();
        const expected = snap.all.filter(
          (i) =>
            fleets.includes(i.fleetId) &&
            (canonical === undefined || i.vehicle === canonical) &&
            (driver === undefined || i.driverId === driver) &&
            (tierSet === null || tierSet.has(i.tier)) &&
            (lo === undefined || i.startDate >= instant(lo, false)) &&
            (hi === undefined || i.startDate < instant(hi, true)),
        );
        const limit = [10, 13, 100][rng.int(0, 2)]!;
        const walked = await walk(query, token, fleet, limit);
        expect(
          walked.map((i) => i.tripId),
          `${label} ${query}`,
        ).toEqual(expected.map((i) => i.tripId));
        // Each item as the unfiltered list shows it.
        expect(walked).toEqual(expected);
      }
    }

    async function checkAll(seed: number, combinations = 60) {
      const snap = await snapshot();
      await checkVehicles(snap);
      await checkFleets(snap);
      await checkDrivers(snap);
      await checkFilters(snap, prng(seed), combinations);
      return snap;
    }

    it('agrees with itself after ingest (in order, one trip late, one unscorable)', async () => {
      const snap = await checkAll(1, 120);
      expect(snap.all).toHaveLength(slots().length);
      // Each trip starts on the millisecond it was placed at (the edges above are real edges).
      for (const slot of slots()) {
        const item = snap.all.find((i) => i.tripId === tripOfKey.get(slot.key));
        expect(item?.startDate, slot.key).toBe(new Date(slot.startMs).toISOString());
      }
      const status = await database.db
        .selectFrom('trip_uploads')
        .select(['status', 'last_error'])
        .where('trip_id', '=', tripOfKey.get('too-short')!)
        .executeTakeFirstOrThrow();
      expect(status.status).toBe('failed');
      // The trip after the late one was scored again, with it in its context.
      expect((await get(`/v1/trips/${tripOfKey.get('too-short')}`, tokens.a!)).status).toBe(404);
      // Equal start times are ordered by trip id, descending.
      const ties = snap.all.filter((i) => i.startDate === new Date(Date.UTC(2026, 10, 18, 7, 30)).toISOString());
      expect(ties).toHaveLength(3);
    });

    it('agrees with itself after a rescore that changes scores and tiers', async () => {
      // A new model that scores some trips lower (tiers move, day counts and sums must follow).
      const real = inProcessScorer(graph);
      const rescored = ['w90-first', 'dst-end-across', 'day-2', 'tie-1', 'w7-first', 'running'];
      const lower: TripScorer = {
        modelVersion: real.modelVersion,
        async score(input) {
          const scored = await real.score(input);
          const key = (JSON.parse(gunzipSync(input.telemetryGz).toString('utf8')) as TelemetryBatch).clientTripId;
          if (!rescored.includes(String(key).replace('consist:', ''))) return scored;
          const minus = (v: number) => Math.max(0, Math.round((v - 31) * 10) / 10);
          const themes = scored.themes.map((t) => ({
            ...t,
            themeScore: t.themeScore === null ? null : minus(t.themeScore),
          }));
          return {
            ...scored,
            overallScore: minus(scored.overallScore),
            tier: tierOf(minus(scored.overallScore)),
            themes,
          } as ScoredTrip;
        },
        async close() {},
      };
      const ids = rescored.map((k) => tripOfKey.get(k)!);
      for (const table of ['trips', 'trip_uploads']) {
        await sql`update ${sql.table(table)} set model_version = '1.0.0' where trip_id in (${sql.join(ids)})`.execute(
          database.db,
        );
      }
      const before = await snapshot();
      const result = await rescore(database, lower, { clock });
      // Not the failed upload: this model found it unscorable already.
      expect([result.rescored, result.failed]).toEqual([rescored.length, 0]);
      const snap = await checkAll(2);
      for (const id of ids) {
        const was = before.all.find((i) => i.tripId === id)!;
        const now = snap.all.find((i) => i.tripId === id)!;
        expect(now.overallScore).toBeLessThan(was.overallScore);
      }
    });

    it("agrees with itself after a driver's erasure and the retention of location data", async () => {
      // An earlier trip of drv-a2 arrives, is scored and puts `day-2` (scored, listed) back in the queue; the
      // driver is erased before the worker scores `day-2` again.
      const earlier = await upload(
        placed((await simulatedBatches(graph, 0))[1]!, {
          key: 'erased-late',
          startMs: Date.UTC(2026, 10, 19, 7, 15),
          vehicle: 'A3',
          driverId: 'drv-a2',
        }),
        FLEET_A,
      );
      const requeued = tripOfKey.get('day-2')!;
      const statusOf = async (tripId: string) =>
        (
          await database.db
            .selectFrom('trip_uploads')
            .select('status')
            .where('trip_id', '=', tripId)
            .executeTakeFirstOrThrow()
        ).status;
      const worker = new ScoringWorker({ db: database, scorer: inProcessScorer(graph), logger: quietLogger(), clock });
      await worker.runOnce({ tripIds: [earlier] });
      expect(await statusOf(requeued)).toBe('queued');
      // Nothing of theirs is left unscored: a dry run says none would be dropped.
      expect((await driverDataCounts(database.db, { fleetId: FLEET_A, driverId: 'drv-a2' })).unscored).toBe(0);
      const erased = await eraseDriver(database.db, { fleetId: FLEET_A, driverId: 'drv-a2', nowMs: NOW });
      expect(erased.unscored).toBe(0);
      await worker.drain();
      // The trip queued again keeps the score it is listed with, as every scored trip of the driver does, and
      // says so wherever its status is read.
      expect(await statusOf(earlier)).toBe('scored');
      expect(await statusOf(requeued)).toBe('scored');
      const key = await createIngestKey(database.db, { environment: 'sandbox', fleetId: FLEET_A });
      const ingest = await buildIngestApp({ environment: 'sandbox', database, logger: quietLogger(), clock });
      try {
        const res = await ingest.inject({
          method: 'GET',
          url: `/ingest/v1/trips/${requeued}`,
          headers: { authorization: `Bearer ${key.secret}` },
        });
        expect(res.json()).toEqual({ ok: true, tripId: requeued, status: 'scored', tripIds: [requeued], skipped: [] });
      } finally {
        await ingest.close();
      }
      await deleteLocationData(database.db, { beforeMs: from(60), nowMs: NOW, batchSize: 3 });
      const snap = await checkAll(3);
      expect(snap.all.filter((i) => i.driverId === 'drv-a2' && i.fleetId === FLEET_A)).toEqual([]);
      expect((await get('/v1/drivers/drv-a2', tokens.a!)).status).toBe(404);
    });

    it('agrees with itself after a late upload puts later trips back in the queue', async () => {
      // Before `day-1` (drv-a1), in another vehicle of the fleet: `day-1` is scored again.
      const batch = placed((await simulatedBatches(graph, 0))[0]!, {
        key: 'late-arrival',
        startMs: Date.UTC(2026, 10, 19, 4),
        vehicle: 'A3',
        driverId: 'drv-a1',
      });
      const scorer = inProcessScorer(graph);
      const worker = new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock });
      await upload(batch, FLEET_A);
      await worker.drain();
      expect(scorer.scored).toContain('consist:day-1');
      await checkAll(4);
    });

    it('agrees with itself when a trip queued again can no longer be scored', async () => {
      // An earlier trip of drv-b1 puts `tie-2` back in the queue, and the engine (a new release, say) now
      // finds `tie-2` unscorable: it leaves the list, as rescore does with such a trip, instead of staying
      // listed while its upload says failed.
      const real = inProcessScorer(graph);
      const refusing: TripScorer = {
        modelVersion: real.modelVersion,
        async score(input) {
          const batch = JSON.parse(gunzipSync(input.telemetryGz).toString('utf8')) as TelemetryBatch;
          if (batch.clientTripId === 'consist:tie-2') throw new UnscorableTripError('the trip cannot be scored');
          return real.score(input);
        },
        async close() {},
      };
      const dropped = tripOfKey.get('tie-2')!;
      const batch = placed((await simulatedBatches(graph, 0))[2]!, {
        key: 'before-tie-2',
        startMs: Date.UTC(2026, 10, 18, 5),
        vehicle: 'B0',
        driverId: 'drv-b1',
      });
      await upload(batch, FLEET_B);
      await new ScoringWorker({ db: database, scorer: refusing, logger: quietLogger(), clock }).drain();
      const upload2 = await database.db
        .selectFrom('trip_uploads')
        .select(['status', 'last_error'])
        .where('trip_id', '=', dropped)
        .executeTakeFirstOrThrow();
      expect(upload2).toEqual({ status: 'failed', last_error: 'the trip cannot be scored' });
      expect((await get(`/v1/trips/${dropped}`, tokens.b!)).status).toBe(404);
      const snap = await checkAll(5);
      expect(snap.all.map((i) => i.tripId)).not.toContain(dropped);
      expect(checkedTrips).toBeGreaterThan(150);
    });
  });
});
