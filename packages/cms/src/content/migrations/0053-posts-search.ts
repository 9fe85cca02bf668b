import { dialectOf } from '@svc/platform';
import { type Kysely, type Migration, sql } from 'kysely';

/**
 * SQLite: a trigram full-text index over posts' title, excerpt and content (FTS5, external content: the
 * index only, the text stays in `posts`), kept in step by triggers. Searches use it to find the few
 * posts that can match before the exact `LIKE '%term%'` checks run, instead of scanning every post's
 * text. PostgreSQL keeps scanning (nothing to create).
 */
export const m0053PostsSearch: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    if (dialectOf(db) !== 'sqlite') return;
    await sql`create virtual table posts_search using fts5(title, excerpt, content, content='posts', content_rowid='id', tokenize='trigram')`.execute(
      db,
    );
    await sql`create trigger posts_search_insert after insert on posts begin
      insert into posts_search (rowid, title, excerpt, content) values (new.id, new.title, new.excerpt, new.content);
    end`.execute(db);
    await sql`create trigger posts_search_delete after delete on posts begin
      insert into posts_search (posts_search, rowid, title, excerpt, content) values ('delete', old.id, old.title, old.excerpt, old.content);
    end`.execute(db);
    await sql`create trigger posts_search_update after update of title, excerpt, content on posts begin
      insert into posts_search (posts_search, rowid, title, excerpt, content) values ('delete', old.id, old.title, old.excerpt, old.content);
      insert into posts_search (rowid, title, excerpt, content) values (new.id, new.title, new.excerpt, new.content);
    end`.execute(db);
    await sql`insert into posts_search (posts_search) values ('rebuild')`.execute(db);
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    if (dialectOf(db) !== 'sqlite') return;
    for (const trigger of ['posts_search_insert', 'posts_search_delete', 'posts_search_update']) {
      await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
    }
    await sql`drop table if exists posts_search`.execute(db);
  },
};
