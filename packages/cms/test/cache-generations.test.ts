/**
 * Several nodes on one database, each with its own caches (options, verified credentials with the user's
 * roles and capabilities) and its own connections: what one node writes, the other answers from its very
 * next request (migration 0060, src/db/cache-generations.ts). On PostgreSQL the nodes share a schema made
 * for this file; on SQLite they are two connections to one file, as two cluster workers are.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, type Database, openDatabase, sqliteHandleOf } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import SQLite from 'better-sqlite3';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type CmsApp } from '../src/app.ts';
import {
  chunkPassword,
  generateApplicationPassword,
  hashApplicationPassword,
  newUuid,
} from '../src/auth/application-passwords.ts';
import { loadCmsConfig } from '../src/config.ts';
import { contentRuntimeOf } from '../src/content/module.ts';
import { CacheGenerations } from '../src/db/cache-generations.ts';
import { allMigrations, MIGRATION_TABLE } from '../src/db/connection.ts';
import type { CmsDatabase } from '../src/db/schema.ts';
import { basic, TEST_SECRET } from './helpers/cms-test-app.ts';

/** Opens the same database twice (two pools, or two SQLite connections), migrated; `drop` removes it. */
async function openShared(dialect: 'sqlite' | 'postgres'): Promise<{
  first: Database<CmsDatabase>;
  second: Database<CmsDatabase>;
  drop(): Promise<void>;
}> {
  const migrations = { migrations: allMigrations(), migrationTable: MIGRATION_TABLE };
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'cms-nodes-'));
    const sqliteFile = path.join(dir, 'cms.db');
    const first = await openDatabase<CmsDatabase>({ sqliteFile, ...migrations });
    const second = await openDatabase<CmsDatabase>({ sqliteFile, ...migrations });
    return { first, second, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.TEST_DATABASE_URL!.trim();
  const pgSchema = `cms_nodes_${process.pid}_${randomBytes(4).toString('hex')}`;
  const first = await openDatabase<CmsDatabase>({ url, pgSchema, poolSize: 4, ...migrations });
  const second = await openDatabase<CmsDatabase>({ url, pgSchema, poolSize: 4, ...migrations });
  return {
    first,
    second,
    drop: async () => {
      const cleanup = await openDatabase<unknown>({ url, poolSize: 1 });
      try {
        await sql`drop schema if exists ${sql.id(pgSchema)} cascade`.execute(cleanup.db);
      } finally {
        await cleanup.close();
      }
    },
  };
}

/** A node as `serve` builds it: caches on, as in production. */
async function node(database: Database<CmsDatabase>): Promise<CmsApp> {
  const config = loadCmsConfig({ env: { DATA_DIR: '/tmp/cms-test-unused', CMS_SECRET: TEST_SECRET } });
  const built = await buildApp({ config, database, logger: createLogger({ level: 'silent' }), secret: TEST_SECRET });
  built.ctx.options.setDefault('home', 'http://cms.test');
  built.ctx.options.setDefault('siteurl', 'http://cms.test');
  await built.app.ready();
  return built;
}

interface Account {
  id: number;
  uuid: string;
  authorization: string;
}

/** A user with one application password, written through a node's repositories. */
async function addUser(cms: CmsApp, login: string, role: string): Promise<Account> {
  const id = await cms.ctx.users.insert({
    login,
    pass_hash: 'scrypt$1$1$1$x$x',
    nicename: login,
    email: `${login}@example.test`,
    url: '',
    registered: '2024-01-01 00:00:00',
    display_name: login,
    first_name: '',
    last_name: '',
    nickname: login,
    description: '',
    locale: '',
    roles: [role],
  });
  const password = generateApplicationPassword();
  const uuid = newUuid();
  await cms.appPasswords.insert({
    uuid,
    user_id: id,
    name: 'tests',
    app_id: '',
    password_hash: hashApplicationPassword(password, TEST_SECRET),
    created: 1_700_000_000,
    last_used: 2_000_000_000, // no use to record: reads stay reads
    last_ip: null,
  });
  return { id, uuid, authorization: basic(login, chunkPassword(password)) };
}

function call(cms: CmsApp, as: Account | null, options: InjectOptions) {
  return cms.app.inject({
    ...options,
    url: `/cms-json${options.url}`,
    headers: { ...(options.headers ?? {}), ...(as ? { authorization: as.authorization } : {}) },
  });
}

