/**
 * Role x route: the HTTP status each role gets on the kernel's routes (anonymous, administrator, editor,
 * author, contributor, subscriber), following WordPress's capabilities. Self-service rows target the
 * author (arthur), so "author" there is "own account".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, type RoleLogin, type TestCms } from './helpers/cms-test-app.ts';

type Who = 'anon' | RoleLogin;
const WHO: Who[] = ['anon', 'admin', 'edna', 'arthur', 'conrad', 'sam'];

interface Row {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: (cms: TestCms) => string | Promise<string>;
  payload?: (who: Who) => Record<string, unknown>;
  /** Expected statuses for anon, administrator, editor, author, contributor, subscriber. */
  expect: [number, number, number, number, number, number];
}

let counter = 0;
const rows: Row[] = [
  { name: 'list users', method: 'GET', url: () => '/cms-json/cms/v2/users', expect: [200, 200, 200, 200, 200, 200] },
  {
    name: 'list users, edit context',
    method: 'GET',
    url: () => '/cms-json/cms/v2/users?context=edit',
    expect: [401, 200, 403, 403, 403, 403],
  },
  {
    name: 'list users by role',
    method: 'GET',
    url: () => '/cms-json/cms/v2/users?roles=author',
    expect: [401, 200, 403, 403, 403, 403],
  },
  {
    name: 'users who=authors',
    method: 'GET',
    url: () => '/cms-json/cms/v2/users?who=authors',
    expect: [401, 200, 200, 200, 200, 403],
  },
  {
    name: 'create user',
    method: 'POST',
    url: () => '/cms-json/cms/v2/users',
    payload: () => ({ username: `u${++counter}`, email: `u${counter}@example.test`, password: 'p' }),
    expect: [401, 201, 403, 403, 403, 403],
  },
  {
    name: "read author's account, edit context",
    method: 'GET',
    url: (c) => `/cms-json/cms/v2/users/${c.ids.arthur}?context=edit`,
    expect: [401, 200, 403, 200, 403, 403],
  },
  {
    name: "update author's account",
    method: 'POST',
    url: (c) => `/cms-json/cms/v2/users/${c.ids.arthur}`,
    payload: () => ({ description: 'x' }),
    expect: [401, 200, 403, 200, 403, 403],
  },
  {
    name: "change author's roles",
    method: 'POST',
    url: (c) => `/cms-json/cms/v2/users/${c.ids.arthur}`,
    payload: () => ({ roles: ['author'] }),
    expect: [401, 200, 403, 403, 403, 403],
  },
  {
    name: 'delete a user',
    method: 'DELETE',
    url: async (c) => `/cms-json/cms/v2/users/${(await newUser(c)).id}?force=true&reassign=false`,
    expect: [401, 200, 403, 403, 403, 403],
  },
  {
    name: "list author's application passwords",
    method: 'GET',
    url: (c) => `/cms-json/cms/v2/users/${c.ids.arthur}/application-passwords`,
    expect: [401, 200, 403, 200, 403, 403],
  },
  {
    name: 'create own application password',
    method: 'POST',
    url: () => '/cms-json/cms/v2/users/me/application-passwords',
    payload: () => ({ name: `app ${++counter}` }),
    expect: [401, 201, 201, 201, 201, 201],
  },
  {
    name: 'create category',
    method: 'POST',
    url: () => '/cms-json/cms/v2/categories',
    payload: () => ({ name: `cat ${++counter}` }),
    expect: [401, 201, 201, 403, 403, 403],
  },
  {
    name: 'create tag',
    method: 'POST',
    url: () => '/cms-json/cms/v2/tags',
    payload: () => ({ name: `tag ${++counter}` }),
    // Non-hierarchical taxonomies check assign_terms (edit_posts), not edit_terms, as WordPress does.
    expect: [401, 201, 201, 201, 201, 403],
  },
  {
    name: 'edit category',
    method: 'POST',
    url: () => '/cms-json/cms/v2/categories/1',
    payload: () => ({ description: 'd' }),
    expect: [401, 200, 200, 403, 403, 403],
  },
  {
    name: 'categories, edit context',
    method: 'GET',
    url: () => '/cms-json/cms/v2/categories?context=edit',
    expect: [401, 200, 200, 403, 403, 403],
  },
  {
    name: 'delete category',
    method: 'DELETE',
    url: async (c) => `/cms-json/cms/v2/categories/${await newCategory(c)}?force=true`,
    expect: [401, 200, 200, 403, 403, 403],
  },
  {
    name: 'read settings',
    method: 'GET',
    url: () => '/cms-json/cms/v2/settings',
    expect: [401, 200, 403, 403, 403, 403],
  },
  {
    name: 'update settings',
    method: 'POST',
    url: () => '/cms-json/cms/v2/settings',
    payload: () => ({ description: 'd' }),
    expect: [401, 200, 403, 403, 403, 403],
  },
  {
    name: 'page type, edit context',
    method: 'GET',
    url: () => '/cms-json/cms/v2/types/page?context=edit',
    expect: [401, 200, 200, 403, 403, 403],
  },
  {
    // WordPress refuses the whole list when the user may edit posts of no type (rest_cannot_view).
    name: 'types, edit context',
    method: 'GET',
    url: () => '/cms-json/cms/v2/types?context=edit',
    expect: [401, 200, 200, 200, 200, 403],
  },
  {
    name: 'post type, edit context',
    method: 'GET',
    url: () => '/cms-json/cms/v2/types/post?context=edit',
    expect: [401, 200, 200, 200, 200, 403],
  },
  {
    name: 'statuses, edit context',
    method: 'GET',
    url: () => '/cms-json/cms/v2/statuses?context=edit',
    expect: [401, 200, 200, 200, 200, 403],
  },
  {
    name: 'draft status',
    method: 'GET',
    url: () => '/cms-json/cms/v2/statuses/draft',
    expect: [401, 200, 200, 200, 200, 403],
  },
  {
    name: 'taxonomies, edit context',
    method: 'GET',
    url: () => '/cms-json/cms/v2/taxonomies?context=edit',
    expect: [401, 200, 200, 200, 200, 403],
  },
  { name: 'index', method: 'GET', url: () => '/cms-json/', expect: [200, 200, 200, 200, 200, 200] },
];

async function newUser(cms: TestCms): Promise<{ id: number }> {
  const n = ++counter;
  return cms.ctx.users
    .insert({
      login: `victim${n}`,
      pass_hash: 'x',
      nicename: `victim${n}`,
      email: `victim${n}@example.test`,
      url: '',
      registered: '2024-01-01 00:00:00',
      display_name: 'v',
      first_name: '',
      last_name: '',
      nickname: '',
      description: '',
      locale: '',
      roles: ['subscriber'],
    })
    .then((id) => ({ id }));
}

async function newCategory(cms: TestCms): Promise<number> {
  const n = ++counter;
  return cms.ctx.terms.insert({
    taxonomy: 'category',
    name: `victim ${n}`,
    slug: `victim-${n}`,
    description: '',
    parent: 0,
  });
}

describe('permissions by role on the kernel routes', () => {
  let cms: TestCms;
  beforeAll(async () => {
    cms = await createTestCms();
  });
  afterAll(async () => cms.close());

  it.each(rows)('$name', async (row) => {
    const got: number[] = [];
    for (const who of WHO) {
      const res = await cms.call({
        method: row.method,
        url: await row.url(cms),
        ...(who === 'anon' ? {} : { as: who }),
        ...(row.payload ? { payload: row.payload(who) } : {}),
      });
      got.push(res.statusCode);
    }
    expect(got).toEqual(row.expect);
  });
});
