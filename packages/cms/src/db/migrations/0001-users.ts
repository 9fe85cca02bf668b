import type { Kysely, Migration } from 'kysely';
import { idColumn, needsAutoIncrement } from './util.ts';

/** Users with their profile fields, roles and per-user capabilities (wp_users + the usermeta we need). */
export const m0001Users: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('users')
      .addColumn('id', idColumn(db), (c) => (needsAutoIncrement(db) ? c.primaryKey().autoIncrement() : c.primaryKey()))
      .addColumn('login', 'varchar(60)', (c) => c.notNull().unique())
      .addColumn('pass_hash', 'text', (c) => c.notNull())
      .addColumn('nicename', 'varchar(50)', (c) => c.notNull().unique())
      .addColumn('email', 'varchar(100)', (c) => c.notNull().unique())
      .addColumn('url', 'varchar(100)', (c) => c.notNull().defaultTo(''))
      .addColumn('registered', 'varchar(19)', (c) => c.notNull())
      .addColumn('display_name', 'varchar(250)', (c) => c.notNull().defaultTo(''))
      .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('nickname', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('locale', 'varchar(20)', (c) => c.notNull().defaultTo(''))
      .addColumn('roles', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('caps', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema.createIndex('users_display_name').on('users').column('display_name').execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropTable('users').execute();
  },
};
