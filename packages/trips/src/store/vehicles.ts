import { NotFoundError, UniqueViolationError } from '@svc/platform';
import type { MachineType } from '@svc/scoring';
import { checkDisplayText } from '../display-text.ts';
import { AlreadyExistsError, InvalidInputError } from '../errors.ts';
import { canonicalPlate, isValidPlate, newVehicleId, plateCharacterProblem } from '../ids.ts';
import { requireFleet } from './fleets.ts';
import type { TripsDb } from './open-trips-database.ts';

/** The machine types the scoring engine knows (its telemetry contract), one tier scale for all. */
export const VEHICLE_MACHINE_TYPES = [
  'car',
  'van',
  'truck',
  'motorcycle',
  'bus',
] as const satisfies readonly MachineType[];

export interface Vehicle {
  vehicleId: string;
  plate: string;
  fleetId: string;
  machineType: MachineType;
  make: string | null;
  model: string | null;
  createdAt: string;
}

export interface CreateVehicleInput {
  fleetId: string;
  plate: string;
  machineType?: string | undefined;
  make?: string | undefined;
  model?: string | undefined;
}

/** Validates and canonicalises a plate; throws InvalidInputError naming the rule. */
export function parsePlate(input: string): string {
  const plate = canonicalPlate(input);
  if (!isValidPlate(plate)) {
    const problem = plateCharacterProblem(plate);
    throw new InvalidInputError(
      `plate "${input}" is invalid: 1-20 characters, Latin letters, digits, spaces, dots or dashes, starting with a letter or digit${problem ? ` (${problem})` : ''}`,
    );
  }
  return plate;
}

/** A machine type the engine knows, lower-cased; InvalidInputError otherwise. */
function parseMachineType(input: string): MachineType {
  const machineType = input.toLowerCase();
  if (!(VEHICLE_MACHINE_TYPES as readonly string[]).includes(machineType)) {
    throw new InvalidInputError(`machine type "${input}" is invalid: use one of ${VEHICLE_MACHINE_TYPES.join(', ')}`);
  }
  return machineType as MachineType;
}

/** Checks make and model (1-100 characters when given, none a terminal would obey rather than show). */
function checkMakeModel(input: { make?: string | undefined; model?: string | undefined }): void {
  for (const [field, value] of [
    ['make', input.make],
    ['model', input.model],
  ] as const) {
    if (value !== undefined && (value.trim().length === 0 || value.length > 100)) {
      throw new InvalidInputError(`vehicle ${field} must be 1-100 characters`);
    }
    if (value !== undefined) checkDisplayText(`vehicle ${field}`, value.trim());
  }
}

/** Registers a vehicle in a fleet. Plates are unique in an environment. */
export async function createVehicle(db: TripsDb, input: CreateVehicleInput, nowMs = Date.now()): Promise<Vehicle> {
  const plate = parsePlate(input.plate);
  const machineType = parseMachineType(input.machineType ?? 'car');
  checkMakeModel(input);
  await requireFleet(db, input.fleetId);
  // A plate is unique across the fleets of an environment: the refusal names the fleet that holds it, which the
  // operator's `vehicles list --fleet` of the other fleet does not show.
  const taken = await db.selectFrom('vehicles').select('fleet_id').where('plate', '=', plate).executeTakeFirst();
  if (taken) throw new AlreadyExistsError(alreadyExists(plate, taken.fleet_id, input.fleetId));
  const vehicle: Vehicle = {
    vehicleId: newVehicleId(),
    plate,
    fleetId: input.fleetId,
    machineType,
    make: input.make?.trim() ?? null,
    model: input.model?.trim() ?? null,
    createdAt: new Date(nowMs).toISOString(),
  };
  try {
    await db
      .insertInto('vehicles')
      .values({
        vehicle_id: vehicle.vehicleId,
        plate,
        fleet_id: vehicle.fleetId,
        machine_type: vehicle.machineType,
        make: vehicle.make,
        model: vehicle.model,
        created_at_ms: nowMs,
      })
      .execute();
  } catch (err) {
    // Registered by someone else between the look-up and the insert.
    if (err instanceof UniqueViolationError) throw new AlreadyExistsError(alreadyExists(plate, null, input.fleetId));
    throw err;
  }
  return vehicle;
}

