/**
 * Argument validation and sanitisation with WordPress's semantics: a port of
 * `rest_validate_value_from_schema()` and `rest_sanitize_value_from_schema()` (wp-includes/rest-api.php,
 * WordPress 6.1).
 *
 * Why hand-written rather than Ajv: clients of a WordPress-compatible API rely on WordPress's loose
 * coercions (`"5"` is an integer, `"a,b"` is an array, `"false"` is a boolean, `""` is an object), on
 * keyword quirks (`minimum`/`maximum` messages printed with `%d`, `format` checked only for strings,
 * `uri` never rejected) and on the exact error codes and English messages (`rest_out_of_bounds`,
 * "per_page must be between 1 (inclusive) and 100 (inclusive)"). Ajv's coercion and messages differ on
 * each of these, so the rules are followed here one by one.
 */
import { RestError } from './errors.ts';
import { isEmail, isHexColor, sanitizeTextField, sanitizeUrl } from './formatting.ts';
import {
  arrayValues,
  isNumeric,
  isNumericArray,
  isPlainObject,
  isScalar,
  parseList,
  phpString,
  toFloat,
  toInt,
} from './php.ts';
import type { JsonSchema, JsonType } from './schema.ts';

const ALLOWED_TYPES: readonly JsonType[] = ['array', 'object', 'string', 'number', 'integer', 'boolean', 'null'];

// --- PHP-flavoured type checks ------------------------------------------------------------------------

/** rest_is_boolean(). */
export function isRestBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') return ['false', 'true', '0', '1'].includes(value.toLowerCase());
  if (typeof value === 'number') return value === 0 || value === 1;
  return false;
}

/** rest_sanitize_boolean(). */
export function sanitizeBoolean(value: unknown): boolean {
  if (typeof value === 'string') {
    const v = value.toLowerCase();
    if (v === 'false' || v === '0' || v === '') return false;
    return true;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** rest_is_integer(). */
export function isRestInteger(value: unknown): boolean {
  if (!isNumeric(value)) return false;
  const f = toFloat(value);
  return Math.round(f) === f;
}

/** rest_is_array(): scalars count (they are split as a list). */
export function isRestArray(value: unknown): boolean {
  if (isScalar(value)) return true;
  return isNumericArray(value);
}

/** rest_sanitize_array(). */
export function sanitizeArray(value: unknown): unknown[] {
  if (isScalar(value)) return parseList(value);
  if (!Array.isArray(value) && !isPlainObject(value)) return [];
  return arrayValues(value);
}

/** rest_is_object(): PHP arrays (lists too) and the empty string count. */
export function isRestObject(value: unknown): boolean {
  if (value === '') return true;
  return Array.isArray(value) || isPlainObject(value);
}

/** rest_sanitize_object(). Lists are kept as they are (PHP would keep their integer keys). */
export function sanitizeObject(value: unknown): Record<string, unknown> | unknown[] {
  if (value === '') return {};
  if (Array.isArray(value)) return [...value];
  if (isPlainObject(value)) return { ...value };
  return {};
}

function entriesOf(value: Record<string, unknown> | unknown[]): Array<[string, unknown]> {
  return Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
}

/** rest_get_best_type_for_value(). */
export function bestTypeForValue(value: unknown, types: readonly JsonType[]): JsonType | '' {
  if (value === '' && types.includes('string')) return 'string';
  for (const type of types) {
    const ok =
      type === 'array'
        ? isRestArray(value)
        : type === 'object'
          ? isRestObject(value)
          : type === 'integer'
            ? isRestInteger(value)
            : type === 'number'
              ? isNumeric(value)
              : type === 'boolean'
                ? isRestBoolean(value)
                : type === 'string'
                  ? typeof value === 'string'
                  : type === 'null'
                    ? value === null
                    : false;
    if (ok) return type;
  }
  return '';
}

/** rest_parse_date(): the ISO 8601 forms WordPress accepts; returns epoch seconds or false. */
export function parseRestDate(date: unknown, forceUtc = false): number | false {
  if (typeof date !== 'string') return false;
  let value = date;
  if (forceUtc) value = value.replace(/[+-]\d+:?\d+$/, '+00:00');
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}(?::\d{2})?)?$/.exec(value);
  if (!m) return false;
  const [, y, mo, d, h, mi, s, , tz] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  // strtotime() rejects out-of-range fields (month 13, hour 25) but rolls over day 31 of short months.
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 59) return false;
  let ms = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  if (tz && tz !== 'Z') {
    const sign = tz.startsWith('-') ? -1 : 1;
    const [th, tm] = tz.slice(1).split(':');
    ms -= sign * (Number(th) * 60 + Number(tm ?? 0)) * 60_000;
  }
  return Math.floor(ms / 1000);
}

