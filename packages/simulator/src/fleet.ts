import type { RoadGraph } from '@svc/roads';
import { MACHINE_TYPES, type MachineType } from './contract.ts';
import type { LonLat } from './drive-route.ts';
import { BEHAVIOURS, type BehaviourLevels, type DriverProfile, driverProfile } from './driver-profile.ts';
import { checkTimeZone } from './local-time.ts';
import { Rng, type Seed } from './random.ts';

/**
 * Fleets: vehicles of several machine types with plates and telematics devices, and the drivers who drive them,
 * each with a behaviour profile drawn from a population. Everything comes from the seed.
 */

/** A vehicle of the fleet. */
export interface Vehicle {
  id: string;
  plate: string;
  machineType: MachineType;
  make: string;
  model: string;
  year: number;
  /** The telematics device or phone recording the vehicle's trips. */
  deviceId: string;
  /** `vehicle` for a fixed telematics unit, `device` for a phone loose in the cabin. */
  imuFrame: 'vehicle' | 'device';
  /** Position error of the device's GPS, metres. */
  gpsSigmaM: number;
  /** Where the vehicle is based (depot or home), when the fleet was built on a graph. */
  base: LonLat | null;
}

/** A driver of the fleet. */
export interface Driver {
  id: string;
  name: string;
  /** Vehicles this driver drives (the first is their usual one). */
  vehicleIds: string[];
  profile: DriverProfile;
  /** Home and workplace, when the fleet was built on a graph. */
  home: LonLat | null;
  work: LonLat | null;
}

export interface Fleet {
  seed: Seed;
  /** IANA zone the fleet operates in (schedules and night driving use it). */
  timeZone: string;
  vehicles: Vehicle[];
  drivers: Driver[];
}

/** How driver behaviour is spread over the fleet. */
export interface PopulationOptions {
  /** Range of the drivers' overall aggressiveness, drawn uniformly (default [0.05, 0.95]). */
  aggressiveness?: [number, number];
  /** Standard deviation of each behaviour level around the driver's aggressiveness (default 0.12). */
  spread?: number;
}

export interface CreateFleetOptions {
  seed: Seed;
  /** Number of vehicles (mixed types), or a count per machine type (default 10). */
  vehicles?: number | Partial<Record<MachineType, number>>;
  /** Drivers sharing each vehicle (default 1). */
  driversPerVehicle?: number;
  /** Road graph to place homes, workplaces and depots on (recommended; required by the trip schedule). */
  graph?: RoadGraph;
  /** IANA time zone (default Europe/Paris, where `generateCity` puts its city by default). */
  timeZone?: string;
  population?: PopulationOptions;
  /** Explicit profiles for the first drivers, in order (population tests with known behaviour). */
  profiles?: DriverProfile[];
}

const MAKES: Record<MachineType, Array<[string, string[]]>> = {
  car: [
    ['Renault', ['Clio', 'Megane', 'Captur']],
    ['Peugeot', ['208', '308', '3008']],
    ['Volkswagen', ['Golf', 'Polo', 'Passat']],
    ['Toyota', ['Yaris', 'Corolla', 'RAV4']],
    ['Skoda', ['Octavia', 'Fabia']],
    ['BMW', ['320d', 'X1']],
  ],
  van: [
    ['Renault', ['Trafic', 'Master', 'Kangoo']],
    ['Ford', ['Transit', 'Transit Custom']],
    ['Mercedes-Benz', ['Sprinter', 'Vito']],
    ['Citroen', ['Berlingo', 'Jumper']],
  ],
  truck: [
    ['Volvo', ['FH', 'FM']],
    ['Scania', ['R 450', 'P 280']],
    ['DAF', ['XF', 'LF']],
    ['MAN', ['TGX', 'TGL']],
  ],
  motorcycle: [
    ['Yamaha', ['MT-07', 'Tracer 9']],
    ['Honda', ['CB500F', 'NC750X']],
    ['BMW', ['R 1250 GS', 'F 900 R']],
    ['Kawasaki', ['Z650']],
  ],
  bus: [
    ['Iveco', ['Urbanway', 'Crossway']],
    ['Mercedes-Benz', ['Citaro']],
    ['MAN', ["Lion's City"]],
    ['Solaris', ['Urbino 12']],
  ],
};

