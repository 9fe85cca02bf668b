/**
 * An id past PostgreSQL's 32-bit id columns (2^31 - 1) names an item that does not exist, on every dialect: the
 * route's 404 for an item, an empty list (or the list without it, for an exclusion) for a list filter, and the
 * error of a missing item for a write that refers to it. WordPress's ids are bigint and SQLite's integers 64-bit,
 * so there it is simply an id nothing has; PostgreSQL would refuse the comparison itself ("out of range for type
 * integer"), which the CMS compiles so that it cannot fail (src/db/wide-id-comparisons.ts). Every case is
 * checked against an id in range that does not exist: the answers must be the same.
 */
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

/** Past int4, inside int8. */
const BIG = 99_999_999_999;
/** Past int8 too (PHP reads it as a float; JavaScript as a number that is still an integer). */
const HUGE = '99999999999999999999';
/** In range, and no item has it. */
const MISSING = 2_000_000_000;

describe.each(testDialects())('ids beyond 32 bits on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let cms: ContentCms;
  let post = 0;
  let page = 0;
  let category = 0;
  let tag = 0;
  let menu = 0;
  let media = 0;
  beforeAll(async () => {
    cms = await createContentCms({ dialect });
    category = (await cms.post('/categories', { name: 'Science' }, 'admin')).json().id;
    tag = (await cms.post('/tags', { name: 'Atoms' }, 'admin')).json().id;
    post = (await cms.make('post', { title: 'Post', status: 'publish', terms: { category: [category] } })).id;
    page = (await cms.make('page', { title: 'Page', status: 'publish' })).id;
    media = (await cms.make('attachment', { title: 'Picture', status: 'inherit', mimeType: 'image/png' })).id;
    menu = (await cms.post('/menus', { name: 'Main' }, 'admin')).json().id;
  });
  afterAll(async () => cms?.close());

  const body = (res: { body: string }) => {
    try {
      return JSON.parse(res.body);
    } catch {
      return res.body;
    }
  };
  /** The answer to `path` with `{id}` replaced by `id`, as the administrator. */
  const answer = async (method: 'GET' | 'POST' | 'DELETE', path: string, id: number | string, payload?: unknown) => {
    const url = `/cms-json/cms/v2${path.replaceAll('{id}', String(id))}`;
    const res = await cms.call({
      method,
      url,
      as: 'admin',
      ...(payload === undefined
        ? {}
        : { payload: JSON.parse(JSON.stringify(payload).replaceAll('"{id}"', String(id))) as never }),
    });
    const json = body(res);
    // An error's code, or a success's own fields (ids and dates differ from one created item to the next).
    const code = res.statusCode >= 400 ? json.code : json.code === undefined ? 'ok' : json.code;
    return { status: res.statusCode, code };
  };

  const items = [
    ['/posts/{id}', 'rest_post_invalid_id'],
    ['/pages/{id}', 'rest_post_invalid_id'],
    ['/media/{id}', 'rest_post_invalid_id'],
    ['/blocks/{id}', 'rest_post_invalid_id'],
    ['/users/{id}', 'rest_user_invalid_id'],
    ['/categories/{id}', 'rest_term_invalid'],
    ['/tags/{id}', 'rest_term_invalid'],
    ['/menus/{id}', 'rest_term_invalid'],
    ['/menu-items/{id}', 'rest_post_invalid_id'],
  ] as const;

  it.each(items)('answers GET and DELETE %s of an id past 32 bits with the 404 %s', async (path, code) => {
    for (const method of ['GET', 'DELETE'] as const) {
      for (const id of [BIG, HUGE]) {
        const query = path.startsWith('/users') ? '?force=true&reassign=false' : '?force=true';
        const res = await answer(method, `${path}${query}`, id);
        expect(res, `${method} ${path} ${id}`).toEqual({ status: 404, code });
        expect(res).toEqual(await answer(method, `${path}${query}`, MISSING));
      }
    }
  });

  it.each([
    '/posts/{id}/revisions',
    '/posts/{id}/autosaves',
    `/posts/POST/revisions/{id}`,
    '/users/{id}/application-passwords',
  ])('answers GET %s of an id past 32 bits as of a missing one', async (template) => {
    const path = template.replace('POST', String(post));
    for (const id of [BIG, HUGE]) {
      const res = await answer('GET', path, id);
      expect(res.status, `${path} ${id}`).toBe(404);
      expect(res).toEqual(await answer('GET', path, MISSING));
    }
  });

  it('answers an update of an item past 32 bits with its 404', async () => {
    expect(await answer('POST', '/posts/{id}', BIG, { title: 'x' })).toEqual({
      status: 404,
      code: 'rest_post_invalid_id',
    });
    expect(await answer('POST', '/categories/{id}', BIG, { name: 'x' })).toEqual({
      status: 404,
      code: 'rest_term_invalid',
    });
    expect(await answer('POST', '/users/{id}', BIG, { name: 'x' })).toEqual({
      status: 404,
      code: 'rest_user_invalid_id',
    });
  });

  const ids = (res: { status: number; body: unknown }) => {
    expect(res.status).toBe(200);
    return (res.body as Array<{ id: number }>).map((p) => p.id);
  };
  const list = async (path: string, id: number | string) => {
    const res = await cms.get(path.replaceAll('{id}', String(id)), 'admin');
    return { status: res.statusCode, body: body(res), total: res.headers['x-cms-total'] };
  };

  it.each([
    '/posts?author={id}',
    '/posts?include={id}',
    '/posts?categories={id}',
    '/posts?tags={id}',
    '/pages?parent={id}',
    '/media?parent={id}',
    '/categories?include={id}',
    '/categories?parent={id}',
    '/users?include={id}',
    '/menu-items?menus={id}',
    '/menu-items?parent={id}',
    '/posts/POST/revisions?include={id}',
  ])('answers %s with an id past 32 bits with an empty list', async (template) => {
    const path = template.replace('POST', String(post));
    for (const id of [BIG, HUGE]) {
      const res = await list(path, id);
      expect(res, `${path} ${id}`).toMatchObject({ status: 200, body: [] });
      expect(res).toEqual(await list(path, MISSING));
    }
  });

  it.each(['/categories?post={id}', '/tags?post={id}'])(
    'answers %s with an id past 32 bits as with a missing post (400 rest_post_invalid_id)',
    async (path) => {
      for (const id of [BIG, HUGE]) {
        const res = await list(path, id);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('rest_post_invalid_id');
        expect(res).toEqual(await list(path, MISSING));
      }
    },
  );

  it.each([
    ['/posts?exclude={id}', () => [post]],
    ['/posts?author_exclude={id}', () => [post]],
    ['/posts?categories_exclude={id}', () => [post]],
    ['/pages?parent_exclude={id}', () => [page]],
    ['/categories?exclude={id}', () => [category, 1]],
    ['/users?exclude={id}', () => Object.values(cms.ids)],
  ] as const)('answers %s with an id past 32 bits with the whole list', async (template, expected) => {
    for (const id of [BIG, HUGE]) {
      const res = await list(template, id);
      expect(ids(res).sort()).toEqual([...expected()].sort());
      expect(res).toEqual(await list(template, MISSING));
    }
  });

  it.each([
    ['/posts', { title: 'x', author: '{id}' }],
    ['/posts', { title: 'x', featured_media: '{id}' }],
    ['/pages', { title: 'x', parent: '{id}' }],
    ['/categories', { name: 'x', parent: '{id}' }],
    ['/menu-items', { title: 'x', url: 'https://example.test/', menus: '{id}' }],
    ['/menu-items', { title: 'x', url: 'https://example.test/', menus: 'MENU', parent: '{id}' }],
    ['/menu-items', { title: 'x', type: 'post_type', object: 'post', object_id: '{id}', menus: 'MENU' }],
    ['/posts', { title: 'x', categories: ['{id}'] }],
    ['/posts', { title: 'x', tags: ['{id}'] }],
  ] as const)('answers POST %s %j with an id past 32 bits as with a missing one', async (path, payload) => {
    const resolved = JSON.parse(
      JSON.stringify(payload).replaceAll('"MENU"', String(menu)).replaceAll('MEDIA', String(media)),
    ) as Record<string, unknown>;
    const target = path.replace('MEDIA', String(media));
    const missing = await answer('POST', target, MISSING, resolved);
    expect(await answer('POST', target, BIG, resolved), JSON.stringify(missing)).toEqual(missing);
  });

  it('still refuses or clamps a number past 32 bits written into an integer column', async () => {
    // An attachment's `post` is stored as it is, existing or not (WordPress too): PostgreSQL's integer column
    // cannot hold it, so there the write is refused, as it was; SQLite keeps it.
    const attach = await cms.post(`/media/${media}`, { post: BIG }, 'admin');
    if (dialect.name === 'postgres') {
      expect(attach.statusCode).toBe(400);
      expect(attach.json().code).toBe('rest_invalid_value');
    } else {
      expect(attach.statusCode, attach.body).toBe(200);
      expect(attach.json().post).toBe(BIG);
      await cms.post(`/media/${media}`, { post: 0 }, 'admin');
    }

    const res = await cms.post('/pages', { title: 'Far', menu_order: BIG }, 'admin');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().menu_order).toBe(2_147_483_647);
    await cms.del(`/pages/${res.json().id}?force=true`, 'admin');
  });

  it('keeps id lists in range working next to an id past 32 bits', async () => {
    expect(ids(await list(`/posts?include=${post},{id}`, BIG))).toEqual([post]);
    expect(ids(await list(`/posts?exclude=${post},{id}`, BIG))).toEqual([]);
    expect(ids(await list(`/categories?include=${category},{id}`, BIG))).toEqual([category]);
    expect(ids(await list(`/tags?include={id},${tag}&orderby=include`, BIG))).toEqual([tag]);
    expect(ids(await list(`/posts?include={id},${post}&orderby=include`, BIG))).toEqual([post]);
    expect(ids(await list(`/users?include={id},${cms.ids.edna}&orderby=include`, BIG))).toEqual([cms.ids.edna]);
  });
});
