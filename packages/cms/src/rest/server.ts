import {
  DatabaseUnavailableError,
  ForeignKeyViolationError,
  TransientConflictError,
  UniqueViolationError,
  ValueNotStorableError,
} from '@svc/platform';
/**
 * The REST server: route registry, dispatch and serving, after WP_REST_Server (WordPress 6.1).
 *
 * `dispatch()` runs one request through matching, argument validation (two passes, as WordPress:
 * `has_valid_params` then `sanitize_params`), the permission check and the handler, and always returns
 * a RestResponse (errors included). `serve()` adds what happens around it for an HTTP request: method
 * overrides, authentication, OPTIONS, `_fields`, the `Allow` header, `_envelope`, `_links`/`_embed`,
 * JSONP and the fixed headers WordPress sends.
 */
import { authorizationRequiredCode, isRestError, RestError } from './errors.ts';
import { filterResponseFields, requestedFields } from './fields.ts';
import { isPlainObject, parseList, parseQueryString } from './php.ts';
import { stringifyResponseData } from './raw-json.ts';
import { ANONYMOUS, type CapabilityCheck, type CurrentUser, RestRequest, type UploadedFile } from './request.ts';
import { ensureResponse, RestResponse } from './response.ts';
import {
  compileRoutePattern,
  type HttpMethod,
  type NormalizedEndpoint,
  type RegisteredRoute,
  type RestEndpoint,
  type RouteOptions,
} from './route.ts';
import type { RestArg } from './schema.ts';
import { sanitizeValueFromSchema, validateValueFromSchema } from './validation.ts';

/** The schema keywords shown for an argument in the index and OPTIONS (rest_get_allowed_schema_keywords). */
export const ALLOWED_SCHEMA_KEYWORDS = new Set([
  'title',
  'description',
  'default',
  'type',
  'format',
  'enum',
  'items',
  'properties',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
]);

/** Result of authenticating an HTTP request. */
export type AuthResult = { user: CurrentUser } | RestError | null;

export interface RestServerOptions {
  /** The API root URL with a trailing slash, e.g. `http://127.0.0.1:8080/cms-json/` (may change with settings). */
  apiRoot: () => string | Promise<string>;
  /** Authenticates the credentials of an HTTP request; null means anonymous. */
  authenticate?: (request: RestRequest) => Promise<AuthResult>;
  /** The capability check bound to every request. */
  can?: CapabilityCheck;
  /** Site fields of `GET /` (name, description, url, ...), placed before `namespaces`. */
  siteInfo?: (request: RestRequest) => Promise<Record<string, unknown>>;
  /** Fields appended after `routes` in `GET /` (site_logo, site_icon, ...). */
  siteInfoTail?: (request: RestRequest) => Promise<Record<string, unknown>>;
  /**
   * Turns an error of the application's own kinds (a value too long for its column, ...) into the RestError
   * it answers with; null leaves it to the kernel (a 500 unless it is a known database error).
   */
  mapError?: (error: unknown) => RestError | null;
  /** Called with unexpected (non-REST) errors thrown by handlers, before they become a 500. */
  onError?: (error: unknown, request: RestRequest) => void;
  /** Maximum number of requests in one batch (25 in WordPress). */
  maxBatchSize?: number;
  /** Names of the `X-CMS-*` style headers (brand mapping of `X-WP-*`). */
  headerPrefix?: string;
}

/** An HTTP request as the transport hands it over. */
export interface HttpInput {
  method: string;
  /** The REST route, e.g. `/cms/v2/posts` (already stripped of `/cms-json`). */
  route: string;
  /** Query parameters as PHP's `$_GET` would hold them (see parseQueryString). */
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body text. */
  body: string;
  /** Form-encoded body params (`$_POST`), parsed by the transport for POST requests. */
  bodyParams?: Record<string, unknown>;
  remoteAddress?: string;
  /** The body's bytes, for binary uploads. */
  rawBody?: Buffer;
  /** Files of a multipart body, by field name. */
  files?: Record<string, UploadedFile>;
  /** The body could not be read (too large, malformed): answered as this error instead of dispatching. */
  bodyError?: RestError;
}

export interface HttpOutput {
  status: number;
  headers: Record<string, string | string[]>;
  /** Serialised body, or null for none (HEAD, 204). */
  body: string | null;
}

/** An empty PHP array in a schema: WordPress prints it as `[]`, and it has no keys either way. */
const EMPTY_PHP_ARRAY = [] as unknown as Record<string, never>;

const NO_ROUTE = () =>
  new RestError('rest_no_route', 'No route was found matching the URL and request method.', { status: 404 });

/** The registry and dispatcher of REST routes (WP_REST_Server). */
export class RestServer {
  private readonly routes = new Map<string, RegisteredRoute>();
  private readonly namespaces = new Map<string, Set<string>>();
  /** Route descriptions by context and API root: they only change when a route is registered. */
  private readonly describedRoutes = new Map<string, Record<string, unknown>>();
  /** matchRequest's candidate routes by the namespaces a path starts with; cleared on registration. */
  private readonly candidatesByNamespaces = new Map<string, readonly RegisteredRoute[]>();
  private readonly options: RestServerOptions;
  readonly headerPrefix: string;

