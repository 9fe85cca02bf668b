/**
 * The search indexer (SQLite): moves the posts queued in `posts_search_queue` (migration 0055: every
 * insert, text update and delete of a post queues its id) into the trigram index `posts_search`, all in
 * one write transaction: their old entries out, the current text of those that still exist in, the queue
 * emptied. Searches match queued posts directly (post-query.ts), so when this runs changes only how many
 * posts a search checks exactly, never what it finds. The cluster primary runs it on a timer for its
 * workers, a single process for itself; a transaction's commit writes one index segment per run instead
 * of one per create.
 */
import { type Kysely, sql } from 'kysely';
import { type PeriodicTask, startPeriodicTask } from '../db/periodic-task.ts';
import { writeTransaction } from '../db/write-transaction.ts';

/**
 * How often the indexer looks at the queue. Each run is a commit by another connection for every worker:
 * it holds the write lock while it indexes and makes each worker's SQLite drop its page cache and this
 * service drop its option and credential caches. Under steady creates every 100 ms cost a worker
 * 8-10 % of its creates per second (1,263-1,337 against 1,330-1,389 at 1 s, 1,404-1,454 with no
 * indexer, one connection, measured A/B). What is queued longer only makes a search check more posts
 * exactly (a second of writes at most), never changes what it finds.
 */
export const SEARCH_INDEX_INTERVAL_MS = 1000;

/** Indexes the queued posts; returns how many were queued (0: nothing was written). */
export async function indexQueuedPosts<DB>(db: Kysely<DB>): Promise<number> {
  const queued = await sql<{ n: number }>`select count(*) as n from posts_search_queue`.execute(db);
  if (Number(queued.rows[0]?.n ?? 0) === 0) return 0;
  return writeTransaction(db, async (trx) => {
    const ids = (await sql<{ id: number }>`select id from posts_search_queue`.execute(trx)).rows;
    if (ids.length === 0) return 0;
    await sql`delete from posts_search where rowid in (select id from posts_search_queue)`.execute(trx);
    await sql`insert into posts_search (rowid, title, excerpt, content)
      select posts.id, posts.title, posts.excerpt, posts.content
      from posts_search_queue join posts on posts.id = posts_search_queue.id`.execute(trx);
    await sql`delete from posts_search_queue`.execute(trx);
    return ids.length;
  });
}

/** Runs the indexer every `intervalMs` until stopped; errors (a locked file) are reported and retried. */
export function startSearchIndexer<DB>(
  db: Kysely<DB>,
  options: { intervalMs?: number; onError?: (err: unknown) => void } = {},
): PeriodicTask {
  return startPeriodicTask(() => indexQueuedPosts(db), {
    intervalMs: options.intervalMs ?? SEARCH_INDEX_INTERVAL_MS,
    onError: options.onError,
  });
}
