/**
 * Who may do what with posts and pages: the HTTP status each role gets (anonymous, administrator,
 * editor, author, contributor, subscriber) for reading, reading in the edit context, updating, trashing
 * and listing revisions, on posts of an author, a contributor and an editor in every status — so each
 * role meets its own and others' content. The expectations follow WordPress's capabilities
 * (map_meta_cap for edit_post, read_post and delete_post).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms, type Login } from './helpers/content-cms.ts';

type Actor = 'anon' | Exclude<Login, 'ava'>;
const ACTORS: Actor[] = ['anon', 'admin', 'edna', 'arthur', 'conrad', 'sam'];
type Codes = [anon: number, admin: number, editor: number, author: number, contributor: number, subscriber: number];
type Op = 'view' | 'edit' | 'update' | 'trash' | 'revisions';
const OPS: Op[] = ['view', 'edit', 'update', 'trash', 'revisions'];

/** Expected statuses per owner and post status, for each operation (edit/update/trash/revisions share rules). */
const MATRIX: Array<{ owner: Login; status: string; view: Codes; edit: Codes; trash: Codes }> = [
  // An author's posts: the author and editors manage them; others see only the published one.
  {
    owner: 'arthur',
    status: 'publish',
    view: [200, 200, 200, 200, 200, 200],
    edit: [401, 200, 200, 200, 403, 403],
    trash: [401, 200, 200, 200, 403, 403],
  },
  {
    owner: 'arthur',
    status: 'draft',
    view: [401, 200, 200, 200, 403, 403],
    edit: [401, 200, 200, 200, 403, 403],
    trash: [401, 200, 200, 200, 403, 403],
  },
  {
    owner: 'arthur',
    status: 'pending',
    view: [401, 200, 200, 200, 403, 403],
    edit: [401, 200, 200, 200, 403, 403],
    trash: [401, 200, 200, 200, 403, 403],
  },
  {
    owner: 'arthur',
    status: 'private',
    view: [401, 200, 200, 200, 403, 403],
    edit: [401, 200, 200, 200, 403, 403],
    trash: [401, 200, 200, 200, 403, 403],
  },
  {
    owner: 'arthur',
    status: 'future',
    view: [401, 200, 200, 200, 403, 403],
    edit: [401, 200, 200, 200, 403, 403],
    trash: [401, 200, 200, 200, 403, 403],
  },
  // A contributor may edit and delete their own unpublished posts (private counts as unpublished), not published or scheduled ones.
  {
    owner: 'conrad',
    status: 'publish',
    view: [200, 200, 200, 200, 200, 200],
    edit: [401, 200, 200, 403, 403, 403],
    trash: [401, 200, 200, 403, 403, 403],
  },
  {
    owner: 'conrad',
    status: 'draft',
    view: [401, 200, 200, 403, 200, 403],
    edit: [401, 200, 200, 403, 200, 403],
    trash: [401, 200, 200, 403, 200, 403],
  },
  {
    owner: 'conrad',
    status: 'pending',
    view: [401, 200, 200, 403, 200, 403],
    edit: [401, 200, 200, 403, 200, 403],
    trash: [401, 200, 200, 403, 200, 403],
  },
  {
    owner: 'conrad',
    status: 'private',
    view: [401, 200, 200, 403, 200, 403],
    edit: [401, 200, 200, 403, 200, 403],
    trash: [401, 200, 200, 403, 200, 403],
  },
  {
    owner: 'conrad',
    status: 'future',
    view: [401, 200, 200, 403, 200, 403],
    edit: [401, 200, 200, 403, 403, 403],
    trash: [401, 200, 200, 403, 403, 403],
  },
  // An editor's posts: only administrators and editors touch them.
  {
    owner: 'edna',
    status: 'publish',
    view: [200, 200, 200, 200, 200, 200],
    edit: [401, 200, 200, 403, 403, 403],
    trash: [401, 200, 200, 403, 403, 403],
  },
  {
    owner: 'edna',
    status: 'draft',
    view: [401, 200, 200, 403, 403, 403],
    edit: [401, 200, 200, 403, 403, 403],
    trash: [401, 200, 200, 403, 403, 403],
  },
  {
    owner: 'edna',
    status: 'private',
    view: [401, 200, 200, 403, 403, 403],
    edit: [401, 200, 200, 403, 403, 403],
    trash: [401, 200, 200, 403, 403, 403],
  },
];

function expected(row: (typeof MATRIX)[number], op: Op): Codes {
  if (op === 'view') return row.view;
  if (op === 'trash') return row.trash;
  return row.edit;
}

