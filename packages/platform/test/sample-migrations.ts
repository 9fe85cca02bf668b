import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../src/index.ts';

/** A small schema that exercises what the services rely on: keys, uniqueness, foreign keys, checks. */
export const sampleMigrations: Record<string, Migration> = {
  '0001_accounts': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('email', 'varchar(200)', (c) => c.notNull().unique())
        .addColumn('balance_cents', 'bigint', (c) => c.notNull().defaultTo(0))
        .addCheckConstraint('accounts_balance_non_negative', sql`balance_cents >= 0`)
        .execute();
    },
  },
  '0002_entries': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
    async up(db: Kysely<any>) {
      const idType = dialectOf(db) === 'postgres' ? 'bigserial' : 'integer';
      await db.schema
        .createTable('entries')
        .addColumn('id', idType, (c) => (idType === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('account_id', 'varchar(40)', (c) => c.notNull().references('accounts.id').onDelete('restrict'))
        .addColumn('amount_cents', 'bigint', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('entries_account').on('entries').columns(['account_id', 'id']).execute();
    },
  },
};

export interface SampleSchema {
  accounts: { id: string; email: string; balance_cents: number };
  entries: { id: import('kysely').Generated<number>; account_id: string; amount_cents: number; created_at_ms: number };
}
