import type { RestError } from './errors.ts';
import type { RestRequest } from './request.ts';
import type { JsonSchema, RestArg } from './schema.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** WP_REST_Server's method groups. */
export const READABLE: readonly HttpMethod[] = ['GET'];
export const CREATABLE: readonly HttpMethod[] = ['POST'];
export const EDITABLE: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];
export const DELETABLE: readonly HttpMethod[] = ['DELETE'];
export const ALLMETHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A permission check: `true` lets the request through; `false` (or nothing) becomes `rest_forbidden`
 * (401 when logged out, 403 when logged in); a returned or thrown RestError is sent as it is.
 */
export type PermissionCallback = (
  request: RestRequest,
) => boolean | RestError | undefined | Promise<boolean | RestError | undefined>;

/** The explicit "anyone may call this" permission (WordPress's `__return_true`). */
export const allowPublic: PermissionCallback = () => true;

/** What a handler may return: a RestResponse, or data sent with status 200. Throw RestError for errors. */
export type RestHandler = (request: RestRequest) => unknown | Promise<unknown>;

/**
 * One endpoint of a route, like an entry of `register_rest_route`'s `$args`. The permission check is
 * required by the type: a route without an access decision does not compile.
 */
export interface RestEndpoint {
  methods: HttpMethod | readonly HttpMethod[];
  handler: RestHandler;
  permission: PermissionCallback;
  args?: Record<string, RestArg>;
  /** Batch support of this endpoint; defaults to the route's `allowBatch`. */
  allowBatch?: { v1: boolean };
  /** Hidden from the index and OPTIONS when false. */
  showInIndex?: boolean;
  /** Whole-request validation after the per-argument checks (WordPress's route-level validate_callback). */
  validateCallback?: (request: RestRequest) => unknown;
}

export interface RouteOptions {
  /** The public item schema, shown by OPTIONS (`schema` in WordPress's route options). */
  schema?: () => JsonSchema;
  /** Marks every endpoint of the route as batch-capable (`allow_batch`). */
  allowBatch?: { v1: boolean };
  /** Replace an existing registration of the same route instead of merging. */
  override?: boolean;
  /** Arguments shared by every endpoint of the route (e.g. the `id` of an item route), listed first. */
  args?: Record<string, RestArg>;
  /**
   * Hands the parameters to the handler with U+0000 still in them (RestRequest.removeNulCharacters): only the
   * batch route, whose requests are checked, and then cleaned, one by one as requests of their own.
   */
  keepNulCharacters?: boolean;
}

/** A registered route, normalised. */
export interface RegisteredRoute {
  namespace: string;
  /** The route pattern as registered, e.g. `/cms/v2/posts/(?P<id>[\d]+)`. */
  pattern: string;
  regex: RegExp;
  endpoints: NormalizedEndpoint[];
  options: RouteOptions;
}

export interface NormalizedEndpoint extends Omit<RestEndpoint, 'methods'> {
  methods: HttpMethod[];
  args: Record<string, RestArg>;
  showInIndex: boolean;
}

/** Compiles a WordPress route pattern (PCRE named groups `(?P<name>...)`) to an anchored, case-insensitive RegExp. */
export function compileRoutePattern(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/\(\?P</g, '(?<')}$`, 'i');
}
