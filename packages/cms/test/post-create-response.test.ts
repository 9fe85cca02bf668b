/**
 * A create's response shows the post exactly as a read of it right after does: its terms (by name within
 * each taxonomy), meta, guid, generated_slug and revision links. The create answers from what it wrote
 * in its transaction instead of reading the post's terms, meta and revisions back.
 */
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

type Item = Record<string, unknown> & { id: number; _links: Record<string, Array<Record<string, unknown>>> };

describe.each(testDialects())('the response of a create on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let cms: ContentCms;
  const terms: Record<string, number> = {};
  beforeAll(async () => {
    cms = await createContentCms({ dialect });
    // Created in an order that is not their names' order, so ids and names sort differently.
    for (const name of ['Zulu', 'alpha', 'Mike', 'Bravo']) {
      terms[`category:${name}`] = (await cms.post('/categories', { name }, 'admin')).json().id;
      terms[`tag:${name}`] = (await cms.post('/tags', { name: `${name} tag` }, 'admin')).json().id;
    }
  });
  afterAll(async () => cms.close());

  /** The create's response and a read of the same post in the edit context, both without their links' hrefs. */
  async function createAndRead(body: Record<string, unknown>): Promise<[Item, Item]> {
    const created = await cms.post('/posts', body, 'admin');
    expect(created.statusCode).toBe(201);
    const item = created.json() as Item;
    const read = await cms.get(`/posts/${item.id}?context=edit`, 'admin');
    expect(read.statusCode).toBe(200);
    return [item, read.json() as Item];
  }

  it('lists the terms in name order per taxonomy, with the meta, guid and generated slug a read gives', async () => {
    const [created, read] = await createAndRead({
      title: 'Terms in order',
      content: 'Body.',
      status: 'publish',
      categories: ['Zulu', 'alpha', 'Mike', 'Bravo'].map((n) => terms[`category:${n}`]),
      tags: ['Mike', 'Zulu', 'Bravo'].map((n) => terms[`tag:${n}`]),
      meta: { footnotes: '[{"id":"n1","content":"Note."}]', inline_featured_image: true },
    });
    expect(created).toEqual(read);
    // The database's order of the names (its collation), not the request's.
    expect([...(created.categories as number[])].sort((a, b) => a - b)).toEqual(
      ['Zulu', 'alpha', 'Mike', 'Bravo'].map((n) => terms[`category:${n}`]).sort((a, b) => (a ?? 0) - (b ?? 0)),
    );
    expect(created.categories).not.toEqual(['Zulu', 'alpha', 'Mike', 'Bravo'].map((n) => terms[`category:${n}`]));
    expect(created.meta).toEqual({
      _cf_changed: false,
      inline_featured_image: true,
      footnotes: '[{"id":"n1","content":"Note."}]',
    });
    expect(created.generated_slug).toBe('terms-in-order');
    expect(created.guid).toEqual({
      raw: 'http://cms.test/terms-in-order/',
      rendered: 'http://cms.test/terms-in-order/',
    });
    expect(created._links['version-history']?.[0]?.count).toBe(0);
  });

  it('matches a read for a post in the default category, one whose title is taken, a draft and an untitled post', async () => {
    await cms.post('/posts', { title: 'Taken title', content: 'First.', status: 'publish' }, 'admin');
    for (const body of [
      { title: 'Default category', content: 'Body.', status: 'publish' },
      { title: 'Taken title', content: 'Second.', status: 'publish', tags: [terms['tag:alpha']] },
      { title: 'A draft', content: 'Body.', status: 'draft', categories: [terms['category:Mike']] },
      { title: '', content: 'No title at all.', status: 'publish' },
      { title: 'Private one', content: 'Body.', status: 'private', meta: { _cf_changed: true } },
    ]) {
      const [created, read] = await createAndRead(body);
      expect(created).toEqual(read);
    }
  });
});
