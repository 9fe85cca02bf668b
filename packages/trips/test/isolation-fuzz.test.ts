import { testDialects, testRedis } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { createApiToken } from '../src/store/api-tokens.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { prng } from './fixtures/prng.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

/** FUZZ_SEED runs the fuzzer with another seed, as in input-fuzz.test.ts; CI keeps the fixed one. */
const SEED_OFFSET = Number(process.env.FUZZ_SEED ?? 0);

const REQUESTS = 3000;

describe.each(testDialects())('fleet isolation under randomized requests on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let second: TripsDatabase | undefined;
    let world: World;
    const apps: FastifyInstance[] = [];
    let adminCharlie: string;

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 30 });
      adminCharlie = (
        await createApiToken(database.db, { environment: 'sandbox', fleets: ['fleet_charlie'], admin: true })
      ).secret;
      apps.push(
        await buildApiApp({ environment: 'sandbox', database, logger: quietLogger(), rateLimit: { perMinute: 1e6 } }),
      );
      if (dialect.name === 'postgres') {
        // A second node: its own connection pool on the same schema, as a second process would have.
        const schema = (
          await database.db.selectNoFrom((eb) => eb.fn<string>('current_schema').as('s')).executeTakeFirstOrThrow()
        ).s;
        second = await openTripsDatabase({
          environment: 'sandbox',
          url: process.env.TEST_DATABASE_URL!,
          pgSchema: schema,
        });
        apps.push(
          await buildApiApp({
            environment: 'sandbox',
            database: second,
            logger: quietLogger(),
            rateLimit: { perMinute: 1e6 },
          }),
        );
      }
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
      await second?.close();
      await database?.close();
    });

    it(`never returns another fleet's data and answers out-of-scope with 404 (${REQUESTS} requests)`, async () => {
      const [alpha, bravo, charlie] = world.fleets as [World['fleets'][0], World['fleets'][0], World['fleets'][0]];
      const fleetsById = new Map(world.fleets.map((f) => [f.fleetId, f]));
      const tokens = [
        { secret: alpha.token, fleets: ['fleet_alpha'], admin: false },
        { secret: bravo.token, fleets: ['fleet_bravo'], admin: false },
        { secret: charlie.token, fleets: ['fleet_charlie'], admin: false },
        { secret: world.adminToken, fleets: ['fleet_alpha', 'fleet_bravo'], admin: true },
        { secret: world.multiToken, fleets: ['fleet_alpha', 'fleet_bravo'], admin: false },
        { secret: adminCharlie, fleets: ['fleet_charlie'], admin: true },
      ];
      const fleetHeaders = [undefined, undefined, 'fleet_alpha', 'fleet_bravo', 'fleet_charlie', 'fleet_unknown'];
      // Every identifying string of every fleet, to search response bodies for leaks.
      const marks = new Map<string, string[]>();
      for (const f of world.fleets) marks.set(f.fleetId, [f.fleetId, ...f.tripIds, ...f.plates, ...f.drivers]);

      const rnd = prng(20261121 + SEED_OFFSET);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
      const counts = { ok: 0, notFound: 0, forbidden: 0 };
      for (let i = 0; i < REQUESTS; i++) {
        const token = pick(tokens);
        const header = pick(fleetHeaders);
        const target = pick(world.fleets);
        const kind = pick([
          'list',
          'list-vehicle',
          'list-driver',
          'trip',
          'breakdown',
          'route',
          'vehicle',
          'vehicles',
          'driver',
          'fleets',
          'fleet',
          'drivers',
        ] as const);
        const tripId = pick(target.tripIds);
        const plate = pick(target.plates);
        const url = {
          list: `/v1/trips?limit=100&page=${1 + Math.floor(rnd() * 2)}`,
          'list-vehicle': `/v1/trips?vehicle=${encodeURIComponent(plate)}`,
          'list-driver': `/v1/trips?driver=${pick(target.drivers)}&limit=50`,
          trip: `/v1/trips/${tripId}`,
          breakdown: `/v1/trips/${tripId}/score-breakdown`,
          route: `/v1/trips/${tripId}/route`,
          vehicle: `/v1/vehicles/${encodeURIComponent(plate)}`,
          driver: `/v1/drivers/${pick(target.drivers)}?window=${pick([7, 90, 365])}`,
          vehicles: `/v1/vehicles?limit=10&page=${1 + Math.floor(rnd() * 2)}&sort=${pick(['plate', '-score', 'trips'])}`,
          fleets: `/v1/fleets?window=${pick([7, 90, 365])}&sort=${pick(['name', 'score', '-trips'])}`,
          fleet: `/v1/fleets/${target.fleetId}?window=${pick([7, 90, 365])}`,
          drivers: `/v1/drivers?limit=100&sort=${pick(['driverId', 'score', '-trips', 'name'])}`,
        }[kind];
        const res = await pick(apps).inject({
          url,
          headers: { authorization: `Bearer ${token.secret}`, ...(header ? { 'x-fleet-id': header } : {}) },
        });
        const where = `#${i} ${url} token=${token.fleets.join('+')}${token.admin ? '(admin)' : ''} x-fleet-id=${header}`;
        const body = res.json();
        expect(typeof body.ok, where).toBe('boolean');

        let reach: string[] | 'forbidden' | 'not-found';
        if (header !== undefined) reach = token.fleets.includes(header) ? [header] : 'not-found';
        else if (!token.admin && token.fleets.length > 1) reach = 'forbidden';
        else reach = token.fleets;

        if (reach === 'not-found') {
          expect(res.statusCode, where).toBe(404);
          counts.notFound++;
          continue;
        }
        if (reach === 'forbidden') {
          expect(res.statusCode, where).toBe(403);
          counts.forbidden++;
          continue;
        }
        for (const [fleetId, strings] of marks) {
          if (reach.includes(fleetId)) continue;
          // An error message may echo what the caller asked for; anything else is a leak.
          const asked = decodeURIComponent(url);
          for (const s of strings) {
            if (!asked.includes(s)) expect(res.body.includes(s), `${where} leaked ${s} of ${fleetId}`).toBe(false);
          }
        }
        const inReach = reach.includes(target.fleetId);
        if (kind === 'vehicles') {
          expect(res.statusCode, where).toBe(200);
          for (const v of body.vehicles) expect(reach, where).toContain(v.fleetId);
          const expected = reach.reduce((n, f) => n + fleetsById.get(f)!.plates.length, 0);
          expect(body.pagination.total, where).toBe(expected);
        } else if (kind === 'drivers') {
          expect(res.statusCode, where).toBe(200);
          for (const d of body.drivers) expect(reach, where).toContain(d.fleetId);
          const expected = reach.reduce((n, f) => n + fleetsById.get(f)!.drivers.length, 0);
          expect(body.pagination.total, where).toBe(expected);
        } else if (kind === 'fleets') {
          expect(res.statusCode, where).toBe(200);
          expect(body.fleets.map((f: { fleetId: string }) => f.fleetId).sort(), where).toEqual([...reach].sort());
        } else if (kind.startsWith('list')) {
          expect(res.statusCode, where).toBe(200);
          for (const t of body.trips) expect(reach, where).toContain(t.fleetId);
          if (!inReach && kind !== 'list') expect(body.pagination.total, where).toBe(0);
          if (kind === 'list') {
            const expected = reach.reduce((n, f) => n + fleetsById.get(f)!.tripIds.length, 0);
            expect(body.pagination.total, where).toBe(expected);
          }
        } else if (inReach) {
          expect(res.statusCode, where).toBe(200);
          counts.ok++;
        } else {
          expect(res.statusCode, where).toBe(404);
          expect(body.ok, where).toBe(false);
          counts.notFound++;
        }
      }
      // The mix must actually exercise every branch.
      expect(counts.ok).toBeGreaterThan(100);
      expect(counts.notFound).toBeGreaterThan(100);
      expect(counts.forbidden).toBeGreaterThan(10);
    }, 240_000);
  });
});

