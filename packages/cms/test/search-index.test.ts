/**
 * The trigram search index is brought up to date off the request path (migration 0055,
 * src/content/search-indexer.ts): a post written is queued, and searches match queued posts directly.
 * So a search right after a create or update returns finds what the post says now, whether the indexer
 * has not run yet, has run since, or runs concurrently; and the indexer leaves the index holding every
 * post's current text and the queue empty.
 */
import { testDialects } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexQueuedPosts, startSearchIndexer } from '../src/content/search-indexer.ts';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

const sqlite = testDialects().find((d) => d.name === 'sqlite');

describe('search index on SQLite', () => {
  if (!sqlite || sqlite.skip) {
    it.skip('needs SQLite', () => {});
    return;
  }
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms({ dialect: sqlite });
  });
  afterAll(async () => cms.close());

  async function search(query: string): Promise<string[]> {
    const res = await cms.get(`/posts?${query}&per_page=100`);
    expect(res.statusCode).toBe(200);
    const titles = (res.json() as Array<{ title: { rendered: string } }>).map((p) => p.title.rendered);
    expect(Number(res.headers['x-cms-total'])).toBe(titles.length);
    return titles;
  }

  async function publish(title: string, content: string): Promise<number> {
    const res = await cms.post('/posts', { title, content, status: 'publish' }, 'admin');
    expect(res.statusCode).toBe(201);
    return (res.json() as { id: number }).id;
  }

  /**
   * The posts the index itself matches for a word (what it holds, queue aside), revisions (posts too,
   * indexed like any other) left out.
   */
  async function indexed(word: string): Promise<number[]> {
    const rows = await sql<{ rowid: number }>`select rowid from posts_search where posts_search match ${`"${word}"`}
      and rowid not in (select id from posts where type = 'revision')`.execute(cms.database.db);
    return rows.rows.map((r) => Number(r.rowid)).sort((a, b) => a - b);
  }

  async function queued(): Promise<number[]> {
    const rows = await sql<{ id: number }>`select id from posts_search_queue order by id`.execute(cms.database.db);
    return rows.rows.map((r) => Number(r.id));
  }

  it('finds a post by its current text before and after the indexer runs', async () => {
    const id = await publish('A pulsar seen', 'Radio beams of a neutron star.');
    // Not indexed yet: found through the queue.
    expect(await queued()).toContain(id);
    expect(await indexed('pulsar')).toEqual([]);
    expect(await search('search=pulsar')).toEqual(['A pulsar seen']);
    expect(await search('search=neutron&search_columns=post_title')).toEqual([]);
    expect(await search('search=neutron&search_columns=post_content')).toEqual(['A pulsar seen']);

    expect(await indexQueuedPosts(cms.database.db)).toBeGreaterThan(0);
    expect(await queued()).toEqual([]);
    expect(await indexed('pulsar')).toEqual([id]);
    expect(await search('search=pulsar')).toEqual(['A pulsar seen']);
    expect(await search('search=neutron&search_columns=post_title')).toEqual([]);

    // Its text changes away: the index still holds the old text until the indexer runs again.
    expect((await cms.post(`/posts/${id}`, { title: 'A comet seen' }, 'admin')).statusCode).toBe(200);
    expect(await indexed('pulsar')).toEqual([id]);
    expect(await search('search=pulsar')).toEqual([]);
    expect(await search('search=comet')).toEqual(['A comet seen']);
    await indexQueuedPosts(cms.database.db);
    expect(await indexed('pulsar')).toEqual([]);
    expect(await indexed('comet')).toEqual([id]);
    expect(await search('search=pulsar')).toEqual([]);
    expect(await search('search=comet')).toEqual(['A comet seen']);

    // A change made behind the API is queued by the database itself.
    await cms.database.db.updateTable('posts').set({ content: 'A tail of dust.' }).where('id', '=', id).execute();
    expect(await search('search=neutron')).toEqual([]);
    expect(await search('search=dust')).toEqual(['A comet seen']);
    await indexQueuedPosts(cms.database.db);
    expect(await indexed('neutron')).toEqual([]);
    expect(await indexed('dust')).toEqual([id]);

    // Deleted: out of the searches at once, out of the index once it runs.
    expect((await cms.del(`/posts/${id}?force=true`, 'admin')).statusCode).toBe(200);
    expect(await search('search=comet')).toEqual([]);
    await indexQueuedPosts(cms.database.db);
    expect(await indexed('comet')).toEqual([]);
    expect(await queued()).toEqual([]);
  });

  it('finds every post right after its create and update while the indexer runs', async () => {
    const indexer = startSearchIndexer(cms.database.db, { intervalMs: 1 });
    const ids: number[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const id = await publish(`Probe ${i} alphaword${i}q`, `Body betaword${i}q.`);
        ids.push(id);
        expect(await search(`search=alphaword${i}q`)).toEqual([`Probe ${i} alphaword${i}q`]);
        expect(await search(`search=betaword${i}q`)).toEqual([`Probe ${i} alphaword${i}q`]);
        const res = await cms.post(`/posts/${id}`, { content: `Body gammaword${i}q.` }, 'admin');
        expect(res.statusCode).toBe(200);
        expect(await search(`search=betaword${i}q`)).toEqual([]);
        expect(await search(`search=gammaword${i}q`)).toEqual([`Probe ${i} alphaword${i}q`]);
      }
    } finally {
      await indexer.stop();
    }
    await indexQueuedPosts(cms.database.db);
    expect(await queued()).toEqual([]);
    for (let i = 0; i < 20; i++) {
      expect(await indexed(`betaword${i}q`)).toEqual([]);
      expect(await indexed(`gammaword${i}q`)).toEqual([ids[i]]);
      expect(await search(`search=gammaword${i}q`)).toEqual([`Probe ${i} alphaword${i}q`]);
    }
  });
});
