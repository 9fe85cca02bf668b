/**
 * The WordPress oracle's seeded data set (../shared/oracle/seed.php), rebuilt in a CMS through the
 * content service: the same users, categories, tags, 1,000 posts, the anchor post, the 14 non-public
 * posts and 50 pages, with the same ids, slugs, dates and texts. The seed draws its texts from PHP's
 * mt_rand seeded with 20240601; this file reproduces that generator (MT19937 with PHP's range
 * reduction), so the oracle's captured responses can be compared field by field with ours.
 */
import { createLogger } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type CmsApp } from '../../src/app.ts';
import {
  chunkPassword,
  generateApplicationPassword,
  hashApplicationPassword,
  newUuid,
} from '../../src/auth/application-passwords.ts';
import { loadCmsConfig } from '../../src/config.ts';
import type { ContentService } from '../../src/content/content-service.ts';
import { contentRuntimeOf } from '../../src/content/module.ts';
import { allMigrations, MIGRATION_TABLE } from '../../src/db/connection.ts';
import type { CmsDatabase } from '../../src/db/schema.ts';
import { basic, TEST_SECRET } from './cms-test-app.ts';
import { CATEGORIES, gmdate, ORACLE_USERS, oraclePlan, TAGS } from './oracle-plan.ts';

export { ORACLE_USERS, oraclePlan, PhpMtRand } from './oracle-plan.ts';

/** A CMS holding the oracle's data set, its users able to call the API. */
export interface OracleCms extends CmsApp {
  close(): Promise<void>;
  call(options: InjectOptions & { as?: string }): Promise<LightMyRequestResponse>;
  service: ContentService;
  passwords: Record<string, string>;
}

const SAMPLE_PAGE = [
  "<!-- wp:paragraph -->\n<p>This is an example page. It's different from a blog post because it will stay in one place and will show up in your site navigation (in most themes). Most people start with an About page that introduces them to potential site visitors. It might say something like this:</p>\n<!-- /wp:paragraph -->",
  '<!-- wp:quote -->\n<blockquote class="wp-block-quote"><p>Hi there! I\'m a bike messenger by day, aspiring actor by night, and this is my website. I live in Los Angeles, have a great dog named Jack, and I like pi&#241;a coladas. (And gettin\' caught in the rain.)</p></blockquote>\n<!-- /wp:quote -->',
  '<!-- wp:paragraph -->\n<p>...or something like this:</p>\n<!-- /wp:paragraph -->',
  '<!-- wp:quote -->\n<blockquote class="wp-block-quote"><p>The XYZ Doohickey Company was founded in 1971, and has been providing quality doohickeys to the public ever since. Located in Gotham City, XYZ employs over 2,000 people and does all kinds of awesome things for the Gotham community.</p></blockquote>\n<!-- /wp:quote -->',
  '<!-- wp:paragraph -->\n<p>As a new WordPress user, you should go to <a href="http://127.0.0.1:8088/wp-admin/">your dashboard</a> to delete this page and create new pages for your content. Have fun!</p>\n<!-- /wp:paragraph -->',
].join('\n\n');

const FIXED = '2023-01-01 00:00:00';

/**
 * Builds a CMS (SQLite) at http://127.0.0.1:8088 with the oracle's data set. Takes a few seconds. The
 * clock stands at the moment the fixtures were captured unless `now` says otherwise.
 */
