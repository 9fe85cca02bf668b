import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createTestCms, type TestCms } from './helpers/cms-test-app.ts';

describe('settings, types, statuses, taxonomies', () => {
  let cms: TestCms;
  beforeAll(async () => {
    cms = await createTestCms();
  });
  afterAll(async () => cms.close());

  it('reads and updates settings with WordPress names, types and validation', async () => {
    const read = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/settings', as: 'admin' });
    expect(Object.keys(read.json())).toEqual([
      'title',
      'description',
      'url',
      'email',
      'timezone',
      'date_format',
      'time_format',
      'start_of_week',
      'language',
      'use_smilies',
      'default_category',
      'default_post_format',
      'posts_per_page',
      'show_on_front',
      'page_on_front',
      'page_for_posts',
      'default_ping_status',
      'default_comment_status',
      'site_logo',
      'site_icon',
    ]);
    expect(read.json()).toMatchObject({
      title: 'Test Site',
      posts_per_page: 10,
      language: 'en_US',
      site_logo: null,
      site_icon: 0,
    });
    const updated = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/settings',
      as: 'admin',
      payload: { title: 'Renamed', posts_per_page: '25', use_smilies: 'false', default_ping_status: 'closed' },
    });
    expect(updated.json()).toMatchObject({
      title: 'Renamed',
      posts_per_page: 25,
      use_smilies: false,
      default_ping_status: 'closed',
    });
    const index = await cms.call({ method: 'GET', url: '/cms-json/' });
    expect(index.json().name).toBe('Renamed');
    const reset = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/settings',
      as: 'admin',
      payload: { posts_per_page: null },
    });
    expect(reset.json().posts_per_page).toBe(10);
    const invalid = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/settings',
      as: 'admin',
      payload: { posts_per_page: 'abc' },
    });
    expect(invalid.json()).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): posts_per_page',
      data: {
        status: 400,
        params: { posts_per_page: 'posts_per_page is not of type integer.' },
        details: {
          posts_per_page: {
            code: 'rest_invalid_type',
            message: 'posts_per_page is not of type integer.',
            data: { param: 'posts_per_page' },
          },
        },
      },
    });
    const anon = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/settings' });
    expect(anon.json()).toEqual({
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to do that.',
      data: { status: 401 },
    });
    const editor = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/settings', as: 'edna' });
    expect(editor.statusCode).toBe(403);
  });

  it('changes every setting a request names or none: a failing one leaves the others as they were', async () => {
    const before = (await cms.call({ method: 'GET', url: '/cms-json/cms/v2/settings', as: 'admin' })).json();
    // A stored value that does not fit the schema (e.g. written by an old plugin) cannot be reset to null.
    await cms.ctx.options.set('posts_per_page', 'many');
    const failed = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/settings',
      as: 'admin',
      payload: { title: 'Half written', description: 'also not', posts_per_page: null },
    });
    expect(failed.statusCode).toBe(500);
    expect(failed.json().code).toBe('rest_invalid_stored_value');
    const after = (await cms.call({ method: 'GET', url: '/cms-json/cms/v2/settings', as: 'admin' })).json();
    expect(after.title).toBe(before.title);
    expect(after.description).toBe(before.description);
    const stored = await cms.database.db
      .selectFrom('options')
      .select(['name', 'value'])
      .where('name', 'in', ['blogname', 'blogdescription'])
      .execute();
    expect(stored.map((r) => r.value)).not.toContain('"Half written"');
    expect(stored.map((r) => r.value)).not.toContain('"also not"');

    // Once the stored value is valid again, the same request changes all three.
    await cms.ctx.options.set('posts_per_page', 12);
    const done = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/settings',
      as: 'admin',
      payload: { title: 'Whole', description: 'written', posts_per_page: null },
    });
    expect(done.json()).toMatchObject({ title: 'Whole', description: 'written', posts_per_page: 10 });
    await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/settings',
      as: 'admin',
      payload: { title: before.title, description: before.description },
    });
  });

  it('lists post types; edit context shows capabilities to those who may edit them', async () => {
    const all = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/types' });
    expect(Object.keys(all.json())).toEqual(['post', 'page', 'attachment', 'nav_menu_item', 'cms_block']);
    expect(all.json().page).toMatchObject({
      slug: 'page',
      hierarchical: true,
      rest_base: 'pages',
      rest_namespace: 'cms/v2',
    });
    const edit = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/types/page?context=edit', as: 'edna' });
    expect(edit.json().capabilities.edit_posts).toBe('edit_pages');
    expect(edit.json().labels.add_new_item).toBe('Add New Page');
    expect(edit.json().supports['page-attributes']).toBe(true);
    const contributor = await cms.call({
      method: 'GET',
      url: '/cms-json/cms/v2/types/page?context=edit',
      as: 'conrad',
    });
    expect(contributor.json()).toEqual({
      code: 'rest_forbidden_context',
      message: 'Sorry, you are not allowed to edit posts in this post type.',
      data: { status: 403 },
    });
    const contributorList = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/types?context=edit', as: 'conrad' });
    expect(Object.keys(contributorList.json())).toEqual(['post', 'attachment', 'cms_block']);
    const subscriberList = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/types?context=edit', as: 'sam' });
    expect(subscriberList.statusCode).toBe(403);
    expect(subscriberList.json()).toEqual({
      code: 'rest_cannot_view',
      message: 'Sorry, you are not allowed to edit posts in this post type.',
      data: { status: 403 },
    });
    const unknown = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/types/nope' });
    expect(unknown.json()).toEqual({ code: 'rest_type_invalid', message: 'Invalid post type.', data: { status: 404 } });
  });

  it('shows only public statuses to visitors, all listable ones to editors', async () => {
    const anon = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/statuses' });
    expect(Object.keys(anon.json())).toEqual(['publish']);
    const author = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/statuses?context=edit', as: 'arthur' });
    expect(Object.keys(author.json())).toEqual([
      'publish',
      'future',
      'draft',
      'pending',
      'private',
      'trash',
      'cf-disabled',
    ]);
    expect(author.json().future).toEqual({
      name: 'Scheduled',
      private: false,
      protected: true,
      public: false,
      queryable: false,
      show_in_list: true,
      slug: 'future',
      date_floating: false,
      _links: { archives: [{ href: 'http://cms.test/cms-json/cms/v2/posts?status=future' }] },
    });
    const subscriberEdit = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/statuses?context=edit', as: 'sam' });
    expect(subscriberEdit.json().code).toBe('rest_cannot_view');
    const draftAnon = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/statuses/draft' });
    expect(draftAnon.json()).toEqual({
      code: 'rest_cannot_read_status',
      message: 'Cannot view status.',
      data: { status: 401 },
    });
    const unknown = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/statuses/nope' });
    expect(unknown.json().code).toBe('rest_status_invalid');
  });

  it('lists taxonomies, filtered by type, with edit details for those who may assign terms', async () => {
    const all = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/taxonomies' });
    expect(Object.keys(all.json())).toEqual(['category', 'post_tag', 'nav_menu', 'cms_pattern_category']);
    const forPosts = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/taxonomies?type=post' });
    expect(Object.keys(forPosts.json())).toEqual(['category', 'post_tag']);
    const edit = await cms.call({
      method: 'GET',
      url: '/cms-json/cms/v2/taxonomies/category?context=edit',
      as: 'conrad',
    });
    expect(edit.json().capabilities).toEqual({
      manage_terms: 'manage_categories',
      edit_terms: 'edit_categories',
      delete_terms: 'delete_categories',
      assign_terms: 'assign_categories',
    });
    expect(edit.json().visibility.show_in_quick_edit).toBe(true);
    const sam = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/taxonomies?context=edit', as: 'sam' });
    expect(sam.json().code).toBe('rest_cannot_view');
    const missing = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/taxonomies/nope' });
    expect(missing.json()).toEqual({
      code: 'rest_taxonomy_invalid',
      message: 'Invalid taxonomy.',
      data: { status: 404 },
    });
  });
});