  constructor(options: RestServerOptions) {
    this.options = options;
    this.headerPrefix = options.headerPrefix ?? 'X-CMS';
    this.registerBuiltInRoutes();
  }

  /** The configured API root (with trailing slash). */
  async apiRoot(): Promise<string> {
    return this.options.apiRoot();
  }

  /** rest_url(): an absolute URL of a route under the API root. */
  async url(route = '/'): Promise<string> {
    const root = await this.apiRoot();
    return `${root}${route.replace(/^\/+/, '')}`;
  }

  // --- registration ---------------------------------------------------------------------------------

  /**
   * register_rest_route(): adds endpoints for `/{namespace}{route}`. A namespace's own index route
   * (`/{namespace}`) is created with its first route. Registering a route twice merges the endpoints
   * unless `options.override` is set.
   */
  registerRoute(
    namespace: string,
    route: string,
    endpoints: RestEndpoint | readonly RestEndpoint[],
    options: RouteOptions = {},
  ): void {
    const ns = namespace.replace(/^\/+|\/+$/g, '');
    if (ns === '') throw new Error(`Route ${route} must have a namespace`);
    const cleanRoute = route.replace(/^\/+/, '');
    const full = cleanRoute === '' ? `/${ns}` : `/${ns}/${cleanRoute}`;
    if (!this.namespaces.has(ns)) {
      // The namespace's own route is one of its members: its index lists it first, as WordPress's does.
      this.namespaces.set(ns, new Set([`/${ns}`]));
      this.addRoute(ns, `/${ns}`, [this.namespaceIndexEndpoint(ns)], {});
    }
    this.namespaces.get(ns)!.add(full);
    this.addRoute(ns, full, Array.isArray(endpoints) ? endpoints : [endpoints as RestEndpoint], options);
  }

  private addRoute(
    namespace: string,
    pattern: string,
    endpoints: readonly RestEndpoint[],
    options: RouteOptions,
  ): void {
    for (const e of endpoints) {
      if (typeof e.permission !== 'function') {
        throw new Error(
          `Route ${pattern}: every endpoint needs a permission callback (use allowPublic for public ones)`,
        );
      }
    }
    this.describedRoutes.clear();
    this.candidatesByNamespaces.clear();
    const common = options.args ?? {};
    const normalized = endpoints.map((e) => normalizeEndpoint({ ...e, args: { ...common, ...(e.args ?? {}) } }));
    const existing = this.routes.get(pattern);
    if (existing && !options.override) {
      existing.endpoints.push(...normalized);
      existing.options = { ...existing.options, ...withoutArgs(options) };
      return;
    }
    this.routes.set(pattern, {
      namespace,
      pattern,
      regex: compileRoutePattern(pattern),
      endpoints: normalized,
      options: withoutArgs(options),
    });
  }

  /** The registered namespaces, in registration order. */
  getNamespaces(): string[] {
    return [...this.namespaces.keys()];
  }

  /** The registered routes, optionally of one namespace, in registration order. */
  getRoutes(namespace?: string): RegisteredRoute[] {
    const all = [...this.routes.values()];
    return namespace === undefined ? all : all.filter((r) => r.namespace === namespace);
  }

  // --- dispatch -------------------------------------------------------------------------------------

  /** Finds the route and endpoint for a request and attaches URL params and defaults (match_request_to_handler). */
  matchRequest(request: RestRequest): { route: RegisteredRoute; endpoint: NormalizedEndpoint } | RestError {
    const path = request.route;
    for (const route of this.candidateRoutes(path)) {
      const m = route.regex.exec(path);
      if (!m) continue;
      for (const endpoint of route.endpoints) {
        const checked = request.method === 'HEAD' && !endpoint.methods.includes('HEAD') ? 'GET' : request.method;
        if (!endpoint.methods.includes(checked as HttpMethod)) continue;
        request.setUrlParams({ ...(m.groups ?? {}) });
        request.attributes = { args: endpoint.args, validateCallback: endpoint.validateCallback };
        request.setDefaultParams(endpointDefaults(endpoint));
        return { route, endpoint };
      }
    }
    return NO_ROUTE();
  }

  /**
   * The routes a path may match, in match order: the built-in ones, then those of every namespace the
   * path starts with (all routes when none). Kept per set of namespaces until a route is registered.
   */
  private candidateRoutes(path: string): readonly RegisteredRoute[] {
    const trimmed = `${path.replace(/^\/+/, '')}/`;
    let key = '';
    for (const ns of this.namespaces.keys()) if (trimmed.startsWith(ns)) key += `${ns}\n`;
    let candidates = this.candidatesByNamespaces.get(key);
    if (!candidates) {
      const namespaces = key === '' ? [] : key.slice(0, -1).split('\n');
      const inNamespaces = namespaces.flatMap((ns) => this.getRoutes(ns));
      // Deduplicated keeping first places.
      candidates = inNamespaces.length === 0 ? this.getRoutes() : [...new Set([...this.builtIn(), ...inNamespaces])];
      this.candidatesByNamespaces.set(key, candidates);
    }
    return candidates;
  }

