import { testDialects } from '@svc/platform/testing';
import { generateCity, type RoadGraph } from '@svc/roads';
import { FACTORS, type TelemetryBatch } from '@svc/scoring';
import { planTrips, simulateFleetTrips } from '@svc/simulator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiText } from '../src/api/openapi-document.ts';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { sandboxFleet } from '../src/sandbox/sandbox-fleet.ts';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { inProcessScorer } from './fixtures/in-process-scorer.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { quietLogger, sandboxApiApp } from './fixtures/world.ts';

type Schema = Record<string, unknown>;
type Factor = { key: string; score: number | null; available: boolean; unavailableReason?: string };
type Doc = {
  paths: Record<
    string,
    { get: { responses: Record<string, { $ref?: string; content?: Record<string, { schema: Schema }> }> } }
  >;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, { content: Record<string, { schema: Schema }> }>;
  };
};

/**
 * A copy of the document's schemas in which an object may hold only the properties its schema names (where the
 * schema says nothing about others): what the service sends must be documented, not merely not contradict it.
 * An `allOf` is closed as a whole (`unevaluatedProperties` sees through it) and its members are left open, nested
 * objects included, since two members may each describe some properties of the same nested object.
 */
function closedSchemas(schemas: Record<string, Schema>): Record<string, Schema> {
  const allOfMembers = new Set<string>();
  const visit = (node: unknown, inAllOf: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, inAllOf));
    if (typeof node !== 'object' || node === null) return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = visit(value, inAllOf || key === 'allOf');
    }
    const open = 'additionalProperties' in out || 'unevaluatedProperties' in out;
    if (!inAllOf && !open && (out.properties !== undefined || out.allOf !== undefined)) {
      out.unevaluatedProperties = false;
    }
    return out;
  };
  for (const schema of Object.values(schemas)) {
    for (const member of (schema.allOf as Schema[] | undefined) ?? []) {
      if (typeof member.$ref === 'string') allOfMembers.add(member.$ref.split('/').at(-1)!);
    }
  }
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, visit(schema, allOfMembers.has(name)) as Schema]),
  );
}

/**
 * The OpenAPI document against what the service answers for trips the real engine scored (the other OpenAPI
 * test uses the fake scorer, whose breakdown has a handful of factors): simulated trips with GPS, IMU and phone
 * data, a GPS-only trip and a truck, each uploaded through the ingest operation and scored by the worker, then
 * every /v1 resource of them validated, every factor of every theme included.
 */
