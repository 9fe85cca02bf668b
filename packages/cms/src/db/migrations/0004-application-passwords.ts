import type { Kysely, Migration } from 'kysely';

/** Application passwords (WordPress keeps them in usermeta `_application_passwords`). */
export const m0004ApplicationPasswords: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('application_passwords')
      .addColumn('uuid', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('app_id', 'varchar(36)', (c) => c.notNull().defaultTo(''))
      .addColumn('password_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('last_used', 'bigint')
      .addColumn('last_ip', 'varchar(45)')
      .execute();
    await db.schema.createIndex('application_passwords_user').on('application_passwords').column('user_id').execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropTable('application_passwords').execute();
  },
};
