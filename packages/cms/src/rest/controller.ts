/**
 * The base of every cms/v2 controller, after WP_REST_Controller: the item schema as the single source
 * for endpoint arguments, the `context` parameter, collection parameters, OPTIONS output and response
 * shaping. Subclasses register their routes in `registerRoutes` and implement only the actions they
 * support (an unsupported action is simply not registered).
 */
import { RestError } from './errors.ts';
import { fieldsForResponse, filterResponseByContext, isFieldIncluded } from './fields.ts';
import { sanitizeKey, sanitizeTextField } from './formatting.ts';
import { absint } from './php.ts';
import type { RestRequest } from './request.ts';
import type { RestResponse } from './response.ts';
import {
  CREATABLE,
  DELETABLE,
  EDITABLE,
  type HttpMethod,
  type PermissionCallback,
  READABLE,
  type RestHandler,
} from './route.ts';
import type { JsonSchema, RestArg, RestContext } from './schema.ts';
import type { RestServer } from './server.ts';

/** The five actions of a controller with a collection route and an item route. */
export interface CrudActions {
  getItems: RestHandler;
  getItemsPermissionsCheck: PermissionCallback;
  createItem: RestHandler;
  createItemPermissionsCheck: PermissionCallback;
  getItem: RestHandler;
  getItemPermissionsCheck: PermissionCallback;
  updateItem: RestHandler;
  updateItemPermissionsCheck: PermissionCallback;
  deleteItem: RestHandler;
  deleteItemPermissionsCheck: PermissionCallback;
}

/** What differs between controllers that register the usual collection and item routes. */
export interface CrudRouteOptions {
  /** Arguments of reading one item, besides the route's `id`. */
  itemReadArgs: Record<string, RestArg>;
  /** Arguments of DELETE (WordPress's `force`, with the resource's wording). */
  deleteArgs: Record<string, RestArg>;
  /** Description of the `id` route argument. */
  idDescription: string;
  /** Whether both routes accept batching (batch v1). */
  batch?: boolean;
}

/** Keywords copied from a schema property to the endpoint argument derived from it. */
const ARG_KEYWORDS = [
  'title',
  'description',
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
] as const;

/**
 * rest_get_endpoint_args_for_schema(): one argument per writable property. For creation (`POST` only)
 * `default` and `required` are kept; for edits they are dropped, so a partial update stays partial.
 */
export function argsFromSchema(
  schema: JsonSchema,
  methods: readonly HttpMethod[] = CREATABLE,
): Record<string, RestArg> {
  const creatable = methods.length === 1 && methods[0] === 'POST';
  const out: Record<string, RestArg> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (property.readonly) continue;
    const arg: RestArg = { validateCallback: true };
    if (creatable && property.default !== undefined) arg.default = property.default;
    if (creatable && property.required === true) arg.required = true;
    for (const keyword of ARG_KEYWORDS) {
      if (property[keyword] !== undefined) (arg as Record<string, unknown>)[keyword] = property[keyword];
    }
    if (property.arg_options) {
      const options = { ...property.arg_options };
      if (!creatable) {
        delete options.required;
        delete options.default;
      }
      Object.assign(arg, options);
    }
    out[name] = arg;
  }
  return out;
}

/** Strips `arg_options` from the top-level properties (get_public_item_schema). */
export function publicSchema(schema: JsonSchema): JsonSchema {
  if (!schema.properties) return schema;
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const { arg_options: _ignored, ...rest } = property;
    properties[name] = rest;
  }
  return { ...schema, properties };
}

/** A sanitize callback applying sanitize_key (used by `context`). */
export const sanitizeKeyArg = (value: unknown) => sanitizeKey(value);
/** A sanitize callback applying sanitize_text_field (used by `search`). */
export const sanitizeTextArg = (value: unknown) => sanitizeTextField(value);
/** A sanitize callback applying absint (used by `page`, `per_page`). */
export const absintArg = (value: unknown) => absint(value);

export abstract class RestController {
  abstract readonly namespace: string;
  abstract readonly restBase: string;
  private cachedSchema: JsonSchema | undefined;

  /** Builds the item schema; called once and cached by `itemSchema()`. */
  protected abstract buildItemSchema(): JsonSchema;

  /** Registers this controller's routes on the server. */
  abstract registerRoutes(server: RestServer): void;

