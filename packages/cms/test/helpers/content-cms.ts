/**
 * A CMS for the content routes' tests: one user per role plus a second author, each with an
 * application password, a clock the test can move, and shortcuts to call the API and to create posts
 * directly through the content service.
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
import type { PostWrite } from '../../src/content/content-service.ts';
import { contentRuntimeOf } from '../../src/content/module.ts';
import type { Post } from '../../src/content/post.ts';
import type { ContentRuntime } from '../../src/content/runtime.ts';
import { allMigrations, MIGRATION_TABLE } from '../../src/db/connection.ts';
import type { CmsDatabase } from '../../src/db/schema.ts';
import { basic, TEST_SECRET } from './cms-test-app.ts';

export const USERS = {
  admin: 'administrator',
  edna: 'editor',
  arthur: 'author',
  ava: 'author',
  conrad: 'contributor',
  sam: 'subscriber',
} as const;
export type Login = keyof typeof USERS;

export interface ContentCms extends CmsApp {
  database: Database<CmsDatabase>;
  runtime: ContentRuntime;
  ids: Record<Login, number>;
  passwords: Record<Login, string>;
  clock: { now: Date };
  /** Calls the API as a user (anonymous when `as` is absent). */
  call(options: InjectOptions & { as?: Login }): Promise<LightMyRequestResponse>;
  /** GET /cms-json/cms/v2{path}. */
  get(path: string, as?: Login): Promise<LightMyRequestResponse>;
  /** POST /cms-json/cms/v2{path} with a JSON body. */
  post(path: string, body: unknown, as?: Login): Promise<LightMyRequestResponse>;
  /** DELETE /cms-json/cms/v2{path}. */
  del(path: string, as?: Login): Promise<LightMyRequestResponse>;
  /** Creates a post straight through the service (as the administrator), owned by `owner`. */
  make(type: string, write: PostWrite & { owner?: Login }): Promise<Post>;
  close(): Promise<void>;
}

/** A fresh CMS on `dialect` whose clock starts at `start`. */
export async function createContentCms(options: { dialect?: TestDialect; start?: string } = {}): Promise<ContentCms> {
  const dialect = options.dialect ?? testDialects()[0]!;
  const clock = { now: new Date(options.start ?? '2024-03-01T12:00:00Z') };
  const database = await dialect.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
  const config = loadCmsConfig({ env: { DATA_DIR: '/tmp/cms-test-unused', CMS_SECRET: TEST_SECRET } });
  const built = await buildApp({
    config,
    database,
    logger: createLogger({ level: 'silent' }),
    secret: TEST_SECRET,
    authCache: false,
    optionsCache: false,
    now: () => clock.now,
  });
  await built.ctx.options.set('siteurl', 'http://cms.test');
  await built.ctx.options.set('home', 'http://cms.test');
  const ids = {} as Record<Login, number>;
  const passwords = {} as Record<Login, string>;
  for (const [login, role] of Object.entries(USERS) as Array<[Login, string]>) {
    ids[login] = await built.ctx.users.insert({
      login,
      pass_hash: 'scrypt$1$1$1$x$x',
      nicename: login,
      email: `${login}@example.test`,
      url: '',
      registered: '2023-01-01 00:00:00',
      display_name: login,
      first_name: '',
      last_name: '',
      nickname: login,
      description: '',
      locale: '',
      roles: [role],
    });
    const password = generateApplicationPassword();
    await built.appPasswords.insert({
      uuid: newUuid(),
      user_id: ids[login],
      name: 'tests',
      app_id: '',
      password_hash: hashApplicationPassword(password, TEST_SECRET),
      created: 1_700_000_000,
      last_used: null,
      last_ip: null,
    });
    passwords[login] = chunkPassword(password);
  }
  const runtime = contentRuntimeOf(built.ctx);
  if (!runtime) throw new Error('the content module is not registered');
  await built.app.ready();
  const call = ({ as, ...rest }: InjectOptions & { as?: Login }) => {
    const headers = { ...(rest.headers ?? {}) } as Record<string, string>;
    if (as) headers.authorization = basic(as, passwords[as]);
    return built.app.inject({ ...rest, headers });
  };
  return {
    ...built,
    database,
    runtime,
    ids,
    passwords,
    clock,
    call,
    get: (path, as) => call({ method: 'GET', url: `/cms-json/cms/v2${path}`, ...(as ? { as } : {}) }),
    post: (path, body, as) =>
      call({
        method: 'POST',
        url: `/cms-json/cms/v2${path}`,
        payload: body as InjectOptions['payload'],
        ...(as ? { as } : {}),
      }),
    del: (path, as) => call({ method: 'DELETE', url: `/cms-json/cms/v2${path}`, ...(as ? { as } : {}) }),
    make: (type, { owner, ...write }) =>
      runtime.service.create(
        type,
        { ...write, authorId: ids[owner ?? 'admin'] },
        { actorId: ids.admin, canPublish: true },
      ),
    async close() {
      runtime.scheduler.stop();
      await built.app.close();
      await database.close();
    },
  };
}
