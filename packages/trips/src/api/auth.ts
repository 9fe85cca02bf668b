import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Environment } from '../environment.ts';
import { ForbiddenError, UnauthenticatedError } from '../errors.ts';
import { FLEET_ID_PATTERN } from '../ids.ts';
import {
  apiTokensVersion,
  authenticateApiTokenAt,
  type CheckedPrincipal,
  cachedApiToken,
} from '../store/api-tokens.ts';
import type { TripsDb } from '../store/open-trips-database.ts';
import { ApiError, badRequest, notFound } from './api-error.ts';

/** The caller of a `/v1` request after authentication: which token, and which fleets this request reaches. */
export interface RequestScope {
  tokenId: string;
  /** Fleets in reach for this request (the token's, narrowed by x-fleet-id). Never empty. */
  fleets: string[];
  rateLimitPerMin: number | null;
  /** The `api_tokens_version` under which the token was checked. */
  tokenVersion: number;
  /**
   * Whether the token was checked against the store for this request. False for a scope taken from this
   * process's token cache (routes with `config.optimisticAuth`): nothing read for it may be answered before
   * confirmScope confirmed it, and an error sent for it is preceded by that check (build-api-app.ts).
   */
  verified: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    scope: RequestScope | null;
  }
  interface FastifyContextConfig {
    /**
     * The route confirms the token in its own read statements (confirmScope): its scope comes from this
     * process's token cache when it holds the token, without a read of the tokens' version first.
     */
    optimisticAuth?: boolean;
  }
}

const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;

/**
 * Resolves `Authorization: Bearer <token>` and `x-fleet-id` into the request's scope:
 * 401 missing/malformed/unknown/expired/revoked token; 403 another environment's token, or a non-admin
 * token reaching several fleets without x-fleet-id; 404 an x-fleet-id the token does not reach (the
 * same answer as a fleet that does not exist); 400 a malformed x-fleet-id.
 *
 * `optimistic`: when this process has the token cached and, as cached, it gives this request a scope, that
 * scope is returned unverified, without reading the store; anything else (a token not cached, or one whose
 * cached state would fail the request) is checked against the store, so every error is worded from the
 * store's current state.
 */
export async function resolveScope(
  req: FastifyRequest,
  db: TripsDb,
  environment: Environment,
  nowMs: number,
  optimistic = false,
): Promise<RequestScope> {
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    throw new ApiError(401, 'missing Authorization header: send "Authorization: Bearer <access token>"');
  }
  const match = BEARER.exec(header);
  if (!match) throw new ApiError(401, 'malformed Authorization header: expected "Bearer <access token>"');
  const secret = match[1]!;
  if (optimistic) {
    const cached = cachedApiToken(db, environment, secret, nowMs);
    if (cached) {
      try {
        return scopeFor(req, cached, false);
      } catch {
        // Worded from the store's current state below.
      }
    }
  }
  let checked: CheckedPrincipal;
  try {
    checked = await authenticateApiTokenAt(db, environment, secret, nowMs);
  } catch (err) {
    if (err instanceof UnauthenticatedError) throw new ApiError(401, err.message);
    if (err instanceof ForbiddenError) throw new ApiError(403, err.message);
    throw err;
  }
  return scopeFor(req, checked, true);
}

/** Header names a client may send meaning x-fleet-id, compared without case, dashes and underscores. */
const FLEET_HEADER_LOOKALIKES = new Set([
  'fleetid',
  'xfleetid',
  'xfleet',
  'fleet',
  'fleetids',
  'xfleetids',
  'xfleetsid',
]);

/** A request header that looks like x-fleet-id but is not it (`fleet-id`, `x_fleet_id`, `X-Fleet`), if any. */
function misspeltFleetHeader(headers: FastifyRequest['headers']): string | undefined {
  for (const name in headers) {
    if (name.length > 13 || !name.includes('fleet') || name === 'x-fleet-id') continue;
    if (FLEET_HEADER_LOOKALIKES.has(name.replace(/[-_]/g, ''))) return name;
  }
  return undefined;
}

/** The scope a checked principal gives this request (x-fleet-id narrows it), or the ApiError it fails with. */
function scopeFor(req: FastifyRequest, checked: CheckedPrincipal, verified: boolean): RequestScope {
  const { principal, version } = checked;
  const base = {
    tokenId: principal.tokenId,
    rateLimitPerMin: principal.rateLimitPerMin,
    tokenVersion: version,
    verified,
  };
  const fleetHeader = req.headers['x-fleet-id'];
  // Node's parser joins a repeated header into one value with ", ": a comma is a repeat or a list either way.
  if (Array.isArray(fleetHeader) || fleetHeader?.includes(',')) {
    throw badRequest('x-fleet-id is given more than once or names several fleets: give one fleet id');
  }
  if (fleetHeader !== undefined) {
    const fleetId = fleetHeader.trim();
    if (!FLEET_ID_PATTERN.test(fleetId)) {
      throw badRequest(
        `x-fleet-id must be a fleet id such as "fleet_acme" (got ${JSON.stringify(fleetId.slice(0, 70))})`,
      );
    }
    if (!principal.fleets.includes(fleetId)) throw notFound(`fleet ${fleetId} not found`);
    return { ...base, fleets: [fleetId] };
  }
  const misspelt = misspeltFleetHeader(req.headers);
  if (misspelt !== undefined) {
    // Read as no scope, an admin token would answer for every fleet it reaches to a client that meant one.
    throw badRequest(`the header ${JSON.stringify(misspelt)} is not read: the fleet scope header is x-fleet-id`);
  }
  if (!principal.admin && principal.fleets.length > 1) {
    throw new ApiError(
      403,
      `this token reaches ${principal.fleets.length} fleets and is not an admin token: send x-fleet-id with one of ${principal.fleets.join(', ')}`,
    );
  }
  if (principal.fleets.length === 0) throw new ApiError(403, 'this token reaches no fleet');
  return { ...base, fleets: principal.fleets };
}

/**
 * Confirms the request's scope after a read made for it: true when that read may be answered, false when the
 * scope had to be resolved again (the tokens changed since it was checked), in which case `req.scope` is the
 * new scope and the caller reads again for it. Throws the ApiError of a token that no longer passes.
 *
 * `observedVersion` is the `api_tokens_version` the read itself saw (TOKENS_VERSION_COLUMN in its statement),
 * when it did: the same as the scope's means the token was as checked in the read's own snapshot. Otherwise
 * the version is read now. The version only grows (every change to the tokens adds one in its own
 * transaction), so finding it unchanged after the read means it was unchanged during the read too.
 */
export async function confirmScope(
  req: FastifyRequest,
  db: TripsDb,
  environment: Environment,
  nowMs: number,
  observedVersion?: number | string | null,
): Promise<boolean> {
  const scope = req.scope;
  if (!scope) throw new Error('request reached a handler without a scope');
  if (scope.verified) return true;
  const seen =
    observedVersion !== undefined && observedVersion !== null ? Number(observedVersion) : await apiTokensVersion(db);
  if (seen === scope.tokenVersion) {
    scope.verified = true;
    return true;
  }
  req.scope = null;
  req.scope = await resolveScope(req, db, environment, nowMs);
  return false;
}

/**
 * confirmScope as the app binds it for its routes (its store, environment and clock), also carrying a changed
 * rate limit over to the response's headers (build-api-app.ts).
 */
export type ConfirmScope = (
  req: FastifyRequest,
  reply: FastifyReply,
  observedVersion?: number | string | null,
) => Promise<boolean>;