describe.each(testDialects())('two nodes on one database ($label)', (dialect) => {
  let shared: Awaited<ReturnType<typeof openShared>>;
  let a: CmsApp;
  let b: CmsApp;
  let admin: Account;
  let serial = 0;

  beforeAll(async () => {
    shared = await openShared(dialect.name);
    a = await node(shared.first);
    b = await node(shared.second);
    admin = await addUser(a, 'admin', 'administrator');
  });

  afterAll(async () => {
    await a?.app.close();
    await b?.app.close();
    await shared?.first.close();
    await shared?.second.close();
    await shared?.drop();
  });

  const fresh = (role: string) => addUser(a, `user${++serial}`, role);

  it.skipIf(dialect.skip)('refuses an application password revoked on the other node at the next request', async () => {
    const editor = await fresh('editor');
    expect((await call(b, editor, { method: 'GET', url: '/cms/v2/users/me' })).statusCode).toBe(200);
    expect((await call(b, editor, { method: 'GET', url: '/cms/v2/users/me' })).statusCode).toBe(200);
    const revoked = await call(a, admin, {
      method: 'DELETE',
      url: `/cms/v2/users/${editor.id}/application-passwords/${editor.uuid}`,
    });
    expect(revoked.statusCode).toBe(200);
    const after = await call(b, editor, { method: 'GET', url: '/cms/v2/users/me' });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'incorrect_password' });
  });

  it.skipIf(dialect.skip)('refuses what needs the role a user lost on the other node at the next request', async () => {
    const boss = await fresh('administrator');
    const create = (login: string) =>
      call(b, boss, {
        method: 'POST',
        url: '/cms/v2/users',
        payload: { username: login, email: `${login}@example.test`, password: 'a long password' },
      });
    expect((await create(`made${serial}a`)).statusCode).toBe(201);
    const demoted = await call(a, admin, {
      method: 'POST',
      url: `/cms/v2/users/${boss.id}`,
      payload: { roles: ['subscriber'] },
    });
    expect(demoted.statusCode).toBe(200);
    const refused = await create(`made${serial}b`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'rest_cannot_create_user' });
    const me = await call(b, boss, { method: 'GET', url: '/cms/v2/users/me?context=edit' });
    expect(me.json()).toMatchObject({ roles: ['subscriber'] });
  });

  it.skipIf(dialect.skip)('refuses a user deleted on the other node at the next request', async () => {
    const author = await fresh('author');
    expect((await call(b, author, { method: 'GET', url: '/cms/v2/users/me' })).statusCode).toBe(200);
    const deleted = await call(a, admin, {
      method: 'DELETE',
      url: `/cms/v2/users/${author.id}?force=true&reassign=${admin.id}`,
    });
    expect(deleted.statusCode).toBe(200);
    const after = await call(b, author, { method: 'GET', url: '/cms/v2/users/me' });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'invalid_username' });
  });

  it.skipIf(dialect.skip)('answers a setting changed on the other node at the next request', async () => {
    const title = async () => (await call(b, admin, { method: 'GET', url: '/cms/v2/settings' })).json().title;
    const indexName = async () => (await call(b, null, { method: 'GET', url: '/' })).json().name;
    const before = `Before ${serial}`;
    expect(
      (await call(a, admin, { method: 'POST', url: '/cms/v2/settings', payload: { title: before } })).statusCode,
    ).toBe(200);
    expect(await title()).toBe(before);
    expect(await indexName()).toBe(before);
    const changed = await call(a, admin, {
      method: 'POST',
      url: '/cms/v2/settings',
      payload: { title: 'Changed on A' },
    });
    expect(changed.statusCode).toBe(200);
    expect(await title()).toBe('Changed on A');
    expect(await indexName()).toBe('Changed on A');
  });

  it.skipIf(dialect.skip)(
    'answers a tagline changed on the other node in the public pages at the next request',
    async () => {
      const page = async () => (await b.app.inject({ method: 'GET', url: '/' })).body;
      await call(a, admin, { method: 'POST', url: '/cms/v2/settings', payload: { description: 'First tagline' } });
      expect(await page()).toContain('First tagline');
      await call(a, admin, { method: 'POST', url: '/cms/v2/settings', payload: { description: 'Second tagline' } });
      const after = await page();
      expect(after).toContain('Second tagline');
      expect(after).not.toContain('First tagline');
    },
  );

  it.skipIf(dialect.skip)(
    'refuses at once, on the node that made the change, a user it demoted or deleted',
    async () => {
      const boss = await fresh('administrator');
      const settings = () => call(a, boss, { method: 'GET', url: '/cms/v2/settings' });
      expect((await settings()).statusCode).toBe(200);
      const demoted = await call(a, admin, {
        method: 'POST',
        url: `/cms/v2/users/${boss.id}`,
        payload: { roles: ['editor'] },
      });
      expect(demoted.statusCode).toBe(200);
      expect((await settings()).statusCode).toBe(403);
      const deleted = await call(a, admin, {
        method: 'DELETE',
        url: `/cms/v2/users/${boss.id}?force=true&reassign=${admin.id}`,
      });
      expect(deleted.statusCode).toBe(200);
      expect((await call(a, boss, { method: 'GET', url: '/cms/v2/users/me' })).statusCode).toBe(401);
    },
  );
  it.skipIf(dialect.skip)(
    'publishes a scheduled post with the default category the other node set, though no request came in between',
    async () => {
      const category = async (name: string) =>
        (await call(b, admin, { method: 'POST', url: '/cms/v2/categories', payload: { name } })).json().id as number;
      const oldDefault = await category(`Old default ${serial}`);
      const newDefault = await category(`New default ${serial}`);
      const setDefault = (node: CmsApp, id: number) =>
        call(node, admin, { method: 'POST', url: '/cms/v2/settings', payload: { default_category: id } });
      expect((await setDefault(b, oldDefault)).statusCode).toBe(200);
      // Node b schedules a post without categories (an hour ahead): its timer is armed for it.
      const due = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19);
      const scheduled = await call(b, admin, {
        method: 'POST',
        url: '/cms/v2/posts',
        payload: { title: `Scheduled ${serial}`, status: 'future', date_gmt: due, categories: [] },
      });
      expect(scheduled.json()).toMatchObject({ status: 'future', categories: [] });
      const id = scheduled.json().id as number;
      // Node a changes the default category; b serves no request after that.
      expect((await setDefault(a, newDefault)).statusCode).toBe(200);
      // The post becomes due (its date moved by SQL, as by another writer), and b's periodic refresh (run here
      // rather than waiting its minute) arms b's timer for now: b publishes it in the background.
      const past = new Date(Date.now() - 60_000).toISOString().slice(0, 19).replace('T', ' ');
      await shared.first.db
        .updateTable('posts')
        .set({ date_gmt: past, date_local: past })
        .where('id', '=', id)
        .execute();
      await contentRuntimeOf(b.ctx)!.scheduler.refresh();
      const status = async () =>
        (await shared.first.db.selectFrom('posts').select('status').where('id', '=', id).executeTakeFirst())?.status;
      for (let i = 0; i < 200 && (await status()) !== 'publish'; i++) await new Promise((r) => setTimeout(r, 25));
      expect(await status()).toBe('publish');
      const post = await call(a, admin, { method: 'GET', url: `/cms/v2/posts/${id}?context=edit` });
      expect(post.json()).toMatchObject({ status: 'publish', categories: [newDefault] });
    },
  );
});