  private builtIn(): RegisteredRoute[] {
    return [this.routes.get('/'), this.routes.get('/batch/v1')].filter((r): r is RegisteredRoute => r !== undefined);
  }

  /**
   * Runs a request: match, validate, sanitise, check permission, call the handler. Never throws; errors
   * come back as error responses with `matchedRoute` set when a route matched.
   */
  async dispatch(request: RestRequest): Promise<RestResponse> {
    if (request.method === 'OPTIONS') return this.handleOptions(request);
    const matched = this.matchRequest(request);
    if (isRestError(matched)) return errorResponse(matched);
    let error: RestError | null;
    try {
      error = await hasValidParams(request);
      if (!error) error = sanitizeParams(request);
    } catch (err) {
      // A validate or sanitize callback that reads the database can fail like a handler.
      error = this.toRestError(err, request);
    }
    return this.respondToRequest(request, matched.route, matched.endpoint, error);
  }

  /** respond_to_request(): permission check and handler, errors converted. */
  async respondToRequest(
    request: RestRequest,
    route: RegisteredRoute,
    endpoint: NormalizedEndpoint,
    earlierError: RestError | null,
  ): Promise<RestResponse> {
    let response: RestResponse;
    try {
      if (earlierError) throw earlierError;
      // After WordPress's checks, before anything uses the values: see removeNulCharacters.
      if (!route.options.keepNulCharacters) request.removeNulCharacters();
      const permission = await endpoint.permission(request);
      if (isRestError(permission)) throw permission;
      if (permission !== true) {
        throw new RestError('rest_forbidden', 'Sorry, you are not allowed to do that.', {
          status: authorizationRequiredCode(request.user.id),
        });
      }
      response = ensureResponse(await endpoint.handler(request));
    } catch (err) {
      response = errorResponse(this.toRestError(err, request));
    }
    response.matchedRoute = route.pattern;
    return response;
  }

  private toRestError(err: unknown, request: RestRequest): RestError {
    if (isRestError(err)) return err;
    const mapped = this.options.mapError?.(err);
    if (mapped) return mapped;
    // Integrity errors that reach here lost a race with another request (the handler's own checks
    // passed): they are the client's conflict, not a server fault.
    if (err instanceof UniqueViolationError) {
      return new RestError('rest_conflict', 'A conflicting item already exists; retry the request.', { status: 409 });
    }
    if (err instanceof TransientConflictError) {
      return new RestError('rest_conflict', 'The item was changed by another request; retry the request.', {
        status: 409,
      });
    }
    if (err instanceof ForeignKeyViolationError) {
      return new RestError('rest_invalid_reference', 'The request refers to an item that does not exist.', {
        status: 400,
      });
    }
    // A value the database cannot hold (PostgreSQL: U+0000 in text, too long, a number out of an integer column's
    // range, ...) that got past the checks is bad input too: WordPress's wpdb refuses such a value before the
    // query (process_fields), which it answers as a failed write. The message says what kind of value, not which.
    if (err instanceof ValueNotStorableError) {
      return new RestError(
        'rest_invalid_value',
        `The request holds a value the database cannot store: ${err.message}.`,
        {
          status: 400,
        },
      );
    }
    this.options.onError?.(err, request);
    if (err instanceof DatabaseUnavailableError) {
      return new RestError('rest_unavailable', 'The site is temporarily unavailable.', { status: 503 });
    }
    return new RestError('internal_server_error', 'There has been a critical error on this website.', { status: 500 });
  }

  /** rest_handle_options_request(): OPTIONS answers with the route's description and schema. */
  private async handleOptions(request: RestRequest): Promise<RestResponse> {
    for (const route of this.routes.values()) {
      const m = route.regex.exec(request.route);
      if (!m) continue;
      request.setUrlParams({ ...(m.groups ?? {}) });
      const last = route.endpoints[route.endpoints.length - 1];
      if (last) request.attributes = { args: last.args };
      const data = await this.dataForRoute(route, 'help');
      const response = new RestResponse(data ?? []);
      response.matchedRoute = route.pattern;
      return response;
    }
    return new RestResponse([]);
  }

  // --- describing routes (index, namespace index, OPTIONS) -------------------------------------------

