import { dialectOf } from '@svc/platform';
import { type Kysely, type Migration, sql } from 'kysely';
import { nameSortKey } from '../../db/sort-key.ts';

/** Rows re-keyed per statement: two bound values a row, well under both databases' parameter limits. */
const BATCH = 500;

/**
 * The sort key of post titles (`posts.title_sort`, src/db/sort-key.ts: case and accents ignored, as MySQL's
 * collation compares `post_title`), filled here for the posts written before, revisions and autosaves
 * included. The key is of the raw title, HTML and all: WordPress orders by the stored column. On PostgreSQL
 * the column compares in the "C" collation (code points, as SQLite's BINARY does) whatever the database's
 * locale, so both stores order the keys alike. The index serves a page of one type and status in title
 * order (a published list, the common one) without sorting every matching post.
 */
export const m0057PostTitleSortKeys: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    const type = dialectOf(db) === 'postgres' ? sql`varchar(400) collate "C"` : sql`varchar(400)`;
    await db.schema
      .alterTable('posts')
      .addColumn('title_sort', type, (c) => c.notNull().defaultTo(''))
      .execute();
    for (let after = 0; ; ) {
      const rows = await db
        .selectFrom('posts')
        .select(['id', 'title'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(BATCH)
        .execute();
      if (rows.length === 0) break;
      after = Number(rows[rows.length - 1]!.id);
      const keyed = rows.filter((r) => r.title !== '');
      if (keyed.length === 0) continue;
      await db
        .updateTable('posts')
        .set({
          title_sort: sql`case id ${sql.join(
            keyed.map((r) => sql`when ${Number(r.id)} then ${nameSortKey(r.title)}`),
            sql` `,
          )} end`,
        })
        .where(
          'id',
          'in',
          keyed.map((r) => Number(r.id)),
        )
        .execute();
    }
    await db.schema
      .createIndex('posts_type_status_title_sort')
      .on('posts')
      .columns(['type', 'status', 'title_sort', 'id'])
      .execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('posts_type_status_title_sort').execute();
    await db.schema.alterTable('posts').dropColumn('title_sort').execute();
  },
};
