/**
 * Reads with edge inputs answered as WordPress answers them (each case was compared with the oracle):
 * negative ids in id lists, backslashes in a search, `_envelope` headers, `orderby=include_slugs`
 * without slugs, the namespace index, user search wildcards, `_fields` that keep nothing, impossible
 * calendar dates in `before`/`after`.
 */
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

describe.each(testDialects())('reads with edge inputs on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let cms: ContentCms;
  const posts: number[] = [];
  let category = 0;
  let parentPage = 0;
  let childPage = 0;
  let block = 0;
  beforeAll(async () => {
    cms = await createContentCms({ dialect });
    category = (await cms.post('/categories', { name: 'Science' }, 'admin')).json().id;
    for (let i = 0; i < 4; i++) {
      const day = String(i + 1).padStart(2, '0');
      const post = await cms.make('post', {
        title: `Post ${i}`,
        content: `Body a\\b ${i}`,
        status: 'publish',
        date: { local: `2023-02-${day} 10:00:00`, gmt: `2023-02-${day} 10:00:00` },
        owner: i % 2 ? 'edna' : 'arthur',
        terms: i === 0 ? { category: [category] } : {},
      });
      posts.push(post.id);
    }
    parentPage = (await cms.make('page', { title: 'Parent', status: 'publish' })).id;
    childPage = (await cms.make('page', { title: 'Child', status: 'publish', parentId: parentPage })).id;
    block = (await cms.post('/blocks', { title: 'Pattern', content: 'x', status: 'publish' }, 'admin')).json().id;
  });
  afterAll(async () => cms.close());

  const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: number }>).map((p) => p.id);

  it('reads a negative id in an id list as its absolute value (absint), as WP_Query and get_terms do', async () => {
    const [p0, p1, p2, p3] = posts as [number, number, number, number];
    expect(ids(await cms.get(`/posts?include=-${p1}`))).toEqual([p1]);
    expect(ids(await cms.get(`/posts?exclude=-${p3}`))).toEqual([p2, p1, p0]);
    expect(ids(await cms.get(`/posts?include[]=-${p2}&include[]=${p0}&orderby=include`))).toEqual([p2, p0]);
    expect(ids(await cms.get(`/posts?author=-${cms.ids.edna}`))).toEqual([p3, p1]);
    expect(ids(await cms.get(`/posts?author_exclude=-${cms.ids.edna}`))).toEqual([p2, p0]);
    expect(ids(await cms.get(`/posts?categories=-${category}`))).toEqual([p0]);
    expect(ids(await cms.get(`/posts?categories_exclude=-${category}`))).toEqual([p3, p2, p1]);
    expect(ids(await cms.get(`/pages?parent=-${parentPage}`))).toEqual([childPage]);
    expect(ids(await cms.get(`/pages?parent_exclude=-${parentPage}`))).toEqual([parentPage]);
    const tags = await cms.get(`/categories?include=-${category}`);
    expect(ids(tags)).toEqual([category]);
    expect(tags.headers['x-cms-total']).toBe('1');
    expect(ids(await cms.get(`/categories?exclude=-${category}`))).toEqual([1]);
    expect(ids(await cms.get(`/users?include=-${cms.ids.edna}`))).toEqual([cms.ids.edna]);
    expect(ids(await cms.get(`/blocks?include=-${block}`, 'admin'))).toEqual([block]);
  });

  it('strips slashes from a post search as WP_Query does: `a\\b` finds "ab", a lone `\\` every post', async () => {
    const [p0, p1, p2, p3] = posts as [number, number, number, number];
    const secret = await cms.make('post', { title: 'Locked', status: 'publish', password: 'pw', content: 'abc' });
    try {
      // The contents hold `a\b`; stripped, the search is `ab`, which none holds.
      expect(ids(await cms.get('/posts?search=a%5Cb'))).toEqual([]);
      const all = await cms.get('/posts?search=%5C');
      expect(ids(all)).toEqual([p3, p2, p1, p0]);
      expect(all.headers['x-cms-total']).toBe('4');
      expect(ids(await cms.get('/posts?search=%5C', 'admin'))).toEqual([secret.id, p3, p2, p1, p0]);
      expect(ids(await cms.get('/posts?search=%5Cab%5Cc', 'admin'))).toEqual([secret.id]);
      expect(ids(await cms.get('/posts?search=Po%5Cst%202'))).toEqual([p2]);
      expect(ids(await cms.get('/blocks?search=Pat%5Ctern', 'admin'))).toEqual([block]);
    } finally {
      await cms.runtime.service.delete(secret.id);
    }
  });

  it('keeps X-CMS-Total and X-CMS-TotalPages numbers inside `_envelope`, as WordPress sets them', async () => {
    const env = (await cms.get('/posts?per_page=3&_envelope')).json();
    expect(env.status).toBe(200);
    expect(env.headers['X-CMS-Total']).toBe(4);
    expect(env.headers['X-CMS-TotalPages']).toBe(2);
    expect(env.headers.Link).toBe('<http://cms.test/cms-json/cms/v2/posts?per_page=3&_envelope&page=2>; rel="next"');
    const users = (await cms.get('/users?_envelope=1', 'admin')).json();
    expect(users.headers['X-CMS-Total']).toBe(6);
    // Sent as HTTP headers they are text as before.
    expect((await cms.get('/posts?per_page=3')).headers['x-cms-total']).toBe('4');
  });

  it('orders by include_slugs without slugs oldest first whatever the order, as WP_Query falls back', async () => {
    const [p0, p1, p2, p3] = posts as [number, number, number, number];
    expect(ids(await cms.get('/posts?orderby=include_slugs'))).toEqual([p0, p1, p2, p3]);
    expect(ids(await cms.get('/posts?orderby=include_slugs&order=desc&per_page=2'))).toEqual([p0, p1]);
    expect(ids(await cms.get('/posts?orderby=include_slugs&slug=post-2,post-0'))).toEqual([p2, p0]);
  });

  it("lists a namespace's own route first in its index, as WordPress does", async () => {
    const ns = await cms.call({ method: 'GET', url: '/cms-json/cms/v2' });
    expect(ns.statusCode).toBe(200);
    const routes = Object.keys(ns.json().routes);
    expect(routes[0]).toBe('/cms/v2');
    expect(ns.json().routes['/cms/v2'].endpoints[0].args).toEqual({
      namespace: { default: 'cms/v2', required: false },
      context: { default: 'view', required: false },
    });
    const oembed = (await cms.call({ method: 'GET', url: '/cms-json/oembed/1.0' })).json();
    expect(Object.keys(oembed.routes)).toEqual(['/oembed/1.0', '/oembed/1.0/embed', '/oembed/1.0/proxy']);
  });

  it('searches users as WP_User_Query does: every leading and trailing * a wildcard, digits in login and id only', async () => {
    const logins = (res: { json(): unknown }) => (res.json() as Array<{ slug: string }>).map((u) => u.slug).sort();
    expect(logins(await cms.get('/users?search=**dna', 'admin'))).toEqual(['edna']);
    expect(logins(await cms.get('/users?search=dn**', 'admin'))).toEqual(['edna']);
    expect((await cms.get('/users?search=*', 'admin')).json()).toHaveLength(6);
    const updated = await cms.post(`/users/${cms.ids.sam}`, { url: 'https://example.test/8080' }, 'admin');
    expect(updated.statusCode).toBe(200);
    // A number is looked for in logins and as an id, not in URLs or emails.
    expect(logins(await cms.get('/users?search=8080', 'admin'))).toEqual([]);
    expect(logins(await cms.get(`/users?search=${cms.ids.sam}`, 'admin'))).toEqual(['sam']);
    // A URL only in URLs.
    expect(logins(await cms.get('/users?search=https://example.test/80', 'admin'))).toEqual(['sam']);
  });

  it('answers what `_fields` leaves as PHP arrays are written: [] when nothing is left, a list for 0..n-1', async () => {
    const [p0] = posts as [number];
    expect((await cms.get(`/posts/${p0}?_fields=bogus`)).body).toBe('[]');
    expect((await cms.get('/posts?_fields=bogus&per_page=2')).body).toBe('[[],[]]');
    expect((await cms.get(`/posts/${p0}?_fields=title.bogus`)).json()).toEqual({ title: [] });
    expect((await cms.get(`/posts/${p0}?_fields=id,categories.0`)).json()).toEqual({ id: p0, categories: [category] });
    expect((await cms.get('/types?_fields=post.name')).json()).toEqual({ post: [] });
    // Links are added after the filter, as WordPress adds them: an emptied item still gets them.
    const links = (await cms.get(`/posts/${p0}?_fields=_links.self`)).json();
    expect(Object.keys(links)).toEqual(['_links']);
    expect(links._links.self[0].href).toBe(`http://cms.test/cms-json/cms/v2/posts/${p0}`);
  });

  it('rolls an impossible calendar day in before/after over as date_create() does (February 30 is March 2)', async () => {
    const march = await cms.make('post', {
      title: 'March',
      status: 'publish',
      date: { local: '2023-03-01 10:00:00', gmt: '2023-03-01 10:00:00' },
    });
    try {
      expect(ids(await cms.get('/posts?before=2023-02-30T00:00:00&per_page=1'))).toEqual([march.id]);
      expect(ids(await cms.get('/posts?after=2023-02-29T00:00:00'))).toEqual([march.id]);
      expect(ids(await cms.get('/posts?after=2023-02-03T24:00:00&order=asc'))).toEqual([posts[3], march.id]);
    } finally {
      await cms.runtime.service.delete(march.id);
    }
  });

  it('lists no GET in the Allow header of a term list refused for post=abc, whose permission check fails', async () => {
    const bad = await cms.get('/categories?post=abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('rest_invalid_param');
    expect(bad.headers.allow).toBeUndefined();
    const good = await cms.get(`/categories?post=${posts[0]}`);
    expect(good.headers.allow).toBe('GET');
    expect((await cms.get('/categories?post=0')).headers.allow).toBe('GET');
  });
});
