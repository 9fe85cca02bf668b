import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { prng } from './fixtures/prng.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

/**
 * FUZZ_SEED runs both fuzzers with another seed (a failure names the request; the seed reproduces the run). CI keeps
 * the fixed ones, so that a failure there is reproducible from the commit alone.
 */
const SEED_OFFSET = Number(process.env.FUZZ_SEED ?? 0);

const NASTY = [
  '',
  ' ',
  '0',
  '-1',
  '1e3',
  '1.0',
  '0x10',
  '99999999999999999999999',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  '%',
  '%00',
  '%zz',
  '%E0%A4%A',
  '%F0%9F%92%A9',
  '../../etc/passwd',
  "' OR 1=1 --",
  '"; drop table trips; --',
  '<script>',
  'trip_',
  'trip_../x',
  `trip_${'a'.repeat(300)}`,
  'a'.repeat(2000),
  '\u0000',
  'ü',
  '🚗',
  'Safe,',
  ',',
  '2026-02-30',
  '2026-13-01T00:00:00Z',
  '2026-11-20T08:00:00',
  'fleet_alpha',
  'fleet_ALPHA',
];

describe('fuzzed parameters, headers and ids', () => {
  let database: TripsDatabase;
  let world: World;
  let api: FastifyInstance;
  let ingest: FastifyInstance;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-fuzz-'));
    database = await openTripsDatabase({ environment: 'sandbox', sqliteFile: path.join(dir, 'f.db') });
    world = await buildWorld(database, { tripsPerFleet: 5 });
    api = await buildApiApp({ environment: 'sandbox', database, logger: quietLogger(), rateLimit: { perMinute: 1e6 } });
    ingest = await buildIngestApp({ environment: 'sandbox', database, logger: quietLogger() });
  });
  afterAll(async () => {
    await api?.close();
    await ingest?.close();
    await database?.close();
  });

  it('never answers 500 and always answers { ok, error } with a documented status (4000 requests)', async () => {
    const rnd = prng(42 + SEED_OFFSET);
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
    const enc = (v: string) => (rnd() < 0.5 ? encodeURIComponent(v) : v.replace(/[#?&\s]/g, encodeURIComponent));
    const params = [
      'page',
      'limit',
      'vehicle',
      'driver',
      'tier',
      'from',
      'to',
      'window',
      'sort',
      'machineType',
      'x',
      'page[]',
      '',
    ];
    const tokens = [
      world.fleets[0]!.token,
      world.adminToken,
      world.multiToken,
      'garbage',
      `trips_sandbox_${'A'.repeat(43)}`,
      `trips_live_${'A'.repeat(43)}`,
    ];
    const seen = new Set<number>();
    for (let i = 0; i < 4000; i++) {
      const id = rnd() < 0.3 ? pick(world.fleets[0]!.tripIds) : pick(NASTY);
      const base = pick([
        '/v1/trips',
        `/v1/trips/${enc(id)}`,
        `/v1/trips/${enc(id)}/score-breakdown`,
        `/v1/trips/${enc(id)}/route`,
        `/v1/vehicles/${enc(rnd() < 0.3 ? world.fleets[0]!.plates[0]! : pick(NASTY))}`,
        '/v1/vehicles',
        `/v1/drivers/${enc(rnd() < 0.3 ? world.fleets[0]!.drivers[0]! : pick(NASTY))}`,
        '/v1/fleets',
        '/v1/drivers',
        `/v1/fleets/${enc(rnd() < 0.3 ? world.fleets[0]!.fleetId : pick(NASTY))}`,
        `/v1/${enc(pick(NASTY))}`,
      ]);
      const query = Array.from({ length: Math.floor(rnd() * 4) }, () => `${pick(params)}=${enc(pick(NASTY))}`).join(
        '&',
      );
      const headers: Record<string, string> = {};
      if (rnd() < 0.9)
        headers.authorization = rnd() < 0.8 ? `Bearer ${pick(tokens)}` : pick(NASTY).replace(/[^\x20-\x7e]/g, '');
      if (rnd() < 0.4) headers['x-fleet-id'] = pick(NASTY).replace(/[^\x20-\x7e]/g, '');
      if (rnd() < 0.1) headers['content-type'] = pick(['application/json', 'text/plain', 'multipart/form-data']);
      const method = rnd() < 0.9 ? 'GET' : pick(['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const);
      const url = query ? `${base}?${query}` : base;
      const res = await api.inject({
        method: method as 'GET',
        url,
        headers,
        ...(method === 'POST' ? { payload: pick(NASTY) } : {}),
      });
      seen.add(res.statusCode);
      expect([200, 400, 401, 403, 404, 429], `${method} ${url} ${JSON.stringify(headers)}`).toContain(res.statusCode);
      if (method !== 'HEAD') {
        const body = res.json();
        expect(typeof body.ok, url).toBe('boolean');
        if (!body.ok) expect(typeof body.error, url).toBe('string');
      }
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 401, 403, 404]));
  }, 120_000);

  it('never answers 500 to fuzzed uploads either', async () => {
    const rnd = prng(7 + SEED_OFFSET);
    const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
    const bodies = [
      ...NASTY,
      '{"schemaVersion":1,"samples":[{"type":"gps","t":"x","lon":1,"lat":2}]}',
      '{"schemaVersion":1,"vehicle":{"a":1},"samples":[]}',
      '{"schemaVersion":2,"samples":null}',
      '{"samples":[{"type":"warp"}]}',
      '[1,2,3]',
      '{"type":"header"}\n{"type":"gps","t":1,"lon":2,"lat":3}',
    ];
    for (let i = 0; i < 600; i++) {
      const res = await ingest.inject({
        method: 'POST',
        url: '/ingest/v1/trips',
        payload: pick(bodies),
        headers: {
          authorization: `Bearer ${rnd() < 0.8 ? world.fleets[0]!.ingestKey : pick(NASTY).replace(/[^\x20-\x7e]/g, '')}`,
          'content-type': pick([
            'application/json',
            'application/x-ndjson',
            'text/csv',
            'application/json; charset=utf-8',
          ]),
          ...(rnd() < 0.8 ? { 'idempotency-key': pick([...NASTY, 'fuzz-key-0001']).replace(/[^\x20-\x7e]/g, '') } : {}),
          ...(rnd() < 0.1 ? { 'content-encoding': pick(['gzip', 'br', 'identity']) } : {}),
        },
      });
      expect([200, 202, 400, 401, 403, 404, 413, 429], res.body).toContain(res.statusCode);
      expect(typeof res.json().ok).toBe('boolean');
    }
  });
});
