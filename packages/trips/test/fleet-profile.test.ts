import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierOf } from '../src/scoring/tiers.ts';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createDriver } from '../src/store/drivers.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { buildWorld, sandboxApiApp, type World } from './fixtures/world.ts';

type Item = Record<string, unknown> & {
  fleetId: string;
  name: string;
  score: number | null;
  tier: string | null;
  trips: number;
  distanceKm: number;
  durationMin: number;
  lastTripDate: string | null;
  themes: Array<{ id: string; label: string; score: number | null }>;
  weakestTheme: { id: string; label: string } | null;
  trend: { direction: string; change: number | null; previousScore: number | null };
  vehicles: { total: number; withTrips: number; byTier: Record<string, number> };
  drivers: { total: number };
};
type VehicleItem = { plate: string; fleetId: string; score: number | null; tier: string | null; trips: number };

const DAY_MS = 86_400_000;

describe.each(testDialects())('fleet risk profiles on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    /** A token over alpha, bravo, charlie and twelve fleets without trips (paging and sorting). */
    let brokerToken: string;
    const emptyFleets: string[] = [];
    const nowMs = Date.now();
    const get = (url: string, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });

    /** What a fleet's trips of [lo, hi) add up to, read from the stored trips one by one. */
    async function storedTrips(fleetId: string, lo: number, hi: number) {
      const rows = await database.db
        .selectFrom('trips')
        .select(['trip_id', 'overall_score', 'distance_km', 'duration_min', 'start_ms'])
        .where('fleet_id', '=', fleetId)
        .where('start_ms', '>=', lo)
        .where('start_ms', '<', hi)
        .where('overall_score', 'is not', null)
        .execute();
      return rows.map((r) => ({
        tripId: r.trip_id,
        score: Number(r.overall_score),
        distance: Number(r.distance_km),
        duration: Number(r.duration_min),
        start: Number(r.start_ms),
      }));
    }
    const weighted = (trips: Array<{ score: number; distance: number }>) =>
      trips.reduce((s, t) => s + t.score * t.distance, 0) / trips.reduce((s, t) => s + t.distance, 0);

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 40, nowMs });
      for (let i = 0; i < 12; i++) {
        const fleet = await createFleet(database.db, {
          name: `Empty ${String.fromCharCode(65 + ((i * 5) % 12))}`,
          fleetId: `fleet_empty_${String(i).padStart(2, '0')}`,
        });
        emptyFleets.push(fleet.fleetId);
      }
      // One empty fleet has vehicles and a driver, but no trips.
      await createVehicle(database.db, { fleetId: emptyFleets[0]!, plate: 'EM-000-01' });
      await createVehicle(database.db, { fleetId: emptyFleets[0]!, plate: 'EM-000-02' });
      await createDriver(database.db, { fleetId: emptyFleets[0]!, driverId: 'drv-empty', name: 'Nobody' });
      brokerToken = (
        await createApiToken(database.db, {
          environment: 'sandbox',
          fleets: ['fleet_alpha', 'fleet_bravo', 'fleet_charlie', ...emptyFleets],
          admin: true,
        })
      ).secret;
      app = await sandboxApiApp(database, nowMs, { readerThreads: true });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it("sums a fleet's trips of the window as its trips one by one add up", async () => {
      const alpha = world.fleets[0]!;
      for (const days of [90, 30, 7]) {
        const res = await get(`/v1/fleets/${alpha.fleetId}?window=${days}`, alpha.token);
        expect(res.statusCode).toBe(200);
        const { ok, fleet } = res.json() as { ok: boolean; fleet: Item };
        expect(ok).toBe(true);
        const from = nowMs - days * DAY_MS;
        const trips = await storedTrips(alpha.fleetId, from, nowMs);
        expect(trips.length, `window ${days}`).toBeGreaterThan(0);
        expect(fleet).toMatchObject({
          fleetId: alpha.fleetId,
          name: 'Fleet alpha',
          window: { days, from: new Date(from).toISOString(), to: new Date(nowMs).toISOString() },
          trips: trips.length,
          lastTripDate: new Date(Math.max(...trips.map((t) => t.start))).toISOString(),
          drivers: { total: 2 },
        });
        expect(fleet.distanceKm).toBeCloseTo(
          trips.reduce((s, t) => s + t.distance, 0),
          1,
        );
        expect(fleet.durationMin).toBeCloseTo(
          trips.reduce((s, t) => s + t.duration, 0),
          0,
        );
        // Distance-weighted, rounded to one decimal; the tier is the score's.
        expect(Math.abs((fleet.score as number) - weighted(trips))).toBeLessThanOrEqual(0.05 + 1e-9);
        expect(fleet.tier).toBe(tierOf(fleet.score as number));
      }
    });

    it("weights each theme by distance over the fleet's breakdowns", async () => {
      const alpha = world.fleets[0]!;
      const { fleet } = (await get(`/v1/fleets/${alpha.fleetId}`, alpha.token)).json() as { fleet: Item };
      const trips = await storedTrips(alpha.fleetId, nowMs - 90 * DAY_MS, nowMs);
      const sums = new Map<string, { w: number; d: number }>();
      for (const trip of trips) {
        const { breakdown } = (await get(`/v1/trips/${trip.tripId}/score-breakdown`, alpha.token)).json();
        for (const theme of breakdown.themes as Array<{ id: string; themeScore: number | null }>) {
          if (theme.themeScore === null) continue;
          const s = sums.get(theme.id) ?? { w: 0, d: 0 };
          s.w += theme.themeScore * trip.distance;
          s.d += trip.distance;
          sums.set(theme.id, s);
        }
      }
      expect(fleet.themes.map((t) => t.id)).toEqual([
        'speeding',
        'braking',
        'acceleration',
        'cornering',
        'distraction',
        'exposure',
      ]);
      for (const theme of fleet.themes) {
        const s = sums.get(theme.id);
        if (!s) {
          expect(theme.score, theme.id).toBeNull();
          continue;
        }
        expect(Math.abs((theme.score as number) - s.w / s.d), theme.id).toBeLessThanOrEqual(0.05 + 1e-9);
      }
      const lowest = fleet.themes
        .filter((t) => t.score !== null)
        .reduce((a, b) => ((b.score as number) < (a.score as number) ? b : a));
      expect(fleet.weakestTheme).toEqual({ id: lowest.id, label: lowest.label });
    });

    it("agrees with the fleet's vehicles: totals, tiers and the riskiest vehicles", async () => {
      const alpha = world.fleets[0]!;
      // A vehicle without trips counts as registered, not as one with trips.
      const idle = await createVehicle(database.db, { fleetId: alpha.fleetId, plate: 'AL-IDLE-9' });
      try {
        for (const days of [90, 30]) {
          const { fleet } = (await get(`/v1/fleets/${alpha.fleetId}?window=${days}`, alpha.token)).json();
          const vehicles = (await get(`/v1/vehicles?limit=100&sort=score&window=${days}`, alpha.token)).json()
            .vehicles as VehicleItem[];
          expect(vehicles).toHaveLength(4);
          expect(fleet.vehicles.total).toBe(4);
          expect(fleet.vehicles.withTrips).toBe(vehicles.filter((v) => v.trips > 0).length);
          const byTier = { Critical: 0, Fair: 0, Good: 0, Safe: 0 } as Record<string, number>;
          for (const v of vehicles) if (v.tier) byTier[v.tier]!++;
          expect(fleet.vehicles.byTier).toEqual(byTier);
          expect(fleet.trips).toBe(vehicles.reduce((n, v) => n + v.trips, 0));
          expect(fleet.riskiestVehicles.map((v: VehicleItem) => v.plate)).toEqual(
            vehicles
              .filter((v) => v.score !== null)
              .slice(0, 5)
              .map((v) => v.plate),
          );
          expect(fleet.riskiestVehicles.map((v: VehicleItem) => v.plate)).not.toContain(idle.plate);
        }
      } finally {
        await database.db.deleteFrom('vehicles').where('plate', '=', idle.plate).execute();
      }
    });

    it('compares the window with the one before it', async () => {
      const bravo = world.fleets[1]!;
      for (const days of [7, 30]) {
        const { fleet } = (await get(`/v1/fleets/${bravo.fleetId}?window=${days}`, bravo.token)).json();
        const from = nowMs - days * DAY_MS;
        const previous = await storedTrips(bravo.fleetId, from - days * DAY_MS, from);
        const current = await storedTrips(bravo.fleetId, from, nowMs);
        expect(fleet.trend.previousWindow).toEqual({
          from: new Date(from - days * DAY_MS).toISOString(),
          to: new Date(from).toISOString(),
        });
        if (previous.length === 0) {
          expect(fleet.trend.previousScore).toBeNull();
        } else {
          expect(Math.abs(fleet.trend.previousScore - weighted(previous))).toBeLessThanOrEqual(0.05 + 1e-9);
        }
        if (previous.length >= 3 && current.length >= 3) {
          expect(fleet.trend.change).toBeCloseTo(fleet.score - fleet.trend.previousScore, 5);
          const expected = fleet.trend.change >= 2 ? 'improving' : fleet.trend.change <= -2 ? 'worsening' : 'stable';
          expect(fleet.trend.direction).toBe(expected);
        } else {
          expect(fleet.trend.direction).toBe('insufficient_data');
        }
      }
    });

    it('lists the fleets in scope, each equal to its own profile, and x-fleet-id narrows the list', async () => {
      const res = await get('/v1/fleets', world.adminToken);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.pagination).toEqual({ page: 1, limit: 20, totalPages: 1, total: 2 });
      expect(body.window.days).toBe(90);
      expect(body.fleets.map((f: Item) => f.fleetId)).toEqual(['fleet_alpha', 'fleet_bravo']);
      for (const item of body.fleets as Item[]) {
        const { fleet } = (await get(`/v1/fleets/${item.fleetId}`, world.adminToken)).json();
        const { riskiestVehicles, vehicles, ...summary } = fleet;
        expect(riskiestVehicles.length).toBeGreaterThan(0);
        const { vehicles: listed, ...itemSummary } = item;
        expect(itemSummary).toEqual(summary);
        expect(listed).toEqual({ total: vehicles.total });
      }
      const narrowed = (await get('/v1/fleets', world.adminToken, { 'x-fleet-id': 'fleet_bravo' })).json();
      expect(narrowed.fleets.map((f: Item) => f.fleetId)).toEqual(['fleet_bravo']);
      const own = (await get('/v1/fleets', world.fleets[2]!.token)).json();
      expect(own.fleets.map((f: Item) => f.fleetId)).toEqual(['fleet_charlie']);
    });

    it('never shows a fleet outside the scope: 404 as for a fleet that does not exist', async () => {
      const alphaToken = world.fleets[0]!.token;
      const foreign = await get('/v1/fleets/fleet_charlie', world.adminToken);
      const missing = await get('/v1/fleets/fleet_nowhere', world.adminToken);
      for (const res of [foreign, missing]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().ok).toBe(false);
      }
      expect(foreign.json().error).toBe('fleet fleet_charlie not found');
      expect(missing.json().error).toBe('fleet fleet_nowhere not found');
      // Narrowed to bravo, the admin token no longer reaches alpha.
      const narrowed = await get('/v1/fleets/fleet_alpha', world.adminToken, { 'x-fleet-id': 'fleet_bravo' });
      expect(narrowed.statusCode).toBe(404);
      const notOwned = await get('/v1/fleets', alphaToken, { 'x-fleet-id': 'fleet_bravo' });
      expect(notOwned.statusCode).toBe(404);
      expect(JSON.stringify(notOwned.json())).not.toContain('Fleet bravo');
    });

    it('shows a fleet without trips with null scores and its registered vehicles and drivers', async () => {
      const { fleet } = (await get(`/v1/fleets/${emptyFleets[0]}`, brokerToken)).json();
      expect(fleet).toMatchObject({
        fleetId: emptyFleets[0],
        score: null,
        tier: null,
        trips: 0,
        distanceKm: 0,
        durationMin: 0,
        lastTripDate: null,
        weakestTheme: null,
        trend: { direction: 'insufficient_data', change: null, previousScore: null },
        vehicles: { total: 2, withTrips: 0, byTier: { Critical: 0, Fair: 0, Good: 0, Safe: 0 } },
        drivers: { total: 1 },
        riskiestVehicles: [],
      });
      expect(fleet.themes.every((t: { score: unknown }) => t.score === null)).toBe(true);
    });

    it('orders by every sort key with fleets without trips last, and pages without overlap', async () => {
      const all = (await get('/v1/fleets?limit=100', brokerToken)).json().fleets as Item[];
      expect(all).toHaveLength(15);
      const byName = [...all].sort(
        (a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.fleetId.localeCompare(b.fleetId),
      );
      expect(all.map((f) => f.fleetId)).toEqual(byName.map((f) => f.fleetId));
      for (const sort of [
        'score',
        '-score',
        'distanceKm',
        '-distanceKm',
        'trips',
        '-trips',
        'lastTripDate',
        '-lastTripDate',
      ]) {
        const items = (await get(`/v1/fleets?limit=100&sort=${sort}`, brokerToken)).json().fleets as Item[];
        const key = sort.replace('-', '') as 'score' | 'distanceKm' | 'trips' | 'lastTripDate';
        const withData = items.filter((f) => f[key] !== null && f.trips > 0);
        const values = withData.map((f) => f[key] as number | string);
        const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(values, sort).toEqual(sort.startsWith('-') ? sorted.reverse() : sorted);
        // Fleets without trips last whichever the key and direction (their distance and trips are 0, not a value).
        expect(
          items.map((f) => f.trips > 0),
          sort,
        ).toEqual([true, true, true, ...Array(12).fill(false)]);
      }
      const seen: string[] = [];
      for (let page = 1; page <= 2; page++) {
        const body = (await get(`/v1/fleets?limit=10&page=${page}&sort=-trips`, brokerToken)).json();
        expect(body.pagination).toEqual({ page, limit: 10, totalPages: 2, total: 15 });
        seen.push(...body.fleets.map((f: Item) => f.fleetId));
      }
      expect(new Set(seen).size).toBe(15);
      const past = (await get('/v1/fleets?limit=10&page=3', brokerToken)).json();
      expect(past).toMatchObject({ ok: true, fleets: [], pagination: { page: 3, total: 15, totalPages: 2 } });
    });

    it('answers bad parameters and malformed ids with 400 naming the problem', async () => {
      const token = world.adminToken;
      const cases: Array<[string, RegExp]> = [
        ['/v1/fleets?sort=risk', /^sort must be one of name, -name, score, -score/],
        ['/v1/fleets?window=400', /^window must be an integer from 7 to 365/],
        ['/v1/fleets?limit=500', /^limit must be an integer from 10 to 100/],
        ['/v1/fleets?tier=Safe', /^unknown query parameter "tier"; allowed: page, limit, window, sort/],
        ['/v1/fleets?page=1&page=2', /^query parameter "page" is given more than once/],
        ['/v1/fleets/fleet_alpha?sort=score', /^unknown query parameter "sort"; allowed: window/],
        ['/v1/fleets/fleet_alpha?window=0', /^window must be an integer from 7 to 365/],
        ['/v1/fleets/alpha', /^malformed fleet id "alpha": fleet_ followed by/],
        ['/v1/fleets/fleet_ALPHA', /^malformed fleet id "fleet_ALPHA"/],
        [`/v1/fleets/fleet_${'x'.repeat(70)}`, /^malformed fleet id/],
      ];
      for (const [url, message] of cases) {
        const res = await get(url, token);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().ok, url).toBe(false);
        expect(res.json().error, url).toMatch(message);
      }
    });
  });
});