describe.each(testDialects())('OpenAPI document against the real engine on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    const doc = JSON.parse(openApiText()) as Doc;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: { ...doc.components, schemas: closedSchemas(doc.components.schemas) } });
    const check = (pathKey: string, res: { contentType: string; body: unknown }) => {
      const r = doc.paths[pathKey]!.get.responses['200']!;
      expect(Object.keys(r.content!), pathKey).toContain(res.contentType);
      const content = r.content![res.contentType];
      const schema = JSON.parse(JSON.stringify(content!.schema).replaceAll('"#/components/', '"doc#/components/'));
      const validate = ajv.compile(schema);
      const valid = validate(res.body);
      expect(valid, `${pathKey}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`).toBe(true);
    };

    const nowMs = Date.UTC(2026, 10, 21, 12);
    let database: TripsDatabase;
    let graph: RoadGraph;
    let app: FastifyInstance;
    let token: string;
    const tripIds: string[] = [];
    const plates = new Set<string>();

    beforeAll(async () => {
      graph = generateCity({ seed: 7 });
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      const db = database.db;
      await createFleet(db, { name: 'Real engine', fleetId: 'fleet_real' });
      const { fleet } = sandboxFleet(graph);
      // One short simulated trip per machine type (car, van, truck, motorcycle): GPS, IMU, OBD, phone events.
      const plans = planTrips({ fleet, graph, days: 3, startDate: '2026-11-16' }).filter((p) => p.startMs < nowMs);
      const batches: TelemetryBatch[] = [];
      const types = new Set<string>();
      for (const trip of simulateFleetTrips({ fleet, graph, plans, imuHz: 10, obdHz: 1 })) {
        const { plate, machineType } = trip.vehicle;
        const fixes = trip.batch.samples.filter((s) => s.type === 'gps').length;
        if (types.has(machineType) || fixes > 1800) continue;
        types.add(machineType);
        await createVehicle(db, { fleetId: 'fleet_real', plate, machineType });
        plates.add(plate);
        batches.push({ ...(trip.batch as TelemetryBatch), clientTripId: trip.plan.id });
        if (types.size === 4) break;
      }
      // GPS only, far from the road graph: no IMU, no phone data, not map-matched (factors unavailable).
      await createVehicle(db, { fleetId: 'fleet_real', plate: 'GP-1' });
      plates.add('GP-1');
      const gpsOnly = scorableTrip({ startMs: Date.UTC(2026, 10, 19, 22), vehicle: 'GP-1', seed: 4, minutes: 6 });
      batches.push({
        ...gpsOnly,
        clientTripId: 'gps-only-0001',
        samples: gpsOnly.samples.filter((s) => s.type === 'gps'),
      });

      for (const batch of batches) {
        const sender = { fleetId: 'fleet_real', vehicleId: null, keyId: null, source: 'test' };
        tripIds.push((await acceptUpload(db, sender, String(batch.clientTripId), batch, nowMs)).tripId);
      }
      const scorer = inProcessScorer(graph);
      await new ScoringWorker({ db: database, scorer, logger: quietLogger(), clock: () => nowMs }).drain();
      const statuses = await db.selectFrom('trip_uploads').select(['trip_id', 'status', 'last_error']).execute();
      expect(statuses.filter((s) => s.status !== 'scored')).toEqual([]);
      token = (await createApiToken(db, { environment: 'sandbox', fleets: ['fleet_real'] }, nowMs)).secret;
      app = await sandboxApiApp(database, nowMs);
    }, 240_000);
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    const get = async (url: string) => {
      const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode, url).toBe(200);
      return { contentType: String(res.headers['content-type']).split(';')[0]!, body: res.json() };
    };

    it('describes the trip list, each trip, its breakdown with every factor, its route, and each vehicle', async () => {
      expect(tripIds).toHaveLength(5);
      check('/v1/trips', await get('/v1/trips?limit=100'));
      let unavailable = 0;
      let measured = 0;
      for (const tripId of tripIds) {
        check('/v1/trips/{id}', await get(`/v1/trips/${tripId}`));
        const breakdown = await get(`/v1/trips/${tripId}/score-breakdown`);
        check('/v1/trips/{id}/score-breakdown', breakdown);
        const factors = (breakdown.body.breakdown.themes as Array<{ factors: Factor[] }>).flatMap((t) => t.factors);
        expect(factors.map((f) => f.key).sort()).toEqual(FACTORS.map((f) => f.key).sort());
        // As documented: a factor that could not be measured is unavailable, has no score and says why.
        for (const f of factors) {
          expect(f.available, f.key).toBe(f.score !== null);
          expect(typeof f.unavailableReason === 'string', f.key).toBe(f.score === null);
          if (f.score === null) unavailable++;
          else measured++;
        }
        for (const t of breakdown.body.breakdown.themes as Array<{
          id: string;
          available: boolean;
          themeScore: unknown;
        }>) {
          expect(t.available, t.id).toBe(t.themeScore !== null);
        }
        check('/v1/trips/{id}/route', await get(`/v1/trips/${tripId}/route`));
      }
      // Both kinds of factor were validated: measured ones and ones the trip could not measure.
      expect(measured).toBeGreaterThan(0);
      expect(unavailable).toBeGreaterThan(0);
      for (const plate of plates) check('/v1/vehicles/{plate}', await get(`/v1/vehicles/${plate}`));
      check('/v1/vehicles', await get('/v1/vehicles?sort=score'));
      const drivers = await get('/v1/drivers?limit=100');
      check('/v1/drivers', drivers);
      for (const { driverId } of drivers.body.drivers as Array<{ driverId: string }>) {
        check('/v1/drivers/{driverId}', await get(`/v1/drivers/${driverId}`));
      }
      check('/v1/fleets', await get('/v1/fleets'));
      check('/v1/fleets/{fleetId}', await get('/v1/fleets/fleet_real'));
    });
  });
});
