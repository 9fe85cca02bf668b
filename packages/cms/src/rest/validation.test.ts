import { describe, expect, it } from 'vitest';
import { RestError } from './errors.ts';
import type { JsonSchema } from './schema.ts';
import { parseRestDate, parseValueFromSchema, sanitizeValueFromSchema, validateValueFromSchema } from './validation.ts';

function message(value: unknown, schema: JsonSchema, param = 'p'): string {
  const result = validateValueFromSchema(value, schema, param);
  if (result === true) throw new Error(`expected ${JSON.stringify(value)} to be invalid`);
  return `${result.code}: ${result.message}`;
}

describe('validateValueFromSchema follows rest_validate_value_from_schema', () => {
  it('accepts numeric strings as integers and numbers, rejects fractions for integers', () => {
    expect(validateValueFromSchema('5', { type: 'integer' }, 'n')).toBe(true);
    expect(validateValueFromSchema(' 5', { type: 'integer' }, 'n')).toBe(true);
    expect(validateValueFromSchema('1.0', { type: 'integer' }, 'n')).toBe(true);
    expect(validateValueFromSchema('1e3', { type: 'number' }, 'n')).toBe(true);
    expect(message('1.5', { type: 'integer' }, 'n')).toBe('rest_invalid_type: n is not of type integer.');
    expect(message('abc', { type: 'integer' }, 'n')).toBe('rest_invalid_type: n is not of type integer.');
    expect(message(true, { type: 'number' }, 'n')).toBe('rest_invalid_type: n is not of type number.');
  });

  it('prints bounds with %d like WordPress, for each inclusive/exclusive combination', () => {
    const both: JsonSchema = { type: 'integer', minimum: 1, maximum: 100 };
    expect(message(1000, both, 'per_page')).toBe(
      'rest_out_of_bounds: per_page must be between 1 (inclusive) and 100 (inclusive)',
    );
    expect(message(0, { ...both, exclusiveMinimum: true }, 'x')).toBe(
      'rest_out_of_bounds: x must be between 1 (exclusive) and 100 (inclusive)',
    );
    expect(message(100, { ...both, exclusiveMaximum: true }, 'x')).toBe(
      'rest_out_of_bounds: x must be between 1 (inclusive) and 100 (exclusive)',
    );
    expect(message(0, { type: 'number', minimum: 0.5 }, 'x')).toBe(
      'rest_out_of_bounds: x must be greater than or equal to 0',
    );
    expect(message(5, { type: 'number', maximum: 5, exclusiveMaximum: true }, 'x')).toBe(
      'rest_out_of_bounds: x must be less than 5',
    );
    expect(message(7, { type: 'integer', multipleOf: 2 }, 'x')).toBe(
      'rest_invalid_multiple: x must be a multiple of 2.',
    );
  });

  it('treats "true", "false", "0", "1", 0 and 1 as booleans and nothing else', () => {
    for (const v of [true, false, 'true', 'FALSE', '0', '1', 0, 1])
      expect(validateValueFromSchema(v, { type: 'boolean' })).toBe(true);
    expect(message('yes', { type: 'boolean' }, 'sticky')).toBe('rest_invalid_type: sticky is not of type boolean.');
    expect(message(2, { type: 'boolean' }, 'sticky')).toBe('rest_invalid_type: sticky is not of type boolean.');
  });

  it('splits comma and space lists into arrays and checks every item', () => {
    const ints: JsonSchema = { type: 'array', items: { type: 'integer' } };
    expect(validateValueFromSchema('1,2 3', ints)).toBe(true);
    expect(sanitizeValueFromSchema('1,2 3', ints)).toEqual([1, 2, 3]);
    expect(message('1,a', ints, 'include')).toBe('rest_invalid_type: include[1] is not of type integer.');
    expect(message({ a: 1 }, ints, 'include')).toBe('rest_invalid_type: include is not of type array.');
    expect(validateValueFromSchema({ 0: '1', 1: '2' }, ints)).toBe(true);
    expect(message([1, 1], { ...ints, uniqueItems: true }, 'format')).toBe(
      'rest_duplicate_items: format has duplicate items.',
    );
    expect(validateValueFromSchema(['1', 1], { type: 'array', uniqueItems: true })).toBe(true);
    expect(message([1, 2, 3], { ...ints, maxItems: 2 }, 'requests')).toBe(
      'rest_too_many_items: requests must contain at most 2 items.',
    );
    expect(message([], { ...ints, minItems: 1 }, 'm')).toBe('rest_too_few_items: m must contain at least 1 item.');
  });

  it('lists enum values with WordPress punctuation, and the single value without a list', () => {
    expect(message('nope', { type: 'string', enum: ['view', 'embed', 'edit'] }, 'context')).toBe(
      'rest_not_in_enum: context is not one of view, embed, and edit.',
    );
    expect(message('b', { type: 'string', enum: ['a'] }, 'x')).toBe('rest_not_in_enum: x is not a.');
    expect(message('c', { type: 'string', enum: ['a', 'b'] }, 'x')).toBe('rest_not_in_enum: x is not one of a and b.');
    // The value is sanitised before the comparison: "1" matches the integer 1.
    expect(validateValueFromSchema('1', { type: 'integer', enum: [1, 2] })).toBe(true);
  });

  it('checks strings: length in characters, unanchored pattern', () => {
    expect(message('', { type: 'string', minLength: 1 }, 'name')).toBe(
      'rest_too_short: name must be at least 1 character long.',
    );
    expect(message('héllo', { type: 'string', maxLength: 4 }, 'n')).toBe(
      'rest_too_long: n must be at most 4 characters long.',
    );
    expect(validateValueFromSchema('héllo', { type: 'string', maxLength: 5 })).toBe(true);
    expect(message('   ', { type: 'string', pattern: '.*\\S.*' }, 'name')).toBe(
      'rest_invalid_pattern: name does not match pattern .*\\S.*.',
    );
    expect(validateValueFromSchema('a b', { type: 'string', pattern: '\\S' })).toBe(true);
    expect(message(5, { type: 'string' }, 's')).toBe('rest_invalid_type: s is not of type string.');
  });

  it('checks formats only on strings: date-time, email, ip, uuid, hex-color; never uri', () => {
    expect(validateValueFromSchema('2023-01-02T03:04:05', { type: 'string', format: 'date-time' })).toBe(true);
    expect(validateValueFromSchema('2023-01-02 03:04:05+02:00', { type: 'string', format: 'date-time' })).toBe(true);
    expect(message('2023-01-02', { type: 'string', format: 'date-time' })).toBe('rest_invalid_date: Invalid date.');
    expect(message('a@b', { type: 'string', format: 'email' })).toBe('rest_invalid_email: Invalid email address.');
    expect(validateValueFromSchema('ann@example.com', { type: 'string', format: 'email' })).toBe(true);
    expect(message('300.1.1.1', { type: 'string', format: 'ip' }, 'last_ip')).toBe(
      'rest_invalid_ip: last_ip is not a valid IP address.',
    );
    expect(validateValueFromSchema('::1', { type: 'string', format: 'ip' })).toBe(true);
    expect(message('x', { type: 'string', format: 'uuid' }, 'u')).toBe('rest_invalid_uuid: u is not a valid UUID.');
    expect(message('#ggg', { type: 'string', format: 'hex-color' })).toBe('rest_invalid_hex_color: Invalid hex color.');
    expect(validateValueFromSchema('not a url', { type: 'string', format: 'uri' })).toBe(true);
    // null picked from a multi-type skips the format.
    expect(validateValueFromSchema(null, { type: ['string', 'null'], format: 'date-time' })).toBe(true);
  });

  it('picks the best of several types and reports all of them when none fits', () => {
    expect(validateValueFromSchema('', { type: ['object', 'string'] })).toBe(true);
    expect(message({}, { type: ['string', 'null'] }, 'date')).toBe(
      'rest_invalid_type: date is not of type string,null.',
    );
    expect(sanitizeValueFromSchema('true', { type: ['boolean', 'array'] })).toBe(true);
    expect(sanitizeValueFromSchema('post,page', { type: ['boolean', 'array'], items: { type: 'string' } })).toEqual([
      'post',
      'page',
    ]);
  });

  it('validates objects: required (both drafts), properties, additionalProperties, property counts', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'string', required: true } },
      additionalProperties: false,
    };
    expect(message({ a: 1 }, schema, 'o')).toBe('rest_property_required: b is a required property of o.');
    expect(message({ a: 'x', b: '' }, schema, 'o')).toBe('rest_invalid_type: o[a] is not of type integer.');
    expect(message({ b: '', c: 1 }, schema, 'o')).toBe(
      'rest_additional_properties_forbidden: c is not a valid property of Object.',
    );
    expect(message({}, { type: 'object', required: ['x'] }, 'o')).toBe(
      'rest_property_required: x is a required property of o.',
    );
    expect(message({}, { type: 'object', minProperties: 1 }, 'o')).toBe(
      'rest_too_few_properties: o must contain at least 1 property.',
    );
    expect(validateValueFromSchema('', { type: 'object' })).toBe(true);
    expect(sanitizeValueFromSchema({ b: 1, c: 2 }, schema)).toEqual({ b: '1' });
  });

  it('resolves anyOf and oneOf with WordPress messages', () => {
    const terms: JsonSchema = {
      oneOf: [
        { title: 'Term ID List', type: 'array', items: { type: 'integer' } },
        {
          title: 'Term Query',
          type: 'object',
          properties: { terms: { type: 'array', items: { type: 'integer' } } },
          additionalProperties: false,
        },
      ],
    };
    expect(validateValueFromSchema([1, 2], terms, 'categories')).toBe(true);
    expect(validateValueFromSchema({ terms: [1] }, terms, 'categories')).toBe(true);
    expect(message({ terms: ['x'] }, terms, 'categories')).toBe(
      'rest_no_matching_schema: categories is not a valid Term Query. Reason: categories[terms][0] is not of type integer.',
    );
    expect(message(1.5, { anyOf: [{ type: 'integer' }, { type: 'boolean' }] }, 'x')).toBe(
      'rest_no_matching_schema: x does not match any of the expected formats.',
    );
    expect(message(1, { oneOf: [{ type: 'integer' }, { type: 'number' }] }, 'x')).toBe(
      'rest_one_of_multiple_matches: x matches more than one of the expected formats.',
    );
  });
});

