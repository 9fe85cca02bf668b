import type { Kysely, Migration } from 'kysely';
import { nameSortKey } from '../sort-key.ts';

/**
 * Sort keys of term names and users' display names (src/db/sort-key.ts: case and accents ignored, as MySQL's
 * collation compares them), filled here for the rows written before.
 */
export const m0056NameSortKeys: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('terms')
      .addColumn('name_sort', 'varchar(400)', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('display_name_sort', 'varchar(500)', (c) => c.notNull().defaultTo(''))
      .execute();
    for (const row of await db.selectFrom('terms').select(['id', 'name']).execute()) {
      await db
        .updateTable('terms')
        .set({ name_sort: nameSortKey(row.name) })
        .where('id', '=', row.id)
        .execute();
    }
    for (const row of await db.selectFrom('users').select(['id', 'display_name']).execute()) {
      await db
        .updateTable('users')
        .set({ display_name_sort: nameSortKey(row.display_name) })
        .where('id', '=', row.id)
        .execute();
    }
    await db.schema.createIndex('terms_taxonomy_name_sort').on('terms').columns(['taxonomy', 'name_sort']).execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('terms_taxonomy_name_sort').execute();
    await db.schema.alterTable('terms').dropColumn('name_sort').execute();
    await db.schema.alterTable('users').dropColumn('display_name_sort').execute();
  },
};