/** rest_is_ip_address(). */
export function isIpAddress(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const v4 = /^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)$/;
  if (v4.test(value)) return true;
  return isIpv6(value);
}

function isIpv6(value: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(value) || !value.includes(':')) return false;
  let ip = value;
  let groupsNeeded = 8;
  const lastColon = ip.lastIndexOf(':');
  const tail = ip.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIpAddress(tail)) return false;
    ip = `${ip.slice(0, lastColon + 1)}0:0`;
  }
  const doubles = ip.split('::').length - 1;
  if (doubles > 1) return false;
  const groups = ip.split(':');
  if (doubles === 1) {
    const nonEmpty = groups.filter((g) => g !== '');
    if (nonEmpty.length >= groupsNeeded) return false;
    groupsNeeded = nonEmpty.length;
    return nonEmpty.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g));
  }
  return groups.length === groupsNeeded && groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g));
}

/** wp_is_uuid(). */
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
}

// --- messages -----------------------------------------------------------------------------------------

/** wp_sprintf's `%l`: "a", "a and b", "a, b, and c". */
export function listToSentence(items: readonly string[]): string {
  if (items.length === 0) return '';
  if (items.length === 1) return items[0]!;
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** PHP's `%d` in sprintf: bounds are printed as truncated integers. */
function d(n: number | undefined): string {
  return String(toInt(n ?? 0));
}

/** number_format_i18n() for the counts in length messages. */
function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function typeError(param: string, type: string): RestError {
  return new RestError('rest_invalid_type', `${param} is not of type ${type}.`, { param });
}

// --- combining schemas ----------------------------------------------------------------------------------

interface CombiningError {
  error: RestError;
  schema: JsonSchema;
  index: number;
}

function formatCombiningError(param: string, e: CombiningError): RestError {
  const reason = e.error.message;
  if (e.schema.title !== undefined) {
    return new RestError('rest_no_matching_schema', `${param} is not a valid ${e.schema.title}. Reason: ${reason}`, {
      position: e.index,
    });
  }
  return new RestError('rest_no_matching_schema', `${param} does not match the expected format. Reason: ${reason}`, {
    position: e.index,
  });
}

function combiningOperationError(value: unknown, param: string, errors: CombiningError[]): RestError {
  if (errors.length === 1) return formatCombiningError(param, errors[0]!);
  const filtered = errors.filter(
    (e) => e.error.code !== 'rest_invalid_type' || (e.error.data?.param ?? param) !== param,
  );
  if (filtered.length === 1) return formatCombiningError(param, filtered[0]!);
  if (filtered.length > 1 && filtered[0]!.schema.type === 'object') {
    let best: CombiningError | undefined;
    let bestCount = 0;
    const keys = isPlainObject(value)
      ? Object.keys(value)
      : Array.isArray(value)
        ? value.map((_v, i) => String(i))
        : [];
    for (const e of filtered) {
      if (e.schema.properties) {
        const n = keys.filter((k) => k in e.schema.properties!).length;
        if (n > bestCount) {
          best = e;
          bestCount = n;
        }
      }
    }
    if (best) return formatCombiningError(param, best);
  }
  const titles = errors.map((e) => e.schema.title).filter((t): t is string => t !== undefined);
  if (titles.length === errors.length) {
    return new RestError('rest_no_matching_schema', `${param} is not a valid ${listToSentence(titles)}.`);
  }
  return new RestError('rest_no_matching_schema', `${param} does not match any of the expected formats.`);
}

/** rest_find_any_matching_schema(). */
export function findAnyMatchingSchema(value: unknown, args: JsonSchema, param: string): JsonSchema | RestError {
  const errors: CombiningError[] = [];
  const list = args.anyOf ?? [];
  for (let index = 0; index < list.length; index++) {
    const candidate = list[index]!;
    const schema =
      candidate.type === undefined && args.type !== undefined ? { ...candidate, type: args.type } : candidate;
    const result = validateValueFromSchema(value, schema, param);
    if (result === true) return schema;
    errors.push({ error: result, schema, index });
  }
  return combiningOperationError(value, param, errors);
}

/** rest_find_one_matching_schema(). */
export function findOneMatchingSchema(
  value: unknown,
  args: JsonSchema,
  param: string,
  stopAfterFirstMatch = false,
): JsonSchema | RestError {
  const matching: Array<{ schema: JsonSchema; index: number }> = [];
  const errors: CombiningError[] = [];
  const list = args.oneOf ?? [];
  for (let index = 0; index < list.length; index++) {
    const candidate = list[index]!;
    const schema =
      candidate.type === undefined && args.type !== undefined ? { ...candidate, type: args.type } : candidate;
    const result = validateValueFromSchema(value, schema, param);
    if (result === true) {
      if (stopAfterFirstMatch) return schema;
      matching.push({ schema, index });
    } else {
      errors.push({ error: result, schema, index });
    }
  }
  if (matching.length === 0) return combiningOperationError(value, param, errors);
  if (matching.length > 1) {
    const positions = matching.map((m) => m.index);
    const titles = matching.map((m) => m.schema.title).filter((t): t is string => t !== undefined);
    if (titles.length === matching.length) {
      return new RestError(
        'rest_one_of_multiple_matches',
        `${param} matches ${listToSentence(titles)}, but should match only one.`,
        { positions },
      );
    }
    return new RestError('rest_one_of_multiple_matches', `${param} matches more than one of the expected formats.`, {
      positions,
    });
  }
  return matching[0]!.schema;
}

// --- validation -----------------------------------------------------------------------------------------

/** rest_validate_value_from_schema(): `true`, or the first problem as a RestError (no status). */
export function validateValueFromSchema(value: unknown, schema: JsonSchema, param = ''): true | RestError {
  let args = schema;
  if (args.anyOf) {
    const match = findAnyMatchingSchema(value, args, param);
    if (match instanceof RestError) return match;
    if (args.type === undefined && match.type !== undefined) args = { ...args, type: match.type };
  }
  if (args.oneOf) {
    const match = findOneMatchingSchema(value, args, param);
    if (match instanceof RestError) return match;
    if (args.type === undefined && match.type !== undefined) args = { ...args, type: match.type };
  }
  let type = args.type;
  if (Array.isArray(type)) {
    const best = bestTypeForValue(value, type as JsonType[]);
    if (best === '') return typeError(param, (type as JsonType[]).join(','));
    type = best;
  }
  let result: true | RestError = true;
  switch (type) {
    case 'null':
      if (value !== null) result = typeError(param, 'null');
      break;
    case 'boolean':
      if (!isRestBoolean(value)) result = typeError(param, 'boolean');
      break;
    case 'object':
      result = validateObject(value, args, param);
      break;
    case 'array':
      result = validateArray(value, args, param);
      break;
    case 'number':
      result = validateNumber(value, args, param, 'number');
      break;
    case 'string':
      result = validateString(value, args, param);
      break;
    case 'integer':
      result = validateNumber(value, args, param, 'integer');
      if (result === true && !isRestInteger(value)) result = typeError(param, 'integer');
      break;
    default:
      break;
  }
  if (result !== true) return result;
  if (args.enum && args.enum.length > 0) {
    const enumResult = validateEnum(value, { ...args, type: type as JsonType }, param);
    if (enumResult !== true) return enumResult;
  }
  const typeName = typeof type === 'string' ? type : undefined;
  if (
    args.format !== undefined &&
    (typeName === undefined || typeName === 'string' || !ALLOWED_TYPES.includes(typeName))
  ) {
    switch (args.format) {
      case 'hex-color':
        if (!isHexColor(value)) return new RestError('rest_invalid_hex_color', 'Invalid hex color.');
        break;
      case 'date-time':
        if (parseRestDate(value) === false) return new RestError('rest_invalid_date', 'Invalid date.');
        break;
      case 'email':
        if (!isEmail(value)) return new RestError('rest_invalid_email', 'Invalid email address.');
        break;
      case 'ip':
        if (!isIpAddress(value)) return new RestError('rest_invalid_ip', `${param} is not a valid IP address.`);
        break;
      case 'uuid':
        if (!isUuid(value)) return new RestError('rest_invalid_uuid', `${param} is not a valid UUID.`);
        break;
      default:
        break;
    }
  }
  return true;
}

function validateObject(value: unknown, args: JsonSchema, param: string): true | RestError {
  if (!isRestObject(value)) return typeError(param, 'object');
  const obj = sanitizeObject(value);
  const has = (name: string) =>
    Array.isArray(obj) ? /^\d+$/.test(name) && Number(name) < obj.length : Object.hasOwn(obj, name);
  if (Array.isArray(args.required)) {
    for (const name of args.required as string[]) {
      if (!has(name)) return new RestError('rest_property_required', `${name} is a required property of ${param}.`);
    }
  } else if (args.properties) {
    for (const [name, property] of Object.entries(args.properties)) {
      if (property.required === true && !has(name)) {
        return new RestError('rest_property_required', `${name} is a required property of ${param}.`);
      }
    }
  }
  const entries = entriesOf(obj);
  for (const [property, v] of entries) {
    const child = args.properties?.[property];
    if (child) {
      const r = validateValueFromSchema(v, child, `${param}[${property}]`);
      if (r !== true) return r;
      continue;
    }
    const patternSchema = findMatchingPatternPropertySchema(property, args);
    if (patternSchema) {
      const r = validateValueFromSchema(v, patternSchema, `${param}[${property}]`);
      if (r !== true) return r;
      continue;
    }
    if (args.additionalProperties !== undefined) {
      if (args.additionalProperties === false) {
        return new RestError('rest_additional_properties_forbidden', `${property} is not a valid property of Object.`);
      }
      if (typeof args.additionalProperties === 'object') {
        const r = validateValueFromSchema(v, args.additionalProperties, `${param}[${property}]`);
        if (r !== true) return r;
      }
    }
  }
  if (args.minProperties !== undefined && entries.length < args.minProperties) {
    const noun = args.minProperties === 1 ? 'property' : 'properties';
    return new RestError(
      'rest_too_few_properties',
      `${param} must contain at least ${count(args.minProperties)} ${noun}.`,
    );
  }
  if (args.maxProperties !== undefined && entries.length > args.maxProperties) {
    const noun = args.maxProperties === 1 ? 'property' : 'properties';
    return new RestError(
      'rest_too_many_properties',
      `${param} must contain at most ${count(args.maxProperties)} ${noun}.`,
    );
  }
  return true;
}

function validateArray(value: unknown, args: JsonSchema, param: string): true | RestError {
  if (!isRestArray(value)) return typeError(param, 'array');
  const list = sanitizeArray(value);
  if (args.items) {
    for (let i = 0; i < list.length; i++) {
      const r = validateValueFromSchema(list[i], args.items, `${param}[${i}]`);
      if (r !== true) return r;
    }
  }
  if (args.minItems !== undefined && list.length < args.minItems) {
    const noun = args.minItems === 1 ? 'item' : 'items';
    return new RestError('rest_too_few_items', `${param} must contain at least ${count(args.minItems)} ${noun}.`);
  }
  if (args.maxItems !== undefined && list.length > args.maxItems) {
    const noun = args.maxItems === 1 ? 'item' : 'items';
    return new RestError('rest_too_many_items', `${param} must contain at most ${count(args.maxItems)} ${noun}.`);
  }
  if (args.uniqueItems && !arrayHasUniqueItems(list)) {
    return new RestError('rest_duplicate_items', `${param} has duplicate items.`);
  }
  return true;
}

function validateNumber(value: unknown, args: JsonSchema, param: string, type: string): true | RestError {
  if (!isNumeric(value)) return typeError(param, type);
  const n = toFloat(value);
  if (args.multipleOf !== undefined && n % args.multipleOf !== 0) {
    return new RestError('rest_invalid_multiple', `${param} must be a multiple of ${phpString(args.multipleOf)}.`);
  }
  const { minimum: min, maximum: max } = args;
  const exMin = Boolean(args.exclusiveMinimum);
  const exMax = Boolean(args.exclusiveMaximum);
  if (min !== undefined && max === undefined) {
    if (exMin && n <= min) return new RestError('rest_out_of_bounds', `${param} must be greater than ${d(min)}`);
    if (!exMin && n < min) {
      return new RestError('rest_out_of_bounds', `${param} must be greater than or equal to ${d(min)}`);
    }
  }
  if (max !== undefined && min === undefined) {
    if (exMax && n >= max) return new RestError('rest_out_of_bounds', `${param} must be less than ${d(max)}`);
    if (!exMax && n > max)
      return new RestError('rest_out_of_bounds', `${param} must be less than or equal to ${d(max)}`);
  }
  if (min !== undefined && max !== undefined) {
    const below = exMin ? n <= min : n < min;
    const above = exMax ? n >= max : n > max;
    if (below || above) {
      const lo = exMin ? 'exclusive' : 'inclusive';
      const hi = exMax ? 'exclusive' : 'inclusive';
      return new RestError('rest_out_of_bounds', `${param} must be between ${d(min)} (${lo}) and ${d(max)} (${hi})`);
    }
  }
  return true;
}

function validateString(value: unknown, args: JsonSchema, param: string): true | RestError {
  if (typeof value !== 'string') return typeError(param, 'string');
  const length = [...value].length;
  if (args.minLength !== undefined && length < args.minLength) {
    const noun = args.minLength === 1 ? 'character' : 'characters';
    return new RestError('rest_too_short', `${param} must be at least ${count(args.minLength)} ${noun} long.`);
  }
  if (args.maxLength !== undefined && length > args.maxLength) {
    const noun = args.maxLength === 1 ? 'character' : 'characters';
    return new RestError('rest_too_long', `${param} must be at most ${count(args.maxLength)} ${noun} long.`);
  }
  if (args.pattern !== undefined && !matchesPattern(args.pattern, value)) {
    return new RestError('rest_invalid_pattern', `${param} does not match pattern ${args.pattern}.`);
  }
  return true;
}

const patternCache = new Map<string, RegExp | null>();

/** rest_validate_json_schema_pattern(): an unanchored, Unicode-aware match. */
export function matchesPattern(pattern: string, value: string): boolean {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern.replace(/\(\?P</g, '(?<'), 'u');
    } catch {
      re = null;
    }
    patternCache.set(pattern, re);
  }
  return re ? re.test(value) : false;
}

