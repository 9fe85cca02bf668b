import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('/cms/v2/users on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
    // Only authors of published posts are public: pretend arthur has one.
    cms.ctx.content = {
      ...cms.ctx.content,
      usersWithPublishedPosts: async () => new Set([cms.ids.arthur]),
    };
  });
  afterAll(async () => cms?.close());

  describe.skipIf(dialect.skip)('', () => {
    it('lists only published authors to anonymous visitors, everybody to list_users holders', async () => {
      const anon = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users' });
      expect(anon.statusCode).toBe(200);
      expect(anon.json().map((u: { slug: string }) => u.slug)).toEqual(['arthur']);
      expect(anon.headers['x-cms-total']).toBe('1');
      const admin = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users', as: 'admin' });
      expect(admin.json().map((u: { slug: string }) => u.slug)).toEqual(['admin', 'arthur', 'conrad', 'edna', 'sam']);
      expect(admin.headers['x-cms-totalpages']).toBe('1');
    });

    it('shows view fields by default and edit fields with context=edit', async () => {
      const view = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/users/${cms.ids.arthur}` });
      expect(Object.keys(view.json())).toEqual([
        'id',
        'name',
        'url',
        'description',
        'link',
        'slug',
        'avatar_urls',
        'meta',
        '_links',
      ]);
      const edit = await cms.call({
        method: 'GET',
        url: `/cms-json/cms/v2/users/${cms.ids.arthur}?context=edit`,
        as: 'admin',
      });
      expect(Object.keys(edit.json())).toEqual([
        'id',
        'username',
        'name',
        'first_name',
        'last_name',
        'email',
        'url',
        'description',
        'link',
        'locale',
        'nickname',
        'slug',
        'roles',
        'registered_date',
        'capabilities',
        'extra_capabilities',
        'avatar_urls',
        'meta',
        '_links',
      ]);
      expect(edit.json().roles).toEqual(['author']);
      expect(edit.json().registered_date).toBe('2023-01-03T00:00:00+00:00');
      expect(edit.json().capabilities.publish_posts).toBe(true);
      expect(edit.json().capabilities.edit_others_posts).toBeUndefined();
      expect(edit.json().extra_capabilities).toEqual({ author: true });
    });

    it('filters by roles, capabilities, slug, search, include/exclude, orders and paginates', async () => {
      const get = async (q: string) =>
        (await cms.call({ method: 'GET', url: `/cms-json/cms/v2/users?${q}`, as: 'admin' })).json();
      expect((await get('roles=editor,author')).map((u: { slug: string }) => u.slug)).toEqual(['arthur', 'edna']);
      expect((await get('capabilities=publish_posts')).map((u: { slug: string }) => u.slug)).toEqual([
        'admin',
        'arthur',
        'edna',
      ]);
      expect((await get('slug=sam,conrad&orderby=include_slugs')).map((u: { slug: string }) => u.slug)).toEqual([
        'sam',
        'conrad',
      ]);
      expect((await get('search=onra')).map((u: { slug: string }) => u.slug)).toEqual(['conrad']);
      expect(
        (await get(`include=${cms.ids.sam},${cms.ids.edna}&orderby=include`)).map((u: { slug: string }) => u.slug),
      ).toEqual(['sam', 'edna']);
      expect(
        (await get(`exclude=${cms.ids.admin}&orderby=id&order=desc`)).map((u: { slug: string }) => u.slug),
      ).toEqual(['sam', 'conrad', 'arthur', 'edna']);
      expect((await get('who=authors')).map((u: { slug: string }) => u.slug)).toEqual([
        'admin',
        'arthur',
        'conrad',
        'edna',
      ]);
      const page = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users?per_page=2&page=2', as: 'admin' });
      expect(page.json().map((u: { slug: string }) => u.slug)).toEqual(['conrad', 'edna']);
      expect(page.headers['x-cms-totalpages']).toBe('3');
      expect(page.headers.link).toBe(
        '<http://cms.test/cms-json/cms/v2/users?per_page=2&page=1>; rel="prev", <http://cms.test/cms-json/cms/v2/users?per_page=2&page=3>; rel="next"',
      );
      const offset = await get('per_page=1&offset=4&orderby=id');
      expect(offset.map((u: { slug: string }) => u.slug)).toEqual(['sam']);
    });

    it('refuses role filters, edit context and private orderings to visitors', async () => {
      const roles = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users?roles=editor' });
      expect(roles.statusCode).toBe(401);
      expect(roles.json().code).toBe('rest_user_cannot_view');
      const edit = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users?context=edit', as: 'arthur' });
      expect(edit.statusCode).toBe(403);
      expect(edit.json()).toEqual({
        code: 'rest_forbidden_context',
        message: 'Sorry, you are not allowed to edit users.',
        data: { status: 403 },
      });
      const order = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users?orderby=email' });
      expect(order.json().code).toBe('rest_forbidden_orderby');
      const who = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users?who=authors', as: 'sam' });
      expect(who.json().code).toBe('rest_forbidden_who');
    });

    it('answers /users/me for the logged-in user and rest_not_logged_in otherwise', async () => {
      const me = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users/me', as: 'conrad' });
      expect(me.json().id).toBe(cms.ids.conrad);
      const anon = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users/me' });
      expect(anon.statusCode).toBe(401);
      expect(anon.json()).toEqual({
        code: 'rest_not_logged_in',
        message: 'You are not currently logged in.',
        data: { status: 401 },
      });
    });

    it('hides users without published posts from visitors and 404s unknown ids', async () => {
      const hidden = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/users/${cms.ids.sam}` });
      expect(hidden.statusCode).toBe(401);
      expect(hidden.json().code).toBe('rest_user_cannot_view');
      const missing = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/users/999', as: 'admin' });
      expect(missing.json()).toEqual({
        code: 'rest_user_invalid_id',
        message: 'Invalid user ID.',
        data: { status: 404 },
      });
    });

    it('creates a user (201, Location, edit context), with WordPress errors for bad input', async () => {
      const created = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: {
          username: 'newbie',
          email: 'newbie@example.test',
          password: 'pw-123',
          roles: ['author'],
          name: 'New Bie',
        },
      });
      expect(created.statusCode).toBe(201);
      const body = created.json();
      expect(created.headers.location).toBe(`http://cms.test/cms-json/cms/v2/users/${body.id}`);
      expect(body).toMatchObject({
        username: 'newbie',
        name: 'New Bie',
        roles: ['author'],
        slug: 'newbie',
        email: 'newbie@example.test',
      });
      expect(body.password).toBeUndefined();
      const dup = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username: 'newbie', email: 'x@example.test', password: 'p' },
      });
      // WordPress answers 500 here; bad input never gets a 500 from us.
      expect(dup.statusCode).toBe(400);
      expect(dup.json()).toEqual({
        code: 'existing_user_login',
        message: 'Sorry, that username already exists!',
        data: { status: 400 },
      });
      const dupMail = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username: 'other', email: 'NEWBIE@example.test', password: 'p' },
      });
      expect(dupMail.statusCode).toBe(400);
      expect(dupMail.json().code).toBe('existing_user_email');
      const bad = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username: 'bad name!', email: 'n@example.test', password: 'x' },
      });
      expect(bad.json()).toEqual({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): username',
        data: {
          status: 400,
          params: {
            username: 'This username is invalid because it uses illegal characters. Please enter a valid username.',
          },
          details: {
            username: {
              code: 'rest_user_invalid_username',
              message: 'This username is invalid because it uses illegal characters. Please enter a valid username.',
              data: { status: 400 },
            },
          },
        },
      });
      const missing = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username: 'z' },
      });
      expect(missing.json().message).toBe('Missing parameter(s): email, password');
      const role = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username: 'zz', email: 'zz@example.test', password: 'p', roles: ['king'] },
      });
      expect(role.json()).toEqual({
        code: 'rest_user_invalid_role',
        message: 'The role king does not exist.',
        data: { status: 400 },
      });
      const editor = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'edna',
        payload: { username: 'zz', email: 'zz@example.test', password: 'p' },
      });
      expect(editor.json()).toEqual({
        code: 'rest_cannot_create_user',
        message: 'Sorry, you are not allowed to create new users.',
        data: { status: 403 },
      });
    });

    it('filters a biography like pre_user_description (wp_filter_kses), whoever writes it', async () => {
      // Live oracle: the same POST /wp/v2/users/me gives this description.
      const bio =
        '<a href="javascript:alert(1)" onclick="x">l</a> <img src=x onerror=y> &amp; &copy; 5 < 6 & <em>e</em>';
      const expected = '<a href="alert(1)">l</a>  &amp; &copy; 5 &lt; 6 &amp; <em>e</em>';
      const own = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users/me',
        as: 'sam',
        payload: { description: bio },
      });
      expect(own.json().description).toBe(expected);
      const created = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: {
          username: 'biography',
          email: 'bio@example.test',
          password: 'p',
          description: '<script>x</script>Hi & bye',
        },
      });
      expect(created.statusCode).toBe(201);
      expect(created.json().description).toBe('xHi &amp; bye');
    });

    it('updates users: own profile for anyone, others only with edit_users; username is fixed', async () => {
      const own = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users/me',
        as: 'sam',
        payload: { first_name: ' Sam ', description: 'Hi' },
      });
      expect(own.statusCode).toBe(200);
      expect(own.json()).toMatchObject({ first_name: 'Sam', description: 'Hi' });
      const other = await cms.call({
        method: 'PUT',
        url: `/cms-json/cms/v2/users/${cms.ids.arthur}`,
        as: 'edna',
        payload: { name: 'X' },
      });
      expect(other.json().code).toBe('rest_cannot_edit');
      const rename = await cms.call({
        method: 'PATCH',
        url: `/cms-json/cms/v2/users/${cms.ids.sam}`,
        as: 'admin',
        payload: { username: 'samuel' },
      });
      expect(rename.json()).toEqual({
        code: 'rest_user_invalid_argument',
        message: 'Username is not editable.',
        data: { status: 400 },
      });
      const promote = await cms.call({
        method: 'POST',
        url: `/cms-json/cms/v2/users/${cms.ids.sam}`,
        as: 'admin',
        payload: { roles: ['contributor'] },
      });
      expect(promote.json().roles).toEqual(['contributor']);
      const selfPromote = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users/me',
        as: 'sam',
        payload: { roles: ['administrator'] },
      });
      expect(selfPromote.json().code).toBe('rest_cannot_edit_roles');
      const demoteSelf = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users/me',
        as: 'admin',
        payload: { roles: ['editor'] },
      });
      expect(demoteSelf.json().code).toBe('rest_user_invalid_role');
      const email = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users/me',
        as: 'sam',
        payload: { email: 'edna@example.test' },
      });
      expect(email.json()).toEqual({
        code: 'rest_user_invalid_email',
        message: 'Invalid email address.',
        data: { status: 400 },
      });
    });

    it('deletes only with force=true and a reassign parameter, like WordPress', async () => {
      const created = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username: 'gone', email: 'gone@example.test', password: 'p' },
      });
      const id = created.json().id;
      const noReassign = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/users/${id}`, as: 'admin' });
      expect(noReassign.json()).toEqual({
        code: 'rest_missing_callback_param',
        message: 'Missing parameter(s): reassign',
        data: { status: 400, params: ['reassign'] },
      });
      const badReassign = await cms.call({
        method: 'DELETE',
        url: `/cms-json/cms/v2/users/${id}?reassign=abc`,
        as: 'admin',
      });
      expect(badReassign.json().data.params.reassign).toBe('Invalid user parameter(s).');
      const noForce = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/users/${id}?reassign=1`, as: 'admin' });
      expect(noForce.json()).toEqual({
        code: 'rest_trash_not_supported',
        message: "Users do not support trashing. Set 'force=true' to delete.",
        data: { status: 501 },
      });
      const self = await cms.call({
        method: 'DELETE',
        url: `/cms-json/cms/v2/users/${id}?reassign=${id}&force=true`,
        as: 'admin',
      });
      expect(self.json().code).toBe('rest_user_invalid_reassign');
      const moved: Array<[number, number]> = [];
      cms.ctx.content = { ...cms.ctx.content, reassignPosts: async (_trx, from, to) => void moved.push([from, to]) };
      const ok = await cms.call({
        method: 'DELETE',
        url: `/cms-json/cms/v2/users/${id}?reassign=${cms.ids.admin}&force=true`,
        as: 'admin',
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().deleted).toBe(true);
      expect(ok.json().previous.username).toBe('gone');
      expect(moved).toEqual([[id, cms.ids.admin]]);
      const editor = await cms.call({
        method: 'DELETE',
        url: `/cms-json/cms/v2/users/${cms.ids.sam}?reassign=false&force=true`,
        as: 'edna',
      });
      expect(editor.json().code).toBe('rest_user_cannot_delete');
    });
  });
});
