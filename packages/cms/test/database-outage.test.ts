import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, type Database, openDatabase } from '@svc/platform';
import { TcpRelay, testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type CmsApp } from '../src/app.ts';
import { installIfNeeded } from '../src/bootstrap.ts';
import { loadCmsConfig } from '../src/config.ts';
import { allMigrations, MIGRATION_TABLE } from '../src/db/connection.ts';
import type { CmsDatabase } from '../src/db/schema.ts';
import { basic, TEST_SECRET } from './helpers/cms-test-app.ts';

const postgres = testDialects().find((d) => d.name === 'postgres')!;

/**
 * PostgreSQL restarting or out of reach while the CMS serves: REST requests answer 503 `rest_unavailable` in
 * WordPress's error shape (before, a 500 with the HTTP framework's body and the driver's message), the process
 * survives requests in flight when the connection drops, and serves again by itself once it is back.
 */
describe.skipIf(postgres.skip)(`the CMS while PostgreSQL is away (${postgres.label})`, () => {
  const url = process.env.TEST_DATABASE_URL || 'postgres://127.0.0.1:5432/test';
  const relay = TcpRelay.forUrl(url, 5432);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cms-db-outage-'));
  let owner: Database<CmsDatabase>;
  let database: Database<CmsDatabase>;
  let cms: CmsApp;
  let authorization: string;

  beforeAll(async () => {
    owner = await postgres.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
    const schema = (
      await owner.db.selectNoFrom((eb) => eb.fn<string>('current_schema').as('s')).executeTakeFirstOrThrow()
    ).s;
    await relay.up();
    database = await openDatabase<CmsDatabase>({ url: relay.urlThrough(url), pgSchema: schema });
    const config = loadCmsConfig({ env: { DATA_DIR: dataDir, CMS_SEED_SAMPLE: 'false' } });
    cms = await buildApp({ config, database, logger: createLogger({ level: 'silent' }), secret: TEST_SECRET });
    const first = await installIfNeeded(cms, config);
    authorization = basic(first!.login, first!.applicationPassword);
  });
  afterAll(async () => {
    await cms?.app.close();
    await database?.close();
    await relay.down();
    await owner?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 rest_unavailable while the database is out of reach, and serves again once it is back', async () => {
    expect((await cms.app.inject({ url: '/cms-json/cms/v2/posts' })).statusCode).toBe(200);

    await relay.down();
    for (const headers of [{}, { authorization }]) {
      for (const route of ['/cms-json/cms/v2/posts', '/cms-json/', '/?rest_route=/cms/v2/users/me']) {
        const res = await cms.app.inject({ url: route, headers });
        expect(res.statusCode).toBe(503);
        expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
        expect(res.json()).toEqual({
          code: 'rest_unavailable',
          message: 'The site is temporarily unavailable.',
          data: { status: 503 },
        });
      }
    }
    expect((await cms.app.inject({ url: '/readyz' })).statusCode).toBe(503);

    await relay.up();
    expect((await cms.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const back = await cms.app.inject({ url: '/cms-json/cms/v2/users/me', headers: { authorization } });
    expect(back.statusCode).toBe(200);
  });
});
