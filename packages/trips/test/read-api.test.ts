import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

describe.each(testDialects())('read API on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'GET',
        url,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      });

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 25 });
      app = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger() });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it('lists a fleet token its own trips, newest first, with the pagination block', async () => {
      const alpha = world.fleets[0]!;
      const res = await get('/v1/trips', alpha.token);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.ok).toBe(true);
      expect(body.pagination).toEqual({ page: 1, limit: 20, totalPages: 2, total: 25 });
      expect(body.trips).toHaveLength(20);
      for (const t of body.trips) {
        expect(alpha.tripIds).toContain(t.tripId);
        expect(Object.keys(t)).toEqual(
          expect.arrayContaining([
            'tripId',
            'overallScore',
            'tier',
            'mapMatched',
            'distanceKm',
            'durationMin',
            'startDate',
            'vehicle',
          ]),
        );
      }
      const starts = body.trips.map((t: { startDate: string; tripId: string }) => [t.startDate, t.tripId]);
      const sorted = [...starts].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? 1 : -1) : a[0] < b[0] ? 1 : -1));
      expect(starts).toEqual(sorted);
      const page2 = (await get('/v1/trips?page=2', alpha.token)).json();
      expect(page2.trips).toHaveLength(5);
      const all = [...body.trips, ...page2.trips].map((t: { tripId: string }) => t.tripId);
      expect(new Set(all).size).toBe(25);
    });

    it('admin token without x-fleet-id sees all its fleets; x-fleet-id narrows to one', async () => {
      const all = (await get('/v1/trips?limit=100', world.adminToken)).json();
      expect(all.pagination.total).toBe(50);
      const narrowed = (await get('/v1/trips?limit=100', world.adminToken, { 'x-fleet-id': 'fleet_bravo' })).json();
      expect(narrowed.pagination.total).toBe(25);
      expect(narrowed.trips.every((t: { fleetId: string }) => t.fleetId === 'fleet_bravo')).toBe(true);
    });

    it('answers 404 for a fleet the token does not own, exactly like a fleet that does not exist', async () => {
      const foreign = await get('/v1/trips', world.fleets[0]!.token, { 'x-fleet-id': 'fleet_charlie' });
      const absent = await get('/v1/trips', world.fleets[0]!.token, { 'x-fleet-id': 'fleet_nowhere' });
      expect(foreign.statusCode).toBe(404);
      expect(absent.statusCode).toBe(404);
      expect(foreign.json().error.replace('charlie', 'X')).toBe(absent.json().error.replace('nowhere', 'X'));
    });

    it('answers 404 for another fleet trip, and the same for an unknown trip id', async () => {
      const other = world.fleets[2]!.tripIds[0]!;
      for (const path of ['', '/score-breakdown', '/route']) {
        const res = await get(`/v1/trips/${other}${path}`, world.fleets[0]!.token);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ ok: false, error: `trip ${other} not found` });
        const unknown = await get(`/v1/trips/trip_doesnotexist${path}`, world.fleets[0]!.token);
        expect(unknown.json()).toEqual({ ok: false, error: 'trip trip_doesnotexist not found' });
      }
    });

    it('serves one trip under "trip" with summary metrics and the GPS link', async () => {
      const id = world.fleets[1]!.tripIds[3]!;
      const res = await get(`/v1/trips/${id}`, world.fleets[1]!.token);
      expect(res.statusCode).toBe(200);
      const { trip } = res.json();
      expect(trip.tripId).toBe(id);
      expect(trip.summary).toMatchObject({ distanceKm: expect.any(Number), maxSpeedKmh: expect.any(Number) });
      expect(trip.links.gps).toBe(`/v1/trips/${id}/route`);
      const route = await get(trip.links.gps, world.fleets[1]!.token);
      expect(route.statusCode).toBe(200);
      expect(route.headers['content-type']).toMatch(/application\/geo\+json/);
      const geo = route.json();
      expect(geo).toMatchObject({ ok: true, type: 'FeatureCollection', tripId: id });
      expect(geo.features.map((f: { properties: { kind: string } }) => f.properties.kind)).toEqual([
        'matched-path',
        'gps-trace',
        'event',
      ]);
    });

    it('serves the score breakdown with six themes, their factors and the weakest theme', async () => {
      const id = world.fleets[0]!.tripIds[0]!;
      const res = await get(`/v1/trips/${id}/score-breakdown`, world.fleets[0]!.token);
      const { ok, breakdown } = res.json();
      expect(ok).toBe(true);
      expect(breakdown.tripId).toBe(id);
      expect(breakdown.themes).toHaveLength(6);
      const speeding = breakdown.themes.find((t: { id: string }) => t.id === 'speeding');
      expect(speeding.factors.map((f: { key: string }) => f.key)).toContain('speedingIntensity');
      expect(breakdown.weakestTheme).toEqual({ id: expect.any(String), label: expect.any(String) });
      const distraction = breakdown.themes.find((t: { id: string }) => t.id === 'distraction');
      expect(distraction).toMatchObject({ themeScore: null, available: false });
      expect(distraction.factors[0]).toMatchObject({
        score: null,
        available: false,
        unavailableReason: 'no phone data',
      });
    });

    it('filters by vehicle, driver, tier and date range', async () => {
      const alpha = world.fleets[0]!;
      const token = alpha.token;
      const byVehicle = (
        await get(`/v1/trips?vehicle=${encodeURIComponent(alpha.plates[1]!)}&limit=100`, token)
      ).json();
      expect(byVehicle.trips.length).toBeGreaterThan(0);
      expect(byVehicle.trips.every((t: { vehicle: string }) => t.vehicle === alpha.plates[1])).toBe(true);
      const byDriver = (await get(`/v1/trips?driver=${alpha.drivers[0]}&limit=100`, token)).json();
      expect(byDriver.trips.every((t: { driverId: string }) => t.driverId === alpha.drivers[0])).toBe(true);
      const all = (await get('/v1/trips?limit=100', token)).json().trips as Array<{ tier: string; startDate: string }>;
      const safe = (await get('/v1/trips?tier=safe,good&limit=100', token)).json();
      expect(safe.pagination.total).toBe(all.filter((t) => t.tier === 'Safe' || t.tier === 'Good').length);
      const from = new Date(Date.now() - 10 * 86_400_000);
      const recent = (await get(`/v1/trips?from=${from.toISOString()}&limit=100`, token)).json();
      expect(recent.pagination.total).toBe(all.filter((t) => Date.parse(t.startDate) >= from.getTime()).length);
      // The same instant with its offset written in each ISO 8601 spelling (+05:30, +0530; +05 an hour apart).
      const local = new Date(from.getTime() + 5.5 * 3_600_000).toISOString().slice(0, 19);
      for (const offset of ['%2B05:30', '%2B0530']) {
        const same = (await get(`/v1/trips?from=${local}${offset}&limit=100`, token)).json();
        expect(same.pagination?.total, offset).toBe(recent.pagination.total);
      }
      const hourOnly = new Date(from.getTime() + 5 * 3_600_000).toISOString().slice(0, 19);
      const sameHour = (await get(`/v1/trips?from=${hourOnly}%2B05&limit=100`, token)).json();
      expect(sameHour.pagination?.total).toBe(recent.pagination.total);
    });

    it('serves the vehicle profile with a roster under "vehicle"', async () => {
      const alpha = world.fleets[0]!;
      const res = await get(`/v1/vehicles/${encodeURIComponent(alpha.plates[0]!)}`, alpha.token);
      expect(res.statusCode).toBe(200);
      const { vehicle } = res.json();
      expect(vehicle.plate).toBe(alpha.plates[0]);
      expect(vehicle.score).toEqual(expect.any(Number));
      expect(vehicle.themes).toHaveLength(6);
      expect(vehicle.trips).toBeGreaterThan(0);
      expect(vehicle.drivers.length).toBeGreaterThan(0);
      expect(['improving', 'worsening', 'stable', 'insufficient_data']).toContain(vehicle.trend.direction);
      const foreign = await get(`/v1/vehicles/${encodeURIComponent(alpha.plates[0]!)}`, world.fleets[1]!.token);
      expect(foreign.statusCode).toBe(404);
    });

    it('maps bad input to 400 with a message naming the parameter', async () => {
      const token = world.fleets[0]!.token;
      for (const [url, fragment] of [
        ['/v1/trips?page=abc', 'page must be an integer'],
        ['/v1/trips?page=0', 'page must be an integer'],
        ['/v1/trips?limit=5', 'limit must be an integer from 10 to 100'],
        ['/v1/trips?limit=101', 'limit must be an integer from 10 to 100'],
        ['/v1/trips?limit=1.5', 'limit must be'],
        ['/v1/trips?pgae=2', 'unknown query parameter "pgae"'],
        ['/v1/trips?page=1&page=2', 'more than once'],
        ['/v1/trips?tier=Excellent', 'tier must be'],
        ['/v1/trips?from=yesterday', 'from must be an ISO 8601'],
        ['/v1/trips?from=2026-02-29', 'from must be an ISO 8601'],
        // An impossible day is refused in a date-time too, not rolled over into the next month.
        ['/v1/trips?from=2026-02-29T08:00:00Z', 'from must be an ISO 8601'],
        ['/v1/trips?to=2026-11-31T00:00:00%2B01:00', 'to must be an ISO 8601'],
        ['/v1/trips?to=2026-11-20T00:00:00%2B1', 'to must be an ISO 8601'],
        ['/v1/trips?to=2026-11-20T00:00:00%2B24:00', 'to must be an ISO 8601'],
        ['/v1/trips?to=2026-11-20T00:00:00%2B0260', 'to must be an ISO 8601'],
        // An offset's '+' not percent-encoded arrives as a space: the message says how to send it.
        ['/v1/trips?from=2026-11-20T08:00:00+01:00', 'a "+" in a URL must be sent as %2B'],
        ['/v1/trips/not-a-trip', 'malformed trip id'],
        ['/v1/vehicles/%20%20', 'malformed plate'],
        // A form encoder's '+' for a space is a space in the query string only: the message says how to send it.
        ['/v1/vehicles/AB+12+CD', 'a space in the path must be sent as %20, not "+"'],
        ['/v1/vehicles/AB-1?window=3', 'window must be'],
        // Refused before routing: the message says why, and does not quote a URL of any length back.
        [`/v1/vehicles/${'A'.repeat(3000)}`, 'a path segment is longer than 512 characters'],
        [`/v1/drivers/${'d'.repeat(600)}?limit=10`, 'a path segment is longer than 512 characters'],
        ['/v1/trips/%E0%A4%A', 'malformed request'],
      ] as const) {
        const res = await get(url, token);
        const label = url.slice(0, 80);
        expect(res.statusCode, label).toBe(400);
        expect(res.json().ok).toBe(false);
        expect(res.json().error, label).toContain(fragment);
        expect(res.body.length, label).toBeLessThan(400);
      }
    });

    it('says to send "+" as %2B only when a space shows it was not, not for an impossible date-time that was', async () => {
      const token = world.fleets[0]!.token;
      for (const url of [
        '/v1/trips?to=2026-11-31T00:00:00%2B01:00',
        '/v1/trips?to=2026-11-20T00:00:00%2B24:00',
        '/v1/trips?from=2026-11-20T23:59:60Z',
        '/v1/trips?from=2026-11-20T25:00:00Z',
      ]) {
        const res = await get(url, token);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error, url).toMatch(/^(from|to) must be an ISO 8601 date/);
        expect(res.json().error, url).not.toContain('%2B');
      }
      const spaced = await get('/v1/trips?to=2026-11-20T00:00:00+01:00', token);
      expect(spaced.json().error).toContain('a "+" in a URL must be sent as %2B');
    });

    it('says an ingest key was sent when one is the bearer token, the same for one that exists and one that does not', async () => {
      const real = (await createIngestKey(database.db, { environment: 'sandbox', fleetId: world.fleets[0]!.fleetId }))
        .secret;
      for (const [key, prefix] of [
        [real, 'ingest_sandbox_'],
        [`ingest_sandbox_${'A'.repeat(43)}`, 'ingest_sandbox_'],
        [`ingest_live_${'A'.repeat(43)}`, 'ingest_live_'],
        ['ingest_live_truncated', 'ingest_live_'],
      ] as const) {
        const res = await get('/v1/trips', key);
        expect(res.statusCode, key).toBe(401);
        expect(res.headers['www-authenticate'], key).toMatch(/^Bearer/);
        expect(res.json(), key).toEqual({
          ok: false,
          error: `an ingest key (${prefix}...) was sent as the access token: ingest keys are for the private ingest endpoint; /v1 takes an access token, "trips_sandbox_" followed by 43 base64url characters (npx trips tokens create)`,
        });
      }
    });

    it('maps credential problems to 401 and 403', async () => {
      const cases: Array<[string | undefined, Record<string, string>, number, string]> = [
        [undefined, {}, 401, 'missing Authorization'],
        [undefined, { authorization: 'Basic abc' }, 401, 'malformed Authorization'],
        ['trips_sandbox_short', {}, 401, 'malformed access token'],
        [`trips_sandbox_${'A'.repeat(43)}`, {}, 401, 'unknown access token'],
        [world.expiredToken, {}, 401, 'expired'],
        [world.revokedToken, {}, 401, 'revoked'],
        [`trips_live_${'A'.repeat(43)}`, {}, 403, 'production token'],
        [world.multiToken, {}, 403, 'send x-fleet-id'],
      ];
      for (const [token, headers, status, fragment] of cases) {
        const res = await get('/v1/trips', token, headers);
        expect(res.statusCode, fragment).toBe(status);
        expect(res.json().error).toContain(fragment);
        if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      const narrowed = await get('/v1/trips', world.multiToken, { 'x-fleet-id': 'fleet_alpha' });
      expect(narrowed.statusCode).toBe(200);
    });

    it('says x-fleet-id takes one fleet when it is repeated or lists several (Node joins repeats with ", ")', async () => {
      for (const value of ['fleet_alpha, fleet_bravo', 'fleet_alpha, fleet_alpha', 'fleet_alpha,fleet_bravo']) {
        const res = await get('/v1/trips', world.adminToken, { 'x-fleet-id': value });
        expect(res.statusCode, value).toBe(400);
        expect(res.json()).toEqual({
          ok: false,
          error: 'x-fleet-id is given more than once or names several fleets: give one fleet id',
        });
      }
    });

    it('refuses a misspelt fleet header rather than answer for every fleet the token reaches', async () => {
      // An admin token without x-fleet-id reads all its fleets: a client that wrote fleet-id meant one of them.
      for (const name of ['fleet-id', 'x_fleet_id', 'X-Fleet', 'fleetid', 'x-fleet-ids']) {
        const res = await get('/v1/trips', world.adminToken, { [name]: 'fleet_alpha' });
        expect(res.statusCode, name).toBe(400);
        expect(res.json()).toEqual({
          ok: false,
          error: `the header "${name.toLowerCase()}" is not read: the fleet scope header is x-fleet-id`,
        });
      }
      // Other headers naming a fleet are the client's own business, and x-fleet-id itself is read as ever.
      expect((await get('/v1/trips', world.adminToken, { 'x-fleet-app': 'dashboard' })).statusCode).toBe(200);
      const narrowed = await get('/v1/trips?limit=100', world.adminToken, {
        'x-fleet-id': 'fleet_alpha',
        'fleet-id': 'fleet_bravo',
      });
      expect(narrowed.json().trips.every((t: { fleetId: string }) => t.fleetId === 'fleet_alpha')).toBe(true);
    });

    it('applies a token change made by any writer from the next request on, though the token was cached', async () => {
      // The API caches what a token resolves to; the only thing telling it about a change is the database
      // (api_tokens_version, bumped by triggers), so the changes below are plain SQL, as another node,
      // the CLI (see cli.test.ts) or an operator would make them.
      const db = database.db;
      let now = Date.now();
      const clocked = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger(), clock: () => now });
      try {
        const { secret, token } = await createApiToken(
          db,
          { environment: 'sandbox', fleets: ['fleet_alpha'], expiresAtMs: now + 60_000 },
          now,
        );
        const call = () =>
          clocked.inject({ url: '/v1/trips?limit=100', headers: { authorization: `Bearer ${secret}` } });
        expect((await call()).json().pagination.total).toBe(25);
        expect((await call()).json().pagination.total).toBe(25);

        await db.insertInto('api_token_fleets').values({ token_id: token.tokenId, fleet_id: 'fleet_bravo' }).execute();
        expect((await call()).statusCode).toBe(403);
        await db.updateTable('api_tokens').set({ is_admin: 1 }).where('token_id', '=', token.tokenId).execute();
        expect((await call()).json().pagination.total).toBe(50);

        await db
          .updateTable('api_tokens')
          .set({ rate_limit_per_min: 7777 })
          .where('token_id', '=', token.tokenId)
          .execute();
        expect((await call()).headers['x-ratelimit-limit']).toBe('7777');

        now += 61_000;
        const expired = await call();
        expect(expired.statusCode).toBe(401);
        expect(expired.json().error).toContain('expired');
        await db
          .updateTable('api_tokens')
          .set({ expires_at_ms: now + 60_000 })
          .where('token_id', '=', token.tokenId)
          .execute();
        expect((await call()).statusCode).toBe(200);

        await db.updateTable('api_tokens').set({ revoked_at_ms: now }).where('token_id', '=', token.tokenId).execute();
        const revoked = await call();
        expect(revoked.statusCode).toBe(401);
        expect(revoked.json().error).toContain('revoked');

        await db.deleteFrom('api_token_fleets').where('token_id', '=', token.tokenId).execute();
        await db.deleteFrom('api_tokens').where('token_id', '=', token.tokenId).execute();
        const unknown = await call();
        expect(unknown.statusCode).toBe(401);
        expect(unknown.json().error).toContain('unknown access token');
      } finally {
        await clocked.close();
      }
    });

    it('answers from a cached token only while the store still says what the cache does, on every route', async () => {
      // The list, the trip, its breakdown and its route take the token from this process's cache and confirm it in
      // their own read statement (api/auth.ts, confirmScope). Each change below is made by another writer
      // after the token was cached; the next request must see it, whatever it asked for: data, a trip that is
      // not there, a bad parameter, or a page past the end.
      const db = database.db;
      const alpha = world.fleets[0]!;
      const tripId = alpha.tripIds[0]!;
      const paths = [
        '/v1/trips?limit=100',
        '/v1/trips?limit=100&page=999',
        '/v1/trips?limit=10&tier=Good',
        `/v1/trips?limit=10&vehicle=${alpha.plates[0]}`,
        `/v1/trips/${tripId}`,
        `/v1/trips/${tripId}/score-breakdown`,
        `/v1/trips/${tripId}/route`,
        '/v1/trips/trip_doesnotexist0000000000000000',
        '/v1/trips?limit=7',
        `/v1/trips/${tripId}?unknown=1`,
      ];
      for (const path of paths) {
        const { secret, token } = await createApiToken(db, { environment: 'sandbox', fleets: [alpha.fleetId] });
        const headers = { authorization: `Bearer ${secret}` };
        const first = await app.inject({ url: path, headers });
        expect(first.statusCode, path).toBeLessThan(500);
        expect(first.statusCode, path).not.toBe(401);

        // Moved to another fleet: the same request reads that fleet's data or nothing, never alpha's.
        await db.deleteFrom('api_token_fleets').where('token_id', '=', token.tokenId).execute();
        await db
          .insertInto('api_token_fleets')
          .values({ token_id: token.tokenId, fleet_id: 'fleet_charlie' })
          .execute();
        const moved = await app.inject({ url: path, headers });
        expect(moved.statusCode, path).toBeLessThan(500);
        expect(moved.body, path).not.toContain(alpha.fleetId);
        if (path.includes(tripId)) expect(moved.statusCode, path).toBe(path.includes('?') ? 400 : 404);

        // Revoked: 401 on every path, whatever the request would otherwise have been answered with.
        await db
          .updateTable('api_tokens')
          .set({ revoked_at_ms: Date.now() })
          .where('token_id', '=', token.tokenId)
          .execute();
        const revoked = await app.inject({ url: path, headers });
        expect(revoked.statusCode, path).toBe(401);
        expect(revoked.json(), path).toEqual({ ok: false, error: 'access token has been revoked' });
        expect(revoked.headers.etag, path).toBeUndefined();
      }
    });

    it('rate-limits per token with 429, Retry-After and rate-limit headers', async () => {
      const limited = await buildApiApp({
        environment: 'sandbox',
        database,
        logger: quietLogger(),
        rateLimit: { perMinute: 3 },
      });
      try {
        const a = world.fleets[0]!.token;
        const b = world.fleets[1]!.token;
        for (let i = 0; i < 3; i++) {
          const ok = await limited.inject({ url: '/v1/trips', headers: { authorization: `Bearer ${a}` } });
          expect(ok.statusCode).toBe(200);
          expect(ok.headers['x-ratelimit-limit']).toBe('3');
          expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
        }
        const over = await limited.inject({ url: '/v1/trips', headers: { authorization: `Bearer ${a}` } });
        expect(over.statusCode).toBe(429);
        expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
        expect(over.json()).toMatchObject({ ok: false, error: expect.stringContaining('rate limit exceeded') });
        // Another token has its own budget.
        const other = await limited.inject({ url: '/v1/trips', headers: { authorization: `Bearer ${b}` } });
        expect(other.statusCode).toBe(200);
      } finally {
        await limited.close();
      }
    });

    it('honours a per-token rate limit', async () => {
      const token = await createApiToken(database.db, {
        environment: 'sandbox',
        fleets: ['fleet_charlie'],
        rateLimitPerMin: 1,
      });
      expect((await get('/v1/trips', token.secret)).statusCode).toBe(200);
      expect((await get('/v1/trips', token.secret)).statusCode).toBe(429);
    });

    it('answers unknown endpoints and write methods with 404 and ok: false', async () => {
      const token = world.fleets[0]!.token;
      const res = await get('/v1/nothing', token);
      expect(res.statusCode).toBe(404);
      expect(res.json().ok).toBe(false);
      const post = await app.inject({
        method: 'POST',
        url: '/v1/trips',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(post.statusCode).toBe(404);
      expect(post.json().error).toContain('read-only');
    });

    it('answers a write method with the same 404 whatever body it carries (malformed, too large)', async () => {
      const token = world.fleets[0]!.token;
      for (const [method, url, payload] of [
        ['POST', '/v1/trips', '{not json'],
        ['PUT', '/v1/trips/trip_x', '{"ok":'],
        ['DELETE', '/v1/vehicles/AB-1', '['],
        ['PATCH', '/v1/trips', 'x'.repeat(2 * 1024 * 1024)],
      ] as const) {
        const res = await app.inject({
          method,
          url,
          payload,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual({ ok: false, error: `${method} is not supported: the API is read-only, use GET` });
      }
      const elsewhere = await app.inject({
        method: 'POST',
        url: '/nothing',
        payload: '{not json',
        headers: { 'content-type': 'application/json' },
      });
      expect(elsewhere.statusCode).toBe(404);
      expect(elsewhere.json().error).toContain('no such endpoint: POST /nothing');
    });

    it('serves the OpenAPI document without credentials', async () => {
      const res = await app.inject({ url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      expect(res.json().openapi).toBe('3.1.0');
    });
  });
});
