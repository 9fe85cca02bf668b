/**
 * /cms/v2/{posts|pages}/{parent}/revisions[/{id}] and /{posts|pages}/{id}/autosaves[/{id}]: when
 * revisions are made, their list parameters, reading and deleting them (force only), and the two kinds
 * of autosave (the author's own draft in place, otherwise one autosave revision per user).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

describe('revisions and autosaves', () => {
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms();
  });
  afterAll(async () => cms.close());

  async function withRevisions(count: number, type = 'posts'): Promise<number> {
    const post = (await cms.post(`/${type}`, { title: 'Revised', content: 'v0', status: 'publish' }, 'admin')).json();
    for (let i = 1; i <= count; i++) {
      cms.clock.now = new Date(Date.UTC(2024, 2, 1, 12, i));
      await cms.post(`/${type}/${post.id}`, { content: `v${i}` }, 'admin');
    }
    return post.id;
  }

  describe('revisions', () => {
    it('lists revisions newest first with title, content and excerpt, raw in the edit context', async () => {
      const id = await withRevisions(3);
      const res = await cms.get(`/posts/${id}/revisions?context=edit`, 'admin');
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-cms-total']).toBe('3');
      const revisions = res.json();
      expect(revisions.map((r: { content: { raw: string } }) => r.content.raw)).toEqual(['v3', 'v2', 'v1']);
      expect(revisions[0]).toMatchObject({
        author: cms.ids.admin,
        parent: id,
        slug: `${id}-revision-v1`,
        title: { raw: 'Revised', rendered: 'Revised' },
        content: { rendered: '<p>v3</p>\n' },
        excerpt: { raw: '', rendered: '' },
      });
      expect(revisions[0]._links.parent[0].href).toBe(`http://cms.test/cms-json/cms/v2/posts/${id}`);
      const view = (await cms.get(`/posts/${id}/revisions`, 'admin')).json()[0];
      expect(view.content).toEqual({ rendered: '<p>v3</p>\n' });
    });

    it('pages, offsets, includes, excludes, searches and orders the list', async () => {
      const id = await withRevisions(4);
      const all = (await cms.get(`/posts/${id}/revisions`, 'admin')).json().map((r: { id: number }) => r.id);
      const page = await cms.get(`/posts/${id}/revisions?per_page=2&page=2`, 'admin');
      expect(page.json().map((r: { id: number }) => r.id)).toEqual(all.slice(2, 4));
      expect(page.headers['x-cms-totalpages']).toBe('2');
      expect(page.headers.link).toContain('rel="prev"');
      expect(
        (await cms.get(`/posts/${id}/revisions?offset=1&per_page=2`, 'admin')).json().map((r: { id: number }) => r.id),
      ).toEqual(all.slice(1, 3));
      expect(
        (await cms.get(`/posts/${id}/revisions?order=asc`, 'admin')).json().map((r: { id: number }) => r.id),
      ).toEqual([...all].reverse());
      expect(
        (await cms.get(`/posts/${id}/revisions?include=${all[2]},${all[0]}&orderby=include`, 'admin'))
          .json()
          .map((r: { id: number }) => r.id),
      ).toEqual([all[2], all[0]]);
      expect((await cms.get(`/posts/${id}/revisions?exclude=${all[0]}`, 'admin')).json()).toHaveLength(3);
      expect((await cms.get(`/posts/${id}/revisions?search=v2`, 'admin')).json()).toHaveLength(1);
      expect((await cms.get(`/posts/${id}/revisions?page=9`, 'admin')).json().code).toBe(
        'rest_revision_invalid_page_number',
      );
      expect((await cms.get(`/posts/${id}/revisions?offset=9`, 'admin')).json().code).toBe(
        'rest_revision_invalid_offset_number',
      );
      expect((await cms.get(`/posts/${id}/revisions?orderby=relevance`, 'admin')).json().code).toBe(
        'rest_no_search_term_defined',
      );
    });

    it('reads one revision; refuses an unknown parent, revision, or a revision of another post', async () => {
      const id = await withRevisions(1);
      const other = await withRevisions(1);
      const [revision] = (await cms.get(`/posts/${id}/revisions`, 'admin')).json();
      expect((await cms.get(`/posts/${id}/revisions/${revision.id}`, 'admin')).json().id).toBe(revision.id);
      expect((await cms.get(`/posts/999999/revisions`, 'admin')).json()).toEqual({
        code: 'rest_post_invalid_parent',
        message: 'Invalid post parent ID.',
        data: { status: 404 },
      });
      expect((await cms.get(`/posts/${id}/revisions/999999`, 'admin')).json().code).toBe('rest_post_invalid_id');
      expect((await cms.get(`/posts/${other}/revisions/${revision.id}`, 'admin')).json()).toMatchObject({
        code: 'rest_revision_parent_id_mismatch',
        data: { status: 404 },
      });
      expect((await cms.get(`/pages/${id}/revisions`, 'admin')).json().code).toBe('rest_post_invalid_parent');
    });

    it('lets only users who may edit the parent read its revisions', async () => {
      const id = await withRevisions(1);
      expect((await cms.get(`/posts/${id}/revisions`)).json()).toMatchObject({
        code: 'rest_cannot_read',
        data: { status: 401 },
      });
      expect((await cms.get(`/posts/${id}/revisions`, 'arthur')).json()).toMatchObject({
        code: 'rest_cannot_read',
        data: { status: 403 },
      });
      expect((await cms.get(`/posts/${id}/revisions`, 'edna')).statusCode).toBe(200);
    });

    it('deletes a revision only with force=true', async () => {
      const id = await withRevisions(2);
      const [revision] = (await cms.get(`/posts/${id}/revisions`, 'admin')).json();
      const trash = await cms.del(`/posts/${id}/revisions/${revision.id}`, 'admin');
      expect(trash.json()).toEqual({
        code: 'rest_trash_not_supported',
        message: "Revisions do not support trashing. Set 'force=true' to delete.",
        data: { status: 501 },
      });
      expect((await cms.del(`/posts/${id}/revisions/${revision.id}`, 'arthur')).json().code).toBe('rest_cannot_delete');
      const deleted = (await cms.del(`/posts/${id}/revisions/${revision.id}?force=true`, 'admin')).json();
      expect(deleted).toMatchObject({ deleted: true, previous: { id: revision.id } });
      expect((await cms.get(`/posts/${id}/revisions`, 'admin')).headers['x-cms-total']).toBe('1');
    });

    it('keeps revisions of pages too, and removes them with their post', async () => {
      const id = await withRevisions(2, 'pages');
      expect((await cms.get(`/pages/${id}/revisions`, 'admin')).headers['x-cms-total']).toBe('2');
      await cms.del(`/pages/${id}?force=true`, 'admin');
      expect((await cms.get(`/pages/${id}/revisions`, 'admin')).statusCode).toBe(404);
    });
  });

  describe('autosaves', () => {
    it("updates the author's own draft in place, without a revision", async () => {
      const draft = (await cms.post('/posts', { title: 'My draft', content: 'first' }, 'arthur')).json();
      const res = await cms.post(`/posts/${draft.id}/autosaves`, { title: 'My draft', content: 'autosaved' }, 'arthur');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: draft.id, parent: 0, content: { raw: 'autosaved' } });
      expect(res.json().preview_link).toBe(`http://cms.test/?p=${draft.id}&preview=true`);
      expect((await cms.get(`/posts/${draft.id}?context=edit`, 'arthur')).json().content.raw).toBe('autosaved');
      expect((await cms.get(`/posts/${draft.id}/revisions`, 'arthur')).headers['x-cms-total']).toBe('0');
    });

    it("keeps one autosave revision per user for published posts and others' drafts", async () => {
      const post = (
        await cms.post('/posts', { title: 'Live', content: 'published text', status: 'publish' }, 'arthur')
      ).json();
      const first = await cms.post(
        `/posts/${post.id}/autosaves`,
        { title: 'Live', content: 'edit in progress', excerpt: '' },
        'arthur',
      );
      const autosave = first.json();
      expect(autosave).toMatchObject({ parent: post.id, slug: `${post.id}-autosave-v1`, author: cms.ids.arthur });
      expect(autosave.preview_link).toMatch(
        new RegExp(`^http://cms.test/live/\\?preview_id=${post.id}&preview_nonce=[0-9a-f]{10}&preview=true$`),
      );
      expect((await cms.get(`/posts/${post.id}?context=edit`, 'arthur')).json().content.raw).toBe('published text');
      const second = (
        await cms.post(
          `/posts/${post.id}/autosaves`,
          { title: 'Live', content: 'more progress', excerpt: '' },
          'arthur',
        )
      ).json();
      expect(second.id).toBe(autosave.id);
      const byEditor = (
        await cms.post(`/posts/${post.id}/autosaves`, { title: 'Live', content: 'editor view', excerpt: '' }, 'edna')
      ).json();
      expect(byEditor.id).not.toBe(autosave.id);
      const list = (await cms.get(`/posts/${post.id}/autosaves`, 'edna')).json();
      expect(list.map((a: { id: number }) => a.id).sort()).toEqual([autosave.id, byEditor.id].sort());
      expect((await cms.get(`/posts/${post.id}/autosaves/${autosave.id}`, 'edna')).json().content.rendered).toBe(
        '<p>more progress</p>\n',
      );
      expect((await cms.get(`/posts/${post.id}/autosaves/999999`, 'edna')).json().code).toBe('rest_post_no_autosave');
      const latest = (await cms.get(`/posts/${post.id}`, 'arthur')).json()._links['version-history'][0].count;
      expect(latest).toBe(2);
    });

    it('removes an autosave that no longer differs from the post', async () => {
      const post = (await cms.post('/posts', { title: 'Same', content: 'text', status: 'publish' }, 'admin')).json();
      await cms.post(`/posts/${post.id}/autosaves`, { title: 'Same', content: 'changed', excerpt: '' }, 'admin');
      const same = await cms.post(
        `/posts/${post.id}/autosaves`,
        { title: 'Same', content: 'text', excerpt: '' },
        'admin',
      );
      expect(same.json()).toEqual({
        code: 'rest_autosave_no_changes',
        message: 'There is nothing to save. The autosave and the post content are the same.',
        data: { status: 400 },
      });
      expect((await cms.get(`/posts/${post.id}/autosaves`, 'admin')).json()).toEqual([]);
    });

    it('checks the same rights as an update', async () => {
      const post = (await cms.post('/posts', { title: 'Guarded', status: 'publish' }, 'edna')).json();
      expect((await cms.post(`/posts/${post.id}/autosaves`, { content: 'x' }, 'arthur')).json().code).toBe(
        'rest_cannot_edit',
      );
      expect((await cms.post(`/posts/${post.id}/autosaves`, { content: 'x' })).statusCode).toBe(401);
      expect((await cms.get(`/posts/${post.id}/autosaves`, 'arthur')).json().code).toBe('rest_cannot_read');
      expect((await cms.post('/posts/999999/autosaves', { content: 'x' }, 'admin')).statusCode).toBe(404);
    });
  });
});
