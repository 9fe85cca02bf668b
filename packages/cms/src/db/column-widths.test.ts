import type { Database } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostRepository } from '../content/post-repository.ts';
import { COLUMN_WIDTHS, charLength, checkColumnWidths, fitsColumn, ValueTooLongError } from './column-widths.ts';
import { allMigrations, MIGRATION_TABLE } from './connection.ts';
import type { CmsDatabase } from './schema.ts';
import { TermsRepository } from './terms-repository.ts';
import { UsersRepository } from './users-repository.ts';

describe('charLength', () => {
  it('counts characters as the databases do: a character outside the BMP is one, a lone surrogate one', () => {
    expect(charLength('')).toBe(0);
    expect(charLength('abc')).toBe(3);
    expect(charLength('Émile')).toBe(5);
    expect(charLength('😀😀')).toBe(2);
    expect('😀😀'.length).toBe(4);
    expect(charLength('a\ud83d')).toBe(2);
    expect(charLength('\ude00a\ud83d\ude00')).toBe(3);
  });
});

describe('checkColumnWidths', () => {
  it('passes values within their columns, measured in characters, and columns without a width', () => {
    expect(() =>
      checkColumnWidths('terms', { name: '😀'.repeat(200), description: 'x'.repeat(10_000), count: 5 }, 'insert'),
    ).not.toThrow();
    expect(fitsColumn('terms', 'name', '😀'.repeat(200))).toBe(true);
    expect(fitsColumn('terms', 'description', 'x'.repeat(10_000))).toBe(true);
  });

  it("refuses the first value longer than its column with WordPress's code and message for the write", () => {
    const insert = (() => {
      try {
        checkColumnWidths('terms', { name: 'x'.repeat(201) }, 'insert');
      } catch (error) {
        return error;
      }
    })() as ValueTooLongError;
    expect(insert).toBeInstanceOf(ValueTooLongError);
    expect(insert).toMatchObject({
      code: 'db_insert_error',
      message: 'Could not insert term into the database.',
      table: 'terms',
      column: 'name',
      maxLength: 200,
    });
    expect(() => checkColumnWidths('users', { display_name: '😀'.repeat(251) }, 'update')).toThrow(
      expect.objectContaining({ code: 'db_update_error', message: 'Could not update user in the database.' }),
    );
    expect(() => checkColumnWidths('posts', { guid: 'x'.repeat(256) }, 'insert', 'attachment')).toThrow(
      'Could not insert attachment into the database.',
    );
    expect(fitsColumn('posts', 'guid', 'x'.repeat(256))).toBe(false);
  });
});

describe.each(testDialects())('the column widths on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let database: Database<CmsDatabase>;
  beforeAll(async () => {
    database = await dialect.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
  });
  afterAll(async () => database.close());

  /** Every varchar column of the migrated store and its width, by table (the migrator's own tables left out). */
  async function schemaWidths(): Promise<Record<string, Record<string, number>>> {
    const db = database.db;
    const out: Record<string, Record<string, number>> = {};
    const add = (table: string, column: string, width: number) => {
      if (table.startsWith(MIGRATION_TABLE)) return;
      out[table] ??= {};
      out[table][column] = width;
    };
    if (dialect.name === 'postgres') {
      const rows = await sql<{ table_name: string; column_name: string; width: number }>`
        select table_name, column_name, character_maximum_length as width from information_schema.columns
        where table_schema = current_schema() and data_type = 'character varying'`.execute(db);
      for (const row of rows.rows) add(row.table_name, row.column_name, Number(row.width));
    } else {
      const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
      for (const { name } of tables.rows) {
        const columns = await sql<{
          name: string;
          type: string;
        }>`select name, type from pragma_table_info(${name})`.execute(db);
        for (const column of columns.rows) {
          const width = /^varchar\((\d+)\)$/i.exec(column.type);
          if (width) add(name, column.name, Number(width[1]));
        }
      }
    }
    return out;
  }

  it('lists every varchar column of the migrations with its width', async () => {
    expect(await schemaWidths()).toEqual(COLUMN_WIDTHS);
  });

  it('takes a value as long as its column in characters, and refuses a longer one before the database', async () => {
    const terms = new TermsRepository(database.db);
    const users = new UsersRepository(database.db);
    const astral = '😀'.repeat(COLUMN_WIDTHS.terms.name);
    const id = await terms.insert({ taxonomy: 'post_tag', name: astral, slug: 'astral', description: '', parent: 0 });
    expect((await terms.findById(id))?.name).toBe(astral);
    await expect(
      terms.insert({ taxonomy: 'post_tag', name: `${astral}x`, slug: 'longer', description: '', parent: 0 }),
    ).rejects.toBeInstanceOf(ValueTooLongError);
    await expect(terms.update(id, { slug: 's'.repeat(201) })).rejects.toMatchObject({
      code: 'db_update_error',
      column: 'slug',
    });
    expect((await terms.findById(id))?.slug).toBe('astral');

    const userId = await users.insert({
      login: 'widths',
      pass_hash: 'x',
      nicename: 'widths',
      email: 'widths@example.test',
      url: '',
      registered: '2026-01-01 00:00:00',
      display_name: '😀'.repeat(COLUMN_WIDTHS.users.display_name),
      first_name: '',
      last_name: '',
      nickname: 'widths',
      description: '',
      locale: '',
      roles: ['subscriber'],
    });
    await expect(users.update(userId, { email: `${'e'.repeat(95)}@x.test` })).rejects.toMatchObject({
      code: 'db_update_error',
      column: 'email',
    });
    expect((await users.findById(userId))?.email).toBe('widths@example.test');

    const posts = new PostRepository(database.db, dialect.name);
    const post = {
      type: 'attachment',
      status: 'inherit',
      authorId: userId,
      parentId: 0,
      menuOrder: 0,
      title: 'x',
      content: '',
      excerpt: '',
      slug: 'x',
      password: '',
      dateLocal: '2026-01-01 00:00:00',
      dateGmt: '2026-01-01 00:00:00',
      modifiedLocal: '2026-01-01 00:00:00',
      modifiedGmt: '2026-01-01 00:00:00',
      commentStatus: 'closed',
      pingStatus: 'closed',
      commentCount: 0,
      guid: `http://cms.test/${'g'.repeat(240)}`,
      mimeType: 'image/png',
      format: '',
      template: '',
      featuredMedia: 0,
    };
    await expect(posts.insert(post)).rejects.toMatchObject({
      code: 'db_insert_error',
      message: 'Could not insert attachment into the database.',
      column: 'guid',
    });
    const postId = await posts.insert({ ...post, guid: 'http://cms.test/x.png' });
    await expect(posts.update(postId, { password: 'p'.repeat(256) })).rejects.toMatchObject({
      code: 'db_update_error',
      message: 'Could not update post in the database.',
      column: 'password',
    });
    await expect(posts.setMeta(postId, 'k'.repeat(256), 1)).rejects.toBeInstanceOf(ValueTooLongError);
  });
});
