/**
 * Term counts are kept by difference when posts are saved: after any mix of creates, updates, status
 * changes, term changes, trashing, restoring and deleting, every stored count equals what counting the
 * published posts again gives (_update_post_term_count's rule, PostRepository.countPublished).
 */
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

describe.each(testDialects())('term counts on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms({ dialect });
  });
  afterAll(async () => cms.close());

  async function expectCountsAsRecounted(): Promise<Map<number, number>> {
    const terms = await cms.database.db.selectFrom('terms').select(['id', 'count']).execute();
    const stored = new Map(terms.map((t) => [Number(t.id), Number(t.count)]));
    const recounted = await cms.runtime.service.repo.countPublished([...stored.keys()]);
    expect(stored).toEqual(recounted);
    return stored;
  }

  it('equal a recount after every kind of save', async () => {
    const term = async (path: string, name: string) =>
      ((await cms.post(path, { name }, 'admin')).json() as { id: number }).id;
    const news = await term('/categories', 'News count');
    const sport = await term('/categories', 'Sport count');
    const red = await term('/tags', 'red-count');
    const blue = await term('/tags', 'blue-count');
    const create = async (body: Record<string, unknown>) =>
      ((await cms.post('/posts', { title: 'Counted', content: 'x', ...body }, 'admin')).json() as { id: number }).id;

    const a = await create({ status: 'publish', categories: [news], tags: [red, blue] });
    const b = await create({ status: 'draft', categories: [news, sport], tags: [red] });
    const c = await create({ status: 'publish' });
    const d = await create({ status: 'pending', tags: [blue] });
    let counts = await expectCountsAsRecounted();
    expect(counts.get(news)).toBe(1);
    expect(counts.get(red)).toBe(1);
    expect(counts.get(1)).toBe(1);

    await cms.post(`/posts/${b}`, { status: 'publish' }, 'admin');
    await expectCountsAsRecounted();
    await cms.post(`/posts/${a}`, { categories: [sport], tags: [blue] }, 'admin');
    await expectCountsAsRecounted();
    await cms.post(`/posts/${b}`, { status: 'private', tags: [blue, red] }, 'admin');
    await expectCountsAsRecounted();
    await cms.post(`/posts/${c}`, { categories: [news, sport], status: 'draft' }, 'admin');
    await expectCountsAsRecounted();
    await cms.post(`/posts/${d}`, { status: 'publish', tags: [] }, 'admin');
    await expectCountsAsRecounted();
    expect((await cms.del(`/posts/${a}`, 'admin')).statusCode).toBe(200);
    await expectCountsAsRecounted();
    await cms.post(`/posts/${a}`, { status: 'publish' }, 'admin');
    await expectCountsAsRecounted();
    expect((await cms.del(`/posts/${a}?force=true`, 'admin')).statusCode).toBe(200);
    await expectCountsAsRecounted();
    expect((await cms.del(`/categories/${sport}?force=true`, 'admin')).statusCode).toBe(200);
    counts = await expectCountsAsRecounted();
    const future = await create({ status: 'publish', date: '2030-01-01T00:00:00', tags: [red] });
    await expectCountsAsRecounted();
    await cms.post(`/posts/${future}`, { date: '2020-01-01T00:00:00' }, 'admin');
    counts = await expectCountsAsRecounted();
    expect(counts.get(red)).toBeGreaterThan(0);
  });
});
