import type { RestRequest } from './request.ts';

/** The contexts a field can appear in (WordPress's `context` schema keyword). */
export type RestContext = 'view' | 'embed' | 'edit';

export type JsonType = 'array' | 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

/**
 * JSON Schema draft-04 as WordPress uses it: only the keywords of `rest_get_allowed_schema_keywords()`
 * are honoured, plus WordPress's own `context`, `readonly` and `arg_options`, and `required` both in the
 * draft-03 (boolean on the property) and draft-04 (array on the object) forms.
 */
export interface JsonSchema {
  $schema?: string;
  title?: string;
  description?: string;
  type?: JsonType | readonly JsonType[];
  format?: string;
  enum?: readonly unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  minProperties?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  default?: unknown;
  required?: boolean | readonly string[];
  context?: readonly RestContext[];
  readonly?: boolean;
  /** Options merged into the endpoint argument derived from this property (see argsFromSchema). */
  arg_options?: Partial<RestArg>;
  /** Free-form extra keywords (e.g. `embeddable`); ignored by validation. */
  [keyword: `x-${string}`]: unknown;
}

/** A validate callback: `true` when valid, a RestError (or `false`) when not. */
export type ValidateCallback = (
  value: unknown,
  request: RestRequest,
  param: string,
) => boolean | Error | Promise<boolean | Error>;

/** A sanitize callback: the cleaned value, or a RestError. */
export type SanitizeCallback = (value: unknown, request: RestRequest, param: string) => unknown;

/**
 * One endpoint argument, like the `args` entries of `register_rest_route`: a JSON schema plus
 * `required`, `default` and callbacks. As in WordPress:
 * - `validateCallback` runs in the first pass (`has_valid_params`); `true` means
 *   `rest_validate_request_arg` (validate against this schema).
 * - `sanitizeCallback` runs in the second pass (`sanitize_params`); when it is absent and `type` is set,
 *   `rest_parse_request_arg` is used (validate, then sanitize from the schema); `false` disables it.
 */
export interface RestArg extends JsonSchema {
  validateCallback?: true | ValidateCallback;
  sanitizeCallback?: false | SanitizeCallback;
}

export type RestArgs = Record<string, RestArg>;
