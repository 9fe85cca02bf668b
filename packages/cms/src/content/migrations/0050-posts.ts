import type { Kysely, Migration } from 'kysely';
import { idColumn, needsAutoIncrement } from '../../db/migrations/util.ts';

/**
 * Posts of every type (wp_posts). The indexes follow the queries the REST API makes: lists by type,
 * status and date; slugs per type (and per parent for pages); children of a post (revisions,
 * sub-pages); posts of an author.
 */
export const m0050Posts: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('posts')
      .addColumn('id', idColumn(db), (c) => (needsAutoIncrement(db) ? c.primaryKey().autoIncrement() : c.primaryKey()))
      .addColumn('type', 'varchar(20)', (c) => c.notNull().defaultTo('post'))
      .addColumn('status', 'varchar(20)', (c) => c.notNull().defaultTo('publish'))
      .addColumn('author_id', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('menu_order', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('excerpt', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('slug', 'varchar(200)', (c) => c.notNull().defaultTo(''))
      .addColumn('password', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('date_local', 'varchar(19)', (c) => c.notNull())
      .addColumn('date_gmt', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_local', 'varchar(19)', (c) => c.notNull())
      .addColumn('modified_gmt', 'varchar(19)', (c) => c.notNull())
      .addColumn('comment_status', 'varchar(20)', (c) => c.notNull().defaultTo('open'))
      .addColumn('ping_status', 'varchar(20)', (c) => c.notNull().defaultTo('open'))
      .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('guid', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('mime_type', 'varchar(100)', (c) => c.notNull().defaultTo(''))
      .addColumn('format', 'varchar(20)', (c) => c.notNull().defaultTo(''))
      .addColumn('template', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('featured_media', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .createIndex('posts_type_status_date')
      .on('posts')
      .columns(['type', 'status', 'date_local', 'id'])
      .execute();
    await db.schema.createIndex('posts_type_slug').on('posts').columns(['type', 'slug']).execute();
    await db.schema.createIndex('posts_parent').on('posts').columns(['parent_id', 'type']).execute();
    await db.schema.createIndex('posts_author').on('posts').columns(['author_id', 'type', 'status']).execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropTable('posts').execute();
  },
};
