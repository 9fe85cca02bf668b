import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@svc/platform';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { tripsConfigSpec } from '../src/config.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

const DASHBOARD = 'https://dash.example.com';

/** A browser dashboard on another origin may call the API when its origin is configured, and only then. */
describe('CORS', () => {
  let database: TripsDatabase;
  let world: World;
  let open: FastifyInstance;
  let closed: FastifyInstance;

  beforeAll(async () => {
    database = await openTripsDatabase({
      environment: 'sandbox',
      sqliteFile: path.join(mkdtempSync(path.join(tmpdir(), 'trips-cors-')), 'c.db'),
    });
    world = await buildWorld(database, { tripsPerFleet: 3 });
    open = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger(), corsOrigins: [DASHBOARD] });
    closed = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger() });
  });
  afterAll(async () => {
    await open?.close();
    await closed?.close();
    await database?.close();
  });

  const preflight = (app: FastifyInstance, origin: string) =>
    app.inject({
      method: 'OPTIONS',
      url: '/v1/trips?limit=10',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, x-fleet-id',
      },
    });

  it('answers the preflight of a configured origin, without a token', async () => {
    const res = await preflight(open, DASHBOARD);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD');
    expect(res.headers['access-control-allow-headers']).toBe('authorization, x-fleet-id, x-request-id, if-none-match');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets the configured origin read the answer and its rate-limit headers, errors included', async () => {
    const ok = await open.inject({
      url: '/v1/trips?limit=10',
      headers: { origin: DASHBOARD, authorization: `Bearer ${world.fleets[0]!.token}` },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(String(ok.headers.vary)).toMatch(/origin/i);
    expect(String(ok.headers['access-control-expose-headers'])).toContain('x-ratelimit-remaining');
    expect(String(ok.headers['access-control-expose-headers'])).toContain('etag');
    expect(ok.json().trips).toHaveLength(3);

    const denied = await open.inject({ url: '/v1/trips', headers: { origin: DASHBOARD } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(denied.json().ok).toBe(false);
  });

  it('gives another origin no CORS headers, so its browser keeps the answer from it', async () => {
    const res = await preflight(open, 'https://evil.example');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await open.inject({
      url: '/v1/trips',
      headers: { origin: 'https://evil.example', authorization: `Bearer ${world.fleets[0]!.token}` },
    });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without configured origins keeps OPTIONS a 404 in the API error shape and sends no CORS headers', async () => {
    const res = await preflight(closed, DASHBOARD);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ ok: false, error: 'OPTIONS is not supported: the API is read-only, use GET' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('reads TRIPS_CORS_ORIGINS as a list of bare origins, and refuses anything else with one line', () => {
    const load = (value: string) => loadConfig(tripsConfigSpec, { env: { TRIPS_CORS_ORIGINS: value } }).corsOrigins;
    expect(load(`${DASHBOARD}, http://localhost:5173`)).toEqual([DASHBOARD, 'http://localhost:5173']);
    expect(load('*')).toEqual(['*']);
    expect(load('')).toEqual([]);
    for (const bad of [
      'dash.example.com',
      'https://dash.example.com/',
      'https://dash.example.com/app',
      'ftp://x.org',
    ]) {
      expect(() => load(bad), bad).toThrow(/TRIPS_CORS_ORIGINS must be a comma-separated list of origins/);
    }
  });
});
