/**
 * The paging links (`Link: <...>; rel="prev"`, `rel="next"`) keep the request's query parameters in the
 * request's order with `page` in its own place (appended only when the request had none), as WordPress's
 * add_query_arg() builds them; values are encoded like PHP's urlencode() and an empty value has no `=`.
 * The expected links were read from WordPress 6.1 (the oracle) for the same queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('paging link order on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
    for (const name of ["o'k x~1", "o'k x~2", "o'k x~3"]) {
      const res = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/tags', as: 'admin', payload: { name } });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => cms?.close());

  /** The query strings of the prev and next links, in that order. */
  async function links(path: string): Promise<Record<string, string>> {
    const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/${path}`, as: 'admin' });
    expect(res.statusCode, res.body).toBe(200);
    const out: Record<string, string> = {};
    for (const m of String(res.headers.link ?? '').matchAll(/<[^>?]*\?([^>]*)>; rel="(prev|next)"/g)) {
      out[m[2]!] = m[1]!;
    }
    return out;
  }

  describe.skipIf(dialect.skip)('', () => {
    it('keeps page where the request put it', async () => {
      expect(await links('users?page=2&per_page=1&orderby=name')).toEqual({
        prev: 'page=1&per_page=1&orderby=name',
        next: 'page=3&per_page=1&orderby=name',
      });
      expect(await links('users?per_page=1&page=2&order=desc')).toEqual({
        prev: 'per_page=1&page=1&order=desc',
        next: 'per_page=1&page=3&order=desc',
      });
    });

    it('appends page when the request had none', async () => {
      expect(await links('users?per_page=2&orderby=name')).toEqual({ next: 'per_page=2&orderby=name&page=2' });
    });

    it("encodes values like PHP's urlencode and writes an empty value without =", async () => {
      expect(await links("tags?order=desc&page=2&per_page=1&hide_empty=false&search=o'k x~")).toEqual({
        prev: 'order=desc&page=1&per_page=1&hide_empty&search=o%27k+x%7E',
        next: 'order=desc&page=3&per_page=1&hide_empty&search=o%27k+x%7E',
      });
    });
  });
});
