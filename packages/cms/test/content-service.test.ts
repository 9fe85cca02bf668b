import { testDialects } from '@svc/platform/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentFixture, openContentFixture } from './helpers/content-db.ts';

const AUTHOR = 3;
const ctx = { actorId: AUTHOR, canPublish: true };

describe.each(testDialects())('content service on $label', (dialect) => {
  describe.skipIf(dialect.skip)('', () => {
    let f: ContentFixture;
    beforeEach(async () => {
      f = await openContentFixture(dialect);
    });
    afterEach(async () => {
      await f.close();
    });

    it('creates a published post with a slug from its title, the default category and a guid', async () => {
      const post = await f.service.create('post', { title: 'Hello World!', content: 'x', status: 'publish' }, ctx);
      expect(post.slug).toBe('hello-world');
      expect(post.status).toBe('publish');
      expect(post.dateLocal).toBe('2024-03-01 12:00:00');
      expect(post.modifiedGmt).toBe('2024-03-01 12:00:00');
      expect(post.guid).toBe('http://cms.test/hello-world/');
      const terms = await f.service.repo.terms([post.id]);
      expect(terms.map((t) => t.termId)).toEqual([1]);
      expect((await f.terms.findById(1))?.count).toBe(1);
    });

    it('numbers duplicate slugs and leaves drafts without one', async () => {
      const a = await f.service.create('post', { title: 'Same', status: 'publish' }, ctx);
      const b = await f.service.create('post', { title: 'Same', status: 'publish' }, ctx);
      const d = await f.service.create('post', { title: 'Same', status: 'draft' }, ctx);
      expect([a.slug, b.slug, d.slug]).toEqual(['same', 'same-2', '']);
      expect(d.dateGmt).toBe('0000-00-00 00:00:00');
    });

    it('refuses a post with neither title, content nor excerpt', async () => {
      await expect(f.service.create('post', {}, ctx)).rejects.toMatchObject({ code: 'empty_content' });
    });

    it('schedules a post dated in the future and publishes it when due', async () => {
      const post = await f.service.create(
        'post',
        { title: 'Later', status: 'publish', date: { local: '2024-03-02 12:00:00', gmt: '2024-03-02 12:00:00' } },
        ctx,
      );
      expect(post.status).toBe('future');
      expect(await f.service.publishDuePosts()).toEqual([]);
      f.clock.now = new Date('2024-03-02T12:00:01Z');
      expect(await f.service.publishDuePosts()).toEqual([post.id]);
      expect((await f.service.repo.findById(post.id))?.status).toBe('publish');
    });

    it('stores a revision on the first update and then only when the text changes', async () => {
      const post = await f.service.create('post', { title: 'T', content: 'one', status: 'publish' }, ctx);
      await f.service.update(post.id, { excerpt: 'e' }, ctx);
      await f.service.update(post.id, { sticky: true }, ctx);
      await f.service.update(post.id, { content: 'two' }, ctx);
      const revisions = await f.service.repo.children(post.id, 'revision');
      expect(revisions.map((r) => r.content)).toEqual(['two', 'one']);
      expect(revisions[0]?.slug).toBe(`${post.id}-revision-v1`);
      expect(await f.service.isSticky(post.id)).toBe(true);
    });

    it('trashes with a suffixed slug, frees the slug and restores it on untrash', async () => {
      const post = await f.service.create('post', { title: 'Gone', status: 'publish' }, ctx);
      const trashed = await f.service.trash(post.id, AUTHOR);
      expect(trashed.status).toBe('trash');
      expect(trashed.slug).toBe('gone__trashed');
      await expect(f.service.trash(post.id, AUTHOR)).rejects.toMatchObject({
        code: 'rest_already_trashed',
        status: 410,
      });
      const back = await f.service.update(post.id, { status: 'publish' }, ctx);
      expect(back.slug).toBe('gone');
    });

    it('deletes a post with its revisions and moves child pages up', async () => {
      const parent = await f.service.create('page', { title: 'Parent', status: 'publish' }, ctx);
      const child = await f.service.create('page', { title: 'Child', status: 'publish', parentId: parent.id }, ctx);
      await f.service.update(parent.id, { content: 'c' }, ctx);
      await f.service.delete(parent.id);
      expect(await f.service.repo.findById(parent.id)).toBeNull();
      expect((await f.service.repo.findById(child.id))?.parentId).toBe(0);
      expect(await f.service.repo.children(parent.id, 'revision')).toEqual([]);
    });

    it("updates the author's own draft in place on autosave and keeps an autosave revision otherwise", async () => {
      const draft = await f.service.create('post', { title: 'Draft', content: 'a', status: 'draft' }, ctx);
      const same = await f.service.autosave(draft.id, { content: 'b' }, ctx);
      expect(same.id).toBe(draft.id);
      expect(same.content).toBe('b');
      const published = await f.service.create('post', { title: 'Pub', content: 'a', status: 'publish' }, ctx);
      const auto = await f.service.autosave(
        published.id,
        { title: 'Pub', content: 'changed', excerpt: '' },
        { actorId: 7, canPublish: true },
      );
      expect(auto.type).toBe('revision');
      expect(auto.slug).toBe(`${published.id}-autosave-v1`);
      expect(auto.authorId).toBe(7);
      const again = await f.service.autosave(
        published.id,
        { title: 'Pub', content: 'changed again', excerpt: '' },
        { actorId: 7, canPublish: true },
      );
      expect(again.id).toBe(auto.id);
      await expect(
        f.service.autosave(published.id, { title: 'Pub', content: 'a', excerpt: '' }, { actorId: 7, canPublish: true }),
      ).rejects.toMatchObject({ code: 'rest_autosave_no_changes' });
      expect(await f.service.findAutosave(published.id, 7)).toBeNull();
    });

    it('gives page slugs per parent and refuses numeric page slugs', async () => {
      const a = await f.service.create('page', { title: 'A', status: 'publish' }, ctx);
      const b = await f.service.create('page', { title: 'B', status: 'publish' }, ctx);
      const x1 = await f.service.create('page', { title: 'X', status: 'publish', parentId: a.id }, ctx);
      const x2 = await f.service.create('page', { title: 'X', status: 'publish', parentId: b.id }, ctx);
      const n = await f.service.create('page', { title: '42', status: 'publish' }, ctx);
      expect([x1.slug, x2.slug, n.slug]).toEqual(['x', 'x', '42-2']);
      expect(x1.commentStatus).toBe('closed');
    });
  });
});
