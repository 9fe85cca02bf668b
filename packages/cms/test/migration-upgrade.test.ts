/**
 * Upgrading a store made by an earlier release: a store that ran every migration of that release takes the
 * new ones. A migration whose name sorts before one already run is refused by the migrator, so this fails
 * if a new migration is numbered back among the old ones (it happened: 0005 after 0055 had run).
 */
import { migrateToLatest } from '@svc/platform';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeNameField } from '../src/content/render/kses.ts';
import { allMigrations, MIGRATION_TABLE } from '../src/db/connection.ts';
import { nameSortKey } from '../src/db/sort-key.ts';
import { dialects } from './helpers/cms-test-app.ts';

/** The migrations of the last release before the name sort keys. */
const BEFORE_SORT_KEYS = [
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
/** The migrations of the release with the name sort keys, before the title keys and the names' escaping. */
const WITH_NAME_SORT_KEYS = [...BEFORE_SORT_KEYS, '0056-name-sort-keys'];
/** The migrations of the release with the title keys and the names' escaping, before the keys' collation. */
const WITH_ESCAPED_NAMES = [...WITH_NAME_SORT_KEYS, '0057-post-title-sort-keys', '0058-escape-stored-names'];

const RELEASES = dialects().flatMap((dialect) =>
  [BEFORE_SORT_KEYS, WITH_NAME_SORT_KEYS].map((released) => ({
    dialect,
    released,
    label: `${dialect.label}, last migration ${released[released.length - 1]}`,
  })),
);

describe.each(RELEASES)('upgrading a released store on $label', ({ dialect, released }) => {
  // biome-ignore lint/suspicious/noExplicitAny: the store is handled before and after its schema changes
  let database: Awaited<ReturnType<typeof dialect.open<any>>>;
  beforeAll(async () => {
    if (dialect.skip) return;
    const all = allMigrations();
    database = await dialect.open(Object.fromEntries(released.map((name) => [name, all[name]!])), {
      migrationTable: MIGRATION_TABLE,
    });
  });
  afterAll(async () => database?.close());

  it.skipIf(dialect.skip)(
    'applies every newer migration, in order, fills the sort keys of names and titles, and escapes old names',
    async () => {
      const db = database.db;
      // Names stored raw before the save filter, and names stored through it (since the release before
      // the sort keys), some of which the filter would change again: those must stay as they are.
      const filteredTwiceDiffers = sanitizeNameField('Grey \x01 zone'); // 'Grey  zone'
      // A store with the name sort keys has them for every row, as its repositories wrote them.
      const keyed = released.includes('0056-name-sort-keys');
      const term = (taxonomy: string, name: string, slug: string) => ({
        taxonomy,
        name,
        slug,
        ...(keyed ? { name_sort: nameSortKey(name) } : {}),
      });
      await db
        .insertInto('terms')
        .values([
          term('post_tag', 'Éclair', 'eclair'),
          term('post_tag', 'Über', 'uber'),
          term('post_tag', 'A & B', 'a-b'),
          term('post_tag', 'Alpha &amp; Omega', 'alpha-omega'),
          term('post_tag', filteredTwiceDiffers, 'grey-zone'),
          term('post_tag', sanitizeNameField('%4\x011'), 'octet'),
          term('category', '<b>Bold</b> & <i>brave</i>', 'bold-brave'),
          term('category', '<b></b>', 'empty-tags'),
          // 200 characters, 600 once escaped: more than the column (PostgreSQL would refuse the update).
          term('category', 'x&'.repeat(100), 'x-x'),
          term('nav_menu', 'Main > Footer', 'main-footer'),
        ])
        .execute();
      type Names = { display_name: string; first_name?: string; last_name?: string; nickname: string };
      const user = (login: string, names: Names) => ({
        login,
        pass_hash: 'x',
        nicename: login,
        email: `${login}@example.test`,
        registered: '2026-01-01 00:00:00',
        first_name: '',
        last_name: '',
        ...names,
        ...(keyed ? { display_name_sort: nameSortKey(names.display_name) } : {}),
      });
      await db
        .insertInto('users')
        .values([
          user('emile', { display_name: 'Émile Zola', first_name: 'Émile', nickname: 'emile' }),
          user('tom', {
            display_name: 'Tom & Jerry',
            first_name: '<i>Tom</i>',
            last_name: 'Cat & Mouse',
            nickname: 'T<J',
          }),
          user('zed', { display_name: 'Zed &amp; Co', first_name: filteredTwiceDiffers, nickname: 'zed' }),
        ])
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
          .filter((name) => !released.includes(name))
          .sort(),
      );
      expect(applied).toContain('0057-post-title-sort-keys');
      expect(applied).toContain('0058-escape-stored-names');

      const terms = await sql<{ taxonomy: string; name: string; name_sort: string }>`select taxonomy, name, name_sort
      from terms where slug <> 'uncategorized' order by taxonomy, name_sort, id`.execute(db);
      expect(terms.rows).toEqual([
        { taxonomy: 'category', name: '&lt;b&gt;&lt;/b&gt;', name_sort: '&lt;b&gt;&lt;/b&gt;' },
        { taxonomy: 'category', name: 'Bold &amp; brave', name_sort: 'bold &amp; brave' },
        { taxonomy: 'category', name: `${'x&amp;'.repeat(33)}x`, name_sort: `${'x&amp;'.repeat(33)}x` },
        { taxonomy: 'nav_menu', name: 'Main &gt; Footer', name_sort: 'main &gt; footer' },
        { taxonomy: 'post_tag', name: '%41', name_sort: '%41' },
        { taxonomy: 'post_tag', name: 'A &amp; B', name_sort: 'a &amp; b' },
        { taxonomy: 'post_tag', name: 'Alpha &amp; Omega', name_sort: 'alpha &amp; omega' },
        { taxonomy: 'post_tag', name: 'Éclair', name_sort: 'eclair' },
        { taxonomy: 'post_tag', name: 'Grey  zone', name_sort: 'grey  zone' },
        { taxonomy: 'post_tag', name: 'Über', name_sort: 'uber' },
      ]);
      const users = await sql<Record<string, string>>`select login, display_name, display_name_sort, first_name,
      last_name, nickname from users order by login`.execute(db);
      expect(users.rows).toEqual([
        {
          login: 'emile',
          display_name: 'Émile Zola',
          display_name_sort: 'emile zola',
          first_name: 'Émile',
          last_name: '',
          nickname: 'emile',
        },
        {
          login: 'tom',
          display_name: 'Tom &amp; Jerry',
          display_name_sort: 'tom &amp; jerry',
          first_name: 'Tom',
          last_name: 'Cat &amp; Mouse',
          nickname: 'T&lt;J',
        },
        {
          login: 'zed',
          display_name: 'Zed &amp; Co',
          display_name_sort: 'zed &amp; co',
          first_name: 'Grey  zone',
          last_name: '',
          nickname: 'zed',
        },
      ]);

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

/**
 * Collations a PostgreSQL database made with a locale would give the key columns 0056 created without one,
 * first found wins: ICU's and glibc's English, or ICU's root. Under each, punctuation and symbols rank before
 * letters, so `~` and `{` sort first, where code points (SQLite's BINARY, PostgreSQL's "C") put them last.
 */
const LOCALE_COLLATIONS = ['en-US-x-icu', 'en-x-icu', 'en_US.utf8', 'en_US', 'und-x-icu'];

/** Names whose sort keys order differently by code point and by a locale's collation. */
const NAMES = ['~Tilde', 'Zebra', '{Brace}', 'Ångström', 'apple', '_under'];
/** Their order by key (nameSortKey) compared by code point. */
const CODE_POINT_ORDER = ['_under', 'Ångström', 'apple', 'Zebra', '{Brace}', '~Tilde'];

describe.each(dialects())('the name sort keys compare by code point (0059) on $label', (dialect) => {
  // biome-ignore lint/suspicious/noExplicitAny: the store is handled before and after its schema changes
  let database: Awaited<ReturnType<typeof dialect.open<any>>>;
  beforeAll(async () => {
    if (dialect.skip) return;
    const all = allMigrations();
    database = await dialect.open(Object.fromEntries(WITH_ESCAPED_NAMES.map((name) => [name, all[name]!])), {
      migrationTable: MIGRATION_TABLE,
    });
  });
  afterAll(async () => database?.close());

  it.skipIf(dialect.skip)(
    'a store of the last release takes 0059; term and display name keys then order as SQLite orders them, indexed',
    async () => {
      const db = database.db;
      const postgres = dialect.name === 'postgres';
      // As on a database whose default collation is a locale's: the columns 0056 made take it (this server's
      // test database is C.UTF-8, so the columns are given the locale's collation explicitly instead).
      let locale: string | undefined;
      if (postgres) {
        const found = await sql<{ collname: string }>`select collname from pg_collation
          where collname in (${sql.join(LOCALE_COLLATIONS)})`.execute(db);
        locale = LOCALE_COLLATIONS.find((name) => found.rows.some((r) => r.collname === name));
        if (locale) {
          await sql`alter table terms alter column name_sort type varchar(400) collate ${sql.id(locale)}`.execute(db);
          await sql`alter table users alter column display_name_sort type varchar(500) collate ${sql.id(locale)}`.execute(
            db,
          );
        }
      }
      await db
        .insertInto('terms')
        .values(NAMES.map((name, i) => ({ taxonomy: 'post_tag', name, slug: `t${i}`, name_sort: nameSortKey(name) })))
        .execute();
      await db
        .insertInto('users')
        .values(
          NAMES.map((name, i) => ({
            login: `u${i}`,
            pass_hash: 'x',
            nicename: `u${i}`,
            email: `u${i}@example.test`,
            registered: '2026-01-01 00:00:00',
            display_name: name,
            display_name_sort: nameSortKey(name),
          })),
        )
        .execute();
      const termOrder = async () =>
        (
          await sql<{
            name: string;
          }>`select name from terms where taxonomy = 'post_tag' order by name_sort, id`.execute(db)
        ).rows.map((r) => r.name);
      const userOrder = async () =>
        (
          await sql<{ display_name: string }>`select display_name from users order by display_name_sort, id`.execute(db)
        ).rows.map((r) => r.display_name);
      if (locale) {
        // The point of 0059: before it, such a database orders the keys otherwise than SQLite.
        expect(await termOrder()).not.toEqual(CODE_POINT_ORDER);
        expect(await userOrder()).not.toEqual(CODE_POINT_ORDER);
      }

      const applied = await migrateToLatest(db, allMigrations(), MIGRATION_TABLE);
      expect(applied).toEqual(['0059-name-sort-keys-collation', '0060-cache-generations']);
      // 0060 starts the caches' generations on a store that already holds users and options.
      expect(await db.selectFrom('cms_cache_generations').selectAll().execute()).toEqual([
        { id: 1, options: 0, credentials: 0 },
      ]);
      expect(await termOrder()).toEqual(CODE_POINT_ORDER);
      expect(await userOrder()).toEqual(CODE_POINT_ORDER);
      if (!postgres) return;

      const columns = await sql<{ table_name: string; column_name: string; collation_name: string | null }>`
        select table_name, column_name, collation_name from information_schema.columns
        where table_schema = current_schema() and column_name in ('name_sort', 'display_name_sort', 'title_sort')
        order by table_name`.execute(db);
      expect(columns.rows).toEqual([
        { table_name: 'posts', column_name: 'title_sort', collation_name: 'C' },
        { table_name: 'terms', column_name: 'name_sort', collation_name: 'C' },
        { table_name: 'users', column_name: 'display_name_sort', collation_name: 'C' },
      ]);
      // The index on the terms' key was rebuilt in the column's collation: valid, and a page in name order is
      // read from it without a sort.
      const index = await sql<{ valid: boolean; collations: string }>`
        select i.indisvalid as valid, (select string_agg(c.collname, ',' order by k.n)
          from unnest(i.indcollation) with ordinality as k(oid, n) join pg_collation c on c.oid = k.oid) as collations
        from pg_index i join pg_class x on x.oid = i.indexrelid
        where x.relname = 'terms_taxonomy_name_sort' and x.relnamespace = current_schema()::regnamespace`.execute(db);
      expect(index.rows).toEqual([{ valid: true, collations: 'default,C' }]);
      const plan = await db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_sort = off`.execute(trx);
        return sql<{ 'QUERY PLAN': string }>`explain select id from terms where taxonomy = 'post_tag'
          order by name_sort limit 3`.execute(trx);
      });
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toContain('terms_taxonomy_name_sort');
      expect(text).not.toMatch(/\bSort\b/);
    },
  );
});
