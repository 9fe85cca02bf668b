/**
 * Posts and pages next to the real WordPress, on the same data: the oracle's seed is rebuilt here
 * (helpers/oracle-dataset.ts), then
 * - the captured fixtures (views, contexts, _fields, lists, search, sticky, statuses, errors, create,
 *   update, trash, delete) are compared field by field with our responses to the same requests;
 * - when the oracle runs on this machine, a battery of list and item requests (every filter and order)
 *   is sent to both and the answers compared.
 * Brand words are mapped (wp -> cms). The differences kept on purpose are filtered by `known` and
 * listed in the README.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wpToCms } from './helpers/brand.ts';
import { jsonDiff } from './helpers/json-diff.ts';
import { createOracleCms, type OracleCms } from './helpers/oracle-dataset.ts';
import { fixture, fixtureHeaders, fixturesSkip, ORACLE_URL, oracleAuthorization } from './helpers/oracle-fixtures.ts';

const HOST = { from: 'http://127.0.0.1:8088', to: 'http://127.0.0.1:8088' };
const ORACLE = ORACLE_URL;

/**
 * Differences on purpose: `meta` holds the spec's registered keys (WordPress 6.1 has none and shows
 * `[]`); there is no comments API, so the embedded `replies` link answers `rest_no_route`.
 */
function known(line: string): boolean {
  return (
    /(^|\.)meta: ours \{"_cf_changed":false,"inline_featured_image":false(,"footnotes":"")?\}, oracle \[\]$/.test(
      line,
    ) || /^(\[\d+\]\.)?_embedded\.replies: /.test(line)
  );
}

function compare(ours: unknown, oracle: unknown): string[] {
  return jsonDiff(ours, wpToCms(oracle, HOST)).filter((line) => !known(line));
}

async function oracleUp(): Promise<boolean> {
  try {
    const res = await fetch(`${ORACLE}/wp-json/wp/v2/posts/504?_fields=id`, { signal: AbortSignal.timeout(5000) });
    return res.ok && ((await res.json()) as { id?: number }).id === 504;
  } catch {
    return false;
  }
}

const adminAuthorization = oracleAuthorization();
const live = (await oracleUp()) && adminAuthorization !== null;

