import { dialectOf } from '@svc/platform';
import { type Kysely, type Migration, sql } from 'kysely';

/** The name sort key columns of 0056, with their widths. */
const COLUMNS = [
  { table: 'terms', column: 'name_sort', width: 400 },
  { table: 'users', column: 'display_name_sort', width: 500 },
] as const;

/**
 * The name sort keys (`terms.name_sort`, `users.display_name_sort`, migration 0056) compare by code point on
 * PostgreSQL too: in the "C" collation, as `posts.title_sort` does since 0057, instead of the database's
 * default, which on a database made with a locale (en_US.UTF-8, an ICU one) ranks punctuation and symbols
 * otherwise than SQLite's BINARY (`~b` before `a`). Changing only the collation keeps the values (no
 * rewrite of the rows); PostgreSQL rebuilds the index on the column (`terms_taxonomy_name_sort`) in it.
 * SQLite compares them by code point already: nothing to do.
 */
export const m0059NameSortKeysCollation: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    if (dialectOf(db) !== 'postgres') return;
    for (const { table, column, width } of COLUMNS) {
      await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type ${sql.raw(`varchar(${width})`)} collate "C"`.execute(
        db,
      );
    }
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    if (dialectOf(db) !== 'postgres') return;
    for (const { table, column, width } of COLUMNS) {
      await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type ${sql.raw(`varchar(${width})`)} collate "default"`.execute(
        db,
      );
    }
  },
};