describe('cache generations on SQLite', () => {
  it('change with what their cache is built from, and a rolled-back change is never seen again', async () => {
    const shared = await openShared('sqlite');
    const file = shared.first.location.replace(/^sqlite:/, '');
    const other = new SQLite(file);
    try {
      const generations = new CacheGenerations(shared.first.db);
      const read = () => {
        expect(generations.refresh()).toBeUndefined(); // read at once on SQLite
        return { options: generations.options, credentials: generations.credentials };
      };
      const start = read();
      other.exec(`insert into options (name, value) values ('x', '1')`);
      const afterOption = read();
      expect(afterOption.options).not.toBe(start.options);
      expect(afterOption.credentials).toBe(start.credentials);
      other.exec(`insert into users (login, pass_hash, nicename, email, registered, roles)
        values ('u', 'x', 'u', 'u@example.test', '2024-01-01 00:00:00', '["editor"]')`);
      other.exec(`insert into application_passwords (uuid, user_id, name, password_hash, created)
        values ('p', (select id from users where login = 'u'), 'n', 'h', 1)`);
      const afterUser = read();
      expect(afterUser.credentials).not.toBe(afterOption.credentials);
      expect(afterUser.options).toBe(afterOption.options);
      // Recording a password's use changes nothing a credential resolves to.
      other.exec(`update application_passwords set last_used = 5, last_ip = '127.0.0.1'`);
      expect(read()).toEqual(afterUser);
      // Read inside this connection's own open transaction (as the request hook may, beside another request's
      // write), then rolled back: a later change must give a value not seen before.
      const handle = sqliteHandleOf(shared.first.db)!;
      handle.exec('begin');
      handle.exec(`update users set roles = '["subscriber"]'`);
      const uncommitted = read();
      handle.exec('rollback');
      expect(read()).toEqual(afterUser);
      other.exec(`update users set roles = '["author"]'`);
      const later = read();
      expect(later.credentials).not.toBe(uncommitted.credentials);
      expect(later.credentials).not.toBe(afterUser.credentials);
    } finally {
      other.close();
      await shared.first.close();
      await shared.second.close();
      await shared.drop();
    }
  });
});
