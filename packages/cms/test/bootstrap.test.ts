import { createLogger } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { installIfNeeded } from '../src/bootstrap.ts';
import { loadCmsConfig } from '../src/config.ts';
import { allMigrations, MIGRATION_TABLE } from '../src/db/connection.ts';
import type { CmsDatabase } from '../src/db/schema.ts';
import { basic, TEST_SECRET } from './helpers/cms-test-app.ts';

describe('first start', () => {
  it('creates the administrator and an application password once, then does nothing', async () => {
    const database = await testDialects()[0]!.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
    try {
      const config = loadCmsConfig({
        env: {
          DATA_DIR: '/tmp/cms-unused',
          CMS_SITE_URL: 'https://cms.example.com/',
          CMS_ADMIN_EMAIL: 'owner@example.com',
          CMS_SEED_SAMPLE: 'false',
        },
      });
      const cms = await buildApp({
        config,
        database,
        logger: createLogger({ level: 'silent' }),
        secret: TEST_SECRET,
        authCache: false,
        optionsCache: false,
      });
      const first = await installIfNeeded(cms, config);
      expect(first).not.toBeNull();
      expect(first!.login).toBe('admin');
      expect(first!.password).toMatch(/^[A-Za-z0-9]{24}$/);
      expect(first!.applicationPassword).toMatch(/^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/);
      expect(await installIfNeeded(cms, config)).toBeNull();
      const me = await cms.app.inject({
        method: 'GET',
        url: '/cms-json/cms/v2/users/me?context=edit',
        headers: { authorization: basic('admin', first!.applicationPassword) },
      });
      expect(me.json()).toMatchObject({ username: 'admin', email: 'owner@example.com', roles: ['administrator'] });
      expect(me.json()._links.self[0].href).toBe(`https://cms.example.com/cms-json/cms/v2/users/${me.json().id}`);
      await cms.app.close();
    } finally {
      await database.close();
    }
  });
});
