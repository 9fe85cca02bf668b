import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckViolationError,
  type Database,
  ForeignKeyViolationError,
  migrateToLatest,
  NotFoundError,
  NotNullViolationError,
  UniqueViolationError,
  withTransaction,
} from '../src/index.ts';
import { testDialects } from '../src/testing/index.ts';
import { type SampleSchema, sampleMigrations } from './sample-migrations.ts';

/** A repository written once against Kysely, as the services write theirs. */
function accountsRepository(database: Database<SampleSchema>) {
  const { db } = database;
  return {
    create: (id: string, email: string) => db.insertInto('accounts').values({ id, email, balance_cents: 0 }).execute(),
    get: (id: string) =>
      db
        .selectFrom('accounts')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow(() => new NotFoundError(`account ${id} does not exist`)),
    /** Books an entry and updates the balance: both or neither. */
    deposit: (id: string, amountCents: number) =>
      withTransaction(db, async (trx) => {
        await trx
          .insertInto('entries')
          .values({ account_id: id, amount_cents: amountCents, created_at_ms: Date.now() })
          .execute();
        const updated = await trx
          .updateTable('accounts')
          .set((eb) => ({ balance_cents: eb('balance_cents', '+', amountCents) }))
          .where('id', '=', id)
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) throw new NotFoundError(`account ${id} does not exist`);
      }),
    entryCount: async (id: string) =>
      (
        await db
          .selectFrom('entries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
  };
}

describe.each(testDialects())('sample repository on $label', (dialect) => {
  describe.skipIf(dialect.skip)(`${dialect.name}`, () => {
    let database: Database<SampleSchema>;
    let repo: ReturnType<typeof accountsRepository>;

    beforeAll(async () => {
      database = await dialect.open<SampleSchema>(sampleMigrations);
      repo = accountsRepository(database);
      await repo.create('a1', 'ann@example.com');
    });
    afterAll(async () => {
      await database?.close();
    });

    it(`runs on ${dialect.name}`, () => {
      expect(database.dialect).toBe(dialect.name);
    });

    it('commits a transaction that succeeds', async () => {
      await repo.deposit('a1', 500);
      expect((await repo.get('a1')).balance_cents).toBe(500);
      expect(await repo.entryCount('a1')).toBe(1);
    });

    it('rolls the whole transaction back when it fails part-way', async () => {
      const before = await repo.get('a1');
      // The entry insert succeeds, then the balance update violates the CHECK constraint.
      await expect(repo.deposit('a1', -10_000)).rejects.toBeInstanceOf(CheckViolationError);
      expect(await repo.get('a1')).toEqual(before);
      expect(await repo.entryCount('a1')).toBe(1);
    });

    it('rolls back when the work itself throws', async () => {
      // the entry's foreign key fails first for an unknown account: nothing is written
      await expect(repo.deposit('nobody', 10)).rejects.toBeInstanceOf(ForeignKeyViolationError);
      expect(await repo.entryCount('nobody')).toBe(0);
    });

    it('turns a duplicate key into UniqueViolationError', async () => {
      const err = await repo.create('a2', 'ann@example.com').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UniqueViolationError);
      expect((err as UniqueViolationError).code).toBe('unique_violation');
      await expect(repo.create('a1', 'other@example.com')).rejects.toBeInstanceOf(UniqueViolationError);
    });

    it('turns a missing required value into NotNullViolationError', async () => {
      await expect(
        database.db
          .insertInto('accounts')
          .values({ id: 'a3', email: null as unknown as string, balance_cents: 0 })
          .execute(),
      ).rejects.toBeInstanceOf(NotNullViolationError);
    });

    it('turns "no row" into NotFoundError', async () => {
      await expect(repo.get('missing')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('applies migrations once: a second run applies nothing', async () => {
      expect(await migrateToLatest(database.db, sampleMigrations)).toEqual([]);
    });
  });
});
