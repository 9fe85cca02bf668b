import { describe, expect, it } from 'vitest';
import { testDialects } from '../src/testing/index.ts';
import { type SampleSchema, sampleMigrations } from './sample-migrations.ts';

describe.each(testDialects())('migrations beside other schemas on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    it('migrates a new database while another one (another schema on PostgreSQL) already holds the same tables', async () => {
      // On PostgreSQL each test database is a schema of one database: the second must create its own
      // bookkeeping tables instead of taking the first one's for its own.
      const first = await dialect.open<SampleSchema>(sampleMigrations, { migrationTable: 'shared_migrations' });
      try {
        const second = await dialect.open<SampleSchema>(sampleMigrations, { migrationTable: 'shared_migrations' });
        try {
          await second.db
            .insertInto('accounts')
            .values({ id: 'a1', email: 'a@example.com', balance_cents: 0 })
            .execute();
          const inFirst = await first.db.selectFrom('accounts').select('id').execute();
          expect(inFirst).toEqual([]);
        } finally {
          await second.close();
        }
      } finally {
        await first.close();
      }
    });
  });
});
