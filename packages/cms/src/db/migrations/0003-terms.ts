import type { Kysely, Migration } from 'kysely';
import { idColumn, needsAutoIncrement } from './util.ts';

/**
 * Terms of every taxonomy (WordPress's wp_terms + wp_term_taxonomy in one table: a term belongs to one
 * taxonomy). Slugs are unique within a taxonomy. Term id 1 is the default category "Uncategorized",
 * created here so posts can rely on it.
 */
export const m0003Terms: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('terms')
      .addColumn('id', idColumn(db), (c) => (needsAutoIncrement(db) ? c.primaryKey().autoIncrement() : c.primaryKey()))
      .addColumn('taxonomy', 'varchar(32)', (c) => c.notNull())
      .addColumn('name', 'varchar(200)', (c) => c.notNull())
      .addColumn('slug', 'varchar(200)', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('parent', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
      .addUniqueConstraint('terms_taxonomy_slug', ['taxonomy', 'slug'])
      .execute();
    await db.schema.createIndex('terms_taxonomy_parent').on('terms').columns(['taxonomy', 'parent']).execute();
    await db.schema.createIndex('terms_taxonomy_name').on('terms').columns(['taxonomy', 'name']).execute();
    await db
      .insertInto('terms')
      .values({
        taxonomy: 'category',
        name: 'Uncategorized',
        slug: 'uncategorized',
        description: '',
        parent: 0,
        count: 0,
      })
      .execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropTable('terms').execute();
  },
};
