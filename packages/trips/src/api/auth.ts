import type { FastifyRequest } from 'fastify';
import type { Environment } from '../environment.ts';
import { ForbiddenError, UnauthenticatedError } from '../errors.ts';
import { FLEET_ID_PATTERN } from '../ids.ts';
import { authenticateApiToken } from '../store/api-tokens.ts';
import type { TripsDb } from '../store/open-trips-database.ts';
import { ApiError, badRequest, notFound } from './api-error.ts';

/** The caller of a `/v1` request after authentication: which token, and which fleets this request reaches. */
export interface RequestScope {
  tokenId: string;
  /** Fleets in reach for this request (the token's, narrowed by x-fleet-id). Never empty. */
  fleets: string[];
  rateLimitPerMin: number | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    scope: RequestScope | null;
  }
}

const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;

/**
 * Resolves `Authorization: Bearer <token>` and `x-fleet-id` into the request's scope:
 * 401 missing/malformed/unknown/expired/revoked token; 403 another environment's token, or a non-admin
 * token reaching several fleets without x-fleet-id; 404 an x-fleet-id the token does not reach (the
 * same answer as a fleet that does not exist); 400 a malformed x-fleet-id.
 */
export async function resolveScope(
  req: FastifyRequest,
  db: TripsDb,
  environment: Environment,
  nowMs: number,
): Promise<RequestScope> {
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    throw new ApiError(401, 'missing Authorization header: send "Authorization: Bearer <access token>"');
  }
  const match = BEARER.exec(header);
  if (!match) throw new ApiError(401, 'malformed Authorization header: expected "Bearer <access token>"');
  let principal: Awaited<ReturnType<typeof authenticateApiToken>>;
  try {
    principal = await authenticateApiToken(db, environment, match[1]!, nowMs);
  } catch (err) {
    if (err instanceof UnauthenticatedError) throw new ApiError(401, err.message);
    if (err instanceof ForbiddenError) throw new ApiError(403, err.message);
    throw err;
  }

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
    return { tokenId: principal.tokenId, fleets: [fleetId], rateLimitPerMin: principal.rateLimitPerMin };
  }
  if (!principal.admin && principal.fleets.length > 1) {
    throw new ApiError(
      403,
      `this token reaches ${principal.fleets.length} fleets and is not an admin token: send x-fleet-id with one of ${principal.fleets.join(', ')}`,
    );
  }
  if (principal.fleets.length === 0) throw new ApiError(403, 'this token reaches no fleet');
  return { tokenId: principal.tokenId, fleets: principal.fleets, rateLimitPerMin: principal.rateLimitPerMin };
}