/** The refusal of a plate already registered, naming the fleet that holds it. */
export function alreadyExists(plate: string, holder: string | null, fleetId: string): string {
  if (holder === fleetId) return `a vehicle with plate ${plate} already exists in fleet ${fleetId}`;
  const where = holder ? ` in fleet ${holder}` : '';
  return `a vehicle with plate ${plate} already exists${where}: a plate is unique across the fleets of an environment`;
}

type VehicleRow = {
  vehicle_id: string;
  plate: string;
  fleet_id: string;
  machine_type: string;
  make: string | null;
  model: string | null;
  created_at_ms: number;
};

/** A vehicles row as a Vehicle. */
export function vehicleOfRow(r: VehicleRow): Vehicle {
  return {
    vehicleId: r.vehicle_id,
    plate: r.plate,
    fleetId: r.fleet_id,
    machineType: r.machine_type as MachineType,
    make: r.make,
    model: r.model,
    createdAt: new Date(r.created_at_ms).toISOString(),
  };
}

/**
 * Changes a vehicle's machine type, make or model (what is given). Trips already scored keep the machine type
 * they were scored with; the next ones are scored with the new one.
 */
export async function updateVehicle(
  db: TripsDb,
  input: { plate: string; machineType?: string | undefined; make?: string | undefined; model?: string | undefined },
): Promise<Vehicle> {
  const plate = parsePlate(input.plate);
  const set: { machine_type?: string; make?: string; model?: string } = {};
  if (input.machineType !== undefined) set.machine_type = parseMachineType(input.machineType);
  checkMakeModel(input);
  if (input.make !== undefined) set.make = input.make.trim();
  if (input.model !== undefined) set.model = input.model.trim();
  if (Object.keys(set).length === 0) throw new InvalidInputError('nothing to change: give --type, --make or --model');
  const row = await db.updateTable('vehicles').set(set).where('plate', '=', plate).returningAll().executeTakeFirst();
  if (!row) throw new NotFoundError(`vehicle ${plate} does not exist (see vehicles list)`);
  return vehicleOfRow(row);
}

/** Vehicles of one fleet, or of every fleet, by plate. */
export async function listVehicles(db: TripsDb, filter: { fleetId?: string | undefined } = {}): Promise<Vehicle[]> {
  let q = db.selectFrom('vehicles').selectAll();
  // A fleet given, even an empty one (`--fleet "$FLEET"` with the variable unset), is a filter: not every fleet.
  if (filter.fleetId !== undefined) q = q.where('fleet_id', '=', filter.fleetId);
  return (await q.orderBy('fleet_id').orderBy('plate').execute()).map(vehicleOfRow);
}

/** The vehicle with this plate inside one of `fleetIds`, or null: scope is part of the query. */
export async function findVehicleInFleets(db: TripsDb, plate: string, fleetIds: readonly string[]) {
  if (fleetIds.length === 0) return null;
  const row = await db
    .selectFrom('vehicles')
    .selectAll()
    .where('plate', '=', plate)
    .where('fleet_id', 'in', fleetIds)
    .executeTakeFirst();
  return row ? vehicleOfRow(row) : null;
}

/** The vehicle with this plate in any fleet; NotFoundError otherwise. For operators, not for the API. */
export async function requireVehicle(db: TripsDb, plateInput: string): Promise<Vehicle> {
  const plate = parsePlate(plateInput);
  const row = await db.selectFrom('vehicles').selectAll().where('plate', '=', plate).executeTakeFirst();
  if (!row) throw new NotFoundError(`vehicle ${plate} does not exist (see vehicles list)`);
  return vehicleOfRow(row);
}

/**
 * The machine type a vehicle is registered with, which its trips are scored as (undefined when the vehicle is
 * gone: the upload's own then applies).
 */
export async function machineTypeOfVehicle(db: TripsDb, vehicleId: string): Promise<MachineType | undefined> {
  const row = await db
    .selectFrom('vehicles')
    .select('machine_type')
    .where('vehicle_id', '=', vehicleId)
    .executeTakeFirst();
  return row ? (row.machine_type as MachineType) : undefined;
}
