import { NotFoundError } from '@svc/platform';
import { environmentOfSecret, generateSecret, hashSecret, prefixOfSecret, secretPrefix } from '../auth/secrets.ts';
import { checkDisplayText } from '../display-text.ts';
import type { Environment } from '../environment.ts';
import { ForbiddenError, InvalidInputError, UnauthenticatedError } from '../errors.ts';
import { newIngestKeyId } from '../ids.ts';
import { requireFleet } from './fleets.ts';
import type { TripsDb } from './open-trips-database.ts';
import { requireVehicle } from './vehicles.ts';

export interface IngestKeyInfo {
  keyId: string;
  hint: string;
  environment: Environment;
  fleetId: string;
  /** Plate of the vehicle a device key is bound to; null for a connector key. */
  plate: string | null;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

/**
 * Issues an ingest key for a fleet: a device key when `plate` is given (it may only send that
 * vehicle's trips), otherwise a connector key (any vehicle of the fleet).
 */
export async function createIngestKey(
  db: TripsDb,
  input: { environment: Environment; fleetId: string; plate?: string | undefined; name?: string | undefined },
  nowMs = Date.now(),
): Promise<{ key: IngestKeyInfo; secret: string }> {
  await requireFleet(db, input.fleetId);
  let vehicleId: string | null = null;
  let plate: string | null = null;
  if (input.plate !== undefined) {
    const vehicle = await requireVehicle(db, input.plate);
    if (vehicle.fleetId !== input.fleetId) {
      throw new InvalidInputError(`vehicle ${vehicle.plate} belongs to fleet ${vehicle.fleetId}, not ${input.fleetId}`);
    }
    vehicleId = vehicle.vehicleId;
    plate = vehicle.plate;
  }
  const name = (input.name ?? (plate ? `device ${plate}` : 'connector')).trim();
  if (name.length === 0 || name.length > 200) throw new InvalidInputError('ingest key name must be 1-200 characters');
  checkDisplayText('ingest key name', name);
  const { secret, hash, hint } = generateSecret('ingest', input.environment);
  const keyId = newIngestKeyId();
  await db
    .insertInto('ingest_keys')
    .values({
      key_id: keyId,
      key_hash: hash,
      key_hint: hint,
      environment: input.environment,
      fleet_id: input.fleetId,
      vehicle_id: vehicleId,
      name,
      created_at_ms: nowMs,
      revoked_at_ms: null,
    })
    .execute();
  return {
    secret,
    key: {
      keyId,
      hint,
      environment: input.environment,
      fleetId: input.fleetId,
      plate,
      name,
      createdAt: new Date(nowMs).toISOString(),
      revokedAt: null,
    },
  };
}

/** Every ingest key of the environment (never the secrets). */
export async function listIngestKeys(db: TripsDb): Promise<IngestKeyInfo[]> {
  const rows = await db
    .selectFrom('ingest_keys')
    .leftJoin('vehicles', 'vehicles.vehicle_id', 'ingest_keys.vehicle_id')
    .selectAll('ingest_keys')
    .select('vehicles.plate')
    .orderBy('ingest_keys.created_at_ms')
    .orderBy('ingest_keys.key_id')
    .execute();
  return rows.map((r) => ({
    keyId: r.key_id,
    hint: r.key_hint,
    environment: r.environment as Environment,
    fleetId: r.fleet_id,
    plate: r.plate,
    name: r.name,
    createdAt: new Date(r.created_at_ms).toISOString(),
    revokedAt: r.revoked_at_ms !== null ? new Date(r.revoked_at_ms).toISOString() : null,
  }));
}

/**
 * Revokes an ingest key; its next upload gets 401. Like revokeApiToken, returns when it was already revoked (null
 * when this call revoked it).
 */
export async function revokeIngestKey(db: TripsDb, keyId: string, nowMs = Date.now()): Promise<string | null> {
  const row = await db.selectFrom('ingest_keys').select('revoked_at_ms').where('key_id', '=', keyId).executeTakeFirst();
  if (!row) throw new NotFoundError(`ingest key ${keyId} does not exist (see ingest-keys list)`);
  if (row.revoked_at_ms !== null) return new Date(Number(row.revoked_at_ms)).toISOString();
  await db.updateTable('ingest_keys').set({ revoked_at_ms: nowMs }).where('key_id', '=', keyId).execute();
  return null;
}

/** What an authenticated ingest key may send. */
export interface IngestPrincipal {
  keyId: string;
  fleetId: string;
  vehicleId: string | null;
}

/** Resolves an ingest key; 401/403 cases become UnauthenticatedError / ForbiddenError. */
export async function authenticateIngestKey(
  db: TripsDb,
  environment: Environment,
  secret: string,
): Promise<IngestPrincipal> {
  const keyEnvironment = environmentOfSecret('ingest', secret);
  // An access token of /v1 sent here: said so, from its prefix alone, rather than "malformed".
  const sent = keyEnvironment === null ? prefixOfSecret(secret) : null;
  if (sent?.kind === 'api') {
    throw new UnauthenticatedError(
      `an access token (${sent.prefix}...) was sent as the ingest key: access tokens are for the /v1 API; the ingest endpoint takes an ingest key, "${secretPrefix('ingest', environment)}" followed by 43 base64url characters (npx trips ingest-keys create)`,
    );
  }
  if (keyEnvironment === null) {
    throw new UnauthenticatedError(
      `malformed ingest key: expected "${secretPrefix('ingest', environment)}" followed by 43 base64url characters`,
    );
  }
  if (keyEnvironment !== environment) {
    throw new ForbiddenError(`this is a ${keyEnvironment} ingest key and this is the ${environment} ingest endpoint`);
  }
  const row = await db
    .selectFrom('ingest_keys')
    .select(['key_id', 'fleet_id', 'vehicle_id', 'revoked_at_ms', 'environment'])
    .where('key_hash', '=', hashSecret(secret))
    .executeTakeFirst();
  if (!row || row.environment !== environment) throw new UnauthenticatedError('unknown ingest key');
  if (row.revoked_at_ms !== null) throw new UnauthenticatedError('ingest key has been revoked');
  return { keyId: row.key_id, fleetId: row.fleet_id, vehicleId: row.vehicle_id };
}
