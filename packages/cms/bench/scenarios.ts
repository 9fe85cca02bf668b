/**
 * What `npm run bench` measures. Each scenario is one request shape, run against our CMS and, when the
 * WordPress oracle runs on this machine, against WordPress with the same path in `wp` spelling. Part B
 * adds its posts scenarios here (one entry per shape) and its data through `prepare`.
 */
import { makeImage } from '../test/helpers/media-fixtures.ts';
import { CATEGORIES, oraclePlan, TAGS } from '../test/helpers/oracle-plan.ts';
import type { BenchTarget } from './target.ts';

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  /**
   * Path under the API root, `cms` spelling (e.g. `/cms/v2/users`); mapped to `wp/v2` for the oracle. A
   * function gets the target's label, for paths that differ per target (a post's id).
   */
  path: string | ((target: string) => string);
  /** Send the administrator's application password. */
  auth?: boolean;
  /** A JSON body per request (called for each request, so creates can be unique). */
  body?: (n: number) => Record<string, unknown>;
  /** Whether to run it against the oracle too (false for writes that would leave data behind). */
  oracle?: boolean;
  /** The path is a public site page (under the site root), not an API route. */
  site?: boolean;
  /** Extra request headers (an upload's Content-Type and Content-Disposition). */
  headers?: Record<string, string>;
  /** A fixed binary body (an upload), sent as is. */
  rawBody?: () => Buffer;
}

/** The root a scenario's path is under: the API root, or the site root for site pages. */
export function scenarioRoot(scenario: Scenario, target: BenchTarget): string {
  return scenario.site ? target.apiRoot.replace(/\/(?:cms|wp)-json$/, '') : target.apiRoot;
}

/** The path of a scenario for a target. */
export function scenarioPath(scenario: Scenario, target: BenchTarget): string {
  return typeof scenario.path === 'function' ? scenario.path(target.label) : scenario.path;
}

/** Ids on our side of the data the posts scenarios use (the oracle has its own, fixed ones). */
const posts = { anchor: 0, anchorPath: '/', category: 0, tags: [] as number[] };

/** Sets those ids when the data was prepared by an earlier run (bench/inject.ts reuses its database). */
export function setPreparedIds(ids: typeof posts): void {
  Object.assign(posts, ids);
}

/** The JPEG the upload scenario sends: 1600x1200, so every default sub-size up to 1536 is made. */
let uploadJpeg: Buffer = Buffer.alloc(0);

/**
 * The oracle's 1,000 posts (same titles, texts, dates, terms, excerpts and sticky posts, from its seed
 * plan), created through the API so the posts scenarios read comparable data on both sides.
 */
async function preparePosts(target: BenchTarget): Promise<void> {
  const categoryIds: Record<string, number> = {};
  for (const [slug, name, parent, description] of CATEGORIES) {
    const body: Record<string, unknown> = { name, slug, description };
    if (parent) body.parent = categoryIds[parent];
    categoryIds[slug] = (await target.post('/cms/v2/categories', body)).id;
  }
  const tagIds: Record<string, number> = {};
  for (const name of TAGS) tagIds[name] = (await target.post('/cms/v2/tags', { name })).id;
  const { plan, sticky } = oraclePlan();
  for (const p of plan) {
    const created = await target.post('/cms/v2/posts', {
      title: p.title,
      content: p.content,
      excerpt: p.excerpt,
      status: 'publish',
      date: p.date.replace(' ', 'T'),
      ...(p.slug ? { slug: p.slug } : {}),
      comment_status: p.commentStatus,
      password: p.password,
      sticky: sticky.includes(p.k),
      categories: p.cats.length > 0 ? p.cats.map((c) => categoryIds[c]) : [1],
      tags: p.tags.map((t) => tagIds[t]),
    });
    if (p.k === 500) {
      posts.anchor = created.id;
      posts.anchorPath = new URL((created as { link?: string }).link ?? '/').pathname;
    }
  }
  posts.category = categoryIds.technology ?? 1;
  posts.tags = [tagIds.rest ?? 0, tagIds.json ?? 0];
}

