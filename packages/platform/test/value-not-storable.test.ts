/**
 * A value the database cannot hold (too long for its column, U+0000 in PostgreSQL text, a number out of range,
 * text of the wrong type) is a ValueNotStorableError, the client's bad input, not an unmapped driver error (a
 * 500). Its message names the kind of problem only: never the value, which may be a secret, nor the statement.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arg, type Database, DomainError, runShape, ValueNotStorableError, withTransaction } from '../src/index.ts';
import { testDialects } from '../src/testing/index.ts';
import { type SampleSchema, sampleMigrations } from './sample-migrations.ts';

const SECRET = 'tok_s3cr3t-value';

async function caught(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (err) {
    return err;
  }
  throw new Error('expected the statement to fail');
}

/** Asserts a ValueNotStorableError with this message and driver code that shows neither the value nor the SQL. */
function expectNotStorable(err: unknown, message: string, driverCode: string): void {
  expect(err).toBeInstanceOf(ValueNotStorableError);
  expect(err).toBeInstanceOf(DomainError);
  const e = err as ValueNotStorableError;
  expect(e.code).toBe('value_not_storable');
  expect(e.message).toBe(message);
  expect(e.driverCode).toBe(driverCode);
  expect(String(e)).not.toContain(SECRET);
  expect(String(e)).not.toMatch(/insert|select/i);
}

describe.each(testDialects())('values the database cannot store on $label', (dialect) => {
  describe.skipIf(dialect.skip)(`${dialect.name}`, () => {
    let database: Database<SampleSchema>;

    beforeAll(async () => {
      database = await dialect.open<SampleSchema>(sampleMigrations);
      await database.db
        .insertInto('accounts')
        .values({ id: 'a1', email: 'ann@example.com', balance_cents: 0 })
        .execute();
    });
    afterAll(async () => {
      await database?.close();
    });

    const entry = (id: unknown) =>
      database.db
        .insertInto('entries')
        .values({ id: id as number, account_id: 'a1', amount_cents: 1, created_at_ms: 0 })
        .execute();
    const entryCount = async () =>
      Number(
        (
          await database.db
            .selectFrom('entries')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('turns text given for an integer key into ValueNotStorableError, on both stores', async () => {
      const err = await caught(entry(SECRET));
      expectNotStorable(
        err,
        "a value is not valid for its column's type",
        dialect.name === 'postgres' ? '22P02' : 'SQLITE_MISMATCH',
      );
    });

    it('maps it the same in a compiled query shape', async () => {
      const db = database.db;
      const err = await caught(
        runShape(
          db,
          'insert-entry-shape',
          () =>
            db.insertInto('entries').values({
              id: arg(0) as unknown as number,
              account_id: 'a1',
              amount_cents: 1,
              created_at_ms: 0,
            }),
          [SECRET],
        ),
      );
      expect(err).toBeInstanceOf(ValueNotStorableError);
    });

    it('rolls the whole transaction back, without retrying it', async () => {
      const before = await entryCount();
      let attempts = 0;
      const err = await caught(
        withTransaction(database.db, async (trx) => {
          attempts++;
          await trx.insertInto('entries').values({ account_id: 'a1', amount_cents: 5, created_at_ms: 0 }).execute();
          await trx
            .insertInto('entries')
            .values({ id: SECRET as unknown as number, account_id: 'a1', amount_cents: 1, created_at_ms: 0 })
            .execute();
        }),
      );
      expect(err).toBeInstanceOf(ValueNotStorableError);
      expect(attempts).toBe(1);
      expect(await entryCount()).toBe(before);
    });

    describe.runIf(dialect.name === 'postgres')('PostgreSQL data exceptions', () => {
      const account = (id: string, email: string, balance = 0) =>
        database.db.insertInto('accounts').values({ id, email, balance_cents: balance }).execute();

      it('22001: a value longer than its varchar column', async () => {
        expectNotStorable(
          await caught(account(`${SECRET}${'x'.repeat(40)}`, 'long@example.com')),
          'a value is too long for its column',
          '22001',
        );
      });

      it('22021: U+0000 in text, in a write and in a comparison', async () => {
        const message = 'a value holds a character the database cannot store';
        expectNotStorable(await caught(account('a2', `${SECRET}\u0000@example.com`)), message, '22021');
        const read = database.db.selectFrom('accounts').selectAll().where('email', '=', `${SECRET}\u0000`).execute();
        expectNotStorable(await caught(read), message, '22021');
      });

      it('22P05: \\u0000 in jsonb', async () => {
        const json = sql`select cast(${`"${SECRET}\\u0000"`} as jsonb) as v`.execute(database.db);
        expectNotStorable(await caught(json), 'a value holds a character the database cannot store', '22P05');
      });

      it('22003: a number out of its column range', async () => {
        expectNotStorable(
          await caught(account('a3', 'big@example.com', 2 ** 64)),
          'a number is out of range for its column',
          '22003',
        );
      });

      it('22007 and 22008: a malformed or impossible date', async () => {
        const message = "a value is not valid for its column's type";
        expectNotStorable(await caught(sql`select cast(${SECRET} as date)`.execute(database.db)), message, '22007');
        expectNotStorable(
          await caught(sql`select cast(${'2026-13-45'} as date)`.execute(database.db)),
          message,
          '22008',
        );
      });

      it('leaves a data exception that means a faulty statement as the driver error', async () => {
        const err = await caught(sql`select 1 / ${0}::integer as v`.execute(database.db));
        expect(err).not.toBeInstanceOf(DomainError);
        expect((err as { code?: string }).code).toBe('22012');
      });
    });

    describe.runIf(dialect.name === 'sqlite')('SQLite', () => {
      it('stores what PostgreSQL refuses (too long, U+0000): the services check what they write', async () => {
        await database.db
          .insertInto('accounts')
          .values({ id: 'x'.repeat(41), email: 'nul\u0000@example.com', balance_cents: 0 })
          .execute();
        const row = await database.db
          .selectFrom('accounts')
          .selectAll()
          .where('id', '=', 'x'.repeat(41))
          .executeTakeFirstOrThrow();
        expect(row.email).toBe('nul\u0000@example.com');
      });
    });
  });
});
