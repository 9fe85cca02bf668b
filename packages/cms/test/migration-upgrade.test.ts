/**
 * Upgrading a store made by an earlier release: a store that ran every migration of that release takes the
 * new ones. A migration whose name sorts before one already run is refused by the migrator, so this fails
 * if a new migration is numbered back among the old ones (it happened: 0005 after 0055 had run).
 */
import { migrateToLatest } from '@svc/platform';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMigrations, MIGRATION_TABLE } from '../src/db/connection.ts';
import { dialects } from './helpers/cms-test-app.ts';

/** The migrations of the last release before the name sort keys. */
const RELEASED = [
  '0001-users',
  '0002-options',
  '0003-terms',
  '0004-application-passwords',
  '0050-posts',
  '0051-postmeta',
  '0052-term-relationships',
  '0053-posts-search',
  '0054-post-version-triggers',
  '0055-posts-search-queue',
];

describe.each(dialects())('upgrading a released store on $label', (dialect) => {
  // biome-ignore lint/suspicious/noExplicitAny: the store is handled before and after its schema changes
  let database: Awaited<ReturnType<typeof dialect.open<any>>>;
  beforeAll(async () => {
    if (dialect.skip) return;
    const all = allMigrations();
    database = await dialect.open(Object.fromEntries(RELEASED.map((name) => [name, all[name]!])), {
      migrationTable: MIGRATION_TABLE,
    });
  });
  afterAll(async () => database?.close());

  it.skipIf(dialect.skip)(
    'applies every newer migration, in order, and fills the sort keys of existing names and titles',
    async () => {
      const db = database.db;
      await db
        .insertInto('terms')
        .values([
          { taxonomy: 'post_tag', name: 'Éclair', slug: 'eclair' },
          { taxonomy: 'post_tag', name: 'Über', slug: 'uber' },
        ])
        .execute();
      await db
        .insertInto('users')
        .values({
          login: 'emile',
          pass_hash: 'x',
          nicename: 'emile',
          email: 'emile@example.test',
          registered: '2026-01-01 00:00:00',
          display_name: 'Émile Zola',
        })
        .execute();
      // More posts than the title key migration re-keys in one statement, revisions among them.
      const date = '2026-01-01 00:00:00';
      const post = (title: string, type = 'post') => ({
        type,
        title,
        date_local: date,
        date_gmt: date,
        modified_local: date,
        modified_gmt: date,
      });
      await db
        .insertInto('posts')
        .values([post('Émile'), post('<em>Zebra</em>'), post('Edgar', 'page'), post('Øscar', 'revision'), post('')])
        .execute();
      for (let i = 0; i < 3; i++) {
        await db
          .insertInto('posts')
          .values(Array.from({ length: 400 }, (_, j) => post(`Bulk Ü ${i * 400 + j}`)))
          .execute();
      }
      const applied = await migrateToLatest(db, allMigrations(), MIGRATION_TABLE);
      expect(applied).toEqual(
        Object.keys(allMigrations())
          .filter((name) => !RELEASED.includes(name))
          .sort(),
      );
      expect(applied).toContain('0056-name-sort-keys');
      const terms = await sql<{ name: string; name_sort: string }>`select name, name_sort from terms
      where taxonomy = 'post_tag' order by name_sort`.execute(db);
      expect(terms.rows).toEqual([
        { name: 'Éclair', name_sort: 'eclair' },
        { name: 'Über', name_sort: 'uber' },
      ]);
      const users = await sql<{ s: string }>`select display_name_sort as s from users where login = 'emile'`.execute(
        db,
      );
      expect(users.rows[0]?.s).toBe('emile zola');
      expect(applied).toContain('0057-post-title-sort-keys');
      const posts = await sql<{ title: string; title_sort: string }>`select title, title_sort from posts
      where title not like 'Bulk%' order by title_sort, id`.execute(db);
      expect(posts.rows).toEqual([
        { title: '', title_sort: '' },
        { title: '<em>Zebra</em>', title_sort: '<em>zebra</em>' },
        { title: 'Edgar', title_sort: 'edgar' },
        { title: 'Émile', title_sort: 'emile' },
        { title: 'Øscar', title_sort: 'oscar' },
      ]);
      const bulk = await sql<{ title: string; title_sort: string }>`select title, title_sort from posts
      where title like 'Bulk%' order by id`.execute(db);
      expect(bulk.rows).toHaveLength(1200);
      for (const row of bulk.rows) expect(row.title_sort).toBe(row.title.replace('Bulk Ü', 'bulk u'));
    },
  );
});