describe('permissions on posts: role x operation x own/others x status', () => {
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms();
  });
  afterAll(async () => cms.close());

  async function makePost(owner: Login, status: string): Promise<number> {
    const date = status === 'future' ? { local: '2030-01-01 00:00:00', gmt: '2030-01-01 00:00:00' } : undefined;
    const post = await cms.make('post', {
      owner,
      status,
      title: `${owner} ${status}`,
      content: 'c',
      ...(date ? { date } : {}),
    });
    expect(post.status).toBe(status);
    return post.id;
  }

  async function attempt(op: Op, id: number, actor: Actor): Promise<number> {
    const as = actor === 'anon' ? undefined : actor;
    switch (op) {
      case 'view':
        return (await cms.get(`/posts/${id}`, as)).statusCode;
      case 'edit':
        return (await cms.get(`/posts/${id}?context=edit`, as)).statusCode;
      case 'update':
        return (await cms.post(`/posts/${id}`, { title: `changed by ${actor}` }, as)).statusCode;
      case 'trash':
        return (await cms.del(`/posts/${id}`, as)).statusCode;
      case 'revisions':
        return (await cms.get(`/posts/${id}/revisions`, as)).statusCode;
    }
  }

  for (const row of MATRIX) {
    for (const op of OPS) {
      it(`${op} a ${row.status} post of ${row.owner}`, async () => {
        const got: number[] = [];
        for (const actor of ACTORS) {
          // Each attempt gets its own post, so an earlier update or trash cannot change the outcome.
          const id = await makePost(row.owner, row.status);
          got.push(await attempt(op, id, actor));
        }
        expect(got).toEqual(expected(row, op));
      });
    }
  }

  const creates: Array<[string, Record<string, unknown>, Codes]> = [
    ['a draft post', { title: 'd', status: 'draft' }, [401, 201, 201, 201, 201, 403]],
    ['a pending post', { title: 'p', status: 'pending' }, [401, 201, 201, 201, 201, 403]],
    ['a published post', { title: 'p', status: 'publish' }, [401, 201, 201, 201, 403, 403]],
    ['a private post', { title: 'p', status: 'private' }, [401, 201, 201, 201, 403, 403]],
    ['a sticky post', { title: 's', status: 'publish', sticky: true }, [401, 201, 201, 403, 403, 403]],
    ['a post for someone else', { title: 'x', author: 0 }, [401, 201, 201, 403, 403, 403]],
  ];
  for (const [name, body, codes] of creates) {
    it(`create ${name}`, async () => {
      const got: number[] = [];
      for (const actor of ACTORS) {
        const payload = body.author === 0 ? { ...body, author: cms.ids.ava } : body;
        got.push((await cms.post('/posts', payload, actor === 'anon' ? undefined : actor)).statusCode);
      }
      expect(got).toEqual(codes);
    });
  }

  it('create and edit pages: only editors and administrators', async () => {
    const got: number[] = [];
    for (const actor of ACTORS)
      got.push((await cms.post('/pages', { title: 'p' }, actor === 'anon' ? undefined : actor)).statusCode);
    expect(got).toEqual([401, 201, 201, 403, 403, 403]);
  });

  it('lists in the edit context and by non-public status only for users who can edit', async () => {
    const edit: number[] = [];
    const drafts: number[] = [];
    for (const actor of ACTORS) {
      const as = actor === 'anon' ? undefined : actor;
      edit.push((await cms.get('/posts?context=edit', as)).statusCode);
      drafts.push((await cms.get('/posts?status=draft', as)).statusCode);
    }
    expect(edit).toEqual([401, 200, 200, 200, 200, 403]);
    // A forbidden status is an invalid parameter (400), its detail says 401 or 403.
    expect(drafts).toEqual([400, 200, 200, 200, 200, 400]);
    const detail = (await cms.get('/posts?status=draft', 'sam')).json().data.details.status;
    expect(detail).toMatchObject({ code: 'rest_forbidden_status', data: { status: 403 } });
  });

  it('lists only the drafts a user may read, and counts only those', async () => {
    const own = await makePost('arthur', 'draft');
    const others = await makePost('ava', 'draft');
    const asAuthor = await cms.get('/posts?status=draft&per_page=100', 'arthur');
    const ids = asAuthor.json().map((p: { id: number }) => p.id);
    expect(ids).toContain(own);
    expect(ids).not.toContain(others);
    expect(Number(asAuthor.headers['x-cms-total'])).toBe(ids.length);
    const asEditor = (await cms.get('/posts?status=draft&per_page=100', 'edna'))
      .json()
      .map((p: { id: number }) => p.id);
    expect(asEditor).toEqual(expect.arrayContaining([own, others]));
  });

  it('reads private posts of others only with read_private_posts', async () => {
    const id = await makePost('ava', 'private');
    expect(
      (await cms.get('/posts?status=private&per_page=100', 'edna')).json().map((p: { id: number }) => p.id),
    ).toContain(id);
    expect(
      (await cms.get('/posts?status=private&per_page=100', 'arthur')).json().map((p: { id: number }) => p.id),
    ).not.toContain(id);
  });
});