  /** get_data_for_route(): methods, endpoints with their public args, `_links.self` for fixed routes. */
  async dataForRoute(route: RegisteredRoute, context: string): Promise<Record<string, unknown> | null> {
    const data: Record<string, unknown> = {
      namespace: route.namespace,
      methods: [] as string[],
      endpoints: [] as unknown[],
    };
    if (route.options.schema && context === 'help') data.schema = route.options.schema();
    const displayRoute = route.pattern.replace(/\(\?P<(\w+?)>.*?\)/g, '{$1}');
    const methods: string[] = [];
    const endpoints: unknown[] = [];
    for (const endpoint of route.endpoints) {
      if (!endpoint.showInIndex) continue;
      methods.push(...endpoint.methods);
      const entry: Record<string, unknown> = { methods: [...endpoint.methods] };
      const batch = endpoint.allowBatch ?? route.options.allowBatch;
      if (batch) entry.allow_batch = batch;
      const args: Record<string, unknown> = {};
      for (const [name, arg] of Object.entries(endpoint.args)) args[name] = publicArg(arg);
      // PHP encodes an empty args array as [].
      entry.args = Object.keys(args).length > 0 ? args : [];
      endpoints.push(entry);
      if (!displayRoute.includes('{')) data._links = { self: [{ href: await this.url(displayRoute) }] };
    }
    if (methods.length === 0) return null;
    data.methods = methods;
    data.endpoints = endpoints;
    // Keep WordPress's key order: namespace, methods, endpoints, schema, _links.
    const ordered: Record<string, unknown> = { namespace: data.namespace, methods, endpoints };
    if (data.schema !== undefined) ordered.schema = data.schema;
    if (data._links !== undefined) ordered._links = data._links;
    return ordered;
  }

