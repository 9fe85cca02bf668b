import { createLogger } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { applySiteUrl, installIfNeeded } from '../src/bootstrap.ts';
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

  it('applies CMS_SITE_URL at every start, so a site moves by setting it and restarting', async () => {
    const database = await testDialects()[0]!.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
    const start = async (env: Record<string, string>) => {
      const config = loadCmsConfig({ env: { DATA_DIR: '/tmp/cms-unused', CMS_SEED_SAMPLE: 'false', ...env } });
      const cms = await buildApp({
        config,
        database,
        logger: createLogger({ level: 'silent' }),
        secret: TEST_SECRET,
        authCache: false,
        optionsCache: false,
      });
      await installIfNeeded(cms, config);
      await applySiteUrl(cms, config);
      const index = (await cms.app.inject({ url: '/cms-json/' })).json();
      await cms.app.close();
      return { url: index.url, home: index.home };
    };
    try {
      expect(await start({ CMS_SITE_URL: 'https://old.example.com' })).toEqual({
        url: 'https://old.example.com',
        home: 'https://old.example.com',
      });
      // A later start with another URL: the site answers with it, as WordPress with WP_HOME and WP_SITEURL.
      expect(await start({ CMS_SITE_URL: 'https://new.example.com/' })).toEqual({
        url: 'https://new.example.com',
        home: 'https://new.example.com',
      });
      // Unset: the stored URL stays.
      expect(await start({})).toEqual({ url: 'https://new.example.com', home: 'https://new.example.com' });
    } finally {
      await database.close();
    }
  });

  it('names the variable when the first administrator cannot be created from it', async () => {
    const attempt = async (env: Record<string, string>) => {
      const database = await testDialects()[0]!.open<CmsDatabase>(allMigrations(), {
        migrationTable: MIGRATION_TABLE,
      });
      try {
        const config = loadCmsConfig({ env: { DATA_DIR: '/tmp/cms-unused', CMS_SEED_SAMPLE: 'false', ...env } });
        const cms = await buildApp({
          config,
          database,
          logger: createLogger({ level: 'silent' }),
          secret: TEST_SECRET,
        });
        try {
          await installIfNeeded(cms, config);
          return 'installed';
        } catch (err) {
          return (err as Error).message;
        } finally {
          await cms.app.close();
        }
      } finally {
        await database.close();
      }
    };
    expect(await attempt({ CMS_ADMIN_EMAIL: 'not-an-email' })).toBe(
      'Invalid configuration: CMS_ADMIN_EMAIL "not-an-email" cannot be the first administrator\'s: Invalid email address.',
    );
    expect(await attempt({ CMS_ADMIN_LOGIN: '<b>' })).toBe(
      'Invalid configuration: CMS_ADMIN_LOGIN "<b>" cannot be the first administrator\'s: Cannot create a user with an empty login name.',
    );
    expect(await attempt({ CMS_ADMIN_EMAIL: `${'a'.repeat(100)}@example.com` })).toMatch(
      /^Invalid configuration: CMS_ADMIN_EMAIL "a+@example\.com" cannot be the first administrator's: Could not insert user into the database\.$/,
    );
  });
});
