import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { VEHICLE_SORTS } from '../src/store/vehicle-list.ts';
import { createVehicle, updateVehicle } from '../src/store/vehicles.ts';
import { buildWorld, sandboxApiApp, type World } from './fixtures/world.ts';

interface Item {
  plate: string;
  fleetId: string;
  machineType: string;
  score: number | null;
  tier: string | null;
  trips: number;
  distanceKm: number;
  lastTripDate: string | null;
  [field: string]: unknown;
}

/** The order `sort` promises: the field (descending with "-"), vehicles without a value last, then plate. */
function expectedOrder(items: Item[], sort: string): string[] {
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  return [...items]
    .sort((a, b) => {
      // A vehicle without trips in the window has no value to order by but its plate.
      const ka = (a.trips === 0 && field !== 'plate' ? null : a[field]) as number | string | null;
      const kb = (b.trips === 0 && field !== 'plate' ? null : b[field]) as number | string | null;
      if (ka !== kb) {
        if (ka === null) return 1;
        if (kb === null) return -1;
        return (ka < kb ? -1 : 1) * (descending ? -1 : 1);
      }
      return a.plate < b.plate ? -1 : 1;
    })
    .map((v) => v.plate);
}

describe.each(testDialects())('vehicle list on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    let deltaToken: string;
    const deltaPlates: string[] = [];
    const nowMs = Date.now();
    const get = (url: string, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 25, nowMs });
      // A fleet of 23 vehicles without trips, vans among them, to page through.
      await createFleet(database.db, { name: 'Fleet delta', fleetId: 'fleet_delta' });
      for (let v = 0; v < 23; v++) {
        const vehicle = await createVehicle(database.db, {
          fleetId: 'fleet_delta',
          plate: `DE-${String(v).padStart(3, '0')}`,
          machineType: v % 4 === 0 ? 'van' : 'car',
        });
        deltaPlates.push(vehicle.plate);
      }
      deltaToken = (await createApiToken(database.db, { environment: 'sandbox', fleets: ['fleet_delta'] })).secret;
      // A fixed clock: the list and the profiles it is compared with share one window.
      app = await sandboxApiApp(database, nowMs, { readerThreads: true });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it("lists a fleet's vehicles under `vehicles`, each summed exactly as its profile", async () => {
      const alpha = world.fleets[0]!;
      for (const window of [undefined, 7, 30]) {
        const query = window ? `?window=${window}` : '';
        const res = await get(`/v1/vehicles${query}`, alpha.token);
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.ok).toBe(true);
        const days = window ?? 90;
        expect(body.window).toEqual({
          days,
          from: new Date(nowMs - days * 86_400_000).toISOString(),
          to: new Date(nowMs).toISOString(),
        });
        expect(body.pagination).toEqual({ page: 1, limit: 20, totalPages: 1, total: 3 });
        expect(body.vehicles.map((v: Item) => v.plate)).toEqual([...alpha.plates].sort());
        for (const item of body.vehicles as Item[]) {
          const { vehicle } = (await get(`/v1/vehicles/${encodeURIComponent(item.plate)}${query}`, alpha.token)).json();
          expect(item).toEqual({
            plate: vehicle.plate,
            fleetId: alpha.fleetId,
            machineType: vehicle.machineType,
            make: vehicle.make,
            model: vehicle.model,
            score: vehicle.score,
            tier: vehicle.tier,
            themes: vehicle.themes,
            weakestTheme: vehicle.weakestTheme,
            trips: vehicle.trips,
            distanceKm: vehicle.distanceKm,
            durationMin: vehicle.durationMin,
            lastTripDate: vehicle.lastTripDate,
          });
        }
      }
      // The vehicles' trips add up to the fleet's trips that started in the window, [from, to).
      const trips = (await get('/v1/trips?limit=100', alpha.token)).json().trips as Array<{ startDate: string }>;
      expect(trips).toHaveLength(25);
      for (const window of [90, 30, 7]) {
        const from = nowMs - window * 86_400_000;
        const inWindow = trips.filter((t) => Date.parse(t.startDate) >= from && Date.parse(t.startDate) < nowMs);
        const items = (await get(`/v1/vehicles?window=${window}`, alpha.token)).json().vehicles as Item[];
        expect(
          items.reduce((n, v) => n + v.trips, 0),
          `window ${window}`,
        ).toBe(inWindow.length);
      }
    });

    it('shows an admin token every fleet it owns, and x-fleet-id narrows it to one', async () => {
      const all = (await get('/v1/vehicles?limit=100', world.adminToken)).json();
      expect(all.pagination.total).toBe(6);
      expect(new Set(all.vehicles.map((v: Item) => v.fleetId))).toEqual(new Set(['fleet_alpha', 'fleet_bravo']));
      const bravo = (await get('/v1/vehicles', world.adminToken, { 'x-fleet-id': 'fleet_bravo' })).json();
      expect(bravo.vehicles.map((v: Item) => v.plate)).toEqual([...world.fleets[1]!.plates].sort());
      const foreign = await get('/v1/vehicles', world.fleets[0]!.token, { 'x-fleet-id': 'fleet_bravo' });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().ok).toBe(false);
    });

    it('orders by every sort key, vehicles without trips last either way', async () => {
      // Alpha and bravo's six vehicles plus one without trips in alpha.
      const idle = await createVehicle(database.db, { fleetId: 'fleet_alpha', plate: 'AL-IDLE-1' });
      try {
        const baseline = (await get('/v1/vehicles?limit=100', world.adminToken)).json().vehicles as Item[];
        const idleItem = baseline.find((v) => v.plate === idle.plate)!;
        expect(idleItem).toMatchObject({
          score: null,
          tier: null,
          trips: 0,
          distanceKm: 0,
          durationMin: 0,
          lastTripDate: null,
          weakestTheme: null,
        });
        expect((idleItem.themes as Array<{ score: unknown }>).every((t) => t.score === null)).toBe(true);
        for (const sort of ['plate', '-plate', 'score', '-score', 'distanceKm', '-distanceKm', 'trips', '-trips']) {
          const items = (await get(`/v1/vehicles?limit=100&sort=${sort}`, world.adminToken)).json().vehicles as Item[];
          expect(
            items.map((v) => v.plate),
            sort,
          ).toEqual(expectedOrder(baseline, sort));
        }
        // Every order but the plate's, distance and trip count (0 for it) included, as the README says.
        for (const sort of VEHICLE_SORTS.filter((s) => !s.endsWith('plate'))) {
          const items = (await get(`/v1/vehicles?limit=100&sort=${sort}`, world.adminToken)).json().vehicles as Item[];
          expect(items.at(-1)!.plate, sort).toBe(idle.plate);
        }
        // Riskiest first: ascending scores.
        const risky = (await get('/v1/vehicles?limit=100&sort=score', world.adminToken)).json().vehicles as Item[];
        const scores = risky.filter((v) => v.score !== null).map((v) => v.score as number);
        expect(scores).toEqual([...scores].sort((a, b) => a - b));
        expect(new Set(scores).size).toBeGreaterThan(1);
      } finally {
        await database.db.deleteFrom('vehicles').where('plate', '=', idle.plate).execute();
      }
    });

    it('pages through a larger fleet without overlap, and past the end gives an empty page', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const body = (await get(`/v1/vehicles?limit=10&page=${page}`, deltaToken)).json();
        expect(body.pagination).toEqual({ page, limit: 10, totalPages: 3, total: 23 });
        seen.push(...body.vehicles.map((v: Item) => v.plate));
      }
      expect(seen).toEqual([...deltaPlates].sort());
      const past = (await get('/v1/vehicles?limit=10&page=4', deltaToken)).json();
      expect(past).toMatchObject({ ok: true, vehicles: [], pagination: { page: 4, total: 23, totalPages: 3 } });
    });

    it('filters by tier and machine type', async () => {
      const all = (await get('/v1/vehicles?limit=100', world.adminToken)).json().vehicles as Item[];
      for (const tier of ['Safe', 'good,fair', 'Critical,Fair,Good,Safe']) {
        const wanted = new Set(tier.split(',').map((t) => t[0]!.toUpperCase() + t.slice(1).toLowerCase()));
        const body = (await get(`/v1/vehicles?limit=100&tier=${tier}`, world.adminToken)).json();
        const expected = all.filter((v) => v.tier !== null && wanted.has(v.tier)).map((v) => v.plate);
        expect(
          body.vehicles.map((v: Item) => v.plate),
          tier,
        ).toEqual(expected);
        expect(body.pagination.total, tier).toBe(expected.length);
      }
      const vans = (await get('/v1/vehicles?machineType=VAN&limit=100', deltaToken)).json();
      expect(vans.vehicles.map((v: Item) => v.plate)).toEqual(deltaPlates.filter((_, i) => i % 4 === 0));
      expect(vans.vehicles.every((v: Item) => v.machineType === 'van')).toBe(true);
      const both = (await get('/v1/vehicles?machineType=van,car&limit=100', deltaToken)).json();
      expect(both.pagination.total).toBe(23);
    });

    it('shows a vehicle as updated: machine type, make and model', async () => {
      const plate = deltaPlates[22]!;
      const updated = await updateVehicle(database.db, {
        plate: plate.toLowerCase(),
        machineType: 'Truck',
        make: ' MAN ',
      });
      expect(updated).toMatchObject({ plate, machineType: 'truck', make: 'MAN', model: null });
      const trucks = (await get('/v1/vehicles?machineType=truck', deltaToken)).json().vehicles as Item[];
      expect(trucks.map((v) => [v.plate, v.make])).toEqual([[plate, 'MAN']]);
      await expect(updateVehicle(database.db, { plate, machineType: 'tractor' })).rejects.toThrow(
        'machine type "tractor" is invalid: use one of car, van, truck, motorcycle, bus',
      );
      await expect(updateVehicle(database.db, { plate })).rejects.toThrow('nothing to change');
      await expect(updateVehicle(database.db, { plate: 'ZZ-404', model: 'X' })).rejects.toThrow(
        'vehicle ZZ-404 does not exist (see vehicles list)',
      );
      await updateVehicle(database.db, { plate, machineType: 'car' });
    });

    it('answers bad parameters with 400 naming the parameter', async () => {
      const token = world.fleets[0]!.token;
      const cases: Array<[string, RegExp]> = [
        ['sort=speed', /^sort must be one of plate, -plate, score, -score/],
        ['sort=', /^sort must be one of/],
        ['tier=excellent', /^tier must be one or more of Critical, Fair, Good, Safe/],
        ['machineType=plane', /^machineType must be one or more of car, van, truck, motorcycle, bus/],
        ['window=3', /^window must be an integer from 7 to 365/],
        ['limit=5', /^limit must be an integer from 10 to 100/],
        ['page=0', /^page must be an integer from 1/],
        ['vehicle=AB-1', /^unknown query parameter "vehicle"; allowed: page, limit, window, sort, tier, machineType/],
        ['sort=score&sort=plate', /^query parameter "sort" is given more than once/],
      ];
      for (const [query, message] of cases) {
        const res = await get(`/v1/vehicles?${query}`, token);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().ok, query).toBe(false);
        expect(res.json().error, query).toMatch(message);
      }
    });
  });
});
