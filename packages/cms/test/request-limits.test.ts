/**
 * Request bodies and query strings shaped to exhaust the parser: they must be answered quickly in the REST
 * API's own error shape, never hold the event loop or end in a 500, even before authentication.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_NESTING, parseQueryString } from '../src/rest/php.ts';
import { createTestCms, type TestCms } from './helpers/cms-test-app.ts';

let cms: TestCms;
beforeAll(async () => {
  cms = await createTestCms();
});
afterAll(async () => {
  await cms?.close();
});

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('PHP-style names ([] and nesting) in forms and query strings', () => {
  it('appends with [] after explicit integer keys as PHP does', () => {
    expect(parseQueryString('a[x]=1&a[]=2&a[5]=3&a[]=4&a[-9]=5&a[]=6')).toEqual({
      a: { x: '1', 0: '2', 5: '3', 6: '4', '-9': '5', 7: '6' },
    });
    expect(parseQueryString('b[]=1&b[]=2&b[k]=3&b[]=4')).toEqual({ b: { 0: '1', 1: '2', k: '3', 2: '4' } });
  });

  it(`drops a name nested more than ${MAX_INPUT_NESTING} levels, as PHP's max_input_nesting_level`, () => {
    const name = (levels: number) => `a${'[x]'.repeat(levels)}`;
    expect(parseQueryString(`${name(MAX_INPUT_NESTING + 1)}=1&b=2`)).toEqual({ b: '2' });
    let value: unknown = parseQueryString(`${name(MAX_INPUT_NESTING)}=1`).a;
    for (let level = 1; level < MAX_INPUT_NESTING; level++) value = (value as { x: unknown }).x;
    expect(value).toEqual({ x: '1' });
  });

  // 40,000 appends after a named key held the event loop 124 s, before any authentication.
  it('an anonymous form of 40,000 appends to a map is parsed at once and refused with 401', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      headers: FORM,
      payload: `a[x]=1${'&a[]=1'.repeat(40_000)}`,
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('rest_cannot_create');
  });

  it('a form of 200,000 integer keys then [] is not a 500', async () => {
    const keys = Array.from({ length: 200_000 }, (_, i) => `a[${i}]=1`).join('&');
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      headers: FORM,
      payload: `${keys}&a[x]=1&a[]=2`,
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('rest_cannot_create');
  });

  it('a name nested 10,000 deep in a form is dropped, not a 500', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'admin',
      headers: FORM,
      payload: `title=Deep&a${'[x]'.repeat(10_000)}=1`,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().title.raw).toBe('Deep');
  });
});

describe('JSON nesting', () => {
  const nested = (depth: number) => `{"title":"Nested","zzz":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}}`;

  it('refuses a body nested more than 512 deep with json_decode’s error, not a 500', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'arthur',
      headers: { 'content-type': 'application/json' },
      payload: nested(10_000),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400, json_error_code: 1, json_error_message: 'Maximum stack depth exceeded' },
    });
  });

  it('accepts 512 levels, brackets inside strings not counted', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'arthur',
      headers: { 'content-type': 'application/json' },
      payload: nested(512).replace('"Nested"', `"${'[{'.repeat(600)}"`),
    });
    expect(res.statusCode).toBe(201);
  });
});
