/**
 * A CMS for the site module's endpoint tests: the standard test CMS with uploads in a fresh temporary
 * folder (files can be inspected and never collide between test files) and a fixed upload month.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type TestDialect, testDialects } from '@svc/platform/testing';
import { LocalDiskStorage, MediaLibrary } from '../../src/media/index.ts';
import { type SiteRuntime, siteRuntimeOf } from '../../src/site/site-runtime.ts';
import { createTestCms, type TestCms } from './cms-test-app.ts';

export interface SiteTestCms extends TestCms {
  site: SiteRuntime;
  uploadsDir: string;
}

/** The month folder uploads go to in these tests. */
export const UPLOAD_MONTH = '2026/11';

/**
 * The dialect of the site tests: SQLite, or PostgreSQL with `SITE_TEST_DIALECT=postgres` (and
 * `TEST_DATABASE_URL`), to run the same suites on both stores.
 */
function siteDialect(): TestDialect | undefined {
  if (process.env.SITE_TEST_DIALECT !== 'postgres') return undefined;
  const pg = testDialects().find((d) => d.name === 'postgres');
  if (!pg || pg.skip)
    throw new Error(`SITE_TEST_DIALECT=postgres needs TEST_DATABASE_URL (${pg?.skip || 'no dialect'})`);
  return pg;
}

export async function createSiteTestCms(dialect: TestDialect | undefined = siteDialect()): Promise<SiteTestCms> {
  const cms = await createTestCms(dialect);
  const site = siteRuntimeOf(cms.ctx);
  if (!site) throw new Error('the site module is not registered');
  const uploadsDir = await mkdtemp(path.join(tmpdir(), 'cms-uploads-'));
  site.media = new MediaLibrary({
    storage: new LocalDiskStorage({ root: uploadsDir, baseUrl: '' }),
    maxUploadBytes: 8 * 1024 * 1024,
    now: () => new Date('2026-11-21T12:00:00Z'),
  });
  const close = cms.close;
  return {
    ...cms,
    site,
    uploadsDir,
    async close() {
      await close();
      await rm(uploadsDir, { recursive: true, force: true });
    },
  };
}
