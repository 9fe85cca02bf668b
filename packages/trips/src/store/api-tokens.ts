import { arg, NotFoundError, runShape, sqliteHandleOf, toDomainError } from '@svc/platform';
import { sql } from 'kysely';
import { environmentOfSecret, generateSecret, hashSecret, prefixOfSecret, secretPrefix } from '../auth/secrets.ts';
import { checkDisplayText, escapeUnprintable } from '../display-text.ts';
import type { Environment } from '../environment.ts';
import { ForbiddenError, InvalidInputError, UnauthenticatedError } from '../errors.ts';
import { newTokenId } from '../ids.ts';
import { requireFleet } from './fleets.ts';
import type { TripsDb } from './open-trips-database.ts';

export interface ApiTokenInfo {
  tokenId: string;
  hint: string;
  environment: Environment;
  owner: string;
  admin: boolean;
  fleets: string[];
  rateLimitPerMin: number | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface CreateApiTokenInput {
  environment: Environment;
  fleets: string[];
  admin?: boolean;
  owner?: string | undefined;
  expiresAtMs?: number | null | undefined;
  rateLimitPerMin?: number | null | undefined;
}

/**
 * Issues an API token. The secret is returned once and only its SHA-256 is stored. A non-admin token
 * reaching several fleets must name one with `x-fleet-id` on every request; an admin token without the
 * header reads all its fleets at once.
 */
export async function createApiToken(
  db: TripsDb,
  input: CreateApiTokenInput,
  nowMs = Date.now(),
): Promise<{ token: ApiTokenInfo; secret: string }> {
  const fleets = [...new Set(input.fleets)];
  if (fleets.length === 0) throw new InvalidInputError('a token needs at least one fleet (--fleet <id>)');
  const names: string[] = [];
  for (const fleetId of fleets) names.push((await requireFleet(db, fleetId)).name);
  // A fleet named before names were checked may hold control characters: the default owner shows them escaped,
  // so that such a fleet can still be given a token.
  const owner = (input.owner ?? defaultOwner(names.map(escapeUnprintable))).trim();
  if (owner.length === 0 || owner.length > OWNER_MAX_CHARS) {
    throw new InvalidInputError(`token owner must be 1-${OWNER_MAX_CHARS} characters`);
  }
  checkDisplayText('token owner', owner);
  if (input.expiresAtMs != null && input.expiresAtMs <= nowMs) {
    throw new InvalidInputError('token expiry must be in the future');
  }
  if (input.expiresAtMs != null && !Number.isFinite(new Date(input.expiresAtMs).getTime())) {
    throw new InvalidInputError('token expiry is past the last date that can be stored (+275760-09-13)');
  }
  const limit = input.rateLimitPerMin ?? null;
  if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > 1_000_000)) {
    throw new InvalidInputError('rate limit must be an integer between 1 and 1000000 requests per minute');
  }
  const { secret, hash, hint } = generateSecret('api', input.environment);
  const tokenId = newTokenId();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('api_tokens')
      .values({
        token_id: tokenId,
        token_hash: hash,
        token_hint: hint,
        environment: input.environment,
        owner,
        is_admin: input.admin ? 1 : 0,
        rate_limit_per_min: limit,
        created_at_ms: nowMs,
        expires_at_ms: input.expiresAtMs ?? null,
        revoked_at_ms: null,
      })
      .execute();
    await trx
      .insertInto('api_token_fleets')
      .values(fleets.map((fleet_id) => ({ token_id: tokenId, fleet_id })))
      .execute();
  });
  return {
    secret,
    token: {
      tokenId,
      hint,
      environment: input.environment,
      owner,
      admin: Boolean(input.admin),
      fleets: fleets.sort(),
      rateLimitPerMin: limit,
      createdAt: new Date(nowMs).toISOString(),
      expiresAt: input.expiresAtMs != null ? new Date(input.expiresAtMs).toISOString() : null,
      revokedAt: null,
    },
  };
}

const OWNER_MAX_CHARS = 200;

/**
 * The owner of a token created without one: its fleets' names, as many as fit (an admin token may reach
 * dozens of fleets), then how many more.
 */
