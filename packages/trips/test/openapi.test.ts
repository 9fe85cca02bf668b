import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { localBaseUrl, openApiText } from '../src/api/openapi-document.ts';
import { eraseDriver } from '../src/store/location-data.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    { get: { responses: Record<string, { $ref?: string; content?: Record<string, { schema: object }> }> } }
  >;
  components: {
    schemas: Record<string, object>;
    responses: Record<string, { content: Record<string, { schema: object }> }>;
  };
};

/** The OpenAPI document in the repository must describe what the service really answers. */
describe('OpenAPI document', () => {
  const doc = JSON.parse(openApiText()) as Doc;
  let database: TripsDatabase;
  let world: World;
  let app: FastifyInstance;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components } as object);
  const schemaOf = (pathKey: string, status: string) => {
    const r = doc.paths[pathKey]!.get.responses[status]!;
    const resolved = r.$ref ? doc.components.responses[r.$ref.split('/').at(-1)!]! : r;
    const [content] = Object.values(resolved.content!);
    // Point local refs at the registered document.
    return JSON.parse(JSON.stringify(content!.schema).replaceAll('"#/components/', '"doc#/components/')) as object;
  };
  const check = (pathKey: string, status: string, body: unknown) => {
    const validate = ajv.compile(schemaOf(pathKey, status));
    const valid = validate(body);
    expect(valid, `${pathKey} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };

  beforeAll(async () => {
    database = await openTripsDatabase({
      environment: 'sandbox',
      sqliteFile: path.join(mkdtempSync(path.join(tmpdir(), 'trips-oas-')), 'o.db'),
    });
    world = await buildWorld(database, { tripsPerFleet: 6 });
    app = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger() });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('is OpenAPI 3.1 and lists exactly the /v1 routes the app serves', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const pathKey of Object.keys(doc.paths)) {
      const url = pathKey.replace(/\{(\w+)\}/g, ':$1');
      expect(app.hasRoute({ method: 'GET', url }), pathKey).toBe(true);
    }
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/v1/trips',
        '/v1/trips/{id}',
        '/v1/trips/{id}/route',
        '/v1/trips/{id}/score-breakdown',
        '/v1/vehicles',
        '/v1/vehicles/{plate}',
        '/v1/drivers',
        '/v1/drivers/{driverId}',
        '/v1/fleets',
        '/v1/fleets/{fleetId}',
      ].sort(),
    );
  });

  it('matches real responses, successful and failed', async () => {
    const fleet = world.fleets[0]!;
    const auth = { authorization: `Bearer ${fleet.token}` };
    const get = async (url: string, headers: Record<string, string> = auth) => app.inject({ url, headers });
    const tripId = fleet.tripIds[0]!;
    check('/v1/trips', '200', (await get('/v1/trips?limit=10&tier=Safe,Good,Fair,Critical')).json());
    check('/v1/trips/{id}', '200', (await get(`/v1/trips/${tripId}`)).json());
    check('/v1/trips/{id}/score-breakdown', '200', (await get(`/v1/trips/${tripId}/score-breakdown`)).json());
    check('/v1/trips/{id}/route', '200', (await get(`/v1/trips/${tripId}/route`)).json());
    check('/v1/vehicles/{plate}', '200', (await get(`/v1/vehicles/${fleet.plates[0]}`)).json());
    check('/v1/vehicles', '200', (await get('/v1/vehicles?sort=-score&limit=10')).json());
    check('/v1/vehicles', '400', (await get('/v1/vehicles?sort=worst')).json());
    check('/v1/drivers/{driverId}', '200', (await get(`/v1/drivers/${fleet.drivers[0]}`)).json());
    check('/v1/drivers/{driverId}', '404', (await get('/v1/drivers/drv-nobody')).json());
    check('/v1/drivers', '200', (await get('/v1/drivers?sort=-score&tier=Safe,Good,Fair,Critical')).json());
    check('/v1/drivers', '400', (await get('/v1/drivers?sort=plate')).json());
    check('/v1/fleets', '200', (await get('/v1/fleets?sort=score')).json());
    check('/v1/fleets', '400', (await get('/v1/fleets?sort=worst')).json());
    check('/v1/fleets/{fleetId}', '200', (await get(`/v1/fleets/${fleet.fleetId}?window=30`)).json());
    check('/v1/fleets/{fleetId}', '400', (await get('/v1/fleets/ALPHA')).json());
    check('/v1/fleets/{fleetId}', '404', (await get('/v1/fleets/fleet_bravo')).json());
    check('/v1/trips', '400', (await get('/v1/trips?limit=7')).json());
    check('/v1/trips', '401', (await get('/v1/trips', {})).json());
    check('/v1/trips', '403', (await get('/v1/trips', { authorization: `Bearer ${world.multiToken}` })).json());
    check('/v1/trips/{id}', '404', (await get('/v1/trips/trip_nothere')).json());
    // A trip whose location data went (here: its driver's erasure): null GPS link, route 404 with its reason.
    const erasedTrip = fleet.tripIds[1]!;
    const { trip } = (await get(`/v1/trips/${erasedTrip}`)).json();
    await eraseDriver(database.db, { fleetId: fleet.fleetId, driverId: trip.driverId, nowMs: Date.now() });
    const after = (await get(`/v1/trips/${erasedTrip}`)).json();
    expect(after.trip.links.gps).toBeNull();
    check('/v1/trips/{id}', '200', after);
    check('/v1/trips/{id}/route', '404', (await get(`/v1/trips/${erasedTrip}/route`)).json());
  });

  it("names where this service listens as the servers' defaults, a wildcard interface by its loopback address", () => {
    expect(localBaseUrl('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(localBaseUrl('0.0.0.0', 8080)).toBe('http://127.0.0.1:8080');
    expect(localBaseUrl('::', 8080)).toBe('http://[::1]:8080');
    expect(localBaseUrl('fd00::5', 8080)).toBe('http://[fd00::5]:8080');
    expect(localBaseUrl('api.internal', 8080)).toBe('http://api.internal:8080');
    expect(localBaseUrl('127.0.0.1', 0)).toBeUndefined();
  });

  it("serves the servers' defaults it is given, and the document as kept in the repository otherwise", async () => {
    const served = await buildApiApp({
      environment: 'sandbox',
      database,
      logger: quietLogger(),
      serverUrls: { production: 'http://127.0.0.1:17000', sandbox: 'http://127.0.0.1:17001' },
    });
    try {
      const defaults = (body: string) =>
        (JSON.parse(body) as { servers: { variables: Record<string, { default: string }> }[] }).servers.map(
          (s) => Object.values(s.variables)[0]!.default,
        );
      expect(defaults((await served.inject({ url: '/openapi.json' })).body)).toEqual([
        'http://127.0.0.1:17000',
        'http://127.0.0.1:17001',
      ]);
      expect((await app.inject({ url: '/openapi.json' })).body).toBe(openApiText());
    } finally {
      await served.close();
    }
  });

  it('requires every field the answers always carry, so a generated client does not type it as optional', async () => {
    // openapi-typescript, openapi-generator and the like turn a property left out of `required` into an optional
    // one (`endDate?: string`): a client of the document then has to test for fields the service always sends.
    type Node = { $ref?: string; allOf?: Node[]; properties?: Record<string, Node>; required?: string[]; items?: Node };
    const resolve = (node: Node): Node => {
      let n = node;
      while (n.$ref) {
        let target: unknown = doc;
        for (const key of n.$ref.split('/').slice(1)) target = (target as Record<string, unknown>)[key];
        n = target as Node;
      }
      return n;
    };
    // Per object schema (by identity): its documented and required properties, and the keys of every instance.
    const seen = new Map<
      Node,
      { name: string; properties: Set<string>; required: Set<string>; always: Set<string> | null }
    >();
    const walk = (value: unknown, node: Node, name: string) => {
      const n = resolve(node);
      const parts = [n, ...(n.allOf ?? []).map(resolve)];
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const properties: Record<string, Node> = Object.assign({}, ...parts.map((p) => p.properties ?? {}));
        if (Object.keys(properties).length === 0) return;
        const entry = seen.get(n) ?? {
          name,
          properties: new Set(Object.keys(properties)),
          required: new Set(parts.flatMap((p) => p.required ?? [])),
          always: null,
        };
        const keys = new Set(Object.keys(value));
        entry.always = entry.always ? new Set([...entry.always].filter((k) => keys.has(k))) : keys;
        seen.set(n, entry);
        for (const [key, child] of Object.entries(value))
          if (properties[key]) walk(child, properties[key], `${name}.${key}`);
      } else if (Array.isArray(value) && n.items) {
        for (const item of value) walk(item, n.items, `${name}[]`);
      }
    };
    const fleet = world.fleets[0]!;
    const headers = { authorization: `Bearer ${fleet.token}` };
    const tripId = fleet.tripIds[0]!;
    for (const [pathKey, url] of [
      ['/v1/trips', '/v1/trips?limit=100'],
      ['/v1/trips/{id}', `/v1/trips/${tripId}`],
      ['/v1/trips/{id}/score-breakdown', `/v1/trips/${tripId}/score-breakdown`],
      ['/v1/trips/{id}/route', `/v1/trips/${tripId}/route`],
      ['/v1/vehicles', '/v1/vehicles?limit=100'],
      ['/v1/vehicles/{plate}', `/v1/vehicles/${fleet.plates[0]}`],
      ['/v1/drivers', '/v1/drivers?limit=100'],
      ['/v1/drivers/{driverId}', `/v1/drivers/${fleet.drivers[0]}`],
      ['/v1/fleets', '/v1/fleets'],
      ['/v1/fleets/{fleetId}', `/v1/fleets/${fleet.fleetId}`],
    ] as const) {
      const res = await app.inject({ url, headers });
      expect(res.statusCode, url).toBe(200);
      walk(res.json(), schemaOf(pathKey, '200') as Node, pathKey);
    }
    const optional = [...seen.values()].flatMap((e) =>
      [...(e.always ?? [])].filter((k) => e.properties.has(k) && !e.required.has(k)).map((k) => `${e.name}.${k}`),
    );
    expect(optional).toEqual([]);
  });

  it('documents the validator headers and the 304 the per-trip resources really send', async () => {
    const fleet = world.fleets[0]!;
    const tripId = fleet.tripIds[0]!;
    const headers = { authorization: `Bearer ${fleet.token}` };
    const responses = doc.paths as unknown as Record<
      string,
      { get: { responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> } }
    >;
    for (const [pathKey, url] of [
      ['/v1/trips/{id}', `/v1/trips/${tripId}`],
      ['/v1/trips/{id}/score-breakdown', `/v1/trips/${tripId}/score-breakdown`],
      ['/v1/trips/{id}/route', `/v1/trips/${tripId}/route`],
    ] as const) {
      const ok = await app.inject({ url, headers });
      const documented = Object.keys(responses[pathKey]!.get.responses['200']!.headers ?? {});
      for (const name of ['etag', 'cache-control']) {
        expect(documented, pathKey).toContain(name);
        expect(ok.headers[name], `${pathKey} ${name}`).toBeDefined();
      }
      const notModified = await app.inject({
        url,
        headers: { ...headers, 'if-none-match': ok.headers.etag as string },
      });
      expect(notModified.statusCode, pathKey).toBe(304);
      expect(responses[pathKey]!.get.responses['304']?.$ref, pathKey).toBe('#/components/responses/NotModified');
    }
  });
});