describe('posts and pages compared with WordPress on the same data', () => {
  let cms: OracleCms;
  beforeAll(async () => {
    cms = await createOracleCms();
  }, 180_000);
  afterAll(async () => cms?.close());

  describe.skipIf(fixturesSkip)('captured fixtures', () => {
    const views: Array<[name: string, url: string, as?: string]> = [
      ['post-view', '/posts/504'],
      ['post-view-authenticated', '/posts/504', 'admin'],
      ['post-edit-context', '/posts/504?context=edit', 'admin'],
      ['post-view-context-embed', '/posts/504?context=embed'],
      ['post-fields-filter', '/posts/504?_fields=id,title,_links'],
      ['post-by-slug', '/posts?slug=oracle-anchor-post'],
      ['posts-list', '/posts'],
      ['posts-list-page2', '/posts?page=2'],
      ['posts-list-search-nebula', '/posts?search=nebula&per_page=5'],
      ['posts-list-sticky', '/posts?sticky=true'],
      ['posts-list-status-any-edit', '/posts?status=draft,pending,private,future&context=edit&per_page=20', 'admin'],
      ['posts-list-page-out-of-range', '/posts?page=1000'],
      ['error-404-post-not-found', '/posts/999999'],
      ['error-400-per-page-too-big', '/posts?per_page=1000'],
      ['error-400-multiple-invalid', '/posts?per_page=0&orderby=bogus&context=nope'],
      ['error-401-edit-context', '/posts/504?context=edit'],
    ];
    it.each(views)('%s: same status, body and paging headers', async (name, url, as) => {
      const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2${url}`, ...(as ? { as } : {}) });
      const { status, headers } = fixtureHeaders(name);
      expect(res.statusCode).toBe(status);
      expect(compare(res.json(), fixture(name))).toEqual([]);
      if (headers['x-wp-total']) {
        expect(res.headers['x-cms-total']).toBe(headers['x-wp-total']);
        expect(res.headers['x-cms-totalpages']).toBe(headers['x-wp-totalpages']);
      }
      if (headers.link) expect(res.headers.link).toBe(wpToCms(headers.link, HOST));
    });

    it('the embedded author and terms of the anchor post (_embed)', async () => {
      const res = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/posts/504?_embed' });
      const { _embedded: ourEmbeds, ...ours } = res.json();
      const { _embedded: theirEmbeds, ...theirs } = fixture('post-view-with-_embed');
      expect(compare(ours, theirs)).toEqual([]);
      expect(ourEmbeds['cms:term']).toEqual((wpToCms(theirEmbeds, HOST) as Record<string, unknown>)['cms:term']);
      expect(ourEmbeds.author[0].id).toBe(1);
    });

    it('creates, updates, trashes and deletes like WordPress (post-create, post-update, post-delete-*)', async () => {
      const create = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/posts',
        as: 'admin',
        payload: {
          title: 'oracle fixture create',
          content: '<p>Hello from the fixture script.</p>',
          status: 'publish',
          categories: [3],
          tags: [16],
        },
      });
      expect(create.statusCode).toBe(201);
      expect(compare(create.json(), fixture('post-create'))).toEqual([]);
      expect(create.headers.location).toBe(wpToCms(fixtureHeaders('post-create').headers.location, HOST));
      const update = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/posts/1068',
        as: 'admin',
        payload: { excerpt: 'Updated excerpt.', sticky: false },
      });
      expect(update.statusCode).toBe(200);
      expect(compare(update.json(), fixture('post-update'))).toEqual([]);
      const trash = await cms.call({ method: 'DELETE', url: '/cms-json/cms/v2/posts/1068', as: 'admin' });
      expect(trash.statusCode).toBe(200);
      expect(compare(trash.json(), fixture('post-delete-trash'))).toEqual([]);
      const again = await cms.call({ method: 'DELETE', url: '/cms-json/cms/v2/posts/1068', as: 'admin' });
      expect(again.statusCode).toBe(410);
      expect(again.json().code).toBe('rest_already_trashed');
      const force = await cms.call({ method: 'DELETE', url: '/cms-json/cms/v2/posts/1068?force=true', as: 'admin' });
      expect(force.statusCode).toBe(200);
      expect(compare(force.json(), fixture('post-delete-force'))).toEqual([]);
      const gone = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/posts/1068', as: 'admin' });
      expect(gone.statusCode).toBe(404);
    });

    it('refuses a create without credentials with the same 401 body', async () => {
      const res = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/posts',
        payload: { title: 'oracle fixture unauth' },
      });
      expect(res.statusCode).toBe(401);
      expect(compare(res.json(), fixture('error-401-create-no-auth'))).toEqual([]);
    });
  });

  describe.skipIf(!live)('the live oracle (same requests to both)', () => {
    const anonymous = [
      'posts?per_page=3&orderby=title&order=asc',
      'posts?per_page=3&orderby=title',
      'posts?per_page=5&orderby=id&order=asc',
      'posts?per_page=5&orderby=modified',
      'posts?per_page=5&orderby=slug&order=asc',
      'posts?per_page=5&categories=3',
      'posts?per_page=5&categories[terms]=3&categories[include_children]=1',
      'posts?per_page=5&categories[terms]=3,4&categories[operator]=AND',
      'posts?per_page=5&tags=15,16&tax_relation=OR&categories=2',
      'posts?per_page=5&tags=15&categories_exclude=2',
      'posts?per_page=5&tags_exclude=15,16,17',
      'posts?per_page=5&search=nebula&orderby=relevance',
      'posts?per_page=5&search=river%20mountain&orderby=relevance',
      'posts?per_page=5&search=%22the%20nebula%20glowed%22',
      'posts?per_page=5&search=nebula%20-river',
      'posts?per_page=5&after=2023-06-01T00:00:00&order=asc',
      'posts?per_page=5&before=2023-03-01T00:00:00',
      'posts?per_page=5&after=2023-06-01T00:00:00Z&before=2023-06-10T00:00:00',
      'posts?per_page=5&modified_after=2023-12-01T00:00:00',
      'posts?per_page=5&modified_before=2023-01-10T00:00:00',
      'posts?per_page=5&author=2,3',
      'posts?per_page=5&author_exclude=1',
      'posts?per_page=5&include=10,5,7&orderby=include',
      'posts?per_page=5&include=10,5,7&exclude=5',
      'posts?per_page=5&exclude=1003,1002',
      'posts?per_page=5&offset=7',
      'posts?per_page=5&slug=oracle-anchor-post,hello-world&orderby=include_slugs',
      'posts?per_page=5&sticky=false',
      'posts?per_page=5&sticky=true&include=504,505',
      'posts?per_page=100&page=11',
      'posts?page=101',
      'posts?per_page=5&orderby=relevance',
      'posts?per_page=5&orderby=include',
      'posts?per_page=5&status=publish,private',
      'posts?_fields=id,title.rendered&per_page=3',
      'posts?context=embed&per_page=2',
      'posts/127',
      'posts/127?password=secret',
      'posts/127?password=wrong',
      'posts/1016',
      'posts/1004',
      'posts/504?excerpt_length=5',
      'posts/2',
      'pages?per_page=5',
      'pages?per_page=5&parent=1018',
      'pages?per_page=5&parent_exclude=0',
      'pages?per_page=5&menu_order=2&orderby=id',
      'pages?per_page=3&search=about',
      'pages/1019',
      'pages/1019?context=embed',
      'pages/2',
    ];
    const asAdmin = [
      'posts?context=edit&per_page=3',
      'posts?status=any&per_page=5',
      'posts?status=draft&author=5&context=edit',
      'posts/127?context=edit',
      'posts/1004?context=edit',
      'posts/1013',
      'posts?search=nebula&per_page=3',
      'pages/1019?context=edit',
      'posts/504/revisions',
      'posts/504/autosaves',
      'posts/999999/revisions',
      'pages/1019/revisions',
    ];
    const cases = [...anonymous.map((q) => [q, false] as const), ...asAdmin.map((q) => [q, true] as const)];
    it.each(cases)('%s (authenticated: %s)', async (query, auth) => {
      const headers: Record<string, string> = auth ? { authorization: adminAuthorization! } : {};
      const oracle = await fetch(`${ORACLE}/wp-json/wp/v2/${query}`, { headers });
      const ours = await cms.call({
        method: 'GET',
        url: `/cms-json/cms/v2/${query}`,
        ...(auth ? { as: 'admin' } : {}),
      });
      expect(ours.statusCode).toBe(oracle.status);
      expect(compare(ours.json(), await oracle.json())).toEqual([]);
      expect(ours.headers['x-cms-total'] ?? null).toBe(oracle.headers.get('x-wp-total'));
      expect(ours.headers['x-cms-totalpages'] ?? null).toBe(oracle.headers.get('x-wp-totalpages'));
    });
  });
});
