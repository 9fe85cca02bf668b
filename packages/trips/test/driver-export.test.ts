import { NotFoundError } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { exportDriverData } from '../src/service/driver-export.ts';
import { deleteLocationData, eraseDriver } from '../src/store/location-data.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { buildWorld, sandboxApiApp, type World } from './fixtures/world.ts';

describe.each(testDialects())('driver data export on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let world: World;
    let app: FastifyInstance;
    const nowMs = Date.now();
    const get = (url: string, token: string) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    const exportLines = async (fleetId: string, driverId: string) => {
      const lines: string[] = [];
      const result = await exportDriverData(database.db, { fleetId, driverId, nowMs }, async (line) => {
        lines.push(line);
      });
      return { result, lines: lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
    };

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      world = await buildWorld(database, { tripsPerFleet: 12, nowMs });
      app = await sandboxApiApp(database, nowMs);
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it("exports the driver's registration and every trip as the API shows it, with the raw telemetry", async () => {
      const alpha = world.fleets[0]!;
      const driverId = alpha.drivers[0]!;
      // One more upload of theirs, not scored yet.
      const queued = await acceptUpload(
        database.db,
        { fleetId: 'fleet_alpha', vehicleId: null, keyId: null, source: 'test' },
        'export-queued-0001',
        gpsTrip({ startMs: nowMs - 3_600_000, vehicle: alpha.plates[0]!, driverId, points: 30 }),
        nowMs,
      );
      const listed = (await get(`/v1/trips?driver=${driverId}&limit=100`, alpha.token)).json().trips as Array<{
        tripId: string;
      }>;
      const { result, lines } = await exportLines('fleet_alpha', driverId);
      expect(result).toEqual({ trips: listed.length + 1, scored: listed.length });
      expect(lines[0]).toEqual({
        type: 'driver',
        fleetId: 'fleet_alpha',
        driverId,
        name: `Driver ${driverId}`,
        registeredAt: expect.any(String),
        exportedAt: new Date(nowMs).toISOString(),
        trips: listed.length + 1,
      });
      const trips = lines.slice(1);
      expect(new Set(trips.map((t) => t.tripId))).toEqual(new Set([...listed.map((t) => t.tripId), queued.tripId]));
      for (const line of trips) {
        const tripId = line.tripId as string;
        const stored = await database.db
          .selectFrom('trip_uploads')
          .select('sample_count')
          .where('trip_id', '=', tripId)
          .executeTakeFirstOrThrow();
        expect((line.telemetry as { samples: unknown[] }).samples).toHaveLength(stored.sample_count);
        if (tripId === queued.tripId) {
          expect(line).toMatchObject({ status: 'queued', trip: null, breakdown: null, route: null });
          continue;
        }
        expect(line.status).toBe('scored');
        expect(line.trip).toEqual((await get(`/v1/trips/${tripId}`, alpha.token)).json().trip);
        expect(line.breakdown).toEqual(
          (await get(`/v1/trips/${tripId}/score-breakdown`, alpha.token)).json().breakdown,
        );
        const { ok: _ok, ...route } = (await get(`/v1/trips/${tripId}/route`, alpha.token)).json();
        expect(line.route).toEqual(route);
        expect(line.locationDataDeletedAt).toBeNull();
      }
      // Oldest first.
      const received = trips.map((t) => t.startedAt as string);
      expect(received).toEqual([...received].sort());
    });

    it('says when location data was deleted, finds nothing once the driver was erased, and keeps to the fleet', async () => {
      const charlie = world.fleets[2]!;
      const driverId = charlie.drivers[0]!;
      const cutoffMs = nowMs - 20 * 86_400_000;
      await deleteLocationData(database.db, { beforeMs: cutoffMs, nowMs, fleetId: 'fleet_charlie' });
      const { lines } = await exportLines('fleet_charlie', driverId);
      const trips = lines.slice(1) as Array<{
        trip: { startDate: string; links: { gps: string | null } };
        route: unknown;
        telemetry: unknown;
        locationDataDeletedAt: string | null;
      }>;
      const old = trips.filter((t) => Date.parse(t.trip.startDate) < cutoffMs);
      expect(old.length).toBeGreaterThan(0);
      expect(old.length).toBeLessThan(trips.length);
      for (const t of trips) {
        const deleted = Date.parse(t.trip.startDate) < cutoffMs;
        expect(t.locationDataDeletedAt).toBe(deleted ? new Date(nowMs).toISOString() : null);
        expect(t.route === null).toBe(deleted);
        expect(t.telemetry === null).toBe(deleted);
        expect(t.trip.links.gps === null).toBe(deleted);
      }

      // A driver id of another fleet is not this fleet's to export.
      await expect(exportLines('fleet_alpha', charlie.drivers[1]!)).rejects.toThrow(NotFoundError);
      const bravo = world.fleets[1]!;
      await eraseDriver(database.db, { fleetId: 'fleet_bravo', driverId: bravo.drivers[1]!, nowMs });
      await expect(exportLines('fleet_bravo', bravo.drivers[1]!)).rejects.toThrow(
        `driver ${bravo.drivers[1]} not found in fleet fleet_bravo`,
      );
    });
  });
});