export async function createOracleCms(now: () => Date = () => new Date('2026-11-21T02:08:59Z')): Promise<OracleCms> {
  const dialect = testDialects()[0]!;
  const database = await dialect.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
  const config = loadCmsConfig({ env: { DATA_DIR: '/tmp/cms-test-unused', CMS_SECRET: TEST_SECRET } });
  const built = await buildApp({
    config,
    database,
    logger: createLogger({ level: 'silent' }),
    secret: TEST_SECRET,
    optionsCache: false,
    now,
  });
  const { ctx } = built;
  const home = 'http://127.0.0.1:8088';
  await ctx.options.set('siteurl', home);
  await ctx.options.set('home', home);
  await ctx.options.set('blogname', 'WordPress Oracle');
  const userIds: Record<string, number> = {};
  const passwords: Record<string, string> = {};
  for (const [login, role, display] of ORACLE_USERS) {
    userIds[login] = await ctx.users.insert({
      login,
      pass_hash: 'scrypt$1$1$1$x$x',
      nicename: login,
      email: `${login}@example.test`,
      url: login === 'admin' ? home : `https://example.test/~${login}`,
      registered: FIXED,
      display_name: display,
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
      user_id: userIds[login]!,
      name: 'tests',
      app_id: '',
      password_hash: hashApplicationPassword(password, TEST_SECRET),
      created: 1_700_000_000,
      last_used: null,
      last_ip: null,
    });
    passwords[login] = chunkPassword(password);
  }
  const catIds: Record<string, number> = {};
  for (const [slug, name, parent, description] of CATEGORIES) {
    catIds[slug] = await ctx.terms.insert({
      taxonomy: 'category',
      name,
      slug,
      description,
      parent: parent ? (catIds[parent] ?? 0) : 0,
    });
  }
  const tagIds: Record<string, number> = {};
  for (const name of TAGS) {
    tagIds[name] = await ctx.terms.insert({
      taxonomy: 'post_tag',
      name,
      slug: name.replace(/ /g, '-'),
      description: '',
      parent: 0,
    });
  }
  const runtime = contentRuntimeOf(ctx);
  if (!runtime) throw new Error('the content module is not registered');
  const service = runtime.service;
  const admin = { actorId: userIds.admin!, canPublish: true };
  // Install defaults: written directly (WordPress inserts them with fixed values).
  const repo = service.repo;
  const row = {
    authorId: 1,
    parentId: 0,
    menuOrder: 0,
    excerpt: '',
    password: '',
    dateLocal: FIXED,
    dateGmt: FIXED,
    modifiedLocal: FIXED,
    modifiedGmt: FIXED,
    commentCount: 0,
    mimeType: '',
    format: '',
    template: '',
    featuredMedia: 0,
  };
  const hello = await repo.insert({
    ...row,
    type: 'post',
    status: 'publish',
    title: 'Hello world!',
    content:
      '<!-- wp:paragraph -->\n<p>Welcome to WordPress. This is your first post. Edit or delete it, then start writing!</p>\n<!-- /wp:paragraph -->',
    slug: 'hello-world',
    commentStatus: 'open',
    pingStatus: 'open',
    commentCount: 1,
    guid: `${home}/?p=1`,
  });
  await repo.setTerms(hello, 'category', [1]);
  await repo.insert({
    ...row,
    type: 'page',
    status: 'publish',
    title: 'Sample Page',
    // WordPress's install text (the one page most queries reach); the draft privacy policy is abridged.
    content: SAMPLE_PAGE,
    slug: 'sample-page',
    commentStatus: 'closed',
    pingStatus: 'open',
    guid: `${home}/?page_id=2`,
  });
  await repo.insert({
    ...row,
    type: 'page',
    status: 'draft',
    title: 'Privacy Policy',
    content: '<!-- wp:heading -->\n<h2>Who we are</h2>\n<!-- /wp:heading -->',
    slug: 'privacy-policy',
    commentStatus: 'closed',
    pingStatus: 'open',
    guid: `${home}/?page_id=3`,
  });
  const { plan, extra, pages, sticky } = oraclePlan();
  const ids: Record<number, number> = {};
  for (const p of plan) {
    const post = await service.create(
      'post',
      {
        title: p.title,
        content: p.content,
        excerpt: p.excerpt,
        status: 'publish',
        date: { local: p.date, gmt: p.date },
        ...(p.slug ? { slug: p.slug } : {}),
        authorId: userIds[p.author]!,
        commentStatus: p.commentStatus,
        pingStatus: 'open',
        password: p.password,
        terms: {
          category: p.cats.length > 0 ? p.cats.map((c) => catIds[c]!) : [1],
          post_tag: p.tags.map((t) => tagIds[t]!),
        },
      },
      admin,
    );
    ids[p.k] = post.id;
    if (p.modified) await repo.update(post.id, { modifiedLocal: p.modified, modifiedGmt: p.modified });
  }
  await ctx.options.set(
    'sticky_posts',
    sticky.map((k) => ids[k]),
  );
  for (const [status, title, author, date, body] of extra) {
    await service.create(
      'post',
      {
        title,
        content: body ?? '',
        status,
        date: status === 'draft' || status === 'pending' ? { local: date, gmt: '' } : { local: date, gmt: date },
        authorId: userIds[author]!,
      },
      { actorId: userIds.admin!, canPublish: true },
    );
  }
  const pageIds: Record<string, number> = {};
  const pageDate = Date.UTC(2023, 0, 1, 12, 0, 0) / 1000;
  for (const [i, pg] of pages.entries()) {
    const d = gmdate(pageDate + i * 3600);
    const content = `<!-- wp:paragraph -->\n<p>${pg.content.replace(/\n\n/g, '</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>')}</p>\n<!-- /wp:paragraph -->`;
    const page = await service.create(
      'page',
      {
        title: pg.title,
        content,
        status: 'publish',
        authorId: i % 2 ? userIds.edna! : 1,
        parentId: pg.parent ? pageIds[pg.parent]! : 0,
        menuOrder: pg.order,
        date: { local: d, gmt: d },
      },
      admin,
    );
    if (!pg.parent) pageIds[pg.title] = page.id;
  }
  await built.app.ready();
  return {
    ...built,
    service,
    passwords,
    call({ as, ...options }) {
      const headers = { ...(options.headers ?? {}) } as Record<string, string>;
      if (as) headers.authorization = basic(as, passwords[as]!);
      return built.app.inject({ ...options, headers });
    },
    async close() {
      await built.app.close();
      await database.close();
    },
  };
}
