import type { Kysely, Migration } from 'kysely';
import { idColumn, needsAutoIncrement } from '../../db/migrations/util.ts';

/** Post meta (wp_postmeta): one row per key and value, JSON-encoded; deleted with their post. */
export const m0051Postmeta: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('postmeta')
      .addColumn('id', idColumn(db), (c) => (needsAutoIncrement(db) ? c.primaryKey().autoIncrement() : c.primaryKey()))
      .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('meta_key', 'varchar(255)', (c) => c.notNull())
      .addColumn('meta_value', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('postmeta_post_key').on('postmeta').columns(['post_id', 'meta_key']).execute();
    await db.schema.createIndex('postmeta_key').on('postmeta').column('meta_key').execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropTable('postmeta').execute();
  },
};