const redis = testRedis();
describe.skipIf(redis.skip)(`rate limits shared through Redis (${redis.label})`, () => {
  afterAll(() => redis.cleanup());

  it('two nodes with the same Redis count one budget per token', async () => {
    const dir = await import('node:fs').then((fs) =>
      fs.mkdtempSync(`${(process.env.TMPDIR ?? '/tmp').replace(/\/$/, '')}/trips-rl-`),
    );
    const database = await openTripsDatabase({ environment: 'sandbox', sqliteFile: `${dir}/t.db` });
    try {
      const world = await buildWorld(database, { tripsPerFleet: 1 });
      const client = await redis.connect();
      const nodes = [
        await buildApiApp({
          environment: 'sandbox',
          database,
          logger: quietLogger(),
          rateLimit: { perMinute: 10, redis: client },
        }),
        await buildApiApp({
          environment: 'sandbox',
          database,
          logger: quietLogger(),
          rateLimit: { perMinute: 10, redis: client },
        }),
      ];
      const token = world.fleets[0]!.token;
      const statuses: number[] = [];
      for (let i = 0; i < 14; i++) {
        const res = await nodes[i % 2]!.inject({ url: '/v1/trips', headers: { authorization: `Bearer ${token}` } });
        statuses.push(res.statusCode);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
      for (const n of nodes) await n.close();
    } finally {
      await database.close();
    }
  });
});
