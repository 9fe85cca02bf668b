import { RestError } from './errors.ts';
import { parseQueryString } from './php.ts';
import type { RestArg, RestContext } from './schema.ts';

/** The user a request runs as. `id` 0 is the anonymous visitor. */
export interface CurrentUser {
  readonly id: number;
  readonly login: string;
  readonly roles: readonly string[];
  /** Capabilities granted (true) or denied (false) to this user beyond the roles. */
  readonly caps?: Readonly<Record<string, boolean>>;
}

export const ANONYMOUS: CurrentUser = Object.freeze({
  id: 0,
  login: '',
  roles: Object.freeze([]) as readonly string[],
});

/**
 * Decides whether a user has a (primitive or meta) capability, e.g. `can(user, 'edit_post', [12])`;
 * `request` is the asking request, whose read-only lookups the check may share across its calls.
 */
export type CapabilityCheck = (
  user: CurrentUser,
  capability: string,
  args: readonly unknown[],
  request?: RestRequest,
) => Promise<boolean>;

/** Where a parameter came from, in WordPress's precedence order (first wins). */
export type ParamSource = 'JSON' | 'POST' | 'GET' | 'URL' | 'defaults';

/** The endpoint a request matched (WordPress's request "attributes"). */
export interface MatchedEndpoint {
  args: Record<string, RestArg>;
  validateCallback?: ((request: RestRequest) => unknown) | undefined;
}

/** A file sent as a multipart form part (`$_FILES` entry). */
export interface UploadedFile {
  /** The file name the client gave (unsanitised). */
  filename: string;
  /** The part's Content-Type as the client declared it. */
  contentType: string;
  data: Buffer;
}

export interface RestRequestInit {
  method: string;
  route: string;
  query?: Record<string, unknown>;
  /** Form-encoded body params (`$_POST`), or a batch item's `body`. */
  bodyParams?: Record<string, unknown>;
  headers?: Record<string, string | string[] | undefined>;
  /** Raw body text (JSON bodies are parsed lazily, like WordPress). */
  body?: string;
  user?: CurrentUser;
  can?: CapabilityCheck;
  remoteAddress?: string;
  /** The body's bytes as received (for binary uploads; `body` is their UTF-8 text). */
  rawBody?: Buffer;
  /** Files of a multipart body, by field name. */
  files?: Record<string, UploadedFile>;
}

const EMPTY_CAN: CapabilityCheck = async () => false;

/**
 * A REST request, like WP_REST_Request: method, route, headers, body and parameters from five sources
 * merged with WordPress's precedence: JSON body > form body > query string > URL (path) > defaults.
 */
export class RestRequest {
  #method: string;
  readonly route: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly remoteAddress: string;
  /** The body's bytes as received, when the transport kept them (binary uploads). */
  readonly rawBody: Buffer | undefined;
  /** Files of a multipart body (`$_FILES`), by field name. */
  readonly files: Readonly<Record<string, UploadedFile>>;
  user: CurrentUser;
  /** Capability check bound to nothing; prefer `request.can(...)`. */
  readonly capabilityCheck: CapabilityCheck;
  attributes: MatchedEndpoint | null = null;
  /** Set by the server when the request is dispatched internally for `_embed`. */
  isEmbedded = false;
  /**
   * Set by the server for a top-level request whose data it serialises as is (no `_fields`, `_embed` or
   * `_envelope`): a handler may then answer with RawJson items.
   */
  acceptsRawJson = false;
  private readonly params: Record<ParamSource, Record<string, unknown>>;
  private readonly memos = new Map<string, Promise<unknown>>();
  private readonly locals = new Map<string, unknown>();
  private jsonParsed = false;
  private jsonError: RestError | null = null;
  /** get_parameter_order() for the current method (every parameter read consults it). */
  #order: ParamSource[] | null = null;
  #contentType: string | undefined;

