/**
 * A list asked with an `offset` past its end answers as WordPress 6.1 does (read from the oracle): the
 * WP_Query lists (posts, pages, media, menu items, blocks) report `X-CMS-Total: 0` and 0 pages (WP_Query
 * leaves found_posts at 0 when it returns no row, and the recount keeps the offset), with a `prev` link to
 * page 0 when `page` > 1; terms and users still report their real totals, their page counted from the
 * offset (`ceil(offset / per_page + 1)`). Status 200 and an empty array everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('offset past the end on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
    for (const title of ['One', 'Two', 'Three']) {
      const res = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/posts',
        as: 'admin',
        payload: { title, status: 'publish' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    for (const base of ['pages', 'blocks']) {
      const res = await cms.call({
        method: 'POST',
        url: `/cms-json/cms/v2/${base}`,
        as: 'admin',
        payload: { title: `A ${base}`, content: 'Text.', status: 'publish' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    for (const name of ['t1', 't2', 't3']) {
      await cms.call({ method: 'POST', url: '/cms-json/cms/v2/tags', as: 'admin', payload: { name } });
    }
  });
  afterAll(async () => cms?.close());

  async function list(path: string) {
    const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/${path}`, as: 'admin' });
    const link = String(res.headers.link ?? '');
    return {
      status: res.statusCode,
      body: res.json(),
      total: res.headers['x-cms-total'],
      pages: res.headers['x-cms-totalpages'],
      prev: /\?([^>]*)>; rel="prev"/.exec(link)?.[1] ?? null,
      next: /\?([^>]*)>; rel="next"/.exec(link)?.[1] ?? null,
    };
  }

  describe.skipIf(dialect.skip)('', () => {
    it.each(['posts', 'pages', 'media', 'menu-items', 'blocks'])('%s report a total of 0', async (base) => {
      expect(await list(`${base}?offset=500`)).toEqual({
        status: 200,
        body: [],
        total: '0',
        pages: '0',
        prev: null,
        next: null,
      });
      expect(await list(`${base}?offset=500&per_page=5&page=2`)).toEqual({
        status: 200,
        body: [],
        total: '0',
        pages: '0',
        prev: 'offset=500&per_page=5&page=0',
        next: null,
      });
    });

    it('posts still count everything when the offset leaves some', async () => {
      const res = await list('posts?offset=2&per_page=5');
      expect(res.body).toHaveLength(1);
      expect([res.total, res.pages]).toEqual(['3', '1']);
    });

    it('tags and users keep their totals, the page counted from the offset', async () => {
      const tags = await list('tags?offset=500');
      expect(tags).toMatchObject({
        status: 200,
        body: [],
        total: '3',
        pages: '1',
        prev: 'offset=500&page=1',
        next: null,
      });
      const users = await list('users?offset=500');
      expect(users).toMatchObject({
        status: 200,
        body: [],
        total: '5',
        pages: '1',
        prev: 'offset=500&page=1',
        next: null,
      });
    });
  });
});