function findMatchingPatternPropertySchema(property: string, args: JsonSchema): JsonSchema | undefined {
  if (!args.patternProperties) return undefined;
  for (const [pattern, schema] of Object.entries(args.patternProperties)) {
    if (matchesPattern(pattern, property)) return schema;
  }
  return undefined;
}

/** rest_validate_array_contains_unique_items(). */
export function arrayHasUniqueItems(list: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of list) {
    const key = stableKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

function stableKey(value: unknown): string {
  if (Array.isArray(value)) return `a[${value.map(stableKey).join(',')}]`;
  if (isPlainObject(value)) {
    return `o{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableKey(value[k])}`)
      .join(',')}}`;
  }
  // serialize() keeps types apart: "1" and 1 are different items.
  return `${typeof value}:${String(value)}`;
}

/** rest_are_values_equal(). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  const aList = Array.isArray(a) || isPlainObject(a);
  const bList = Array.isArray(b) || isPlainObject(b);
  if (aList && bList) {
    const ae = entriesOf(a as Record<string, unknown>);
    const bo = Object.fromEntries(entriesOf(b as Record<string, unknown>));
    if (ae.length !== Object.keys(bo).length) return false;
    return ae.every(([k, v]) => Object.hasOwn(bo, k) && valuesEqual(v, bo[k]));
  }
  return a === b;
}

function validateEnum(value: unknown, args: JsonSchema, param: string): true | RestError {
  const sanitized = sanitizeValueFromSchema(value, args, param);
  if (sanitized instanceof RestError) return sanitized;
  for (const candidate of args.enum ?? []) {
    if (valuesEqual(sanitized, candidate)) return true;
  }
  const encoded = (args.enum ?? []).map((v) => (isScalar(v) ? phpString(v) : JSON.stringify(v)));
  if (encoded.length === 1) return new RestError('rest_not_in_enum', `${param} is not ${encoded[0]}.`);
  return new RestError('rest_not_in_enum', `${param} is not one of ${listToSentence(encoded)}.`);
}

// --- sanitisation ---------------------------------------------------------------------------------------

/** rest_sanitize_value_from_schema(): the value coerced to the schema's type, or a RestError. */
export function sanitizeValueFromSchema(value: unknown, schema: JsonSchema, param = ''): unknown {
  let args = schema;
  let v = value;
  if (args.anyOf) {
    const match = findAnyMatchingSchema(v, args, param);
    if (match instanceof RestError) return match;
    if (args.type === undefined) args = { ...args, type: match.type };
    v = sanitizeValueFromSchema(v, match, param);
  }
  if (args.oneOf) {
    const match = findOneMatchingSchema(v, args, param);
    if (match instanceof RestError) return match;
    if (args.type === undefined) args = { ...args, type: match.type };
    v = sanitizeValueFromSchema(v, match, param);
  }
  let type = args.type;
  if (Array.isArray(type)) {
    const best = bestTypeForValue(v, type as JsonType[]);
    if (best === '') return null;
    type = best;
  }
  if (type === 'array') {
    const list = sanitizeArray(v);
    if (args.items) {
      for (let i = 0; i < list.length; i++) list[i] = sanitizeValueFromSchema(list[i], args.items, `${param}[${i}]`);
    }
    if (args.uniqueItems && !arrayHasUniqueItems(list)) {
      return new RestError('rest_duplicate_items', `${param} has duplicate items.`);
    }
    return list;
  }
  if (type === 'object') {
    const obj = sanitizeObject(v);
    if (Array.isArray(obj)) return obj;
    for (const [property, pv] of Object.entries(obj)) {
      const child = args.properties?.[property];
      if (child) {
        obj[property] = sanitizeValueFromSchema(pv, child, `${param}[${property}]`);
        continue;
      }
      const patternSchema = findMatchingPatternPropertySchema(property, args);
      if (patternSchema) {
        obj[property] = sanitizeValueFromSchema(pv, patternSchema, `${param}[${property}]`);
        continue;
      }
      if (args.additionalProperties === false) delete obj[property];
      else if (typeof args.additionalProperties === 'object') {
        obj[property] = sanitizeValueFromSchema(pv, args.additionalProperties, `${param}[${property}]`);
      }
    }
    return obj;
  }
  if (type === 'null') return null;
  if (type === 'integer') return toInt(v);
  if (type === 'number') return toFloat(v);
  if (type === 'boolean') return sanitizeBoolean(v);
  const typeName = typeof type === 'string' ? type : undefined;
  if (
    args.format !== undefined &&
    (typeName === undefined || typeName === 'string' || !ALLOWED_TYPES.includes(typeName))
  ) {
    switch (args.format) {
      case 'hex-color':
        return isHexColor(v) ? v : '';
      case 'date-time':
      case 'email':
      case 'ip':
      case 'uuid':
      case 'text-field':
        return sanitizeTextField(v);
      case 'textarea-field':
        return sanitizeTextField(v, true);
      case 'uri':
        return sanitizeUrl(v);
      default:
        break;
    }
  }
  if (type === 'string') return phpString(v);
  return v;
}

/** rest_parse_request_arg(): validate, then sanitise; the RestError when invalid. */
export function parseValueFromSchema(value: unknown, schema: JsonSchema, param: string): unknown {
  const valid = validateValueFromSchema(value, schema, param);
  return valid === true ? sanitizeValueFromSchema(value, schema, param) : valid;
}
