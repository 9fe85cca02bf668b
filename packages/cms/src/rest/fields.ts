/**
 * Response shaping from the item schema: `context` filtering (rest_filter_response_by_context), the
 * `_fields` parameter (rest_filter_response_fields / rest_is_field_included) and the field list a
 * controller should compute (get_fields_for_response).
 */

import { RestError } from './errors.ts';
import { isNumericArray, isPlainObject, parseList } from './php.ts';
import type { RestRequest } from './request.ts';
import type { JsonSchema, RestContext } from './schema.ts';
import { findAnyMatchingSchema, findOneMatchingSchema, isRestArray } from './validation.ts';

/** Removes the properties whose schema `context` does not include `context`, recursively. */
export function filterResponseByContext(data: unknown, schema: JsonSchema, context: RestContext): unknown {
  let s = schema;
  let value = data;
  if (s.anyOf) {
    const match = findAnyMatchingSchema(value, s, '');
    if (!(match instanceof RestError)) {
      if (s.type === undefined) s = { ...s, type: match.type };
      value = filterResponseByContext(value, match, context);
    }
  }
  if (s.oneOf) {
    const match = findOneMatchingSchema(value, s, '', true);
    if (!(match instanceof RestError)) {
      if (s.type === undefined) s = { ...s, type: match.type };
      value = filterResponseByContext(value, match, context);
    }
  }
  if (value === null || typeof value !== 'object') return value;
  let type: JsonSchema['type'];
  if (s.type !== undefined) type = s.type;
  else if (s.properties) type = 'object';
  else return value;
  const types = Array.isArray(type) ? type : [type];
  let isArrayType = types.includes('array');
  let isObjectType = types.includes('object');
  if (isArrayType && isObjectType) {
    if (isRestArray(value)) isObjectType = false;
    else isArrayType = false;
  }
  const additional = isObjectType && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as object) };
  const entries: Array<[string, unknown]> = Array.isArray(out)
    ? out.map((v, i) => [String(i), v])
    : Object.entries(out);
  for (const [key, item] of entries) {
    let check: JsonSchema | undefined;
    if (isArrayType) check = s.items;
    else if (isObjectType) {
      check = s.properties?.[key];
      if (!check && s.patternProperties) {
        for (const [pattern, child] of Object.entries(s.patternProperties)) {
          if (new RegExp(pattern, 'u').test(key)) {
            check = child;
            break;
          }
        }
      }
      check ??= additional;
    }
    if (!check?.context) continue;
    if (!check.context.includes(context)) {
      if (isArrayType) return [];
      if (Array.isArray(out)) out.splice(Number(key), 1);
      else delete out[key];
    } else if (item !== null && typeof item === 'object') {
      const filtered = filterResponseByContext(item, check, context);
      if (Array.isArray(out)) out[Number(key)] = filtered;
      else out[key] = filtered;
    }
  }
  return out;
}

/** The `_fields` parameter as a trimmed list, or null when absent or empty. */
export function requestedFields(request: RestRequest): string[] | null {
  const raw = request.get('_fields');
  if (raw === undefined || raw === null) return null;
  const fields = parseList(raw)
    .map((f) => String(f).trim())
    .filter((f) => f !== '');
  return fields.length > 0 ? fields : null;
}

/** rest_is_field_included(): `field` is wanted when it, a parent or a child of it was requested. */
export function isFieldIncluded(field: string, fields: readonly string[]): boolean {
  if (fields.includes(field)) return true;
  for (const accepted of fields) {
    if (accepted.startsWith(`${field}.`)) return true;
    if (field.startsWith(`${accepted}.`)) return true;
  }
  return false;
}

/**
 * get_fields_for_response(): the schema's top-level properties visible in the request's context, plus
 * `_links` (and `_embedded` when `_embed` is present), narrowed by `_fields`.
 */
export function fieldsForResponse(
  schema: JsonSchema,
  request: RestRequest,
  extraFields: readonly string[] = [],
): string[] {
  const context = request.get('context');
  const embed = request.has('_embed');
  // Without `_fields` the answer depends only on the (built once, never changed) schema, the context and
  // `_embed`: kept per schema, and copied so a caller may change its list.
  const requested = requestedFields(request);
  if (requested) return narrowedFields(allFields(schema, context, embed, extraFields), requested);
  const key = `${typeof context === 'string' ? `s:${context}` : `t:${typeof context}`}|${embed}|${extraFields.join(',')}`;
  let bySchema = fieldsBySchema.get(schema);
  if (!bySchema) {
    bySchema = new Map();
    fieldsBySchema.set(schema, bySchema);
  }
  let fields = bySchema.get(key);
  if (!fields) {
    fields = allFields(schema, context, embed, extraFields);
    if (bySchema.size >= 64) bySchema.clear();
    bySchema.set(key, fields);
  }
  return [...fields];
}

const fieldsBySchema = new WeakMap<JsonSchema, Map<string, string[]>>();

function allFields(schema: JsonSchema, context: unknown, embed: boolean, extraFields: readonly string[]): string[] {
  const properties = Object.entries(schema.properties ?? {});
  const fields: string[] = [];
  for (const [name, property] of properties) {
    if (
      typeof context === 'string' &&
      context !== '' &&
      property.context &&
      !property.context.includes(context as RestContext)
    ) {
      continue;
    }
    fields.push(name);
  }
  fields.push(...extraFields);
  fields.push('_links');
  if (embed) fields.push('_embedded');
  return [...new Set(fields)];
}

function narrowedFields(unique: readonly string[], requested: string[]): string[] {
  if (unique.includes('id')) requested.push('id');
  const out: string[] = [];
  for (const field of requested) {
    if (unique.includes(field) || unique.includes(field.split('.')[0]!)) out.push(field);
  }
  return out;
}

type Keyed = { [key: string]: true | Keyed };

function keyedFields(fields: readonly string[]): Keyed {
  const root: Keyed = {};
  outer: for (const field of fields) {
    const parts = field.split('.');
    let ref = root;
    while (parts.length > 1) {
      const next = parts.shift()!;
      const existing = ref[next];
      if (existing === true) continue outer;
      const child: Keyed = existing ?? {};
      ref[next] = child;
      ref = child;
    }
    ref[parts[0]!] = true;
  }
  return root;
}

function intersectRecursive(data: unknown, keyed: Keyed): unknown {
  if (!isPlainObject(data) && !Array.isArray(data)) return data;
  const entries: Array<[string, unknown]> = Array.isArray(data)
    ? data.map((v, i) => [String(i), v])
    : Object.entries(data);
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const rule = keyed[key];
    if (rule === undefined) continue;
    out[key] =
      rule !== true && (isPlainObject(value) || Array.isArray(value)) ? intersectRecursive(value, rule) : value;
  }
  // What is left is a PHP array, which json_encode() writes as a list when its keys are 0..n-1: `[]` when
  // nothing is left (`_fields=bogus`), `[3]` for `categories.0`.
  const keys = Object.keys(out);
  return keys.every((key, i) => key === String(i)) ? Object.values(out) : out;
}

/** rest_filter_response_fields(): keeps only the `_fields` paths of an item or of each item of a list. */
export function filterResponseFields(data: unknown, fields: readonly string[]): unknown {
  const keyed = keyedFields(fields);
  if (Array.isArray(data) || (isPlainObject(data) && isNumericArray(data) && Object.keys(data).length > 0)) {
    return (Array.isArray(data) ? data : Object.values(data)).map((item) => intersectRecursive(item, keyed));
  }
  return intersectRecursive(data, keyed);
}