function defaultOwner(names: string[]): string {
  for (let shown = names.length; shown >= 1; shown--) {
    const more = names.length - shown;
    const owner = `${names.slice(0, shown).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    if (owner.length <= OWNER_MAX_CHARS) return owner;
  }
  return `${names.length} fleets`;
}

/** Every token of the environment (never the secrets). */
export async function listApiTokens(db: TripsDb): Promise<ApiTokenInfo[]> {
  const rows = await db.selectFrom('api_tokens').selectAll().orderBy('created_at_ms').orderBy('token_id').execute();
  const links = await db.selectFrom('api_token_fleets').selectAll().orderBy('fleet_id').execute();
  const fleetsOf = new Map<string, string[]>();
  for (const l of links) fleetsOf.set(l.token_id, [...(fleetsOf.get(l.token_id) ?? []), l.fleet_id]);
  return rows.map((r) => ({
    tokenId: r.token_id,
    hint: r.token_hint,
    environment: r.environment as Environment,
    owner: r.owner,
    admin: r.is_admin === 1,
    fleets: fleetsOf.get(r.token_id) ?? [],
    rateLimitPerMin: r.rate_limit_per_min,
    createdAt: new Date(r.created_at_ms).toISOString(),
    expiresAt: r.expires_at_ms !== null ? new Date(r.expires_at_ms).toISOString() : null,
    revokedAt: r.revoked_at_ms !== null ? new Date(r.revoked_at_ms).toISOString() : null,
  }));
}

/**
 * Revokes a token by id; its next request gets 401. Revoking one already revoked keeps the first time and returns
 * it (null when this call revoked it), so the operator is told rather than shown a second revocation.
 */
export async function revokeApiToken(db: TripsDb, tokenId: string, nowMs = Date.now()): Promise<string | null> {
  const row = await db
    .selectFrom('api_tokens')
    .select('revoked_at_ms')
    .where('token_id', '=', tokenId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`token ${tokenId} does not exist (see tokens list)`);
  if (row.revoked_at_ms !== null) return new Date(Number(row.revoked_at_ms)).toISOString();
  await db.updateTable('api_tokens').set({ revoked_at_ms: nowMs }).where('token_id', '=', tokenId).execute();
  return null;
}

/** Who is calling: what an authenticated API token may reach. */
export interface ApiPrincipal {
  tokenId: string;
  admin: boolean;
  /** Every fleet the token reaches, sorted. */
  fleets: string[];
  rateLimitPerMin: number | null;
}

/**
 * Resolves a bearer token for `environment`: 401 cases (unknown, expired, revoked) and the 403 case
 * (a token of the other environment) become UnauthenticatedError / ForbiddenError with a message a
 * developer can act on.
 */
export async function authenticateApiToken(
  db: TripsDb,
  environment: Environment,
  secret: string,
  nowMs = Date.now(),
): Promise<ApiPrincipal> {
  return (await authenticateApiTokenAt(db, environment, secret, nowMs)).principal;
}

/** A token's principal and the `api_tokens_version` it was checked under. */
export interface CheckedPrincipal {
  principal: ApiPrincipal;
  version: number;
}

/** authenticateApiToken, also saying which version of the tokens the answer holds for. */
export async function authenticateApiTokenAt(
  db: TripsDb,
  environment: Environment,
  secret: string,
  nowMs = Date.now(),
): Promise<CheckedPrincipal> {
  const tokenEnvironment = environmentOfSecret('api', secret);
  // An ingest key sent to /v1 (the two are issued side by side): said so, from its prefix alone, rather than
  // "malformed", which sent the caller looking for a damaged token.
  const sent = tokenEnvironment === null ? prefixOfSecret(secret) : null;
  if (sent?.kind === 'ingest') {
    throw new UnauthenticatedError(
      `an ingest key (${sent.prefix}...) was sent as the access token: ingest keys are for the private ingest endpoint; /v1 takes an access token, "${secretPrefix('api', environment)}" followed by 43 base64url characters (npx trips tokens create)`,
    );
  }
  if (tokenEnvironment === null) {
    throw new UnauthenticatedError(
      `malformed access token: expected "${secretPrefix('api', environment)}" followed by 43 base64url characters`,
    );
  }
  if (tokenEnvironment !== environment) {
    throw new ForbiddenError(
      `this is a ${tokenEnvironment} token and this is the ${environment} API: call the ${tokenEnvironment} base URL, or use a ${environment} token`,
    );
  }
  const hash = hashSecret(secret);
  const version = await apiTokensVersion(db);
  const cache = tokenCacheOf(db);
  let row = cache.get(hash);
  if (row === undefined || row.version !== version) {
    cache.delete(hash);
    row = await lookUpToken(db, hash, version);
    // Unknown tokens are not cached: guessing cannot fill the cache.
    if (row === undefined) throw new UnauthenticatedError('unknown access token');
    cache.set(hash, row);
    if (cache.size > TOKEN_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  }
  if (row.environment !== environment) throw new UnauthenticatedError('unknown access token');
  if (row.revoked_at_ms !== null) throw new UnauthenticatedError('access token has been revoked');
  if (row.expires_at_ms !== null && row.expires_at_ms <= nowMs) {
    throw new UnauthenticatedError(`access token expired at ${new Date(row.expires_at_ms).toISOString()}`);
  }
  return { principal: row.principal, version: row.version };
}

/**
 * The principal this process last checked `secret` to, without reading the store: undefined unless the token
 * is cached and, as cached, valid now (its environment, not revoked, not expired). The answer holds only if
 * the tokens are still at the returned version, which the caller must confirm against the store before it
 * answers with anything read for this principal (see api/auth.ts, confirmScope). Every failure is left to
 * authenticateApiTokenAt, which reads the store and words the error.
 */
export function cachedApiToken(
  db: TripsDb,
  environment: Environment,
  secret: string,
  nowMs: number,
): CheckedPrincipal | undefined {
  const cache = tokenCaches.get(db);
  if (cache === undefined || cache.size === 0 || environmentOfSecret('api', secret) !== environment) return undefined;
  const row = cache.get(hashSecret(secret));
  if (row === undefined || row.environment !== environment || row.revoked_at_ms !== null) return undefined;
  if (row.expires_at_ms !== null && row.expires_at_ms <= nowMs) return undefined;
  return { principal: row.principal, version: row.version };
}

/**
 * The current `api_tokens_version` as a column of a read statement: a statement that selects it tells, from
 * the same snapshot as its data, whether the tokens changed since a principal was checked.
 */
export const TOKENS_VERSION_COLUMN = sql<number>`(select version from api_tokens_version where id = 1)`;

/** What a token row says, as read under one version of the tokens. */
interface CachedToken {
  version: number;
  environment: string;
  expires_at_ms: number | null;
  revoked_at_ms: number | null;
  principal: ApiPrincipal;
}

/**
 * Tokens resolved by this process, per database handle, each under the `api_tokens_version` it was read
 * at. Every request reads the current version (one primary-key lookup) and uses a cached token only when
 * nothing changed since: the triggers of migration 0007 bump the version with every change to the
 * tokens, by any process, in the changing transaction. Expiry is checked against the request's clock
 * every time. Bounded: the oldest entry goes first.
 */
const tokenCaches = new WeakMap<object, Map<string, CachedToken>>();
const TOKEN_CACHE_ENTRIES = 10_000;

function tokenCacheOf(db: object): Map<string, CachedToken> {
  let cache = tokenCaches.get(db);
  if (!cache) {
    cache = new Map();
    tokenCaches.set(db, cache);
  }
  return cache;
}

type SqliteConnection = NonNullable<ReturnType<typeof sqliteHandleOf>>;

/** Per SQLite connection: the version read as a statement returning the bare value (see apiTokensVersion). */
const versionStatements = new WeakMap<SqliteConnection, ReturnType<SqliteConnection['prepare']>>();

/** The current version of the tokens (migration 0007's triggers move it with every change to them). */
export async function apiTokensVersion(db: TripsDb): Promise<number> {
  // Every request reads this row. On SQLite, when no transaction is open on the connection (runShape's own
  // condition for running there directly), it is read with better-sqlite3's `pluck().get()`: one value
  // instead of an array of row objects (5.4 against 7.3 µs of CPU a read, measured on the bench store).
  const connection = db.isTransaction ? undefined : sqliteHandleOf(db);
  if (connection && !connection.inTransaction) {
    let statement = versionStatements.get(connection);
    if (!statement) {
      statement = connection.prepare('select version from api_tokens_version where id = 1').pluck();
      versionStatements.set(connection, statement);
    }
    let version: unknown;
    try {
      version = statement.get([]);
    } catch (err) {
      throw toDomainError(err);
    }
    if (version === undefined) throw new Error('api_tokens_version has no row: the store was not migrated');
    return Number(version);
  }
  const [row] = await runShape(
    db,
    'api-tokens-version',
    () => db.selectFrom('api_tokens_version').select('version').where('id', '=', 1),
    [],
  );
  if (!row) throw new Error('api_tokens_version has no row: the store was not migrated');
  return Number(row.version);
}

/** The token with this hash and its fleets, read under `version`; undefined when there is none. */
async function lookUpToken(db: TripsDb, hash: string, version: number): Promise<CachedToken | undefined> {
  // One statement: the token and its fleets together (one row per fleet).
  const rows = await runShape(
    db,
    'authenticate-api-token',
    () =>
      db
        .selectFrom('api_tokens')
        .leftJoin('api_token_fleets', 'api_token_fleets.token_id', 'api_tokens.token_id')
        .select([
          'api_tokens.token_id',
          'api_tokens.is_admin',
          'api_tokens.expires_at_ms',
          'api_tokens.revoked_at_ms',
          'api_tokens.rate_limit_per_min',
          'api_tokens.environment',
          'api_token_fleets.fleet_id',
        ])
        .where('api_tokens.token_hash', '=', arg(0)),
    [hash],
  );
  const row = rows[0];
  if (!row) return undefined;
  const fleets = rows
    .map((r) => r.fleet_id)
    .filter((f): f is string => f !== null)
    .sort();
  return {
    version,
    environment: row.environment,
    expires_at_ms: row.expires_at_ms,
    revoked_at_ms: row.revoked_at_ms,
    // Shared by every request of this token until it changes: frozen, so no caller can alter it.
    principal: Object.freeze({
      tokenId: row.token_id,
      admin: row.is_admin === 1,
      fleets: Object.freeze(fleets) as string[],
      rateLimitPerMin: row.rate_limit_per_min,
    }),
  };
}
