import { dialectOf } from '@svc/platform';
import { type Kysely, type Migration, sql } from 'kysely';
import { m0053PostsSearch } from './0053-posts-search.ts';

/**
 * SQLite: the trigram search index (0053) is brought up to date off the request path. Writing it inside
 * every transaction cost a create ~0.1 ms: FTS5 writes a new index segment per commit (~7 of a create's
 * ~20 log pages). Now a post's insert, text update or delete only queues its id (`posts_search_queue`,
 * one small row) and the search indexer (src/content/search-indexer.ts) moves the queued posts into the
 * index in one transaction every second. Searches stay exact and immediate: their candidates are the
 * index's matches *and* every queued post, and the exact `LIKE` checks decide on each (post-query.ts).
 * The index becomes contentless (`content=''`, `contentless_delete=1`): the indexer deletes a post's old
 * entry by rowid, without the text it was indexed with, which an external-content index would need.
 */
export const m0055PostsSearchQueue: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    if (dialectOf(db) !== 'sqlite') return;
    for (const trigger of ['posts_search_insert', 'posts_search_delete', 'posts_search_update']) {
      await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
    }
    await sql`drop table if exists posts_search`.execute(db);
    await sql`create virtual table posts_search using fts5(title, excerpt, content, content='', contentless_delete=1, tokenize='trigram')`.execute(
      db,
    );
    await sql`insert into posts_search (rowid, title, excerpt, content) select id, title, excerpt, content from posts`.execute(
      db,
    );
    await sql`create table posts_search_queue (id integer primary key)`.execute(db);
    await sql`create trigger posts_search_queue_insert after insert on posts begin
      insert or ignore into posts_search_queue (id) values (new.id);
    end`.execute(db);
    await sql`create trigger posts_search_queue_delete after delete on posts begin
      insert or ignore into posts_search_queue (id) values (old.id);
    end`.execute(db);
    await sql`create trigger posts_search_queue_update after update of id, title, excerpt, content on posts begin
      insert or ignore into posts_search_queue (id) values (old.id);
      insert or ignore into posts_search_queue (id) values (new.id);
    end`.execute(db);
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    if (dialectOf(db) !== 'sqlite') return;
    for (const trigger of ['posts_search_queue_insert', 'posts_search_queue_delete', 'posts_search_queue_update']) {
      await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
    }
    await sql`drop table if exists posts_search_queue`.execute(db);
    await sql`drop table if exists posts_search`.execute(db);
    await m0053PostsSearch.up(db);
  },
};
