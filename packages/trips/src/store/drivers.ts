import { NotFoundError, UniqueViolationError } from '@svc/platform';
import type { Kysely } from 'kysely';
import { checkDisplayText } from '../display-text.ts';
import { AlreadyExistsError, InvalidInputError } from '../errors.ts';
import { DRIVER_ID_PATTERN } from '../ids.ts';
import { requireFleet } from './fleets.ts';
import type { TripsDb } from './open-trips-database.ts';
import type { TripsSchema } from './schema.ts';

export interface Driver {
  fleetId: string;
  driverId: string;
  name: string | null;
  createdAt: string;
}

/** Throws InvalidInputError unless `driverId` is a well-formed driver id. */
export function checkDriverId(driverId: string, field = 'driver id'): string {
  if (!DRIVER_ID_PATTERN.test(driverId)) {
    throw new InvalidInputError(`${field} "${driverId}" is invalid: 1-64 of A-Z, a-z, 0-9 and . _ : @ -`);
  }
  return driverId;
}

/**
 * checkDriverId for an id about to be registered (a new driver, a telemetry upload, an import's --driver): also
 * refuses "." and "..", which no client can reach over HTTP, since URL parsers (browsers, Node's fetch) resolve
 * them as path segments: /v1/drivers/. answered the driver list, /v1/drivers/.. was no endpoint. Ids already
 * stored stay reachable by the CLI (erase, export, rename), which checks them with checkDriverId only.
 */
export function checkNewDriverId(driverId: string, field = 'driver id'): string {
  checkDriverId(driverId, field);
  if (driverId === '.' || driverId === '..') {
    throw new InvalidInputError(
      `${field} "${driverId}" is invalid: "." and ".." cannot be reached in a URL path (/v1/drivers/${driverId} is read as a path step); use another id`,
    );
  }
  return driverId;
}

/** Registers a driver in a fleet. Driver ids are unique per fleet. */
export async function createDriver(
  db: TripsDb,
  input: { fleetId: string; driverId: string; name?: string | undefined },
  nowMs = Date.now(),
): Promise<Driver> {
  checkNewDriverId(input.driverId);
  const name = input.name === undefined ? undefined : checkDriverName(input.name);
  await requireFleet(db, input.fleetId);
  try {
    await db
      .insertInto('drivers')
      .values({ fleet_id: input.fleetId, driver_id: input.driverId, name: name ?? null, created_at_ms: nowMs })
      .execute();
  } catch (err) {
    if (err instanceof UniqueViolationError) {
      throw new AlreadyExistsError(`driver ${input.driverId} already exists in fleet ${input.fleetId}`);
    }
    throw err;
  }
  return {
    fleetId: input.fleetId,
    driverId: input.driverId,
    name: name ?? null,
    createdAt: new Date(nowMs).toISOString(),
  };
}

/** Checks and trims a driver's display name (1-200 characters, none a terminal would obey rather than show). */
function checkDriverName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) throw new InvalidInputError('driver name must be 1-200 characters');
  return checkDisplayText('driver name', trimmed);
}

/**
 * Sets the display name of a driver of a fleet, e.g. one that telemetry registered without a name. The name
 * is shown by the driver list and profiles; trips refer to drivers by id, so they are unchanged.
 */
export async function renameDriver(
  db: TripsDb,
  input: { fleetId: string; driverId: string; name: string },
): Promise<Driver> {
  checkDriverId(input.driverId);
  const name = checkDriverName(input.name);
  await requireFleet(db, input.fleetId);
  const row = await db
    .updateTable('drivers')
    .set({ name })
    .where('fleet_id', '=', input.fleetId)
    .where('driver_id', '=', input.driverId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`driver ${input.driverId} not found in fleet ${input.fleetId} (see drivers list)`);
  return {
    fleetId: row.fleet_id,
    driverId: row.driver_id,
    name: row.name,
    createdAt: new Date(row.created_at_ms).toISOString(),
  };
}

/**
 * Makes sure a driver id reported by telemetry exists in the fleet. Drivers are identified on the edge
 * (app login, tag reader), so an unknown id is registered rather than rejected; its name stays empty.
 */
export async function ensureDriver(db: Kysely<TripsSchema>, fleetId: string, driverId: string, nowMs: number) {
  await db
    .insertInto('drivers')
    .values({ fleet_id: fleetId, driver_id: driverId, name: null, created_at_ms: nowMs })
    .onConflict((oc) => oc.columns(['fleet_id', 'driver_id']).doNothing())
    .execute();
}

/** Drivers of one fleet, or of every fleet. */
export async function listDrivers(db: TripsDb, filter: { fleetId?: string | undefined } = {}): Promise<Driver[]> {
  // A fleet given, even an empty one (`--fleet "$FLEET"` with the variable unset), is a filter: not every fleet.
  if (filter.fleetId !== undefined) await requireFleet(db, filter.fleetId);
  let q = db.selectFrom('drivers').selectAll();
  if (filter.fleetId !== undefined) q = q.where('fleet_id', '=', filter.fleetId);
  const rows = await q.orderBy('fleet_id').orderBy('driver_id').execute();
  return rows.map((r) => ({
    fleetId: r.fleet_id,
    driverId: r.driver_id,
    name: r.name,
    createdAt: new Date(r.created_at_ms).toISOString(),
  }));
}
