import { dialectOf } from '@svc/platform';
import { type Kysely, type Migration, sql } from 'kysely';

/**
 * What each per-process cache that is not keyed by a row version is built from, and the column of
 * `cms_cache_generations` that changes with it: the options cache (every option), and the verified
 * credentials, which carry the user's login, roles and capabilities (the `users` row) and rest on the
 * user's application passwords. An application password's last use (`last_used`, `last_ip`, written at
 * most once a day) is not part of what a credential resolves to and leaves the generation alone.
 */
const WATCHED = [
  { table: 'options', column: 'options', updateOf: null },
  { table: 'users', column: 'credentials', updateOf: null },
  { table: 'application_passwords', column: 'credentials', updateOf: ['uuid', 'user_id', 'password_hash'] },
] as const;

/**
 * Generations of the per-process caches (src/db/cache-generations.ts): one row whose columns change, in the
 * writing transaction, with every change of what a cache is built from, by any writer (another node, another
 * worker, the CLI, SQL by hand). Each request reads the row once and uses a cached entry only under the
 * generation it was read at, so a change committed anywhere is seen from the next request on.
 *
 * PostgreSQL counts up (statement triggers, so a statement changing many rows bumps once); a connection only
 * ever reads committed values there. SQLite sets a random value instead: the row is read on the process's one
 * connection, possibly inside its own open write transaction, and a value read there and then rolled back
 * must not come back with a later, different change, as a counter's next value would.
 */
export const m0060CacheGenerations: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cms_cache_generations')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('options', 'bigint', (c) => c.notNull())
      .addColumn('credentials', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('cms_cache_generations').values({ id: 1, options: 0, credentials: 0 }).execute();
    if (dialectOf(db) === 'postgres') {
      for (const column of ['options', 'credentials'] as const) {
        await sql`create function ${sql.id(`cms_${column}_generation_bump`)}() returns trigger language plpgsql as $$
          begin
            update cms_cache_generations set ${sql.id(column)} = ${sql.id(column)} + 1 where id = 1;
            return null;
          end $$`.execute(db);
      }
      for (const { table, column, updateOf } of WATCHED) {
        const update = updateOf ? sql.raw(`update of ${updateOf.join(', ')}`) : sql.raw('update');
        await sql`create trigger ${sql.id(`${table}_cache_generation`)}
          after insert or ${update} or delete or truncate on ${sql.id(table)}
          for each statement execute function ${sql.id(`cms_${column}_generation_bump`)}()`.execute(db);
      }
      return;
    }
    for (const { table, column, updateOf } of WATCHED) {
      for (const event of ['insert', 'update', 'delete'] as const) {
        const on = event === 'update' && updateOf ? `update of ${updateOf.join(', ')}` : event;
        // random() >> 11 stays within the integers a JavaScript number holds exactly.
        await sql`create trigger ${sql.id(`${table}_cache_generation_${event}`)} after ${sql.raw(on)} on ${sql.id(table)}
          begin update cms_cache_generations set ${sql.id(column)} = random() >> 11 where id = 1; end`.execute(db);
      }
    }
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    if (dialectOf(db) === 'postgres') {
      for (const { table } of WATCHED) {
        await sql`drop trigger if exists ${sql.id(`${table}_cache_generation`)} on ${sql.id(table)}`.execute(db);
      }
      for (const column of ['options', 'credentials']) {
        await sql`drop function if exists ${sql.id(`cms_${column}_generation_bump`)}()`.execute(db);
      }
    } else {
      for (const { table } of WATCHED) {
        for (const event of ['insert', 'update', 'delete']) {
          await sql`drop trigger if exists ${sql.id(`${table}_cache_generation_${event}`)}`.execute(db);
        }
      }
    }
    await db.schema.dropTable('cms_cache_generations').execute();
  },
};