describe('sanitizeValueFromSchema follows rest_sanitize_value_from_schema', () => {
  it('casts like PHP', () => {
    expect(sanitizeValueFromSchema('12', { type: 'integer' })).toBe(12);
    expect(sanitizeValueFromSchema('1.9', { type: 'integer' })).toBe(1);
    expect(sanitizeValueFromSchema('2.5', { type: 'number' })).toBe(2.5);
    expect(sanitizeValueFromSchema('false', { type: 'boolean' })).toBe(false);
    expect(sanitizeValueFromSchema('0', { type: 'boolean' })).toBe(false);
    expect(sanitizeValueFromSchema('yes', { type: 'boolean' })).toBe(true);
    expect(sanitizeValueFromSchema(5, { type: 'string' })).toBe('5');
    expect(sanitizeValueFromSchema(' <b>Hi</b>  there ', { type: 'string', format: 'text-field' })).toBe('Hi there');
    expect(sanitizeValueFromSchema('#ABC', { type: 'string', format: 'hex-color' })).toBe('#ABC');
    expect(sanitizeValueFromSchema('example.com/x', { type: 'string', format: 'uri' })).toBe('http://example.com/x');
    expect(sanitizeValueFromSchema('javascript:alert(1)', { type: 'string', format: 'uri' })).toBe('');
  });

  it('parseValueFromSchema returns the error instead of a value', () => {
    expect(parseValueFromSchema('x', { type: 'integer' }, 'id')).toBeInstanceOf(RestError);
    expect(parseValueFromSchema('7', { type: 'integer' }, 'id')).toBe(7);
  });

  it('parses the ISO 8601 dates WordPress accepts', () => {
    expect(parseRestDate('2023-01-02T03:04:05Z')).toBe(Date.UTC(2023, 0, 2, 3, 4, 5) / 1000);
    expect(parseRestDate('2023-01-02T03:04:05-01:00')).toBe(Date.UTC(2023, 0, 2, 4, 4, 5) / 1000);
    expect(parseRestDate('2023-13-02T03:04:05')).toBe(false);
    expect(parseRestDate('yesterday')).toBe(false);
  });
});
