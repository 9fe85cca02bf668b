import type { RoadGraph } from '@svc/roads';
import type { Driver, Fleet, Vehicle } from './fleet.ts';
import { NoRouteError } from './road-route.ts';
import { planTripsInOrder, type TripPlan } from './schedule.ts';
import { type SimulatedTrip, type SimulateTripOptions, simulateTrip } from './simulate-trip.ts';

/** Least time between two trips of one vehicle, ms. */
const TURNAROUND_MS = 10 * 60_000;

/** Options of {@link simulateFleetTrips}: the schedule, plus sensor settings applied to every trip. */
export interface FleetTripsOptions
  extends Pick<SimulateTripOptions, 'gpsHz' | 'imuHz' | 'obdHz' | 'gps' | 'imu' | 'phone' | 'stepS'> {
  fleet: Fleet;
  graph: RoadGraph;
  days?: number;
  startDate?: string | number;
  /** Stop after this many trips (default: every planned trip). */
  limit?: number;
  /** Plans to simulate instead of the fleet's schedule (e.g. a filtered `planTrips` result). */
  plans?: TripPlan[];
}

/** One simulated fleet trip with who drove what. */
export interface FleetTrip extends SimulatedTrip {
  plan: TripPlan;
  driver: Driver;
  vehicle: Vehicle;
}

/**
 * Simulates a fleet's scheduled trips one at a time (a generator: a few hundred trips never sit in memory at
 * once), in plan order. Trips whose route does not exist on the graph are skipped; a trip whose vehicle is still
 * out starts 10 minutes after it returns (`plan.startMs` then says so).
 */
export function* simulateFleetTrips(options: FleetTripsOptions): Generator<FleetTrip> {
  const { fleet, graph } = options;
  const plans = options.plans ?? planTripsInOrder({ fleet, graph, days: options.days, startDate: options.startDate });
  const drivers = new Map(fleet.drivers.map((d) => [d.id, d]));
  const vehicles = new Map(fleet.vehicles.map((v) => [v.id, v]));
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  // When a trip runs longer than planned, the vehicle's next trip waits for it (plus a short turnaround), so one
  // device never records two trips at once.
  const vehicleFreeAtMs = new Map<string, number>();
  let produced = 0;
  for (const planned of plans) {
    if (produced >= limit) return;
    const driver = drivers.get(planned.driverId);
    const vehicle = vehicles.get(planned.vehicleId);
    if (!driver || !vehicle) throw new RangeError(`trip plan ${planned.id} names a driver or vehicle not in the fleet`);
    const freeAt = vehicleFreeAtMs.get(vehicle.id) ?? Number.NEGATIVE_INFINITY;
    const plan = planned.startMs >= freeAt ? planned : { ...planned, startMs: freeAt };
    let trip: SimulatedTrip;
    try {
      trip = simulateTrip({
        graph,
        from: plan.from,
        to: plan.to,
        via: plan.via,
        viaDwellS: plan.viaDwellS,
        driver,
        vehicle,
        startMs: plan.startMs,
        seed: plan.seed,
        timeZone: fleet.timeZone,
        clientTripId: plan.id,
        gpsHz: options.gpsHz,
        imuHz: options.imuHz,
        obdHz: options.obdHz,
        gps: options.gps,
        imu: options.imu,
        phone: options.phone,
        stepS: options.stepS,
      });
    } catch (error) {
      if (error instanceof NoRouteError) continue;
      throw error;
    }
    vehicleFreeAtMs.set(vehicle.id, trip.truth.endMs + TURNAROUND_MS);
    produced++;
    yield { ...trip, plan, driver, vehicle };
  }
}
