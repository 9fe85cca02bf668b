import type { RoadGraph } from '@svc/roads';
import { createFleet, type Fleet } from '@svc/simulator';

/** Seed of the simulated sandbox fleet: the same vehicles, drivers and trips on every machine. */
export const SANDBOX_FLEET_SEED = 'trips-sandbox-v1';
/** The two sandbox fleets; vehicles alternate between them so x-fleet-id has something to narrow. */
export const SANDBOX_FLEETS = [
  { fleetId: 'fleet_sandbox_north', name: 'Sandbox North (simulated)' },
  { fleetId: 'fleet_sandbox_south', name: 'Sandbox South (simulated)' },
] as const;

/** The simulated fleet and which sandbox fleet each of its vehicles belongs to. */
export function sandboxFleet(graph: RoadGraph): { fleet: Fleet; fleetOfPlate: Map<string, string> } {
  const fleet = createFleet({
    seed: SANDBOX_FLEET_SEED,
    graph,
    vehicles: { car: 7, van: 3, truck: 1, motorcycle: 1 },
    driversPerVehicle: 2,
  });
  const fleetOfPlate = new Map<string, string>();
  fleet.vehicles.forEach((v, i) => {
    fleetOfPlate.set(v.plate, SANDBOX_FLEETS[i % SANDBOX_FLEETS.length]!.fleetId);
  });
  return { fleet, fleetOfPlate };
}
