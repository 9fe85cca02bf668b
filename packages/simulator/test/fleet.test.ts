import { describe, expect, it } from 'vitest';
import {
  createFleet,
  driverProfile,
  MACHINE_SPECS,
  planTrips,
  simulateFleetTrips,
  type TripPlan,
} from '../src/index.ts';
import { testCity } from './city.ts';

const graph = testCity();

describe('createFleet', () => {
  it('builds the same fleet from the same seed', () => {
    const a = createFleet({ seed: 9, vehicles: 12, driversPerVehicle: 2, graph });
    const b = createFleet({ seed: 9, vehicles: 12, driversPerVehicle: 2, graph });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(createFleet({ seed: 10, vehicles: 12, graph }))).not.toBe(JSON.stringify(a));
  });

  it('mixes machine types, gives unique plates and ids, and two drivers per vehicle on request', () => {
    const fleet = createFleet({ seed: 1, vehicles: 20, driversPerVehicle: 2, graph });
    expect(new Set(fleet.vehicles.map((v) => v.machineType))).toEqual(
      new Set(['car', 'van', 'truck', 'motorcycle', 'bus']),
    );
    expect(new Set(fleet.vehicles.map((v) => v.plate)).size).toBe(20);
    expect(fleet.vehicles[0]!.plate).toMatch(/^[A-Z]{2}-\d{3}-[A-Z]{2}$/);
    expect(fleet.drivers).toHaveLength(40);
    expect(new Set(fleet.drivers.map((d) => d.id)).size).toBe(40);
    for (const v of fleet.vehicles) {
      expect(fleet.drivers.filter((d) => d.vehicleIds[0] === v.id)).toHaveLength(2);
      expect(v.make.length).toBeGreaterThan(0);
      expect(v.base).not.toBeNull();
    }
  });

  it('accepts counts per machine type and explicit profiles', () => {
    const calm = driverProfile({ aggressiveness: 0 });
    const fleet = createFleet({ seed: 1, vehicles: { truck: 2, bus: 1 }, graph, profiles: [calm] });
    expect(fleet.vehicles.map((v) => v.machineType)).toEqual(['truck', 'truck', 'bus']);
    expect(fleet.drivers[0]!.profile).toEqual(calm);
    expect(fleet.vehicles.every((v) => v.imuFrame === 'vehicle')).toBe(true);
  });

  it('rejects bad options naming the field', () => {
    expect(() => createFleet({ seed: 1, vehicles: 0 })).toThrow(/vehicles/);
    expect(() => createFleet({ seed: 1, vehicles: { tram: 1 } as never })).toThrow(/tram/);
    expect(() => createFleet({ seed: 1, driversPerVehicle: 0 })).toThrow(/driversPerVehicle/);
    expect(() => createFleet({ seed: 1, timeZone: 'Nowhere/Land' })).toThrow(/time zone/);
  });
});

describe('planTrips', () => {
  const fleet = createFleet({ seed: 2, vehicles: 10, graph });

  it('plans the same trips for the same fleet, sorted by start, with unique ids', () => {
    const a = planTrips({ fleet, graph, days: 7 });
    expect(planTrips({ fleet, graph, days: 7 })).toEqual(a);
    expect(a.map((p) => p.startMs)).toEqual([...a.map((p) => p.startMs)].sort((x, y) => x - y));
    expect(new Set(a.map((p) => p.id)).size).toBe(a.length);
    expect(new Set(a.map((p) => p.kind))).toEqual(
      new Set(['commute', 'errand', 'delivery_round', 'haul', 'bus_run', 'long_stint', 'night']),
    );
  });

  it('moves more trips into the night for drivers with a higher night-driving level', () => {
    const share = (level: number) => {
      const f = createFleet({
        seed: 2,
        vehicles: { car: 8 },
        graph,
        profiles: Array.from({ length: 8 }, () => driverProfile({ aggressiveness: 0.2, nightDriving: level })),
      });
      const plans = planTrips({ fleet: f, graph, days: 14 });
      return plans.filter((p) => p.kind === 'night').length / plans.length;
    };
    expect(share(0.9)).toBeGreaterThan(share(0.1) + 0.2);
  });

  it('gives drivers with a higher long-stint level more long stints', () => {
    const stints = (level: number) => {
      const f = createFleet({
        seed: 2,
        vehicles: { van: 6 },
        graph,
        profiles: Array.from({ length: 6 }, () => driverProfile({ aggressiveness: 0.2, longStints: level })),
      });
      return planTrips({ fleet: f, graph, days: 10 }).filter((p: TripPlan) => p.kind === 'long_stint').length;
    };
    expect(stints(0)).toBe(0);
    expect(stints(0.9)).toBeGreaterThan(15);
  });

  it('refuses a start date that does not exist instead of rolling it over into another month', () => {
    for (const startDate of ['2025-13-45', '2025-02-30', '2025-00-10']) {
      expect(() => planTrips({ fleet, graph, days: 1, startDate })).toThrow(/startDate/);
    }
    expect(planTrips({ fleet, graph, days: 1, startDate: '2024-02-29' }).length).toBeGreaterThan(0);
  });
});

describe('simulateFleetTrips', () => {
  it('yields trips with fleet metadata in the batch', () => {
    const fleet = createFleet({ seed: 4, vehicles: 5, graph });
    const trips = [...simulateFleetTrips({ fleet, graph, days: 1, limit: 4, imuHz: 0 })];
    expect(trips).toHaveLength(4);
    for (const trip of trips) {
      expect(trip.batch.clientTripId).toBe(trip.plan.id);
      expect(trip.batch.driverId).toBe(trip.driver.id);
      expect(trip.batch.vehicle).toBe(trip.vehicle.plate);
      expect(trip.batch.deviceId).toBe(trip.vehicle.deviceId);
      expect(trip.batch.machineType).toBe(trip.vehicle.machineType);
      expect(trip.batch.timeZone).toBe('Europe/Paris');
      expect(trip.truth.maxSpeedKmh).toBeLessThanOrEqual(MACHINE_SPECS[trip.vehicle.machineType].maxSpeedKmh);
    }
  });

  it('never has one vehicle record two trips at once', () => {
    const fleet = createFleet({ seed: 6, vehicles: { van: 2, bus: 1, truck: 1 }, graph });
    const trips = [...simulateFleetTrips({ fleet, graph, days: 2, imuHz: 0, phone: false })];
    expect(trips.length).toBeGreaterThan(6);
    const lastEnd = new Map<string, number>();
    for (const trip of trips) {
      expect(trip.truth.startMs).toBe(trip.plan.startMs);
      expect(trip.truth.startMs).toBeGreaterThanOrEqual(lastEnd.get(trip.vehicle.id) ?? 0);
      lastEnd.set(trip.vehicle.id, trip.truth.endMs);
    }
  });

  it('records night driving in local time for night trips', () => {
    const fleet = createFleet({
      seed: 5,
      vehicles: { car: 2 },
      graph,
      profiles: [
        driverProfile({ aggressiveness: 0.2, nightDriving: 1 }),
        driverProfile({ aggressiveness: 0.2, nightDriving: 1 }),
      ],
    });
    const plans = planTrips({ fleet, graph, days: 3 })
      .filter((p) => p.kind === 'night')
      .slice(0, 3);
    expect(plans.length).toBeGreaterThan(0);
    for (const trip of simulateFleetTrips({ fleet, graph, plans, imuHz: 0 })) {
      expect(trip.truth.nightS).toBeGreaterThan(0.5 * trip.truth.movingS);
    }
  });
});
