/**
 * A migrated database (kernel + content tables) with the repositories the content service needs, for
 * tests of the content model below the REST layer.
 */
import type { Database } from '@svc/platform';
import type { TestDialect } from '@svc/platform/testing';
import { ContentService } from '../../src/content/content-service.ts';
import { contentMigrations } from '../../src/content/migrations/index.ts';
import { coreMigrations } from '../../src/db/migrations/index.ts';
import { OptionsRepository } from '../../src/db/options-repository.ts';
import type { CmsDatabase } from '../../src/db/schema.ts';
import { TermsRepository } from '../../src/db/terms-repository.ts';
import '../../src/content/schema.ts';

export interface ContentFixture {
  database: Database<CmsDatabase>;
  options: OptionsRepository;
  terms: TermsRepository;
  service: ContentService;
  /** The clock the service reads; tests move it. */
  clock: { now: Date };
  close(): Promise<void>;
}

/** Opens a fresh database on `dialect` with a content service whose clock starts at `start`. */
export async function openContentFixture(
  dialect: TestDialect,
  start = '2024-03-01T12:00:00Z',
): Promise<ContentFixture> {
  const database = await dialect.open<CmsDatabase>(
    { ...coreMigrations, ...contentMigrations },
    { migrationTable: 'cms_migrations' },
  );
  const options = new OptionsRepository(database.db, { cached: false });
  await options.set('home', 'http://cms.test');
  await options.set('siteurl', 'http://cms.test');
  const terms = new TermsRepository(database.db);
  const clock = { now: new Date(start) };
  const service = new ContentService({
    db: database.db,
    dialect: database.dialect,
    options,
    terms,
    now: () => clock.now,
  });
  return { database, options, terms, service, clock, close: () => database.close() };
}
