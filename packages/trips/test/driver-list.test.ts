import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createDriver } from '../src/store/drivers.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, sandboxApiApp, type World } from './fixtures/world.ts';

type Item = {
  driverId: string;
  fleetId: string;
  name: string | null;
  score: number | null;
  tier: string | null;
  trips: number;
  distanceKm: number;
  lastTripDate: string | null;
  [field: string]: unknown;
};

const DAY_MS = 86_400_000;

describe.each(testDialects())('driver list on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    let echoToken: string;
    const echoDrivers: string[] = [];
    const nowMs = Date.now();
    const get = (url: string, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 30, nowMs });
      // A driver without trips in alpha, and a fleet of 23 drivers without trips to page through.
      await createDriver(database.db, { fleetId: 'fleet_alpha', driverId: 'drv-idle', name: 'Idle Driver' });
      await createFleet(database.db, { name: 'Fleet echo', fleetId: 'fleet_echo' });
      for (let d = 0; d < 23; d++) {
        const driverId = `drv-echo-${String(d).padStart(2, '0')}`;
        await createDriver(database.db, {
          fleetId: 'fleet_echo',
          driverId,
          ...(d % 3 === 0 ? {} : { name: `Echo ${d}` }),
        });
        echoDrivers.push(driverId);
      }
      echoToken = (await createApiToken(database.db, { environment: 'sandbox', fleets: ['fleet_echo'] })).secret;
      app = await sandboxApiApp(database, nowMs, { readerThreads: true });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it("lists a fleet's drivers under `drivers`, each summed exactly as their profile", async () => {
      const alpha = world.fleets[0]!;
      for (const window of [undefined, 7, 30, 365]) {
        const query = window ? `?window=${window}` : '';
        const res = await get(`/v1/drivers${query}`, alpha.token);
        expect(res.statusCode).toBe(200);
        const body = res.json();
        const days = window ?? 90;
        expect(body.window).toEqual({
          days,
          from: new Date(nowMs - days * DAY_MS).toISOString(),
          to: new Date(nowMs).toISOString(),
        });
        expect(body.pagination).toEqual({ page: 1, limit: 20, totalPages: 1, total: 3 });
        expect(body.drivers.map((d: Item) => d.driverId)).toEqual([...alpha.drivers, 'drv-idle'].sort());
        for (const item of body.drivers as Item[]) {
          const { driver } = (await get(`/v1/drivers/${item.driverId}${query}`, alpha.token)).json();
          expect(item).toEqual({
            driverId: driver.driverId,
            fleetId: alpha.fleetId,
            name: driver.name,
            score: driver.score,
            tier: driver.tier,
            themes: driver.themes,
            weakestTheme: driver.weakestTheme,
            trips: driver.trips,
            distanceKm: driver.distanceKm,
            durationMin: driver.durationMin,
            lastTripDate: driver.lastTripDate,
          });
        }
        // The drivers' trips are the fleet's trips of the window (every world trip has a driver).
        const trips = (await get('/v1/trips?limit=100', alpha.token)).json().trips as Array<{ startDate: string }>;
        const from = nowMs - days * DAY_MS;
        const inWindow = trips.filter((t) => Date.parse(t.startDate) >= from && Date.parse(t.startDate) < nowMs);
        expect(
          (body.drivers as Item[]).reduce((n, d) => n + d.trips, 0),
          `window ${days}`,
        ).toBe(inWindow.length);
      }
      const idle = (await get('/v1/drivers', alpha.token)).json().drivers.find((d: Item) => d.driverId === 'drv-idle');
      expect(idle).toMatchObject({ name: 'Idle Driver', score: null, tier: null, trips: 0, lastTripDate: null });
    });

    it('shows an admin token the drivers of every fleet it owns; x-fleet-id narrows it; 404 out of reach', async () => {
      const all = (await get('/v1/drivers?limit=100', world.adminToken)).json();
      expect(all.pagination.total).toBe(5);
      expect(new Set(all.drivers.map((d: Item) => d.fleetId))).toEqual(new Set(['fleet_alpha', 'fleet_bravo']));
      const bravo = (await get('/v1/drivers', world.adminToken, { 'x-fleet-id': 'fleet_bravo' })).json();
      expect(bravo.drivers.map((d: Item) => d.driverId)).toEqual([...world.fleets[1]!.drivers].sort());
      const foreign = await get('/v1/drivers', world.fleets[0]!.token, { 'x-fleet-id': 'fleet_bravo' });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.body).not.toContain('drv-bravo');
    });

    it('orders by every sort key, drivers without a value last either way, and pages without overlap', async () => {
      const baseline = (await get('/v1/drivers?limit=100', world.adminToken)).json().drivers as Item[];
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
        const items = (await get(`/v1/drivers?limit=100&sort=${sort}`, world.adminToken)).json().drivers as Item[];
        const key = sort.replace('-', '') as 'score' | 'distanceKm' | 'trips' | 'lastTripDate';
        const values = items.map((d) => (d.trips === 0 ? null : d[key]));
        const present = values.filter((v) => v !== null) as Array<number | string>;
        const sorted = [...present].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(present, sort).toEqual(sort.startsWith('-') ? sorted.reverse() : sorted);
        // Nulls (the idle driver's score and last trip) come last in both directions.
        expect(values.slice(present.length).every((v) => v === null)).toBe(true);
        // So does the driver without trips for every key: its distance and trip count (0) are no value either.
        expect(items.at(-1)!.driverId, sort).toBe('drv-idle');
        expect(new Set(items.map((d) => d.driverId))).toEqual(new Set(baseline.map((d) => d.driverId)));
      }
      // By name without regard to case; drivers without a name last.
      const byName = (await get('/v1/drivers?limit=100&sort=name', echoToken)).json().drivers as Item[];
      const named = byName.filter((d) => d.name !== null);
      expect(named.map((d) => d.name)).toEqual(
        [...named.map((d) => d.name as string)].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
      );
      expect(byName.slice(named.length).every((d) => d.name === null)).toBe(true);
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const body = (await get(`/v1/drivers?limit=10&page=${page}&sort=-driverId`, echoToken)).json();
        expect(body.pagination).toEqual({ page, limit: 10, totalPages: 3, total: 23 });
        seen.push(...body.drivers.map((d: Item) => d.driverId));
      }
      expect(seen).toEqual([...echoDrivers].reverse());
      const past = (await get('/v1/drivers?limit=10&page=4', echoToken)).json();
      expect(past).toMatchObject({ ok: true, drivers: [], pagination: { page: 4, total: 23, totalPages: 3 } });
    });

    it('registers no driver whose id a client could not reach in a URL path ("." and "..")', async () => {
      for (const driverId of ['.', '..']) {
        await expect(createDriver(database.db, { fleetId: 'fleet_alpha', driverId })).rejects.toThrow(
          `driver id "${driverId}" is invalid: "." and ".." cannot be reached in a URL path`,
        );
      }
      // Dots inside an id, or more of them than a path step has, are an id like any other.
      await createDriver(database.db, { fleetId: 'fleet_alpha', driverId: 'j.smith' });
      await createDriver(database.db, { fleetId: 'fleet_alpha', driverId: '...' });
      const drivers = await database.db
        .selectFrom('drivers')
        .select('driver_id')
        .where('driver_id', 'in', ['.', '..', 'j.smith', '...'])
        .orderBy('driver_id')
        .execute();
      expect(drivers.map((d) => d.driver_id)).toEqual(['...', 'j.smith']);
      await database.db.deleteFrom('drivers').where('driver_id', 'in', ['j.smith', '...']).execute();
    });

    it('filters by tier', async () => {
      const all = (await get('/v1/drivers?limit=100', world.adminToken)).json().drivers as Item[];
      for (const tier of ['Safe', 'good,FAIR', 'Critical,Fair,Good,Safe']) {
        const wanted = new Set(tier.split(',').map((t) => t[0]!.toUpperCase() + t.slice(1).toLowerCase()));
        const body = (await get(`/v1/drivers?limit=100&tier=${tier}`, world.adminToken)).json();
        const expected = all.filter((d) => d.tier !== null && wanted.has(d.tier)).map((d) => d.driverId);
        expect(
          body.drivers.map((d: Item) => d.driverId),
          tier,
        ).toEqual(expected);
      }
    });

    it('answers bad parameters with 400 naming the parameter', async () => {
      const token = world.fleets[0]!.token;
      const cases: Array<[string, RegExp]> = [
        ['sort=plate', /^sort must be one of driverId, -driverId, name, -name, score/],
        ['tier=best', /^tier must be one or more of Critical, Fair, Good, Safe/],
        ['window=366', /^window must be an integer from 7 to 365/],
        ['limit=9', /^limit must be an integer from 10 to 100/],
        ['machineType=van', /^unknown query parameter "machineType"; allowed: page, limit, window, sort, tier/],
        ['tier=Safe&tier=Good', /^query parameter "tier" is given more than once/],
      ];
      for (const [query, message] of cases) {
        const res = await get(`/v1/drivers?${query}`, token);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().ok, query).toBe(false);
        expect(res.json().error, query).toMatch(message);
      }
    });
  });
});
