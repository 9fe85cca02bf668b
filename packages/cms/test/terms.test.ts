import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('/cms/v2/categories and /tags on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const post = (url: string, payload: Record<string, unknown>, as: 'admin' | 'edna' | 'arthur' | 'sam' = 'admin') =>
    cms.call({ method: 'POST', url: `/cms-json/cms/v2/${url}`, as, payload });

  describe.skipIf(dialect.skip)('', () => {
    it('has the default category and shows it with WordPress fields and links', async () => {
      const res = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/categories/1' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: 1,
        count: 0,
        description: '',
        link: 'http://cms.test/category/uncategorized/',
        name: 'Uncategorized',
        slug: 'uncategorized',
        taxonomy: 'category',
        parent: 0,
        meta: [],
        _links: {
          self: [{ href: 'http://cms.test/cms-json/cms/v2/categories/1' }],
          collection: [{ href: 'http://cms.test/cms-json/cms/v2/categories' }],
          about: [{ href: 'http://cms.test/cms-json/cms/v2/taxonomies/category' }],
          'cms:post_type': [{ href: 'http://cms.test/cms-json/cms/v2/posts?categories=1' }],
          curies: [{ name: 'cms', href: 'https://api.w.org/{rel}', templated: true }],
        },
      });
    });

    it('creates hierarchical categories with unique slugs and nested links', async () => {
      const tech = await post('categories', { name: 'Technology', description: 'All things tech' });
      expect(tech.statusCode).toBe(201);
      expect(tech.headers.location).toBe(`http://cms.test/cms-json/cms/v2/categories/${tech.json().id}`);
      const ai = await post('categories', { name: 'Artificial Intelligence', slug: 'ai', parent: tech.json().id });
      expect(ai.json()).toMatchObject({
        slug: 'ai',
        parent: tech.json().id,
        link: 'http://cms.test/category/technology/ai/',
      });
      expect(ai.json()._links.up).toEqual([
        { embeddable: true, href: `http://cms.test/cms-json/cms/v2/categories/${tech.json().id}` },
      ]);
      const again = await post('categories', { name: 'Technology' });
      expect(again.statusCode).toBe(400);
      expect(again.json()).toEqual({
        code: 'term_exists',
        message: 'A term with the name provided already exists with this parent.',
        data: { status: 400, term_id: tech.json().id },
        additional_data: [tech.json().id, tech.json().id],
      });
      const orphan = await post('categories', { name: 'X', parent: 999 });
      expect(orphan.json()).toEqual({
        code: 'rest_term_invalid',
        message: 'Parent term does not exist.',
        data: { status: 400 },
      });
      const tagParent = await post('tags', { name: 'X', parent: 1 });
      expect(tagParent.json().code).toBe('rest_taxonomy_not_hierarchical');
      const children = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/categories?parent=${tech.json().id}` });
      expect(children.json().map((t: { slug: string }) => t.slug)).toEqual(['ai']);
      const embedded = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/categories/${ai.json().id}?_embed=up` });
      expect(embedded.json()._embedded.up[0]).toMatchObject({ id: tech.json().id, name: 'Technology' });
    });

    it('lists tags with search, slug, include/exclude, order, hide_empty and pagination', async () => {
      for (const name of ['php', 'node', 'rust', 'go', 'sql']) await post('tags', { name });
      const list = async (q: string) =>
        (await cms.call({ method: 'GET', url: `/cms-json/cms/v2/tags?${q}` }))
          .json()
          .map((t: { name: string }) => t.name);
      expect(await list('')).toEqual(['go', 'node', 'php', 'rust', 'sql']);
      expect(await list('order=desc&per_page=2')).toEqual(['sql', 'rust']);
      expect(await list('search=o')).toEqual(['go', 'node']);
      expect(await list('slug=rust,php&orderby=include_slugs')).toEqual(['rust', 'php']);
      expect(await list('offset=3')).toEqual(['rust', 'sql']);
      expect(await list('hide_empty=true')).toEqual([]);
      const res = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/tags?per_page=2&page=3' });
      expect(res.headers['x-cms-total']).toBe('5');
      expect(res.headers['x-cms-totalpages']).toBe('3');
      expect(res.json().map((t: { name: string }) => t.name)).toEqual(['sql']);
      const embed = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/tags?context=embed&per_page=1' });
      expect(Object.keys(embed.json()[0])).toEqual(['id', 'link', 'name', 'slug', 'taxonomy', '_links']);
    });

    it('updates and deletes terms with WordPress permissions and errors', async () => {
      const tag = (await post('tags', { name: 'temp' })).json();
      const renamed = await post(`tags/${tag.id}`, { name: 'Temporary', slug: 'temporary' }, 'edna');
      expect(renamed.json()).toMatchObject({ name: 'Temporary', slug: 'temporary' });
      const author = await post(`tags/${tag.id}`, { name: 'nope' }, 'arthur');
      expect(author.json()).toEqual({
        code: 'rest_cannot_update',
        message: 'Sorry, you are not allowed to edit this term.',
        data: { status: 403 },
      });
      // Tags, like every non-hierarchical taxonomy, may be created by those who may assign them (edit_posts),
      // as the post editor adds new tags; a subscriber may not.
      const createByAuthor = await post('tags', { name: 'new from an author' }, 'arthur');
      expect(createByAuthor.statusCode).toBe(201);
      expect(createByAuthor.json()).toMatchObject({ name: 'new from an author', taxonomy: 'post_tag' });
      const createBySubscriber = await post('tags', { name: 'nope' }, 'sam');
      expect(createBySubscriber.json()).toEqual({
        code: 'rest_cannot_create',
        message: 'Sorry, you are not allowed to create terms in this taxonomy.',
        data: { status: 403 },
      });
      const noForce = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/tags/${tag.id}`, as: 'admin' });
      expect(noForce.json()).toEqual({
        code: 'rest_trash_not_supported',
        message: "Terms do not support trashing. Set 'force=true' to delete.",
        data: { status: 501 },
      });
      const removed: number[] = [];
      cms.ctx.content = { ...cms.ctx.content, removeTermFromObjects: async (_trx, id) => void removed.push(id) };
      const deleted = await cms.call({
        method: 'DELETE',
        url: `/cms-json/cms/v2/tags/${tag.id}?force=true`,
        as: 'admin',
      });
      expect(deleted.json()).toMatchObject({ deleted: true, previous: { id: tag.id, name: 'Temporary' } });
      expect(removed).toEqual([tag.id]);
      const gone = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/tags/${tag.id}` });
      expect(gone.json()).toEqual({
        code: 'rest_term_invalid',
        message: 'Term does not exist.',
        data: { status: 404 },
      });
      const defaultCategory = await cms.call({
        method: 'DELETE',
        url: '/cms-json/cms/v2/categories/1?force=true',
        as: 'admin',
      });
      expect(defaultCategory.json()).toEqual({
        code: 'rest_cannot_delete',
        message: 'Sorry, you are not allowed to delete this term.',
        data: { status: 403 },
      });
      const wrongTaxonomy = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/tags/1' });
      expect(wrongTaxonomy.statusCode).toBe(404);
    });

    it('moves children up when a parent category is deleted', async () => {
      const parent = (await post('categories', { name: 'Parent' })).json();
      const child = (await post('categories', { name: 'Child', parent: parent.id })).json();
      await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/categories/${parent.id}?force=true`, as: 'admin' });
      const after = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/categories/${child.id}` });
      expect(after.json().parent).toBe(0);
    });

    it('filters term descriptions like pre_term_description (wp_filter_kses), even for administrators', async () => {
      // Live oracle: POST /wp/v2/tags as admin with this description stores 'Fish &amp; x chips <b>ok</b>'.
      const tag = await post('tags', { name: 'described', description: 'Fish & <script>x</script> chips <b>ok</b>' });
      expect(tag.json().description).toBe('Fish &amp; x chips <b>ok</b>');
      const updated = await post(`categories/1`, { description: '<img src=x onerror=y>1 < 2' });
      expect(updated.json().description).toBe('1 &lt; 2');
      const menu = await post('menus', { name: 'Described menu', description: '<i onclick="x">i</i>' });
      expect(menu.json().description).toBe('<i>i</i>');
    });

    it('derives the page of the Link header from offset, as WordPress does for terms', async () => {
      for (const name of ['paging a', 'paging b', 'paging c', 'paging d']) await post('tags', { name });
      const res = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/tags?offset=2&per_page=2' });
      const total = Number(res.headers['x-cms-total']);
      expect(total).toBeGreaterThanOrEqual(6);
      expect(res.headers['x-cms-totalpages']).toBe(String(Math.ceil(total / 2)));
      // offset 2 at 2 per page is page 2: prev is page 1, next page 3.
      expect(res.headers.link).toBe(
        '<http://cms.test/cms-json/cms/v2/tags?offset=2&per_page=2&page=1>; rel="prev", ' +
          '<http://cms.test/cms-json/cms/v2/tags?offset=2&per_page=2&page=3>; rel="next"',
      );
      // Past the end, prev points at the last page and there is no next.
      const past = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/tags?offset=1000&per_page=2' });
      expect(past.json()).toEqual([]);
      expect(past.headers.link).toBe(
        `<http://cms.test/cms-json/cms/v2/tags?offset=1000&per_page=2&page=${Math.ceil(total / 2)}>; rel="prev"`,
      );
    });

    it('limits ?post= to readable posts and answers rest_post_invalid_id for unknown ones', async () => {
      const missing = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/categories?post=12345' });
      expect(missing.json()).toEqual({
        code: 'rest_post_invalid_id',
        message: 'Invalid post ID.',
        data: { status: 400 },
      });
      cms.ctx.content = {
        ...cms.ctx.content,
        getPostForCaps: async (id) =>
          id === 5 ? { id: 5, type: 'post', status: 'draft', authorId: cms.ids.arthur, parentId: 0 } : null,
        termIdsOfPost: async () => [1],
      };
      const anon = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/categories?post=5' });
      expect(anon.json().code).toBe('rest_forbidden_context');
      const owner = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/categories?post=5', as: 'arthur' });
      expect(owner.json().map((t: { id: number }) => t.id)).toEqual([1]);
    });
  });
});
