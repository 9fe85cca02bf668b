/**
 * Unmodified WordPress clients working with posts and pages on a real listening server: `wpapi`
 * discovering the API (Link header of the site root, then the index's routes) and
 * `@wordpress/api-fetch` with its default middlewares, creating, listing, editing and deleting.
 */
import apiFetchModule from '@wordpress/api-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WPAPI from 'wpapi';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

// The package is CommonJS: TypeScript (NodeNext) sees its module object, the runtime hands over the function.
const apiFetch = ((apiFetchModule as unknown as { default?: unknown }).default ??
  apiFetchModule) as typeof apiFetchModule.default;

interface WpPost {
  id: number;
  slug: string;
  status: string;
  title: { raw?: string; rendered: string };
  content: { raw?: string; rendered: string };
  sticky?: boolean;
  categories?: number[];
}

describe('WordPress clients on posts and pages', () => {
  let cms: ContentCms;
  let base: string;
  beforeAll(async () => {
    cms = await createContentCms({ start: new Date().toISOString() });
    const address = await cms.app.listen({ host: '127.0.0.1', port: 0 });
    base = address.replace(/\/$/, '');
    await cms.ctx.options.set('siteurl', base);
    await cms.ctx.options.set('home', base);
  });
  afterAll(async () => cms.close());

  it('wpapi discovers the routes, then creates, lists, edits and deletes posts and pages', async () => {
    const site = (await WPAPI.discover(`${base}/`)).auth({ username: 'edna', password: cms.passwords.edna });
    const ns = site.namespace('cms/v2');
    const created: WpPost = await ns.posts().create({
      title: 'Made by "wpapi"',
      content: '<!-- wp:paragraph -->\n<p>Hello from a client.</p>\n<!-- /wp:paragraph -->',
      status: 'publish',
      sticky: true,
    });
    expect(created).toMatchObject({ slug: 'made-by-wpapi', status: 'publish', sticky: true });
    expect(created.title.rendered).toBe('Made by &#8220;wpapi&#8221;');
    const listed: WpPost[] = await ns.posts().search('wpapi').get();
    // (wpapi's `_paging` reads X-WP-* headers, which are spelled X-CMS-* here.)
    expect(listed.map((p) => p.id)).toEqual([created.id]);
    const one: WpPost = await ns.posts().id(created.id).context('edit').get();
    expect(one.content.raw).toContain('Hello from a client.');
    const updated: WpPost = await ns.posts().id(created.id).update({ title: 'Edited by wpapi', sticky: false });
    expect(updated.title.raw).toBe('Edited by wpapi');
    const revisions = await ns.posts().id(created.id).revisions().get();
    expect(revisions).toHaveLength(1);
    const page: WpPost = await ns.pages().create({ title: 'A wpapi page', status: 'publish' });
    const child: WpPost = await ns.pages().create({ title: 'Child', parent: page.id, status: 'publish' });
    expect((child as unknown as { link: string }).link).toBe(`${base}/a-wpapi-page/child/`);
    const trashed: WpPost = await ns.posts().id(created.id).delete();
    expect(trashed.status).toBe('trash');
    const gone = await ns.posts().id(created.id).param('force', true).delete();
    expect(gone.deleted).toBe(true);
    await expect(ns.posts().id(created.id).get()).rejects.toMatchObject({ code: 'rest_post_invalid_id' });
    const anonymous = (await WPAPI.discover(`${base}/`)).namespace('cms/v2');
    await expect(anonymous.posts().create({ title: 'no' })).rejects.toMatchObject({ code: 'rest_cannot_create' });
  });

  it('@wordpress/api-fetch creates, lists with paging headers and edits posts', async () => {
    apiFetch.use(apiFetch.createRootURLMiddleware(`${base}/cms-json/`));
    const headers = { Authorization: `Basic ${Buffer.from(`arthur:${cms.passwords.arthur}`).toString('base64')}` };
    const post = await apiFetch<WpPost>({
      path: '/cms/v2/posts',
      method: 'POST',
      data: { title: 'From api-fetch', content: 'Classic text.\n\nTwo paragraphs.', status: 'publish' },
      headers,
    });
    expect(post.content.rendered).toBe('<p>Classic text.</p>\n<p>Two paragraphs.</p>\n');
    const response = (await apiFetch({
      path: '/cms/v2/posts?per_page=1&search=api-fetch',
      parse: false,
      headers,
    })) as Response;
    expect(response.headers.get('X-CMS-Total')).toBe('1');
    expect(((await response.json()) as WpPost[])[0]?.id).toBe(post.id);
    const edited = await apiFetch<WpPost>({
      path: `/cms/v2/posts/${post.id}`,
      method: 'PUT',
      data: { title: 'Edited' },
      headers,
    });
    expect(edited.title.raw).toBe('Edited');
    const autosave = await apiFetch<{ parent: number; content: { raw: string } }>({
      path: `/cms/v2/posts/${post.id}/autosaves`,
      method: 'POST',
      data: { title: 'Edited', content: 'Draft of a change', excerpt: '' },
      headers,
    });
    expect(autosave).toMatchObject({ parent: post.id, content: { raw: 'Draft of a change' } });
    await expect(
      apiFetch({ path: `/cms/v2/posts/${post.id}`, method: 'POST', data: { sticky: true }, headers }),
    ).rejects.toMatchObject({ code: 'rest_cannot_assign_sticky' });
    const deleted = await apiFetch<{ deleted: boolean }>({
      path: `/cms/v2/posts/${post.id}?force=true`,
      method: 'DELETE',
      headers,
    });
    expect(deleted.deleted).toBe(true);
  });
});
