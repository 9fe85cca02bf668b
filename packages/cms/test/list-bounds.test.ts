/**
 * List parameters at the edges of what a client can send. WordPress turns an out-of-range number into
 * PHP_INT_MAX and answers; a page or offset that large must never reach the database as a float it
 * refuses (a 500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

const HUGE = '99999999999999999999';

describe.each(dialects())('list bounds on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
    const post = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'admin',
      payload: { title: 'Bounds', content: 'x', status: 'publish' },
    });
    expect(post.statusCode).toBe(201);
    await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/posts/${post.json().id}`,
      as: 'admin',
      payload: { content: 'y' },
    });
    await cms.call({ method: 'POST', url: '/cms-json/cms/v2/tags', as: 'admin', payload: { name: 'bounds' } });
  });
  afterAll(async () => cms?.close());

  describe.skipIf(dialect.skip)('', () => {
    it('a page number past PHP_INT_MAX is the invalid page error of posts, not a 500', async () => {
      for (const url of [`posts?page=${HUGE}`, `posts?page=1e300`, `pages?page=${HUGE}&per_page=100`]) {
        const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/${url}`, as: 'admin' });
        expect(res.statusCode, url).toBe(res.json().code === 'rest_post_invalid_page_number' ? 400 : 200);
      }
      const posts = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/posts?page=${HUGE}` });
      expect(posts.statusCode).toBe(400);
      expect(posts.json()).toEqual({
        code: 'rest_post_invalid_page_number',
        message: 'The page number requested is larger than the number of pages available.',
        data: { status: 400 },
      });
    });

    it.each([
      `posts?offset=${HUGE}`,
      'posts?offset=1e300',
      `posts?offset=${HUGE}&search=Bounds`,
      `pages?offset=${HUGE}`,
      `media?offset=${HUGE}`,
      `media?page=${HUGE}`,
      `menu-items?offset=${HUGE}`,
      `blocks?offset=${HUGE}`,
      `users?page=${HUGE}`,
      `users?offset=${HUGE}`,
      `tags?offset=${HUGE}`,
      `tags?page=${HUGE}`,
      `categories?page=${HUGE}`,
      `posts/1/revisions?page=${HUGE}&per_page=1`,
      `posts/1/revisions?offset=${HUGE}`,
    ])('%s answers without a server error', async (url) => {
      const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/${url}`, as: 'admin' });
      expect(res.statusCode, res.body).toBeLessThan(500);
      if (res.statusCode === 200) expect(res.json()).toEqual([]);
    });

    it('a menu_order beyond a 32-bit integer is stored at its limit, as MySQL does, and filters without a 500', async () => {
      for (const [given, stored] of [
        [HUGE, 2147483647],
        ['-99999999999999', -2147483648],
        [1e20, 2147483647],
      ] as const) {
        const created = await cms.call({
          method: 'POST',
          url: '/cms-json/cms/v2/pages',
          as: 'admin',
          payload: { title: `Order ${given}`, status: 'publish', menu_order: given },
        });
        expect(created.statusCode, created.body).toBe(201);
        expect(created.json().menu_order).toBe(stored);
        const updated = await cms.call({
          method: 'POST',
          url: `/cms-json/cms/v2/pages/${created.json().id}`,
          as: 'admin',
          payload: { menu_order: given },
        });
        expect(updated.statusCode, updated.body).toBe(200);
        expect(updated.json().menu_order).toBe(stored);
      }
      for (const url of [
        `pages?menu_order=${HUGE}`,
        'pages?menu_order=-99999999999999',
        `menu-items?menu_order=${HUGE}`,
      ]) {
        const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/${url}`, as: 'admin' });
        expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(500);
      }
    });
  });
});
