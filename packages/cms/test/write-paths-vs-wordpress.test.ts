/**
 * Write paths where the CMS answered otherwise than WordPress 6.1 (found by sending the same create, update
 * and delete requests to the oracle and to the CMS; the README lists what was compared):
 * - a new tag or category whose slug another term has gets a unique slug (`-2`), as wp_insert_term() makes
 *   it, instead of a `duplicate_term_slug` error (only an update refuses a taken slug);
 * - a category made its own parent, or a child of one of its descendants, moves to the top level (parent 0),
 *   as wp_check_term_hierarchy_for_loops() decides, instead of a 400;
 * - saving a post that has no category gives it the default one (wp_update_post() passes the post's current
 *   categories to wp_insert_post(), which adds the default to an empty list), unless the request sets them;
 * - reusable blocks: map_meta_cap() turns `publish_blocks` and the other block capabilities into the post
 *   ones, so the publish action link is there for users who may publish posts, a block request carrying
 *   `sticky` is not refused, and the attachments link is present.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type RoleLogin, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('write paths as WordPress answers them on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const api = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
    as: RoleLogin = 'admin',
  ) => cms.call({ method, url: `/cms-json/cms/v2${url}`, as, ...(payload ? { payload } : {}) });

  describe.skipIf(dialect.skip)('', () => {
    it.each(['/tags', '/categories'])('creates %s with a slug another term has under a unique slug', async (base) => {
      const first = await api('POST', base, { name: `First ${base}`, slug: 'shared-slug' });
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json().slug).toBe('shared-slug');
      const second = await api('POST', base, { name: `Second ${base}`, slug: 'shared-slug' });
      expect(second.statusCode, second.body).toBe(201);
      expect(second.json()).toMatchObject({ name: `Second ${base}`, slug: 'shared-slug-2' });
      // An update still refuses a slug another term has.
      const update = await api('POST', `${base}/${second.json().id}`, { slug: 'shared-slug' });
      expect(update.statusCode).toBe(400);
      expect(update.json().code).toBe('duplicate_term_slug');
    });

    it('moves a category made its own parent or its descendant’s child to the top level', async () => {
      const top = (await api('POST', '/categories', { name: 'Loop top' })).json();
      const child = (await api('POST', '/categories', { name: 'Loop child', parent: top.id })).json();
      const grandchild = (await api('POST', '/categories', { name: 'Loop grandchild', parent: child.id })).json();
      const self = await api('POST', `/categories/${child.id}`, { parent: child.id, description: 'kept' });
      expect(self.statusCode, self.body).toBe(200);
      expect(self.json()).toMatchObject({ parent: 0, description: 'kept' });
      await api('POST', `/categories/${child.id}`, { parent: top.id });
      const loop = await api('POST', `/categories/${top.id}`, { parent: grandchild.id });
      expect(loop.statusCode, loop.body).toBe(200);
      expect(loop.json().parent).toBe(0);
      const fine = await api('POST', `/categories/${grandchild.id}`, { parent: top.id });
      expect(fine.json().parent).toBe(top.id);
    });

    it('gives the default category back to a post saved without any, unless the request sets them', async () => {
      const post = (await api('POST', '/posts', { title: 'Categories kept', categories: [] })).json();
      expect(post.categories).toEqual([]);
      const emptied = await api('POST', `/posts/${post.id}`, { categories: [], title: 'Still none' });
      expect(emptied.json().categories).toEqual([]);
      const saved = await api('POST', `/posts/${post.id}`, { excerpt: 'Another save' });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json().categories).toEqual([1]);
      const read = await api('GET', `/posts/${post.id}?context=edit`);
      expect(read.json().categories).toEqual([1]);
    });

    it('links the publish action and attachments of a block, and ignores sticky on a block', async () => {
      for (const as of ['admin', 'edna', 'arthur'] as const) {
        // Sticky needs edit_others_posts as well here (README), which an author lacks.
        const sticky = as === 'arthur' ? {} : { sticky: true };
        const res = await api('POST', '/blocks', { title: `Block of ${as}`, content: '<p>x</p>', ...sticky }, as);
        expect(res.statusCode, `${as}: ${res.body}`).toBe(201);
        const links = res.json()._links;
        expect(Object.keys(links), as).toContain('cms:action-publish');
        expect(links['cms:attachment'][0].href).toBe(`http://cms.test/cms-json/cms/v2/media?parent=${res.json().id}`);
      }
      const contributor = await api('POST', '/blocks', { title: 'Not allowed' }, 'conrad');
      expect(contributor.statusCode).toBe(403);
    });
  });
});