  /** get_data_for_routes(). */
  async dataForRoutes(routes: readonly RegisteredRoute[], context: string): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const route of routes) {
      const data = await this.dataForRoute(route, context);
      if (data) out[route.pattern] = data;
    }
    return out;
  }

  private registerBuiltInRoutes(): void {
    this.routes.set('/', {
      namespace: '',
      pattern: '/',
      regex: compileRoutePattern('/'),
      options: {},
      endpoints: [
        normalizeEndpoint({
          methods: 'GET',
          permission: () => true,
          args: { context: { default: 'view' } },
          handler: (request) => this.getIndex(request),
        }),
      ],
    });
    this.routes.set('/batch/v1', {
      namespace: '',
      pattern: '/batch/v1',
      regex: compileRoutePattern('/batch/v1'),
      options: { keepNulCharacters: true },
      endpoints: [
        normalizeEndpoint({
          methods: 'POST',
          permission: () => true,
          args: {
            validation: { type: 'string', enum: ['require-all-validate', 'normal'], default: 'normal' },
            requests: {
              required: true,
              type: 'array',
              maxItems: this.options.maxBatchSize ?? 25,
              items: {
                type: 'object',
                properties: {
                  method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
                  path: { type: 'string', required: true },
                  body: { type: 'object', properties: EMPTY_PHP_ARRAY, additionalProperties: true },
                  headers: {
                    type: 'object',
                    properties: EMPTY_PHP_ARRAY,
                    additionalProperties: { type: ['string', 'array'], items: { type: 'string' } },
                  },
                },
              },
            },
          },
          handler: (request) => this.serveBatchV1(request),
        }),
      ],
    });
  }

  private namespaceIndexEndpoint(namespace: string): RestEndpoint {
    return {
      methods: 'GET',
      permission: () => true,
      args: { namespace: { default: namespace }, context: { default: 'view' } },
      handler: (request) => this.getNamespaceIndex(request),
    };
  }

  /** GET / : site description, namespaces, authentication and every route. */
  private async getIndex(request: RestRequest): Promise<RestResponse> {
    const head = (await this.options.siteInfo?.(request)) ?? {};
    const tail = (await this.options.siteInfoTail?.(request)) ?? {};
    const data = {
      ...head,
      namespaces: this.getNamespaces(),
      // The spec's index lists no authentication scheme: an empty array.
      authentication: [],
      routes: await this.describeAllRoutes(String(request.get('context') ?? 'view')),
      ...tail,
    };
    return new RestResponse(data);
  }

  private async describeAllRoutes(context: string): Promise<Record<string, unknown>> {
    const key = `${context}|${await this.apiRoot()}`;
    let routes = this.describedRoutes.get(key);
    if (!routes) {
      routes = await this.dataForRoutes(this.getRoutes(), context);
      if (this.describedRoutes.size > 16) this.describedRoutes.clear();
      this.describedRoutes.set(key, routes);
    }
    return routes;
  }

  /** GET /{namespace} : the routes of one namespace. */
  private async getNamespaceIndex(request: RestRequest): Promise<RestResponse> {
    const namespace = String(request.get('namespace') ?? '');
    const members = this.namespaces.get(namespace);
    if (!members) {
      throw new RestError('rest_invalid_namespace', 'The specified namespace could not be found.', { status: 404 });
    }
    const routes = this.getRoutes().filter((r) => members.has(r.pattern));
    const response = new RestResponse({
      namespace,
      routes: await this.dataForRoutes(routes, String(request.get('context') ?? 'view')),
    });
    response.addLink('up', await this.url('/'));
    return response;
  }

  // --- batch ----------------------------------------------------------------------------------------

  /** serve_batch_request_v1(): validates every request, then runs them in order; 207 with per-request results. */
  private async serveBatchV1(batch: RestRequest): Promise<RestResponse> {
    const items = (batch.get<Array<Record<string, unknown>>>('requests') ?? []) as Array<Record<string, unknown>>;
    const requests: Array<RestRequest | RestError> = items.map((args) => {
      const rawPath = String(args.path ?? '');
      let parsed: URL;
      try {
        parsed = new URL(rawPath, 'http://batch.invalid');
      } catch {
        return new RestError('parse_path_failed', 'Could not parse the path.', { status: 400 });
      }
      const q = rawPath.indexOf('?');
      const headers: Record<string, string> = {};
      if (isPlainObject(args.headers)) {
        for (const [k, v] of Object.entries(args.headers)) headers[k] = Array.isArray(v) ? v.join(',') : String(v);
      }
      return new RestRequest({
        method: typeof args.method === 'string' ? args.method : 'POST',
        route: decodeURIComponent(parsed.pathname),
        query: q === -1 ? {} : parseQueryString(rawPath.slice(q + 1).split('#')[0] ?? ''),
        bodyParams: isPlainObject(args.body) ? args.body : {},
        headers,
        user: batch.user,
        can: batch.capabilityCheck,
        remoteAddress: batch.remoteAddress,
      });
    });

    const matches: Array<{ route: RegisteredRoute; endpoint: NormalizedEndpoint } | RestError> = [];
    const validation: Array<true | RestError> = [];
    let hasError = false;
    for (const single of requests) {
      if (isRestError(single)) {
        matches.push(single);
        validation.push(single);
        hasError = true;
        continue;
      }
      const match = this.matchRequest(single);
      matches.push(match);
      let error: RestError | null = isRestError(match) ? match : null;
      if (!error && !isRestError(match)) {
        const allow = match.endpoint.allowBatch ?? match.route.options.allowBatch;
        if (!allow?.v1) {
          error = new RestError('rest_batch_not_allowed', 'The requested route does not support batch requests.', {
            status: 400,
          });
        }
      }
      try {
        if (!error) error = await hasValidParams(single);
        if (!error) error = sanitizeParams(single);
      } catch (err) {
        error = this.toRestError(err, single);
      }
      if (error) {
        hasError = true;
        validation.push(error);
      } else validation.push(true);
    }

    const responses: unknown[] = [];
    if (hasError && batch.get('validation') === 'require-all-validate') {
      for (const v of validation) responses.push(v === true ? null : await this.envelope(errorResponse(v), false));
      return new RestResponse({ failed: 'validation', responses }, 207);
    }
    for (let i = 0; i < requests.length; i++) {
      const single = requests[i]!;
      const match = matches[i]!;
      let result: RestResponse;
      if (isRestError(single)) result = errorResponse(single);
      else if (isRestError(match)) result = errorResponse(match);
      else {
        const v = validation[i]!;
        result = await this.respondToRequest(single, match.route, match.endpoint, v === true ? null : v);
        if (!single.isEmbedded) await this.addAllowHeader(result, single);
        const fields = requestedFields(single);
        if (fields && result.status < 400) result.data = filterResponseFields(result.data, fields);
      }
      responses.push(await this.envelope(result, false));
    }
    return new RestResponse({ responses }, 207);
  }

  // --- serving --------------------------------------------------------------------------------------

  /** envelope_response(): `{ body, status, headers }`. */
  private async envelope(response: RestResponse, embed: EmbedSpec): Promise<Record<string, unknown>> {
    const headers = Object.keys(response.headers).length > 0 ? response.headers : [];
    return { body: await this.responseToData(response, embed), status: response.status, headers };
  }

  /** response_to_data(): the body with `_links` merged in and, when asked, `_embedded`. */
  async responseToData(
    response: RestResponse,
    embed: EmbedSpec,
    cache = new Map<string, unknown>(),
    request?: RestRequest,
  ): Promise<unknown> {
    let data = response.data;
    if (response.links.size > 0) {
      // An item `_fields` emptied is PHP's empty array, which takes `_links` like any other.
      if (isPlainObject(data)) data = { ...data, _links: response.linksAsData() };
      else if (Array.isArray(data) && data.length === 0) data = { _links: response.linksAsData() };
    }
    if (!embed) return data;
    if (Array.isArray(data)) {
      const out: unknown[] = [];
      for (const item of data) out.push(await this.embedLinks(item, embed, cache, request));
      return out;
    }
    return this.embedLinks(data, embed, cache, request);
  }

  private async embedLinks(
    data: unknown,
    embed: EmbedSpec,
    cache: Map<string, unknown>,
    parent?: RestRequest,
  ): Promise<unknown> {
    if (!isPlainObject(data) || !isPlainObject(data._links)) return data;
    const embedded: Record<string, unknown[]> = {};
    const root = await this.apiRoot();
    for (const [rel, links] of Object.entries(data._links)) {
      if (Array.isArray(embed) && !embed.includes(rel)) continue;
      if (!Array.isArray(links)) continue;
      const embeds: unknown[] = [];
      for (const link of links as Array<Record<string, unknown>>) {
        if (!link.embeddable) {
          embeds.push([]);
          continue;
        }
        const href = String(link.href);
        if (!cache.has(href)) {
          const sub = RestRequest.fromUrl(href, root, {
            user: parent?.user ?? ANONYMOUS,
            ...(parent ? { can: parent.capabilityCheck } : {}),
            ...(parent ? { remoteAddress: parent.remoteAddress } : {}),
          });
          if (!sub) {
            embeds.push([]);
            continue;
          }
          sub.isEmbedded = true;
          if (!sub.query.context) sub.query.context = 'embed';
          const response = await this.dispatch(sub);
          cache.set(href, await this.responseToData(response, false));
        }
        embeds.push(cache.get(href));
      }
      const hasLinks = embeds.some((e) => !(Array.isArray(e) && e.length === 0) && e !== null && e !== undefined);
      if (hasLinks) embedded[rel] = embeds;
    }
    if (Object.keys(embedded).length === 0) return data;
    return { ...data, _embedded: embedded };
  }

  /** rest_send_allow_header(): lists the methods of the matched route whose permission check passes. */
  private async addAllowHeader(response: RestResponse, request: RestRequest): Promise<void> {
    if (!response.matchedRoute) return;
    const route = this.routes.get(response.matchedRoute);
    if (!route) return;
    const allowed = new Map<string, boolean>();
    for (const endpoint of route.endpoints) {
      let ok = false;
      try {
        ok = (await endpoint.permission(request)) === true;
      } catch {
        ok = false;
      }
      for (const method of endpoint.methods) allowed.set(method, ok);
    }
    const methods = [...allowed].filter(([, ok]) => ok).map(([m]) => m);
    if (methods.length > 0) response.header('Allow', methods.join(', '));
  }

  /** Serves one HTTP request (WP_REST_Server::serve_request). */
  async serve(input: HttpInput): Promise<HttpOutput> {
    let root: string;
    try {
      root = await this.apiRoot();
    } catch (err) {
      return this.rootUnreadable(err, input);
    }
    const headers: Record<string, string | string[]> = {
      'Content-Type': 'application/json; charset=UTF-8',
      'X-Robots-Tag': 'noindex',
      Link: `<${root}>; rel="https://api.w.org/"`,
      'X-Content-Type-Options': 'nosniff',
      'Access-Control-Expose-Headers': `${this.headerPrefix}-Total, ${this.headerPrefix}-TotalPages, Link`,
      'Access-Control-Allow-Headers': `Authorization, ${this.headerPrefix}-Nonce, Content-Disposition, Content-MD5, Content-Type`,
    };
    const jsonp = typeof input.query._jsonp === 'string' ? input.query._jsonp : null;
    if (jsonp !== null) {
      headers['Content-Type'] = 'application/javascript; charset=UTF-8';
      if (/[^\w.]/.test(jsonp)) {
        return {
          status: 400,
          headers,
          body: JSON.stringify({ code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.' }),
        };
      }
    }

    let route = input.route.replace(/\/+$/, '');
    if (route === '') route = '/';
    const request = new RestRequest({
      method: input.method,
      route,
      query: input.query,
      headers: input.headers,
      body: input.body,
      ...(input.bodyParams ? { bodyParams: input.bodyParams } : {}),
      ...(this.options.can ? { can: this.options.can } : {}),
      ...(input.remoteAddress ? { remoteAddress: input.remoteAddress } : {}),
      ...(input.rawBody ? { rawBody: input.rawBody } : {}),
      ...(input.files ? { files: input.files } : {}),
    });
    let methodOverridden = false;
    if (typeof input.query._method === 'string' && input.query._method !== '')
      request.method = input.query._method.toUpperCase();
    else {
      const override = request.header('x-http-method-override');
      if (override) {
        request.method = override.toUpperCase();
        methodOverridden = true;
      }
    }

    let response: RestResponse;
    let auth: AuthResult;
    try {
      auth = this.options.authenticate ? await this.options.authenticate(request) : null;
    } catch (err) {
      // The credentials' lookup failed (the database is down, or holds no such value): answered in WordPress's
      // shape like a handler's error, never with the HTTP framework's own error body.
      auth = this.toRestError(err, request);
    }
    if (isRestError(auth)) {
      response = errorResponse(auth);
    } else {
      if (auth) request.user = auth.user;
      const fields = requestedFields(request);
      request.acceptsRawJson =
        fields === null && input.query._embed === undefined && input.query._envelope === undefined;
      response = input.bodyError ? errorResponse(input.bodyError) : await this.dispatch(request);
      await this.addAllowHeader(response, request);
      if (fields && response.status < 400) response.data = filterResponseFields(response.data, fields);
    }

    const embedParam = input.query._embed;
    const embed: EmbedSpec = embedParam === undefined ? false : parseEmbedParam(embedParam);
    if (input.query._envelope !== undefined) {
      const env = await this.envelope(response, embed);
      response = new RestResponse(env, 200);
    }

    // CORS as rest_send_cors_headers().
    const origin = request.header('origin');
    const loggedIn = request.user.id > 0;
    if (origin) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Methods'] = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';
      headers['Access-Control-Allow-Credentials'] = 'true';
      headers.Vary = 'Origin';
    } else if (input.method.toUpperCase() === 'GET' && !loggedIn) {
      headers.Vary = 'Origin';
    }
    for (const [name, value] of Object.entries(response.headers)) {
      headers[name] = typeof value === 'number' ? String(value) : value;
    }
    const status = response.status;
    if (loggedIn || (methodOverridden && status >= 400 && status < 500)) {
      headers.Expires = 'Wed, 11 Jan 1984 05:00:00 GMT';
      headers['Cache-Control'] = 'no-cache, must-revalidate, max-age=0';
    }
    if (response.raw) headers['Content-Type'] = response.raw.contentType;
    if (request.method === 'HEAD') return { status, headers, body: null };
    if (response.raw) return { status, headers, body: response.raw.body };
    const data = await this.responseToData(response, embed, new Map(), request);
    if (status === 204 || data === null || data === undefined) return { status, headers, body: null };
    const json = stringifyResponseData(data);
    return { status, headers, body: jsonp !== null ? `/**/${jsonp}(${json})` : json };
  }

  /**
   * The API root is built from an option (the site URL), so with the database out of reach every request
   * fails before its route: answered as any handler's failure would be (503 `rest_unavailable`), in
   * WordPress's error shape, never with the HTTP framework's body and the driver's message.
   */
  private rootUnreadable(err: unknown, input: HttpInput): HttpOutput {
    const request = new RestRequest({
      method: input.method,
      route: input.route,
      query: input.query,
      headers: input.headers,
      body: '',
      ...(input.remoteAddress ? { remoteAddress: input.remoteAddress } : {}),
    });
    const error = this.toRestError(err, request);
    return {
      status: error.status,
      headers: { 'Content-Type': 'application/json; charset=UTF-8', 'X-Content-Type-Options': 'nosniff' },
      body: JSON.stringify(error.toJSON()),
    };
  }
}