const FIRST_NAMES = [
  'Alex',
  'Camille',
  'Dominique',
  'Sam',
  'Jordan',
  'Noa',
  'Lou',
  'Sacha',
  'Charlie',
  'Robin',
  'Maxime',
  'Morgan',
  'Eden',
  'Lea',
  'Hugo',
  'Ines',
  'Lucas',
  'Emma',
  'Nathan',
  'Chloe',
  'Yanis',
  'Manon',
  'Theo',
  'Sarah',
];
const LAST_NAMES = [
  'Martin',
  'Bernard',
  'Dubois',
  'Thomas',
  'Robert',
  'Richard',
  'Petit',
  'Durand',
  'Leroy',
  'Moreau',
  'Simon',
  'Laurent',
  'Lefebvre',
  'Michel',
  'Garcia',
  'David',
  'Bertrand',
  'Roux',
  'Vincent',
  'Fournier',
  'Girard',
  'Bonnet',
];

/** Default mix of machine types for a plain vehicle count: mostly cars, some vans, a few of the rest. */
const DEFAULT_MIX: MachineType[] = ['car', 'van', 'car', 'truck', 'car', 'motorcycle', 'van', 'car', 'bus', 'car'];

const LETTERS = 'ABCDEFGHJKLMNPQRSTVWXYZ';

function plate(rng: Rng, used: Set<string>): string {
  for (;;) {
    const l = () => LETTERS[rng.int(0, LETTERS.length - 1)]!;
    const candidate = `${l()}${l()}-${String(rng.int(1, 999)).padStart(3, '0')}-${l()}${l()}`;
    if (!used.has(candidate)) {
      used.add(candidate);
      return candidate;
    }
  }
}

function hex(rng: Rng, digits: number): string {
  let out = '';
  while (out.length < digits) out += rng.nextUint32().toString(16).padStart(8, '0');
  return out.slice(0, digits);
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/** Edges a place can sit on: roads where people live or work (never motorways or their ramps). */
const PLACE_CLASSES = {
  home: new Set(['residential', 'living_street', 'unclassified', 'tertiary']),
  work: new Set(['tertiary', 'secondary', 'primary', 'unclassified', 'residential']),
  depot: new Set(['secondary', 'primary', 'tertiary', 'unclassified']),
};

/** A random point on a road of one of the given classes (falls back to any non-motorway road). */
export function randomPlace(graph: RoadGraph, rng: Rng, kind: keyof typeof PLACE_CLASSES): LonLat {
  const classes = PLACE_CLASSES[kind];
  for (let attempt = 0; attempt < 200; attempt++) {
    const edge = rng.int(0, graph.edgeCount - 1);
    const highway = graph.edgeHighway(edge);
    if (!(attempt < 150 ? classes.has(highway) : !highway.startsWith('motorway'))) continue;
    const p = graph.edgePointAt(edge, graph.edgeLengthM(edge) * rng.uniform(0.2, 0.8));
    return [Math.round(p[0] * 1e7) / 1e7, Math.round(p[1] * 1e7) / 1e7];
  }
  throw new RangeError('the road graph has no roads to place homes, workplaces or depots on');
}

function vehicleTypes(spec: CreateFleetOptions['vehicles']): MachineType[] {
  if (spec === undefined || typeof spec === 'number') {
    const count = spec ?? 10;
    if (!Number.isInteger(count) || count < 1 || count > 100_000) {
      throw new RangeError(`createFleet: vehicles must be an integer between 1 and 100000 (got ${String(spec)})`);
    }
    return Array.from({ length: count }, (_, i) => DEFAULT_MIX[i % DEFAULT_MIX.length]!);
  }
  const out: MachineType[] = [];
  for (const [type, count] of Object.entries(spec)) {
    if (!MACHINE_TYPES.includes(type as MachineType)) {
      throw new RangeError(`createFleet: unknown machine type "${type}" (use ${MACHINE_TYPES.join(', ')})`);
    }
    if (!Number.isInteger(count) || (count as number) < 0) {
      throw new RangeError(`createFleet: vehicles.${type} must be a non-negative integer`);
    }
    for (let i = 0; i < (count as number); i++) out.push(type as MachineType);
  }
  if (out.length === 0) throw new RangeError('createFleet: the fleet needs at least one vehicle');
  return out;
}

/** Behaviour levels of a driver drawn from the population: an overall aggressiveness plus per-behaviour spread. */
export function drawLevels(rng: Rng, population: PopulationOptions = {}): BehaviourLevels {
  const [lo, hi] = population.aggressiveness ?? [0.05, 0.95];
  const spread = population.spread ?? 0.12;
  const base = rng.uniform(lo, hi);
  const levels = {} as BehaviourLevels;
  for (const b of BEHAVIOURS) levels[b] = Math.round(clamp01(base + spread * rng.normal()) * 1000) / 1000;
  return levels;
}

/** Options of {@link driverPopulation}. */
export interface DriverPopulationOptions extends PopulationOptions {
  seed: Seed;
  count: number;
  /** Levels held the same for every driver (e.g. `{ nightDriving: 0.2, longStints: 0.2 }` for trip-level tests). */
  fixed?: Partial<BehaviourLevels>;
}

/** A population of driver profiles with known true risk, drawn like a fleet's drivers. */
export function driverPopulation(options: DriverPopulationOptions): DriverProfile[] {
  const { count } = options;
  if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
    throw new RangeError(`driverPopulation: count must be a positive integer (got ${String(count)})`);
  }
  const root = Rng.from(options.seed, 'population');
  return Array.from({ length: count }, (_, i) =>
    driverProfile({ ...drawLevels(root.fork(i), options), ...(options.fixed ?? {}) }),
  );
}

