/**
 * Reads of posts and pages reuse the JSON of prepared items across requests (src/content/item-cache.ts).
 * Whatever changes — the post through the API or behind it, its terms, meta, revisions, a parent page,
 * the settings, the password or the user asking — the next read answers what an uncached read answers.
 * The uncached answer is the same request with `_envelope` (which never uses the cache), so every check
 * compares the two.
 */
import { testDialects } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms, type Login } from './helpers/content-cms.ts';

/** A response body, checked by value as in the other endpoint tests. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are compared whole and read by field
type Json = any;

describe.each(testDialects())('cached post items on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms({ dialect });
  });
  afterAll(async () => cms.close());

  /** GET `path` twice (so the second answer can come from the cache) and checks both against an uncached read. */
  async function read(path: string, as?: Login): Promise<Json> {
    const separator = path.includes('?') ? '&' : '?';
    const uncached = await cms.get(`${path}${separator}_envelope=1`, as);
    const envelope = uncached.json();
    for (let i = 0; i < 2; i++) {
      const res = await cms.get(path, as);
      expect(res.statusCode).toBe(envelope.status);
      expect(res.json()).toEqual(envelope.body);
    }
    return envelope.body;
  }

  async function publish(title: string, extra: Record<string, unknown> = {}): Promise<Json> {
    const res = await cms.post(
      '/posts',
      { title, content: `<p>${title} body</p>`, status: 'publish', ...extra },
      'admin',
    );
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  it('serves the new title and content after an update through the API', async () => {
    const post = await publish('Cache first');
    expect((await read(`/posts/${post.id}`)).title.rendered).toBe('Cache first');
    expect((await read('/posts')).find((p: Json) => p.id === post.id).title.rendered).toBe('Cache first');
    await cms.post(`/posts/${post.id}`, { title: 'Cache second', content: '<p>New body</p>' }, 'admin');
    const one = await read(`/posts/${post.id}`);
    expect(one.title.rendered).toBe('Cache second');
    expect(one.content.rendered).toContain('New body');
    expect((await read('/posts')).find((p: Json) => p.id === post.id).title.rendered).toBe('Cache second');
  });

  it('serves a change made behind the API, by a statement that leaves the version alone', async () => {
    const post = await publish('Behind the back');
    await read(`/posts/${post.id}`);
    await sql`update posts set title = ${'Changed in SQL'}, comment_status = ${'closed'} where id = ${post.id}`.execute(
      cms.database.db,
    );
    const after = await read(`/posts/${post.id}`);
    expect(after.title.rendered).toBe('Changed in SQL');
    expect(after.comment_status).toBe('closed');
  });

  it('serves new terms, and their new order after a term is renamed', async () => {
    const alpha = (await cms.post('/categories', { name: 'Alpha cache' }, 'admin')).json();
    const beta = (await cms.post('/categories', { name: 'Beta cache' }, 'admin')).json();
    const tag = (await cms.post('/tags', { name: 'cache-tag' }, 'admin')).json();
    const post = await publish('Terms', { categories: [beta.id, alpha.id] });
    expect((await read(`/posts/${post.id}`)).categories).toEqual([alpha.id, beta.id]);
    await read('/posts');
    await cms.post(`/posts/${post.id}`, { tags: [tag.id] }, 'admin');
    expect((await read(`/posts/${post.id}`)).tags).toEqual([tag.id]);
    await cms.post(`/categories/${alpha.id}`, { name: 'Zulu cache' }, 'admin');
    expect((await read(`/posts/${post.id}`)).categories).toEqual([beta.id, alpha.id]);
    expect((await read('/posts')).find((p: Json) => p.id === post.id).categories).toEqual([beta.id, alpha.id]);
    await cms.del(`/tags/${tag.id}?force=true`, 'admin');
    expect((await read(`/posts/${post.id}`)).tags).toEqual([]);
  });

  it('serves new meta, also when written straight to the table', async () => {
    const post = await publish('Meta');
    expect((await read(`/posts/${post.id}`)).meta.footnotes).toBe('');
    await cms.post(`/posts/${post.id}`, { meta: { footnotes: 'first note' } }, 'admin');
    expect((await read(`/posts/${post.id}`)).meta.footnotes).toBe('first note');
    await cms.database.db
      .updateTable('postmeta')
      .set({ meta_value: JSON.stringify('second note') })
      .where('post_id', '=', post.id)
      .where('meta_key', '=', 'footnotes')
      .execute();
    expect((await read(`/posts/${post.id}`)).meta.footnotes).toBe('second note');
    await cms.database.db.deleteFrom('postmeta').where('post_id', '=', post.id).execute();
    expect((await read(`/posts/${post.id}`)).meta.footnotes).toBe('');
  });

  it('serves new settings: links, dates and stickiness', async () => {
    const post = await publish('Settings');
    const before = await read(`/posts/${post.id}`);
    expect(before.link).toBe('http://cms.test/settings/');
    await cms.ctx.options.set('home', 'http://other.test');
    await cms.ctx.options.set('permalink_structure', '/%year%/%postname%/');
    expect((await read(`/posts/${post.id}`)).link).toBe('http://other.test/2024/settings/');
    expect((await read('/posts')).find((p: Json) => p.id === post.id).link).toBe('http://other.test/2024/settings/');
    await cms.ctx.options.set('home', 'http://cms.test');
    await cms.ctx.options.set('permalink_structure', '/%postname%/');
    const draft = (await cms.post('/posts', { title: 'Floating draft' }, 'admin')).json();
    const gmtBefore = (await read(`/posts/${draft.id}?context=edit`, 'admin')).date_gmt;
    await cms.ctx.options.set('timezone_string', 'Europe/Paris');
    const gmtAfter = (await read(`/posts/${draft.id}?context=edit`, 'admin')).date_gmt;
    expect(gmtAfter).not.toBe(gmtBefore);
    await cms.ctx.options.set('timezone_string', '');
    expect((await read(`/posts/${post.id}`)).sticky).toBe(false);
    await publish('Sticky other', { sticky: true });
    await cms.post(`/posts/${post.id}`, { sticky: true }, 'admin');
    expect((await read(`/posts/${post.id}`)).sticky).toBe(true);
    await cms.ctx.options.set('sticky_posts', []);
    expect((await read(`/posts/${post.id}`)).sticky).toBe(false);
  });

  it('never hands protected content to a request without the password', async () => {
    const post = await publish('Protected', { password: 'open sesame' });
    const hidden = await read(`/posts/${post.id}`);
    expect(hidden.content).toEqual({ rendered: '', protected: true });
    const shown = await read(`/posts/${post.id}?password=open%20sesame`);
    expect(shown.content.rendered).toContain('Protected body');
    expect((await read(`/posts/${post.id}`)).content.rendered).toBe('');
    expect((await read('/posts')).find((p: Json) => p.id === post.id).content.rendered).toBe('');
    expect((await read(`/posts/${post.id}?context=edit`, 'admin')).content.rendered).toContain('Protected body');
    expect((await read('/posts?context=edit', 'admin')).find((p: Json) => p.id === post.id).content.rendered).toContain(
      'Protected body',
    );
    expect((await read(`/posts/${post.id}`)).content.rendered).toBe('');
  });

  it('gives each user the links and fields of their own rights in the edit context', async () => {
    const own = await cms.make('post', { title: 'Contributor draft', status: 'draft', owner: 'conrad' });
    const asAdmin = (await read('/posts?context=edit&status=draft', 'admin')).find((p: Json) => p.id === own.id);
    const asConrad = (await read('/posts?context=edit&status=draft', 'conrad')).find((p: Json) => p.id === own.id);
    expect(Object.keys(asAdmin._links)).toContain('cms:action-publish');
    expect(Object.keys(asConrad._links)).not.toContain('cms:action-publish');
    await read(`/posts/${own.id}?context=edit`, 'conrad');
    await read(`/posts/${own.id}?context=edit`, 'admin');
  });

  it('shows private posts with the link each reader may see', async () => {
    const secret = await cms.make('post', { title: 'Private one', status: 'private', owner: 'arthur' });
    expect((await read(`/posts/${secret.id}`, 'arthur')).link).toBe('http://cms.test/private-one/');
    expect((await read(`/posts/${secret.id}`, 'edna')).link).toBe('http://cms.test/private-one/');
    await read('/posts?status=private', 'edna');
    expect((await cms.get(`/posts/${secret.id}`)).statusCode).toBe(401);
  });

  it('counts revisions made without changing the post (an autosave by another user)', async () => {
    const post = await publish('Revised');
    const before = await read(`/posts/${post.id}`);
    const autosave = await cms.post(`/posts/${post.id}/autosaves`, { title: 'Autosaved title' }, 'edna');
    expect(autosave.statusCode).toBe(200);
    const after = await read(`/posts/${post.id}`);
    expect(after._links['version-history'][0].count).toBe(before._links['version-history'][0].count + 1);
  });

  it('links a child page under its parent after the parent is renamed', async () => {
    const parent = (await cms.post('/pages', { title: 'Parent', status: 'publish' }, 'admin')).json();
    const child = (await cms.post('/pages', { title: 'Child', status: 'publish', parent: parent.id }, 'admin')).json();
    expect((await read(`/pages/${child.id}`)).link).toBe('http://cms.test/parent/child/');
    await read('/pages');
    await cms.post(`/pages/${parent.id}`, { slug: 'renamed' }, 'admin');
    expect((await read(`/pages/${child.id}`)).link).toBe('http://cms.test/renamed/child/');
    expect((await read('/pages')).find((p: Json) => p.id === child.id).link).toBe('http://cms.test/renamed/child/');
  });

  it('moves children up and unattaches media when a page is deleted (their versions change)', async () => {
    const parent = (await cms.post('/pages', { title: 'Going', status: 'publish' }, 'admin')).json();
    const child = (
      await cms.post('/pages', { title: 'Staying', status: 'publish', parent: parent.id }, 'admin')
    ).json();
    expect((await read(`/pages/${child.id}`)).parent).toBe(parent.id);
    expect((await cms.del(`/pages/${parent.id}?force=true`, 'admin')).statusCode).toBe(200);
    const after = await read(`/pages/${child.id}`);
    expect(after.parent).toBe(0);
    expect(after.link).toBe('http://cms.test/staying/');
  });

  it('answers _fields and _embed requests like uncached ones', async () => {
    const post = await publish('Fields');
    await read(`/posts/${post.id}`);
    const fields = (await cms.get(`/posts/${post.id}?_fields=id,title`)).json();
    expect(fields).toEqual({ id: post.id, title: { rendered: 'Fields' } });
    const embedded = (await cms.get(`/posts/${post.id}?_embed=author`)).json();
    expect(embedded._embedded.author[0].id).toBe(cms.ids.admin);
  });
});