/** `_embed` as WordPress reads it: true for all relations, or a list of relations. */
export type EmbedSpec = boolean | string[];

/** rest_parse_embed_param(), with WordPress's `wp:` relation prefix accepted for our `cms:` curie. */
export function parseEmbedParam(value: unknown): EmbedSpec {
  if (value === '' || value === true || value === 'true' || value === '1' || value === null) return true;
  const rels = parseList(value).map((r) => String(r).replace(/^wp:/, 'cms:'));
  return rels.length > 0 ? rels : true;
}

/** An error as a response (rest_convert_error_to_response). */
export function errorResponse(error: RestError): RestResponse {
  return new RestResponse(error.toJSON(), error.status);
}

/** Per endpoint: its arguments' defaults, primitives as they are, objects to copy per request. */
const defaultsPlans = new WeakMap<
  NormalizedEndpoint,
  { plain: Record<string, unknown>; objects: [string, unknown][] }
>();

/** The default params of a request matched to `endpoint` (a fresh object each time). */
function endpointDefaults(endpoint: NormalizedEndpoint): Record<string, unknown> {
  let plan = defaultsPlans.get(endpoint);
  if (!plan) {
    plan = { plain: {}, objects: [] };
    for (const [name, arg] of Object.entries(endpoint.args)) {
      // PHP's isset(): a null default is no default.
      if (arg.default === undefined || arg.default === null) continue;
      if (typeof arg.default === 'object') plan.objects.push([name, arg.default]);
      else plan.plain[name] = arg.default;
    }
    defaultsPlans.set(endpoint, plan);
  }
  const defaults: Record<string, unknown> = { ...plan.plain };
  // Copied so a handler cannot change the route's default.
  for (const [name, value] of plan.objects) defaults[name] = copyJson(value);
  return defaults;
}