/** Builds a fleet: vehicles, drivers with behaviour profiles and, on a graph, their places. */
export function createFleet(options: CreateFleetOptions): Fleet {
  const { seed } = options;
  const types = vehicleTypes(options.vehicles);
  const perVehicle = options.driversPerVehicle ?? 1;
  if (!Number.isInteger(perVehicle) || perVehicle < 1 || perVehicle > 10) {
    throw new RangeError(
      `createFleet: driversPerVehicle must be an integer between 1 and 10 (got ${String(perVehicle)})`,
    );
  }
  const timeZone = options.timeZone ?? 'Europe/Paris';
  checkTimeZone(timeZone);
  const root = Rng.from(seed, 'fleet');
  const plates = new Set<string>();
  const vehicles: Vehicle[] = types.map((machineType, i) => {
    const rng = root.fork('vehicle', i);
    const [make, models] = rng.pick(MAKES[machineType]);
    const fixedUnit =
      machineType === 'truck' || machineType === 'bus' || (machineType === 'van' ? rng.chance(0.7) : rng.chance(0.2));
    return {
      id: `veh-${String(i + 1).padStart(4, '0')}`,
      plate: plate(rng, plates),
      machineType,
      make,
      model: rng.pick(models),
      year: rng.int(2012, 2025),
      deviceId: `${fixedUnit ? 'unit' : 'phone'}-${hex(rng, 12)}`,
      imuFrame: fixedUnit ? 'vehicle' : 'device',
      gpsSigmaM: Math.round((fixedUnit ? rng.uniform(2.5, 5) : rng.uniform(3.5, 9)) * 10) / 10,
      base: options.graph
        ? randomPlace(
            options.graph,
            rng.fork('base'),
            machineType === 'car' || machineType === 'motorcycle' ? 'home' : 'depot',
          )
        : null,
    };
  });

  const drivers: Driver[] = [];
  for (const vehicle of vehicles) {
    for (let k = 0; k < perVehicle; k++) {
      const index = drivers.length;
      const rng = root.fork('driver', index);
      const given = options.profiles?.[index];
      const profile = given ?? driverProfile(drawLevels(rng.fork('levels'), options.population));
      const privateVehicle = vehicle.machineType === 'car' || vehicle.machineType === 'motorcycle';
      const home = options.graph
        ? k === 0 && privateVehicle && vehicle.base
          ? vehicle.base
          : randomPlace(options.graph, rng.fork('home'), 'home')
        : null;
      drivers.push({
        id: `drv-${String(index + 1).padStart(4, '0')}`,
        name: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
        vehicleIds: [vehicle.id],
        profile,
        home,
        work: options.graph ? randomPlace(options.graph, rng.fork('work'), 'work') : null,
      });
    }
  }
  return { seed, timeZone, vehicles, drivers };
}
