/**
 * Builds a CMS app on a fresh database for endpoint tests (app.inject, no port), with one user per
 * role and an application password each, and helpers to call the API as any of them.
 */
import { createLogger, type Database } from '@svc/platform';
import { type TestDialect, testDialects } from '@svc/platform/testing';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type CmsApp } from '../../src/app.ts';
import {
  chunkPassword,
  generateApplicationPassword,
  hashApplicationPassword,
  newUuid,
} from '../../src/auth/application-passwords.ts';
import { loadCmsConfig } from '../../src/config.ts';
import { allMigrations, MIGRATION_TABLE } from '../../src/db/connection.ts';
import type { CmsDatabase } from '../../src/db/schema.ts';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';
export const ROLE_LOGINS = ['admin', 'edna', 'arthur', 'conrad', 'sam'] as const;
export type RoleLogin = (typeof ROLE_LOGINS)[number];
const ROLE_OF: Record<RoleLogin, string> = {
  admin: 'administrator',
  edna: 'editor',
  arthur: 'author',
  conrad: 'contributor',
  sam: 'subscriber',
};

export interface TestCms extends CmsApp {
  database: Database<CmsDatabase>;
  /** User ids by login. */
  ids: Record<RoleLogin, number>;
  /** Formatted application passwords by login. */
  passwords: Record<RoleLogin, string>;
  /** Calls the API; `as` picks the user (anonymous when absent). */
  call(options: InjectOptions & { as?: RoleLogin }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** The SQLite dialect, and PostgreSQL when TEST_DATABASE_URL is set. */
export function dialects(): TestDialect[] {
  return testDialects();
}

/** Basic credentials header for a login and password. */
export function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

/** A fresh CMS with the five role users. */
export async function createTestCms(dialect: TestDialect = testDialects()[0]!): Promise<TestCms> {
  const database = await dialect.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
  const config = loadCmsConfig({ env: { DATA_DIR: '/tmp/cms-test-unused', CMS_SECRET: TEST_SECRET } });
  const built = await buildApp({
    config,
    database,
    logger: createLogger({ level: 'silent' }),
    secret: TEST_SECRET,
    authCache: false,
    optionsCache: false,
  });
  await built.ctx.options.set('siteurl', 'http://cms.test');
  await built.ctx.options.set('home', 'http://cms.test');
  await built.ctx.options.set('blogname', 'Test Site');
  const ids = {} as Record<RoleLogin, number>;
  const passwords = {} as Record<RoleLogin, string>;
  let day = 1;
  for (const login of ROLE_LOGINS) {
    const id = await built.ctx.users.insert({
      login,
      pass_hash: 'scrypt$1$1$1$x$x',
      nicename: login,
      email: `${login}@example.test`,
      url: '',
      registered: `2023-01-0${day++} 00:00:00`,
      display_name: login[0]!.toUpperCase() + login.slice(1),
      first_name: '',
      last_name: '',
      nickname: login,
      description: '',
      locale: '',
      roles: [ROLE_OF[login]],
    });
    ids[login] = id;
    const password = generateApplicationPassword();
    await built.appPasswords.insert({
      uuid: newUuid(),
      user_id: id,
      name: 'tests',
      app_id: '',
      password_hash: hashApplicationPassword(password, TEST_SECRET),
      created: 1_700_000_000,
      last_used: null,
      last_ip: null,
    });
    passwords[login] = chunkPassword(password);
  }
  await built.app.ready();
  return {
    ...built,
    database,
    ids,
    passwords,
    call({ as, ...options }) {
      const headers = { ...(options.headers ?? {}) } as Record<string, string>;
      if (as) headers.authorization = basic(as, passwords[as]);
      return built.app.inject({ ...options, headers });
    },
    async close() {
      await built.app.close();
      await database.close();
    },
  };
}
