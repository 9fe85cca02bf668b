import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildGraphFromOsm, type RoadGraph } from '@svc/roads';
import { validateTelemetry } from '@svc/scoring';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFleet, MACHINE_SPECS, simulateFleetTrips } from '../src/index.ts';

const monaco = fileURLToPath(new URL('../../../../shared/data/osm/monaco.osm.pbf', import.meta.url));

describe.skipIf(!existsSync(monaco))(
  'on a real OpenStreetMap extract (needs ../shared/data/osm/monaco.osm.pbf)',
  () => {
    let graph: RoadGraph;
    beforeAll(async () => {
      graph = await buildGraphFromOsm(monaco);
    });

    it('drives a fleet through Monaco with valid telemetry and plausible motion', () => {
      const fleet = createFleet({ seed: 1, vehicles: { car: 3, van: 1 }, graph });
      const trips = [...simulateFleetTrips({ fleet, graph, days: 1, limit: 5, imuHz: 0 })];
      expect(trips.length).toBe(5);
      for (const trip of trips) {
        const result = validateTelemetry(trip.batch);
        expect(result.ok ? [] : result.errors.slice(0, 3)).toEqual([]);
        expect(trip.truth.distanceM).toBeGreaterThan(300);
        expect(trip.truth.routeEdges.length).toBeGreaterThan(2);
        expect(trip.truth.maxSpeedKmh).toBeLessThanOrEqual(MACHINE_SPECS[trip.vehicle.machineType].maxSpeedKmh);
        expect(trip.truth.maxLateralMps2).toBeLessThan(7);
      }
    });
  },
);
