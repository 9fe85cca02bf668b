import { NotFoundError, UniqueViolationError } from '@svc/platform';
import { checkDisplayText } from '../display-text.ts';
import { AlreadyExistsError, InvalidInputError } from '../errors.ts';
import { FLEET_ID_PATTERN, newFleetId } from '../ids.ts';
import type { TripsDb } from './open-trips-database.ts';

export interface Fleet {
  fleetId: string;
  name: string;
  createdAt: string;
}

/** Creates a fleet; `fleetId` is generated when not given. */
export async function createFleet(
  db: TripsDb,
  input: { name: string; fleetId?: string | undefined },
  nowMs = Date.now(),
): Promise<Fleet> {
  const name = fleetName(input.name);
  const fleetId = input.fleetId ?? newFleetId();
  if (!FLEET_ID_PATTERN.test(fleetId)) {
    throw new InvalidInputError(`fleet id "${fleetId}" is invalid: use fleet_ followed by 1-64 of a-z, 0-9, _ or -`);
  }
  try {
    await db.insertInto('fleets').values({ fleet_id: fleetId, name, created_at_ms: nowMs }).execute();
  } catch (err) {
    if (err instanceof UniqueViolationError) throw new AlreadyExistsError(`fleet ${fleetId} already exists`);
    throw err;
  }
  return { fleetId, name, createdAt: new Date(nowMs).toISOString() };
}

/** A fleet's display name, trimmed and checked (1-200 characters, no control character). */
function fleetName(input: string): string {
  const name = input.trim();
  if (name.length === 0 || name.length > 200) throw new InvalidInputError('fleet name must be 1-200 characters');
  checkDisplayText('fleet name', name);
  return name;
}

/**
 * Changes a fleet's display name (a customer renamed, a typo corrected): what `/v1/fleets` and the lists show. Its
 * id, which tokens, keys and every row of its data name, stays; tokens that took the old name as their owner keep it.
 */
export async function renameFleet(db: TripsDb, input: { fleetId: string; name: string }): Promise<Fleet> {
  const name = fleetName(input.name);
  const row = await db
    .updateTable('fleets')
    .set({ name })
    .where('fleet_id', '=', input.fleetId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`fleet ${input.fleetId} does not exist (see fleets list)`);
  return { fleetId: row.fleet_id, name: row.name, createdAt: new Date(row.created_at_ms).toISOString() };
}

/** Every fleet, by id. */
export async function listFleets(db: TripsDb): Promise<Fleet[]> {
  const rows = await db.selectFrom('fleets').selectAll().orderBy('fleet_id').execute();
  return rows.map((r) => ({ fleetId: r.fleet_id, name: r.name, createdAt: new Date(r.created_at_ms).toISOString() }));
}

/** Throws NotFoundError naming the fleet when it does not exist. */
export async function requireFleet(db: TripsDb, fleetId: string): Promise<Fleet> {
  const row = await db.selectFrom('fleets').selectAll().where('fleet_id', '=', fleetId).executeTakeFirst();
  if (!row) throw new NotFoundError(`fleet ${fleetId} does not exist (see fleets list)`);
  return { fleetId: row.fleet_id, name: row.name, createdAt: new Date(row.created_at_ms).toISOString() };
}