/** Extra data a scenario needs on our side, created once before measuring. */
export async function prepare(target: BenchTarget): Promise<void> {
  await preparePosts(target);
  uploadJpeg = await makeImage(1600, 1200, 'jpeg');
  // 30 categories (10 top-level, 2 children each) and 30 tags, like the oracle's seed.
  for (let i = 1; i <= 10; i++) {
    const parent = await target.post('/cms/v2/categories', { name: `bench section ${i}` });
    for (let j = 1; j <= 2; j++)
      await target.post('/cms/v2/categories', { name: `bench topic ${i}.${j}`, parent: parent.id });
  }
  for (let i = 1; i <= 30; i++) await target.post('/cms/v2/tags', { name: `bench tag ${i}` });
}

export const scenarios: Scenario[] = [
  { name: 'GET / (index)', method: 'GET', path: '/', oracle: true },
  { name: 'GET categories (per_page=10)', method: 'GET', path: '/cms/v2/categories', oracle: true },
  { name: 'GET tags?per_page=100', method: 'GET', path: '/cms/v2/tags?per_page=100', oracle: true },
  { name: 'GET users/me (auth)', method: 'GET', path: '/cms/v2/users/me?context=edit', auth: true, oracle: true },
  { name: 'GET users (auth, edit)', method: 'GET', path: '/cms/v2/users?context=edit', auth: true, oracle: true },
  {
    name: 'POST tags (create)',
    method: 'POST',
    path: '/cms/v2/tags',
    auth: true,
    body: (n) => ({ name: `bench create ${process.pid}-${Date.now()}-${n}` }),
    oracle: false,
  },
  { name: 'GET posts (per_page=10)', method: 'GET', path: '/cms/v2/posts', oracle: true },
  { name: 'GET posts?per_page=100', method: 'GET', path: '/cms/v2/posts?per_page=100', oracle: true },
  {
    name: 'GET posts/{anchor}',
    method: 'GET',
    path: (target) => `/cms/v2/posts/${target === 'wordpress' ? 504 : posts.anchor}`,
    oracle: true,
  },
  { name: 'GET posts?search=nebula', method: 'GET', path: '/cms/v2/posts?search=nebula', oracle: true },
  {
    name: 'GET posts?context=edit (auth)',
    method: 'GET',
    path: '/cms/v2/posts?context=edit',
    auth: true,
    oracle: true,
  },
  {
    name: 'POST posts (create, publish)',
    method: 'POST',
    path: '/cms/v2/posts',
    auth: true,
    body: (n) => ({
      title: `bench create ${process.pid} ${n}`,
      content: '<!-- wp:paragraph -->\n<p>Benchmark post body.</p>\n<!-- /wp:paragraph -->',
      status: 'publish',
      categories: [posts.category],
      tags: posts.tags,
    }),
    // Creates would stay in the oracle's database; its figures are in ../shared/oracle/RESULTS.md.
    oracle: false,
  },
  // The public site (issue 7): the anchor post's page as visitors get it, and the front page. Not run
  // against the oracle: its front end answers every page with a 301 to the same URL on this machine
  // (WordPress's canonical redirect sees another host than its `home`), so its figures would be redirects.
  {
    name: 'GET site: post page',
    method: 'GET',
    site: true,
    path: (target) => (target === 'wordpress' ? '/oracle-anchor-post/' : posts.anchorPath),
    oracle: false,
  },
  { name: 'GET site: front page', method: 'GET', site: true, path: '/', oracle: false },
  {
    name: 'POST media (upload 1600x1200 JPEG, sub-sizes)',
    method: 'POST',
    path: '/cms/v2/media',
    auth: true,
    headers: { 'content-type': 'image/jpeg', 'content-disposition': 'attachment; filename="bench.jpg"' },
    rawBody: () => uploadJpeg,
    // Uploads would stay in the oracle's media library.
    oracle: false,
  },
];