  /** The item schema (cached). */
  /**
   * Registers `/{restBase}` (list, create) and `/{restBase}/{id}` (read, update, delete), the pair most
   * WordPress controllers declare in `register_routes`; controllers with other routes add them after.
   */
  protected registerCrudRoutes(this: this & CrudActions, server: RestServer, options: CrudRouteOptions): void {
    const schema = () => this.publicItemSchema();
    const batch = options.batch ? { allowBatch: { v1: true } } : {};
    server.registerRoute(
      this.namespace,
      `/${this.restBase}`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItems(r),
          permission: (r) => this.getItemsPermissionsCheck(r),
          args: this.collectionParams(),
        },
        {
          methods: CREATABLE,
          handler: (r) => this.createItem(r),
          permission: (r) => this.createItemPermissionsCheck(r),
          args: this.endpointArgsForItemSchema(CREATABLE),
        },
      ],
      { schema, ...batch },
    );
    server.registerRoute(
      this.namespace,
      `/${this.restBase}/(?P<id>[\\d]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: (r) => this.getItemPermissionsCheck(r),
          args: options.itemReadArgs,
        },
        {
          methods: EDITABLE,
          handler: (r) => this.updateItem(r),
          permission: (r) => this.updateItemPermissionsCheck(r),
          args: this.endpointArgsForItemSchema(EDITABLE),
        },
        {
          methods: DELETABLE,
          handler: (r) => this.deleteItem(r),
          permission: (r) => this.deleteItemPermissionsCheck(r),
          args: options.deleteArgs,
        },
      ],
      { schema, ...batch, args: { id: { description: options.idDescription, type: 'integer' } } },
    );
  }

  itemSchema(): JsonSchema {
    this.cachedSchema ??= this.buildItemSchema();
    return this.cachedSchema;
  }

  /** The schema shown to clients (OPTIONS, `schema` of the route). */
  publicItemSchema(): JsonSchema {
    return publicSchema(this.itemSchema());
  }

  /** get_context_param(): `context` with an enum of the contexts the schema uses. */
  contextParam(overrides: Partial<RestArg> = {}): RestArg {
    const param: RestArg = {
      description: 'Scope under which the request is made; determines fields present in response.',
      type: 'string',
      sanitizeCallback: sanitizeKeyArg,
      validateCallback: true,
    };
    const contexts = new Set<RestContext>();
    for (const property of Object.values(this.itemSchema().properties ?? {})) {
      for (const c of property.context ?? []) contexts.add(c);
    }
    if (contexts.size > 0) param.enum = [...contexts].sort().reverse();
    return { ...param, ...overrides };
  }

  /** get_collection_params(): context, page, per_page, search. */
  collectionParams(): Record<string, RestArg> {
    return {
      context: this.contextParam({ default: 'view' }),
      page: {
        description: 'Current page of the collection.',
        type: 'integer',
        default: 1,
        sanitizeCallback: absintArg,
        validateCallback: true,
        minimum: 1,
      },
      per_page: {
        description: 'Maximum number of items to be returned in result set.',
        type: 'integer',
        default: 10,
        minimum: 1,
        maximum: 100,
        sanitizeCallback: absintArg,
        validateCallback: true,
      },
      search: {
        description: 'Limit results to those matching a string.',
        type: 'string',
        sanitizeCallback: sanitizeTextArg,
        validateCallback: true,
      },
    };
  }

  /** get_endpoint_args_for_item_schema(). */
  endpointArgsForItemSchema(methods: readonly HttpMethod[] = CREATABLE): Record<string, RestArg> {
    return argsFromSchema(this.itemSchema(), methods);
  }

  /** get_fields_for_response(). */
  fieldsForResponse(request: RestRequest): string[] {
    return fieldsForResponse(this.itemSchema(), request);
  }

  /** rest_is_field_included(). */
  isFieldIncluded(field: string, fields: readonly string[]): boolean {
    return isFieldIncluded(field, fields);
  }

  /** filter_response_by_context() with this controller's schema. */
  filterResponseByContext<T>(data: T, context: RestContext): T {
    return filterResponseByContext(data, this.itemSchema(), context) as T;
  }

  /** prepare_response_for_collection(): inlines the item's links as `_links`. */
  prepareResponseForCollection(response: RestResponse): Record<string, unknown> {
    const data = { ...(response.data as Record<string, unknown>) };
    if (response.links.size > 0) data._links = response.linksAsData();
    return data;
  }

  /** rest_url() of a route of this controller's namespace. */
  protected async routeUrl(server: RestServer, path = ''): Promise<string> {
    return server.url(`/${this.namespace}/${this.restBase}${path}`);
  }
}

/** Throws `rest_forbidden_context`-style errors in one line from permission checks. */
export function forbidden(code: string, message: string, request: RestRequest): RestError {
  return new RestError(code, message, { status: request.isLoggedIn ? 403 : 401 });
}