  constructor(init: RestRequestInit) {
    this.#method = init.method.toUpperCase();
    this.route = init.route;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(init.headers ?? {})) {
      if (v === undefined) continue;
      headers[k.toLowerCase().replace(/_/g, '-')] = Array.isArray(v) ? v.join(', ') : v;
    }
    this.headers = headers;
    this.body = init.body ?? '';
    this.remoteAddress = init.remoteAddress ?? '';
    this.rawBody = init.rawBody;
    this.files = init.files ?? {};
    this.user = init.user ?? ANONYMOUS;
    this.capabilityCheck = init.can ?? EMPTY_CAN;
    this.params = {
      JSON: {},
      POST: { ...(init.bodyParams ?? {}) },
      GET: { ...(init.query ?? {}) },
      URL: {},
      defaults: {},
    };
  }

  /** Builds a GET request from an absolute URL under `apiRoot` (WP_REST_Request::from_url). */
  static fromUrl(url: string, apiRoot: string, base: Partial<RestRequestInit> = {}): RestRequest | null {
    const q = url.indexOf('?');
    const query = q === -1 ? {} : parseQueryString(url.slice(q + 1));
    const path = q === -1 ? url : url.slice(0, q);
    let route: string | undefined;
    const rootNoSlash = apiRoot.replace(/\/$/, '');
    if (path.startsWith(rootNoSlash)) route = path.slice(rootNoSlash.length) || '/';
    else if (typeof query.rest_route === 'string' && query.rest_route !== '') {
      route = query.rest_route;
      delete query.rest_route;
    }
    if (!route) return null;
    return new RestRequest({ ...base, method: 'GET', route, query });
  }

  /** The HTTP method (`_method` and X-HTTP-Method-Override may change it after construction). */
  get method(): string {
    return this.#method;
  }

  set method(value: string) {
    if (value !== this.#method) this.#order = null;
    this.#method = value;
  }

  /** Whether the request only reads (GET or HEAD), so lookups may be shared by its steps. */
  get isReadOnly(): boolean {
    return this.method === 'GET' || this.method === 'HEAD';
  }

  /** A value made once per request and kept with it (e.g. a cache of lookups for a read-only request). */
  local<T>(key: string, make: () => T): T {
    let hit = this.locals.get(key) as T | undefined;
    if (hit === undefined) {
      hit = make();
      this.locals.set(key, hit);
    }
    return hit;
  }

  /**
   * Computes a value once per request (e.g. a post looked up by several permission checks and the
   * handler); later calls with the same key share the first promise.
   */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let hit = this.memos.get(key) as Promise<T> | undefined;
    if (!hit) {
      hit = compute();
      this.memos.set(key, hit);
    }
    return hit;
  }

  /** Whether the user is logged in. */
  get isLoggedIn(): boolean {
    return this.user.id > 0;
  }

  /** `current_user_can()` for this request's user. */
  can(capability: string, ...args: unknown[]): Promise<boolean> {
    return this.capabilityCheck(this.user, capability, args, this);
  }

  /** A header value by case-insensitive name. */
  header(name: string): string | undefined {
    return this.headers[name.toLowerCase().replace(/_/g, '-')];
  }

  /** The media type of the body, lower-case, without parameters. */
  get contentType(): string {
    this.#contentType ??= (this.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    return this.#contentType;
  }

  /** wp_is_json_media_type() on the Content-Type header. */
  get isJsonContentType(): boolean {
    const type = this.contentType;
    return type === 'application/json' || type.endsWith('+json');
  }

  /** The parse error of a JSON body, or null. Parsing happens once. */
  parseJson(): RestError | null {
    if (this.jsonParsed) return this.jsonError;
    this.jsonParsed = true;
    if (!this.isJsonContentType || this.body.trim() === '') return null;
    if (jsonDepth(this.body) > MAX_JSON_DEPTH) {
      // json_decode's own limit, with its error: deeper values overflowed the stack of the code walking them.
      this.jsonError = new RestError('rest_invalid_json', 'Invalid JSON body passed.', {
        status: 400,
        json_error_code: 1,
        json_error_message: 'Maximum stack depth exceeded',
      });
      return this.jsonError;
    }
    try {
      const parsed: unknown = JSON.parse(this.body);
      // json_decode(..., true) of a scalar gives a scalar; only arrays/objects become params.
      if (parsed !== null && typeof parsed === 'object') {
        this.params.JSON = Array.isArray(parsed) ? { ...parsed } : (parsed as Record<string, unknown>);
      }
    } catch {
      this.jsonError = new RestError('rest_invalid_json', 'Invalid JSON body passed.', {
        status: 400,
        json_error_code: 4,
        json_error_message: 'Syntax error',
      });
    }
    return this.jsonError;
  }

  /** The sources consulted for a parameter, highest precedence first (get_parameter_order). */
  parameterOrder(): ParamSource[] {
    if (this.#order) return this.#order;
    const order: ParamSource[] = [];
    if (this.isJsonContentType) order.push('JSON');
    this.parseJson();
    if (
      this.method !== 'POST' &&
      this.body !== '' &&
      !this.isJsonContentType &&
      this.contentType === 'application/x-www-form-urlencoded' &&
      Object.keys(this.params.POST).length === 0
    ) {
      this.params.POST = parseQueryString(this.body);
    }
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(this.method)) order.push('POST');
    order.push('GET', 'URL', 'defaults');
    this.#order = order;
    return order;
  }

  /** A parameter's value (undefined when absent), by precedence. */
  get<T = unknown>(name: string): T | undefined {
    for (const source of this.parameterOrder()) {
      const bag = this.params[source];
      if (Object.hasOwn(bag, name)) return bag[name] as T;
    }
    return undefined;
  }

  /** Whether a parameter is present in any source (has_param). */
  has(name: string): boolean {
    return this.parameterOrder().some((s) => Object.hasOwn(this.params[s], name));
  }

  /** Sets a parameter in the highest-precedence source (set_param). */
  set(name: string, value: unknown): void {
    const order = this.parameterOrder();
    for (const source of order) {
      if (Object.hasOwn(this.params[source], name)) {
        this.params[source][name] = value;
        return;
      }
    }
    this.params[order[0]!][name] = value;
  }

  /** Every parameter merged by precedence (get_params). */
  getParams(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const source of [...this.parameterOrder()].reverse()) Object.assign(out, this.params[source]);
    return out;
  }

  /** The parameters of one source (the sanitiser rewrites them in place). */
  source(source: ParamSource): Record<string, unknown> {
    if (source === 'JSON') this.parseJson();
    return this.params[source];
  }

  /**
   * Removes U+0000 from every string of the client's parameters (JSON body, form body, query string, URL; values at
   * any depth, not keys), in place. The server runs it after the two validation passes, before the permission
   * check and the handler, so WordPress's checks still see the character and refuse it where WordPress does (a
   * username, an email, an enum value), while every value that reaches a handler, and so the database, a stored
   * item or a comparison, is without it. Why: PostgreSQL's text cannot hold U+0000 (an error on insert and in a
   * comparison) while SQLite stores it, and WordPress's save filters remove it from every field they filter
   * (wp_kses_no_null in kses: titles, content and excerpts of users without unfiltered_html, term and user names,
   * descriptions; sanitize_title for slugs; esc_url for URLs). Only where WordPress stores a field unfiltered
   * (HTML of users with unfiltered_html, post passwords, the inside of a sanitize_text_field value) would MySQL
   * keep the character: removing it everywhere makes both stores, and every user, alike.
   */
  removeNulCharacters(): void {
    for (const source of ['JSON', 'POST', 'GET', 'URL'] as const) {
      const bag = this.params[source];
      for (const key of Object.keys(bag)) bag[key] = withoutNul(bag[key]);
    }
  }

  /** The query-string parameters. */
  get query(): Record<string, unknown> {
    return this.params.GET;
  }

  setUrlParams(params: Record<string, unknown>): void {
    this.params.URL = params;
  }

  setDefaultParams(params: Record<string, unknown>): void {
    this.params.defaults = params;
  }

  /** The request's `context` parameter (after sanitising, one of view/embed/edit). */
  get context(): RestContext {
    const c = this.get('context');
    return c === 'edit' || c === 'embed' ? c : 'view';
  }

  /** A copy with the same inputs, unmatched (used by the batch endpoint). */
  clone(): RestRequest {
    const copy = new RestRequest({
      method: this.method,
      route: this.route,
      headers: this.headers,
      body: this.body,
      user: this.user,
      can: this.capabilityCheck,
      remoteAddress: this.remoteAddress,
      query: structuredClone(this.params.GET),
      bodyParams: structuredClone(this.params.POST),
    });
    return copy;
  }
}

/**
 * `value` with U+0000 removed from every string in it (arrays and objects are changed in place); see
 * RestRequest.removeNulCharacters for why.
 */
export function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = withoutNul(value[i]);
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = withoutNul(object[key]);
  }
  return value;
}

/** json_decode()'s default depth limit: arrays and objects nested more deeply are refused. */
export const MAX_JSON_DEPTH = 512;

/** The deepest nesting of arrays and objects in JSON text (strings skipped), in one pass. */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}
