import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDriver, renameDriver } from '../src/store/drivers.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, sandboxApiApp, type World } from './fixtures/world.ts';

const DAY_MS = 86_400_000;

interface Item {
  tripId: string;
  overallScore: number;
  distanceKm: number;
  startDate: string;
  vehicle: string;
}

describe.each(testDialects())('driver profile on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    const nowMs = Date.now();
    const get = (url: string, token: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 25, nowMs });
      // One id in two fleets, and a driver without trips.
      for (const fleetId of ['fleet_alpha', 'fleet_bravo']) {
        await createDriver(database.db, { fleetId, driverId: 'drv-shared', name: `Shared of ${fleetId}` });
      }
      await createDriver(database.db, { fleetId: 'fleet_alpha', driverId: 'drv-idle', name: 'Idle Driver' });
      app = await sandboxApiApp(database, nowMs, { readerThreads: true });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it("sums the driver's trips of the window as the trip list shows them, vehicle by vehicle", async () => {
      const alpha = world.fleets[0]!;
      for (const driverId of alpha.drivers) {
        const trips = (await get(`/v1/trips?driver=${driverId}&limit=100`, alpha.token)).json().trips as Item[];
        for (const window of [90, 30, 7]) {
          const res = await get(`/v1/drivers/${driverId}?window=${window}`, alpha.token);
          expect(res.statusCode).toBe(200);
          const { driver } = res.json();
          const fromMs = nowMs - window * DAY_MS;
          const inWindow = trips.filter((t) => Date.parse(t.startDate) >= fromMs && Date.parse(t.startDate) < nowMs);
          const where = `${driverId} window ${window}`;
          expect(driver).toMatchObject({
            driverId,
            fleetId: 'fleet_alpha',
            name: `Driver ${driverId}`,
            window: { days: window, from: new Date(fromMs).toISOString(), to: new Date(nowMs).toISOString() },
            trips: inWindow.length,
          });
          expect(driver.lifetime.trips, where).toBe(trips.length);
          const distance = inWindow.reduce((n, t) => n + t.distanceKm, 0);
          expect(driver.distanceKm, where).toBeCloseTo(distance, 1);
          if (inWindow.length > 0) {
            const weighted = inWindow.reduce((n, t) => n + t.overallScore * t.distanceKm, 0) / distance;
            expect(driver.score, where).toBeCloseTo(weighted, 0);
            expect(driver.tier, where).toBe(
              driver.score < 45 ? 'Critical' : driver.score < 65 ? 'Fair' : driver.score < 80 ? 'Good' : 'Safe',
            );
          } else {
            expect(driver.score, where).toBeNull();
          }
          // The vehicles add up to the driver, most driven first.
          const plates = new Map<string, number>();
          for (const t of inWindow) plates.set(t.vehicle, (plates.get(t.vehicle) ?? 0) + 1);
          expect(
            Object.fromEntries(driver.vehicles.map((v: { plate: string; trips: number }) => [v.plate, v.trips])),
            where,
          ).toEqual(Object.fromEntries(plates));
          const distances = driver.vehicles.map((v: { distanceKm: number }) => v.distanceKm);
          expect(distances, where).toEqual([...distances].sort((a, b) => b - a));
          expect(driver.themes, where).toHaveLength(6);
          if (driver.weakestTheme) {
            const scored = driver.themes.filter((t: { score: number | null }) => t.score !== null);
            const lowest = Math.min(...scored.map((t: { score: number }) => t.score));
            expect(driver.themes.find((t: { id: string }) => t.id === driver.weakestTheme.id).score, where).toBe(
              lowest,
            );
          }
          expect(['improving', 'worsening', 'stable', 'insufficient_data'], where).toContain(driver.trend.direction);
        }
      }
    });

    it('answers a driver without trips with empty sums', async () => {
      const { driver } = (await get('/v1/drivers/drv-idle', world.fleets[0]!.token)).json();
      expect(driver).toMatchObject({
        driverId: 'drv-idle',
        name: 'Idle Driver',
        trips: 0,
        score: null,
        tier: null,
        weakestTheme: null,
        distanceKm: 0,
        lastTripDate: null,
        vehicles: [],
        lifetime: { trips: 0, distanceKm: 0, firstTripDate: null, lastTripDate: null },
        trend: { direction: 'insufficient_data', change: null, previousScore: null },
      });
    });

    it('keeps scope: another fleet gets a 404, an id in two fleets of the scope needs x-fleet-id', async () => {
      const [alpha, bravo] = world.fleets as [World['fleets'][0], World['fleets'][0]];
      const foreign = await get(`/v1/drivers/${alpha.drivers[0]}`, bravo.token);
      const absent = await get('/v1/drivers/drv-nobody', bravo.token);
      expect(foreign.statusCode).toBe(404);
      expect(absent.statusCode).toBe(404);
      expect(foreign.json().error.replace(alpha.drivers[0]!, 'X')).toBe(absent.json().error.replace('drv-nobody', 'X'));

      const ambiguous = await get('/v1/drivers/drv-shared', world.adminToken);
      expect(ambiguous.statusCode).toBe(400);
      expect(ambiguous.json().error).toBe(
        'driver id drv-shared exists in fleets fleet_alpha, fleet_bravo: send x-fleet-id with the fleet you mean',
      );
      const narrowed = await get('/v1/drivers/drv-shared', world.adminToken, { 'x-fleet-id': 'fleet_bravo' });
      expect(narrowed.statusCode).toBe(200);
      expect(narrowed.json().driver).toMatchObject({ fleetId: 'fleet_bravo', name: 'Shared of fleet_bravo' });
      // A fleet token sees only its own driver of that id.
      expect((await get('/v1/drivers/drv-shared', alpha.token)).json().driver.fleetId).toBe('fleet_alpha');

      // The trip list filtered by that id asks the same; an id one fleet of the scope knows is that fleet's.
      const ambiguousTrips = await get('/v1/trips?driver=drv-shared', world.adminToken);
      expect(ambiguousTrips.statusCode).toBe(400);
      expect(ambiguousTrips.json().error).toBe(ambiguous.json().error);
      const bravoTrips = await get('/v1/trips?driver=drv-shared', world.adminToken, { 'x-fleet-id': 'fleet_bravo' });
      expect(bravoTrips.json()).toMatchObject({ ok: true, trips: [], pagination: { total: 0 } });
      const one = alpha.drivers[0]!;
      const viaAdmin = (await get(`/v1/trips?driver=${one}&limit=100`, world.adminToken)).json();
      const viaFleet = (await get(`/v1/trips?driver=${one}&limit=100`, alpha.token)).json();
      expect(viaAdmin.pagination.total).toBeGreaterThan(0);
      expect(viaAdmin).toEqual(viaFleet);
    });

    it('shows a new name once the driver is renamed, and refuses a driver or name that does not fit', async () => {
      const alpha = world.fleets[0]!;
      const driverId = alpha.drivers[1]!;
      await renameDriver(database.db, { fleetId: 'fleet_alpha', driverId, name: '  Ada Lovelace ' });
      expect((await get(`/v1/drivers/${driverId}`, alpha.token)).json().driver.name).toBe('Ada Lovelace');
      const listed = (await get('/v1/drivers', alpha.token)).json().drivers as Array<{
        driverId: string;
        name: string;
      }>;
      expect(listed.find((d) => d.driverId === driverId)?.name).toBe('Ada Lovelace');
      await expect(
        renameDriver(database.db, { fleetId: 'fleet_bravo', driverId: 'drv-nobody', name: 'X' }),
      ).rejects.toThrow('driver drv-nobody not found in fleet fleet_bravo (see drivers list)');
      await expect(renameDriver(database.db, { fleetId: 'fleet_alpha', driverId, name: ' ' })).rejects.toThrow(
        'driver name must be 1-200 characters',
      );
    });

    it('answers bad input with 400 naming the parameter', async () => {
      const token = world.fleets[0]!.token;
      const cases: Array<[string, RegExp]> = [
        ['/v1/drivers/drv%20x', /^malformed driver id "drv x"/],
        ['/v1/drivers/drv-alpha-1?window=3', /^window must be an integer from 7 to 365/],
        ['/v1/drivers/drv-alpha-1?limit=10', /^unknown query parameter "limit"; allowed: window/],
      ];
      for (const [url, message] of cases) {
        const res = await get(url, token);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error, url).toMatch(message);
      }
    });
  });
});
