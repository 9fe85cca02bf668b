/**
 * WideIntegerComparisonsPlugin: a comparison with an integer past a 32-bit column's range matches nothing (or
 * everything, for `<>` and `not in`) instead of failing on PostgreSQL, in a query compiled each time as in a
 * query shape compiled once (runShape); a number in range compiles as before, and the column's index still
 * serves a cast one; a value written into the column is not a comparison and is refused as before.
 */
import { CompiledQuery, type Generated, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arg, type Database, runShape, ValueNotStorableError, WideIntegerComparisonsPlugin } from '../src/index.ts';
import { testDialects } from '../src/testing/index.ts';

interface Schema {
  wide_items: { id: Generated<number>; n: number; label: string };
}

const BIG = 99_999_999_999;
/** Past 64 bits too. */
const HUGE = 1e20;

describe.each(testDialects())('comparisons with integers wider than 32 bits on $label', (dialect) => {
  describe.skipIf(dialect.skip)(`${dialect.name}`, () => {
    let database: Database<Schema>;
    let db: Kysely<Schema>;
    const ids: number[] = [];

    beforeAll(async () => {
      database = await dialect.open<Schema>();
      const id = dialect.name === 'postgres' ? sql`serial primary key` : sql`integer primary key autoincrement`;
      await sql`create table wide_items (id ${id}, n integer not null, label text not null)`.execute(database.db);
      await sql`create index wide_items_n on wide_items (n)`.execute(database.db);
      db = database.db.withPlugin(new WideIntegerComparisonsPlugin());
      for (const n of [1, 2, 3]) {
        const row = await db
          .insertInto('wide_items')
          .values({ n, label: `item ${n}` })
          .returning('id')
          .executeTakeFirstOrThrow();
        ids.push(row.id);
      }
    });
    afterAll(async () => {
      await database?.close();
    });

    const select = () => db.selectFrom('wide_items').select('id').orderBy('id');
    const found = async (q: ReturnType<typeof select>) => (await q.execute()).map((r) => r.id);

    it('compiles a number in range as before, and casts a wider one', () => {
      const inRange = select().where('id', '=', 5).compile();
      expect(inRange.sql).not.toContain('cast');
      expect(inRange.sql).toBe(
        database.db.selectFrom('wide_items').select('id').orderBy('id').where('id', '=', 5).compile().sql,
      );
      expect(select().where('id', '=', BIG).compile().sql).toMatch(/"id" = cast\(\S+ as bigint\)/);
      expect(select().where('id', '=', HUGE).compile().sql).toMatch(/"id" = cast\(\S+ as numeric\)/);
      expect(select().where('id', '=', -BIG).compile().sql).toContain('as bigint');
      const list = select().where('id', 'in', [1, BIG, 2]).compile();
      expect(list.sql).toMatch(/in \(\S+, cast\(\S+ as bigint\), \S+\)/);
      expect(list.parameters).toEqual([1, BIG, 2]);
    });

    it('answers comparisons with a wider integer as with an id no row has', async () => {
      const [a, b, c] = ids as [number, number, number];
      expect(await found(select().where('id', '=', BIG))).toEqual([]);
      expect(await found(select().where('id', '=', HUGE))).toEqual([]);
      expect(await found(select().where('n', '=', -BIG))).toEqual([]);
      expect(await found(select().where('id', '<>', BIG))).toEqual([a, b, c]);
      expect(await found(select().where('id', 'in', [BIG, b]))).toEqual([b]);
      expect(await found(select().where('id', 'not in', [BIG, HUGE, b]))).toEqual([a, c]);
      expect(await found(select().where('id', '<', BIG))).toEqual([a, b, c]);
      expect(await found(select().where('n', '>', BIG))).toEqual([]);
      expect(await found(select().where((eb) => eb(eb.val(BIG), '=', eb.ref('id'))))).toEqual([]);
      await db.updateTable('wide_items').set({ label: 'changed' }).where('id', '=', BIG).execute();
      await db.deleteFrom('wide_items').where('id', 'in', [BIG]).execute();
      expect(await found(select().where('label', '<>', 'changed'))).toEqual([a, b, c]);
    });

    it('casts in a query shape compiled once, for the calls with a wider integer only', async () => {
      const [a, b] = ids as [number, number];
      const shape = (id: number) =>
        runShape(
          db,
          'wide-items-by-id',
          () =>
            db
              .selectFrom('wide_items')
              .select('id')
              .where('id', '=', arg(0) as never),
          [id],
        );
      expect(await shape(a)).toEqual([{ id: a }]);
      expect(await shape(BIG)).toEqual([]);
      expect(await shape(b)).toEqual([{ id: b }]);
      expect(await shape(HUGE)).toEqual([]);
      expect(await shape(a)).toEqual([{ id: a }]);
      expect(await shape(BIG + 1)).toEqual([]);
      expect(await shape(HUGE * 10)).toEqual([]);
      expect(await shape(-BIG)).toEqual([]);
      expect(await shape(b)).toEqual([{ id: b }]);
    });

    it('leaves query shapes of a database without the plugin as they were', async () => {
      const plain = database.db;
      const run = (id: number) =>
        runShape(
          plain,
          'wide-items-plain',
          () =>
            plain
              .selectFrom('wide_items')
              .select('id')
              .where('id', '=', arg(0) as never),
          [id],
        );
      expect(await run(ids[0]!)).toEqual([{ id: ids[0] }]);
      if (dialect.name === 'postgres') await expect(run(BIG)).rejects.toBeInstanceOf(ValueNotStorableError);
      else expect(await run(BIG)).toEqual([]);
    });

    it('leaves a value written into an integer column as it is', async () => {
      const insert = db.insertInto('wide_items').values({ n: BIG, label: 'far' });
      expect(insert.compile().sql).not.toContain('cast');
      if (dialect.name === 'postgres') {
        await expect(insert.execute()).rejects.toBeInstanceOf(ValueNotStorableError);
        await expect(
          db.updateTable('wide_items').set({ n: BIG }).where('id', '=', ids[0]!).execute(),
        ).rejects.toBeInstanceOf(ValueNotStorableError);
      }
    });

    it.runIf(dialect.name === 'postgres')('keeps the index on the column usable for a cast number', async () => {
      const plan = async (query: CompiledQuery) =>
        database.db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(
            CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
          );
          return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
        });
      expect(await plan(select().where('n', '=', BIG).compile())).toMatch(/Index (Only )?Scan (using|on) wide_items_n/);
      expect(await plan(select().where('n', 'in', [BIG, 2]).compile())).toMatch(
        /Index (Only )?Scan (using|on) wide_items_n/,
      );
      expect(await plan(select().where('id', '=', BIG).compile())).toMatch(
        /Index (Only )?Scan (using|on) wide_items_pkey/,
      );
    });
  });
});