/** A deep copy of JSON-like data (a schema default): arrays and plain objects copied, the rest kept. */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = copyJson(value[key]);
    return out;
  }
  return value;
}

function withoutArgs(options: RouteOptions): RouteOptions {
  const copy = { ...options };
  delete copy.args;
  return copy;
}

function normalizeEndpoint(endpoint: RestEndpoint): NormalizedEndpoint {
  const methods = (typeof endpoint.methods === 'string' ? [endpoint.methods] : [...endpoint.methods]).map(
    (m) => m.toUpperCase() as HttpMethod,
  );
  return { ...endpoint, methods, args: endpoint.args ?? {}, showInIndex: endpoint.showInIndex ?? true };
}

/** The public description of an argument: allowed schema keywords plus `required`. */
export function publicArg(arg: RestArg): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(arg)) {
    if (ALLOWED_SCHEMA_KEYWORDS.has(key)) out[key] = value;
  }
  out.required = arg.required === true;
  return out;
}

/** has_valid_params(): JSON errors, required args, then each arg's validate callback. */
export async function hasValidParams(request: RestRequest): Promise<RestError | null> {
  const jsonError = request.parseJson();
  if (jsonError) return jsonError;
  const args = request.attributes?.args ?? {};
  const missing: string[] = [];
  for (const [name, arg] of Object.entries(args)) {
    if (arg.required === true) {
      const v = request.get(name);
      if (v === undefined || v === null) missing.push(name);
    }
  }
  if (missing.length > 0) {
    return new RestError('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, {
      status: 400,
      params: missing,
    });
  }
  const invalid: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const [name, arg] of Object.entries(args)) {
    if (!arg.validateCallback) continue;
    const value = request.get(name);
    if (value === undefined || value === null) continue;
    const result =
      arg.validateCallback === true
        ? validatedFromSchema(value, arg, name)
        : await arg.validateCallback(value, request, name);
    if (result === false) invalid[name] = 'Invalid parameter.';
    else if (result instanceof RestError) {
      invalid[name] = [result, ...result.additional].map((e) => e.message).join(' ');
      details[name] = result.toJSON();
    } else if (result instanceof Error) {
      invalid[name] = result.message;
    }
  }
  if (Object.keys(invalid).length > 0) return invalidParams(invalid, details);
  const routeCheck = request.attributes?.validateCallback;
  if (routeCheck) {
    const result = await routeCheck(request);
    if (result instanceof RestError) return result;
    if (result === false) return new RestError('rest_invalid_params', 'Invalid parameters.', { status: 400 });
  }
  return null;
}

