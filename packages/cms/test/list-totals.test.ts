/**
 * The total of a list (`X-CMS-Total`, `X-CMS-TotalPages`) follows every change of the posts it counts:
 * on SQLite counts are kept between requests until anything is written (src/content/post-repository.ts),
 * so each check asks the same full page again after a write made through the API, behind it, or in a
 * transaction that was rolled back.
 */
import { testDialects } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

describe.each(testDialects())('list totals on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms({ dialect });
  });
  afterAll(async () => cms.close());

  /** The totals of the first page of two published posts, asked twice (the second may be kept). */
  async function totals(): Promise<[number, number]> {
    let answer: [number, number] = [0, 0];
    for (let i = 0; i < 2; i++) {
      const res = await cms.get('/posts?per_page=2');
      expect(res.statusCode).toBe(200);
      answer = [Number(res.headers['x-cms-total']), Number(res.headers['x-cms-totalpages'])];
    }
    return answer;
  }

  async function publish(title: string): Promise<number> {
    const res = await cms.post('/posts', { title, content: 'Counted.', status: 'publish' }, 'admin');
    expect(res.statusCode).toBe(201);
    return (res.json() as { id: number }).id;
  }

  it('counts posts created, unpublished and deleted through the API', async () => {
    await publish('One');
    await publish('Two');
    const third = await publish('Three');
    expect(await totals()).toEqual([3, 2]);
    await publish('Four');
    expect(await totals()).toEqual([4, 2]);
    expect((await cms.post(`/posts/${third}`, { status: 'draft' }, 'admin')).statusCode).toBe(200);
    expect(await totals()).toEqual([3, 2]);
    expect((await cms.post(`/posts/${third}`, { status: 'publish' }, 'admin')).statusCode).toBe(200);
    expect(await totals()).toEqual([4, 2]);
    expect((await cms.del(`/posts/${third}?force=true`, 'admin')).statusCode).toBe(200);
    expect(await totals()).toEqual([3, 2]);
  });

  it('counts a change made behind the API, and not one that was rolled back', async () => {
    const [before] = await totals();
    await cms.database.db.updateTable('posts').set({ status: 'draft' }).where('title', '=', 'One').execute();
    expect(await totals()).toEqual([before - 1, Math.ceil((before - 1) / 2)]);
    await expect(
      cms.database.db.transaction().execute(async (trx) => {
        await trx.updateTable('posts').set({ status: 'publish' }).where('title', '=', 'One').execute();
        // Read while the change is pending, inside the transaction, then undone.
        await sql`select count(*) from posts`.execute(trx);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await totals()).toEqual([before - 1, Math.ceil((before - 1) / 2)]);
    await cms.database.db.updateTable('posts').set({ status: 'publish' }).where('title', '=', 'One').execute();
    expect(await totals()).toEqual([before, Math.ceil(before / 2)]);
  });

  it('finds a searched word in posts written after the same search, through the API and behind it', async () => {
    const search = async (): Promise<string[]> => {
      let titles: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await cms.get('/posts?search=quasar&per_page=100');
        expect(res.statusCode).toBe(200);
        titles = (res.json() as Array<{ title: { rendered: string } }>).map((p) => p.title.rendered);
        expect(Number(res.headers['x-cms-total'])).toBe(titles.length);
      }
      return titles;
    };
    expect(await search()).toEqual([]);
    const id = await publish('A quasar seen');
    expect(await search()).toEqual(['A quasar seen']);
    await cms.database.db.updateTable('posts').set({ title: 'A star seen' }).where('id', '=', id).execute();
    expect(await search()).toEqual([]);
    await cms.database.db.updateTable('posts').set({ content: 'Then a quasar.' }).where('id', '=', id).execute();
    expect(await search()).toEqual(['A star seen']);
  });
});