describe('application passwords', () => {
  let cms: TestCms;
  beforeAll(async () => {
    cms = await createTestCms();
  });
  afterAll(async () => cms.close());
  const base = (user: string | number) => `/cms-json/cms/v2/users/${user}/application-passwords`;

  it('creates a 24-character password shown once in groups of four, and authenticates with it', async () => {
    const created = await cms.call({ method: 'POST', url: base('me'), as: 'arthur', payload: { name: 'laptop' } });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body.password).toMatch(/^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/);
    expect(created.headers.location).toBe(`http://cms.test${base(cms.ids.arthur)}/${body.uuid}`);
    expect(Object.keys(body)).toEqual([
      'uuid',
      'app_id',
      'name',
      'created',
      'last_used',
      'last_ip',
      'password',
      '_links',
    ]);
    const me = await cms.app.inject({
      method: 'GET',
      url: '/cms-json/cms/v2/users/me',
      headers: { authorization: basic('arthur', body.password) },
    });
    expect(me.json().id).toBe(cms.ids.arthur);
    // Without the spaces too, as WordPress accepts.
    const compact = await cms.app.inject({
      method: 'GET',
      url: `${base('me')}/introspect`,
      headers: { authorization: basic('arthur@example.test', body.password.replaceAll(' ', '')) },
    });
    expect(compact.json()).toMatchObject({ uuid: body.uuid, name: 'laptop' });
    expect(compact.json().last_used).not.toBeNull();
    const listed = await cms.call({ method: 'GET', url: base(cms.ids.arthur), as: 'arthur' });
    expect(listed.json().map((p: { name: string }) => p.name)).toEqual(['tests', 'laptop']);
    expect(listed.json()[1].password).toBeUndefined();
  });

  it('answers incorrect_password and invalid_username with 401', async () => {
    const wrong = await cms.app.inject({
      method: 'GET',
      url: '/cms-json/',
      headers: { authorization: basic('arthur', 'aaaa bbbb cccc dddd eeee ffff') },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({
      code: 'incorrect_password',
      message: 'The provided password is an invalid application password.',
      data: { status: 401 },
    });
    const unknown = await cms.app.inject({
      method: 'GET',
      url: '/cms-json/',
      headers: { authorization: basic('nobody', 'x') },
    });
    expect(unknown.json().code).toBe('invalid_username');
  });

  it('keeps names unique, renames, deletes one or all, and revokes access at once', async () => {
    const dup = await cms.call({ method: 'POST', url: base('me'), as: 'edna', payload: { name: 'tests' } });
    expect(dup.json()).toEqual({
      code: 'application_password_duplicate_name',
      message: 'Each application name should be unique.',
      data: { status: 409 },
    });
    const blank = await cms.call({ method: 'POST', url: base('me'), as: 'edna', payload: { name: '  ' } });
    expect(blank.json().code).toBe('rest_invalid_param');
    const created = (
      await cms.call({ method: 'POST', url: base('me'), as: 'edna', payload: { name: 'phone' } })
    ).json();
    const renamed = await cms.call({
      method: 'POST',
      url: `${base('me')}/${created.uuid}`,
      as: 'edna',
      payload: { name: 'old phone' },
    });
    expect(renamed.json().name).toBe('old phone');
    const deleted = await cms.call({ method: 'DELETE', url: `${base('me')}/${created.uuid}`, as: 'edna' });
    expect(deleted.json()).toMatchObject({ deleted: true, previous: { uuid: created.uuid } });
    const revoked = await cms.app.inject({
      method: 'GET',
      url: '/cms-json/cms/v2/users/me',
      headers: { authorization: basic('edna', created.password) },
    });
    expect(revoked.statusCode).toBe(401);
    const all = await cms.call({ method: 'DELETE', url: base(cms.ids.conrad), as: 'admin' });
    expect(all.json()).toEqual({ deleted: true, count: 1 });
    const notFound = await cms.call({
      method: 'GET',
      url: `${base('me')}/00000000-0000-4000-8000-000000000000`,
      as: 'edna',
    });
    expect(notFound.json()).toEqual({
      code: 'rest_application_password_not_found',
      message: 'Application password not found.',
      data: { status: 404 },
    });
  });

  it("protects other users' passwords: only edit_users holders may manage them", async () => {
    const editor = await cms.call({ method: 'GET', url: base(cms.ids.arthur), as: 'edna' });
    expect(editor.json()).toEqual({
      code: 'rest_cannot_list_application_passwords',
      message: 'Sorry, you are not allowed to list application passwords for this user.',
      data: { status: 403 },
    });
    const admin = await cms.call({ method: 'POST', url: base(cms.ids.sam), as: 'admin', payload: { name: 'for sam' } });
    expect(admin.statusCode).toBe(201);
    const introspectOther = await cms.call({ method: 'GET', url: `${base(cms.ids.sam)}/introspect`, as: 'admin' });
    expect(introspectOther.json().code).toBe('rest_cannot_introspect_app_password_for_non_authenticated_user');
    const anonMe = await cms.call({ method: 'GET', url: base('me') });
    expect(anonMe.json().code).toBe('rest_not_logged_in');
    const unknown = await cms.call({ method: 'GET', url: base(999), as: 'admin' });
    expect(unknown.json().code).toBe('rest_user_invalid_id');
  });
});