/** sanitize_params(): runs each arg's sanitiser over every source it appears in. */
export function sanitizeParams(request: RestRequest): RestError | null {
  const args = request.attributes?.args ?? {};
  if (Object.keys(args).length === 0) return null;
  const invalid: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const source of request.parameterOrder()) {
    const bag = request.source(source);
    for (const [name, value] of Object.entries(bag)) {
      const arg = args[name];
      if (!arg) continue;
      let sanitized: unknown;
      if (arg.sanitizeCallback === false) continue;
      if (arg.sanitizeCallback) sanitized = arg.sanitizeCallback(value, request, name);
      else if (arg.type !== undefined) {
        // rest_parse_request_arg: validate, then sanitise from the schema.
        sanitized = sanitizedFromSchema(value, arg, name);
      } else continue;
      if (sanitized instanceof RestError) {
        invalid[name] = [sanitized, ...sanitized.additional].map((e) => e.message).join(' ');
        details[name] = sanitized.toJSON();
      } else bag[name] = sanitized;
    }
  }
  if (Object.keys(invalid).length > 0) return invalidParams(invalid, details);
  return null;
}

/**
 * Checking and sanitising a scalar against an argument's schema gives the same answer every time (the
 * same request parameters and route defaults come again and again): kept per argument for scalars
 * whose answer is a scalar too (an error or an array is made afresh for each request).
 */
const scalarResults = new WeakMap<RestArg, Map<string, unknown>>();

function scalarKey(kind: string, value: unknown, name: string): string | null {
  const type = typeof value;
  if (type !== 'string' && type !== 'number' && type !== 'boolean') return null;
  return `${kind}|${name}|${type}|${String(value)}`;
}

function keptScalarResult(arg: RestArg, key: string | null, compute: () => unknown): unknown {
  if (key === null) return compute();
  let results = scalarResults.get(arg);
  if (!results) {
    results = new Map();
    scalarResults.set(arg, results);
  }
  if (results.has(key)) return results.get(key);
  const result = compute();
  // Objects (an error, or an array a scalar was split into) are never shared between requests.
  if (result !== null && typeof result === 'object') return result;
  if (results.size >= 256) results.clear();
  results.set(key, result);
  return result;
}

/** validateValueFromSchema(), kept for scalars. */
function validatedFromSchema(value: unknown, arg: RestArg, name: string): unknown {
  return keptScalarResult(arg, scalarKey('v', value, name), () => validateValueFromSchema(value, arg, name));
}

/** rest_parse_request_arg()'s schema path (validate, then sanitise), kept for scalars. */
function sanitizedFromSchema(value: unknown, arg: RestArg, name: string): unknown {
  return keptScalarResult(arg, scalarKey('s', value, name), () => {
    const valid = validateValueFromSchema(value, arg, name);
    return valid === true ? sanitizeValueFromSchema(value, arg, name) : valid;
  });
}

function invalidParams(params: Record<string, string>, details: Record<string, unknown>): RestError {
  return new RestError('rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, {
    status: 400,
    params,
    // WordPress's details are a PHP array keyed by parameter: JSON's `[]` while empty (every invalid parameter
    // was refused without an error object, as `meta` that is not an object), an object otherwise.
    details: Object.keys(details).length > 0 ? details : [],
  });
}
