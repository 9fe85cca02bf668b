import type { Database } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordStatements } from '../../test/helpers/statement-recorder.ts';
import { allMigrations, MIGRATION_TABLE } from './connection.ts';
import { OptionsRepository } from './options-repository.ts';
import type { CmsDatabase } from './schema.ts';
import { afterCommit, MAX_BATCH, writeTransaction } from './write-transaction.ts';

const recorder = recordStatements();

describe.each(testDialects())('writeTransaction on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let database: Database<CmsDatabase>;
  beforeAll(async () => {
    database = await dialect.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
  });
  afterAll(async () => database.close());
  beforeEach(async () => {
    await database.db.deleteFrom('options').where('name', 'like', 'wt-%').execute();
  });

  /** A write transaction that stores option `name` and then fails when `fail` is set. */
  function write(name: string, fail = false): Promise<string> {
    return writeTransaction(database.db, async (trx) => {
      await trx.insertInto('options').values({ name, value: '1' }).execute();
      if (fail) throw new Error(`${name} failed`);
      return name;
    });
  }

  async function stored(): Promise<string[]> {
    const rows = await database.db.selectFrom('options').select('name').where('name', 'like', 'wt-%').execute();
    return rows.map((r) => r.name).sort();
  }

  it('keeps the writes of transactions run together when one of them fails, and only that one fails', async () => {
    const results = await Promise.allSettled([
      write('wt-a'),
      write('wt-b', true),
      write('wt-c'),
      write('wt-d', true),
      write('wt-e'),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'wt-a',
      'wt-b failed',
      'wt-c',
      'wt-d failed',
      'wt-e',
    ]);
    expect(await stored()).toEqual(['wt-a', 'wt-c', 'wt-e']);
  });

  it('rolls back a failing first transaction alone', async () => {
    const results = await Promise.allSettled([write('wt-a', true), write('wt-b'), write('wt-c')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(await stored()).toEqual(['wt-b', 'wt-c']);
  });

  it.runIf(dialect.name === 'sqlite')('sees the writes of the transactions run before it (SQLite)', async () => {
    const counts = await Promise.all(
      ['wt-a', 'wt-b', 'wt-c'].map((name) =>
        writeTransaction(database.db, async (trx) => {
          await trx.insertInto('options').values({ name, value: '1' }).execute();
          const row = await trx
            .selectFrom('options')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('name', 'like', 'wt-%')
            .executeTakeFirst();
          return Number(row?.n);
        }),
      ),
    );
    expect(counts).toEqual([1, 2, 3]);
  });

  it.runIf(dialect.name === 'sqlite')('commits the write transactions asked for together once (SQLite)', async () => {
    recorder.clear();
    const names = Array.from({ length: MAX_BATCH + 2 }, (_, i) => `wt-${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name) => write(name)));
    expect(await stored()).toEqual(names);
    // At most MAX_BATCH in one: two commits for MAX_BATCH + 2 transactions.
    expect(recorder.runs.filter((s) => s === 'commit')).toHaveLength(2);
  });

  it('runs after-commit callbacks of the transactions that committed, after the commit, and drops the others', async () => {
    const ran: string[] = [];
    /** A transaction that registers a callback, which checks that its write is visible outside it. */
    const job = (name: string, fail = false) =>
      writeTransaction(database.db, async (trx) => {
        await trx.insertInto('options').values({ name, value: '1' }).execute();
        expect(
          afterCommit(trx, () => {
            ran.push(name);
          }),
        ).toBe(true);
        if (fail) throw new Error(`${name} failed`);
        return name;
      });
    // The first fails (the whole SQLite transaction is rolled back for it), then one of a batch fails.
    const results = await Promise.allSettled([job('wt-a', true), job('wt-b'), job('wt-c', true), job('wt-d')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(ran.sort()).toEqual(['wt-b', 'wt-d']);
    expect(await stored()).toEqual(['wt-b', 'wt-d']);
    // Outside a write transaction nothing is registered.
    expect(afterCommit(database.db, () => ran.push('never'))).toBe(false);
    await database.db.transaction().execute(async (trx) => {
      expect(afterCommit(trx, () => ran.push('never'))).toBe(false);
    });
    expect(ran).not.toContain('never');
  });

  it('keeps an option set in a transaction out of the options cache until it commits, and out of it when it rolls back', async () => {
    // No generation: the cache is never reloaded during the test, so what it answers is what set() left.
    const options = new OptionsRepository(database.db);
    await options.set('wt-colour', 'red');
    expect(await options.get('wt-colour')).toBe('red');

    const failed = writeTransaction(database.db, async (trx) => {
      await options.set('wt-colour', 'blue', trx);
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    expect(await options.get('wt-colour')).toBe('red');

    let seenInside: unknown;
    await writeTransaction(database.db, async (trx) => {
      await options.set('wt-colour', 'green', trx);
      seenInside = await options.get('wt-colour');
    });
    // Not visible to the cache's readers while uncommitted, visible as soon as the transaction has settled.
    expect(seenInside).toBe('red');
    expect(await options.get('wt-colour')).toBe('green');
    const row = await database.db
      .selectFrom('options')
      .select('value')
      .where('name', '=', 'wt-colour')
      .executeTakeFirst();
    expect(row?.value).toBe('"green"');
  });
});
