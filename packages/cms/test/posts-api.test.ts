/**
 * /cms/v2/posts and /cms/v2/pages over HTTP: every writable field with its defaults and rules, every
 * list parameter, and the errors WordPress answers with.
 */
import { testDialects } from '@svc/platform/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';

describe.each(testDialects())('posts and pages over HTTP on $label', (dialect) => {
  if (dialect.skip) {
    it.skip(`needs ${dialect.name}: ${dialect.skip}`, () => {});
    return;
  }
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms({ dialect });
  });
  afterAll(async () => cms.close());
  afterEach(async () => {
    cms.clock.now = new Date('2024-03-01T12:00:00Z');
    await cms.ctx.options.set('timezone_string', '');
    await cms.ctx.options.set('gmt_offset', 0);
  });

  describe('create', () => {
    it('answers 201 with Location, in the edit context, with WordPress defaults', async () => {
      const res = await cms.post('/posts', { title: 'Defaults' }, 'admin');
      expect(res.statusCode).toBe(201);
      const post = res.json();
      expect(res.headers.location).toBe(`http://cms.test/cms-json/cms/v2/posts/${post.id}`);
      expect(post).toMatchObject({
        status: 'draft',
        slug: '',
        comment_status: 'open',
        ping_status: 'open',
        format: 'standard',
        sticky: false,
        template: '',
        categories: [1],
        tags: [],
        featured_media: 0,
        password: '',
        meta: { _cf_changed: false, inline_featured_image: false, footnotes: '' },
        generated_slug: 'defaults',
        permalink_template: 'http://cms.test/%postname%/',
        link: `http://cms.test/?p=${post.id}`,
        title: { raw: 'Defaults', rendered: 'Defaults' },
        content: { raw: '', rendered: '', protected: false, block_version: 0 },
      });
      expect(post.date).toBe('2024-03-01T12:00:00');
    });

    it('gives pages closed comments, parent and menu_order, and no sticky, format or terms', async () => {
      const page = (await cms.post('/pages', { title: 'A page', status: 'publish', menu_order: 3 }, 'admin')).json();
      expect(page).toMatchObject({ comment_status: 'closed', ping_status: 'closed', parent: 0, menu_order: 3 });
      expect(page).not.toHaveProperty('sticky');
      expect(page).not.toHaveProperty('format');
      expect(page).not.toHaveProperty('categories');
      expect(page.meta).toEqual({ _cf_changed: false, inline_featured_image: false });
      expect(page.link).toBe('http://cms.test/a-page/');
    });

    it('accepts title, content and excerpt as strings or as { raw }', async () => {
      const post = (
        await cms.post(
          '/posts',
          { title: { raw: 'Raw title' }, content: { raw: 'Raw content' }, excerpt: 'Plain excerpt' },
          'admin',
        )
      ).json();
      expect(post.title.raw).toBe('Raw title');
      expect(post.content.raw).toBe('Raw content');
      expect(post.excerpt.raw).toBe('Plain excerpt');
    });

    it('refuses an empty post, an id, an unknown status and a bad comment status', async () => {
      const empty = await cms.post('/posts', {}, 'admin');
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toEqual({
        code: 'empty_content',
        message: 'Content, title, and excerpt are empty.',
        data: { status: 400 },
      });
      const withId = await cms.post('/posts', { id: 5, title: 'x' }, 'admin');
      expect(withId.json()).toMatchObject({ code: 'rest_post_exists', data: { status: 400 } });
      const status = await cms.post('/posts', { title: 'x', status: 'bogus' }, 'admin');
      expect(status.statusCode).toBe(400);
      expect(status.json().code).toBe('rest_invalid_param');
      expect(status.json().data.params.status).toBe(
        'status is not one of publish, future, draft, pending, private, and cf-disabled.',
      );
      const comments = await cms.post('/posts', { title: 'x', comment_status: 'maybe' }, 'admin');
      expect(comments.json().data.params).toHaveProperty('comment_status');
    });

    it('makes slugs unique per type (-2, -3), even for drafts given a slug', async () => {
      const a = (await cms.post('/posts', { title: 'Unique me', status: 'publish' }, 'admin')).json();
      const b = (await cms.post('/posts', { title: 'Unique me', status: 'publish' }, 'admin')).json();
      const c = (await cms.post('/posts', { title: 'Other', slug: 'unique-me', status: 'draft' }, 'admin')).json();
      const page = (await cms.post('/pages', { title: 'Unique me', status: 'publish' }, 'admin')).json();
      expect([a.slug, b.slug, c.slug, page.slug]).toEqual(['unique-me', 'unique-me-2', 'unique-me-3', 'unique-me']);
      const reserved = (await cms.post('/posts', { title: 'Feed', slug: 'feed', status: 'publish' }, 'admin')).json();
      expect(reserved.slug).toBe('feed-2');
    });

    it('keeps page slugs unique among siblings only', async () => {
      const p1 = (await cms.post('/pages', { title: 'Team parent one', status: 'publish' }, 'admin')).json();
      const p2 = (await cms.post('/pages', { title: 'Team parent two', status: 'publish' }, 'admin')).json();
      const c1 = (await cms.post('/pages', { title: 'Team', parent: p1.id, status: 'publish' }, 'admin')).json();
      const c2 = (await cms.post('/pages', { title: 'Team', parent: p2.id, status: 'publish' }, 'admin')).json();
      expect([c1.slug, c2.slug]).toEqual(['team', 'team']);
      expect(c2.link).toBe('http://cms.test/team-parent-two/team/');
      expect(c2.permalink_template).toBe('http://cms.test/team-parent-two/%pagename%/');
      const bad = await cms.post('/pages', { title: 'x', parent: 999999 }, 'admin');
      expect(bad.json()).toMatchObject({
        code: 'rest_post_invalid_id',
        message: 'Invalid post parent ID.',
        data: { status: 400 },
      });
    });

    it('reads a date without offset in the site time zone and keeps date and date_gmt apart', async () => {
      await cms.ctx.options.set('timezone_string', 'Europe/Paris');
      const summer = (
        await cms.post('/posts', { title: 'Summer', date: '2023-07-01T12:00:00', status: 'publish' }, 'admin')
      ).json();
      expect([summer.date, summer.date_gmt]).toEqual(['2023-07-01T12:00:00', '2023-07-01T10:00:00']);
      const winter = (
        await cms.post('/posts', { title: 'Winter', date_gmt: '2023-01-10T12:00:00', status: 'publish' }, 'admin')
      ).json();
      expect([winter.date, winter.date_gmt]).toEqual(['2023-01-10T13:00:00', '2023-01-10T12:00:00']);
      const offset = (
        await cms.post('/posts', { title: 'Offset', date: '2023-07-01T12:00:00+05:00', status: 'publish' }, 'admin')
      ).json();
      expect([offset.date, offset.date_gmt]).toEqual(['2023-07-01T09:00:00', '2023-07-01T07:00:00']);
      const yearZero = await cms.post('/posts', { title: 'x', date: '0000-01-01T00:00:00' }, 'admin');
      expect(yearZero.json()).toEqual({ code: 'invalid_date', message: 'Invalid date.', data: { status: 400 } });
      const invalid = await cms.post('/posts', { title: 'x', date: 'not a date' }, 'admin');
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().data.params.date).toBe('Invalid date.');
    });

    it('keeps the date of a draft floating until it is given one or published', async () => {
      const draft = (await cms.post('/posts', { title: 'Floating' }, 'admin')).json();
      expect(draft.date_gmt).toBe('2024-03-01T12:00:00');
      cms.clock.now = new Date('2024-03-05T08:00:00Z');
      const later = (await cms.post(`/posts/${draft.id}`, { content: 'more' }, 'admin')).json();
      expect(later.date).toBe('2024-03-05T08:00:00');
      const dated = (await cms.post(`/posts/${draft.id}`, { date: '2024-01-01T00:00:00' }, 'admin')).json();
      cms.clock.now = new Date('2024-03-06T08:00:00Z');
      const still = (await cms.post(`/posts/${draft.id}`, { content: 'again' }, 'admin')).json();
      expect([dated.date, still.date]).toEqual(['2024-01-01T00:00:00', '2024-01-01T00:00:00']);
      const reset = (await cms.post(`/posts/${draft.id}`, { date: null }, 'admin')).json();
      expect(reset.date).toBe('2024-03-06T08:00:00');
    });

    it('schedules a post dated in the future and publishes it when it is due', async () => {
      const post = (
        await cms.post('/posts', { title: 'Later', status: 'publish', date: '2024-03-02T00:00:00' }, 'admin')
      ).json();
      expect(post.status).toBe('future');
      expect(post.link).toBe(`http://cms.test/?p=${post.id}`);
      expect((await cms.get(`/posts/${post.id}`)).statusCode).toBe(401);
      cms.clock.now = new Date('2024-03-02T00:00:30Z');
      const seen = await cms.get(`/posts/${post.id}`);
      expect(seen.statusCode).toBe(200);
      expect(seen.json()).toMatchObject({
        status: 'publish',
        date: '2024-03-02T00:00:00',
        link: 'http://cms.test/later/',
      });
      const soon = (
        await cms.post('/posts', { title: 'Too soon', status: 'future', date: '2024-03-02T00:00:40' }, 'admin')
      ).json();
      expect(soon.status).toBe('publish');
    });

    it('sets and clears the post format; refuses unknown formats', async () => {
      const aside = (await cms.post('/posts', { title: 'Aside', format: 'aside' }, 'admin')).json();
      expect(aside.format).toBe('aside');
      expect((await cms.post(`/posts/${aside.id}`, { format: 'standard' }, 'admin')).json().format).toBe('standard');
      expect((await cms.post('/posts', { title: 'x', format: 'movie' }, 'admin')).statusCode).toBe(400);
    });

    it('accepts the theme templates of the type only', async () => {
      expect((await cms.post('/pages', { title: 'T', template: 'blog-alternative' }, 'admin')).json().template).toBe(
        'blog-alternative',
      );
      const bad = await cms.post('/posts', { title: 'T', template: 'blog-alternative' }, 'admin');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().data.params.template).toBe('template is not one of blank.');
    });

    it('assigns categories and tags (unknown ids ignored) and keeps term counts', async () => {
      const cat = (await cms.post('/categories', { name: 'Counted' }, 'admin')).json();
      const tag = (await cms.post('/tags', { name: 'counted-tag' }, 'admin')).json();
      const post = (
        await cms.post(
          '/posts',
          { title: 'Terms', status: 'publish', categories: [cat.id, 99999], tags: [tag.id] },
          'admin',
        )
      ).json();
      expect(post.categories).toEqual([cat.id]);
      expect(post.tags).toEqual([tag.id]);
      expect((await cms.get(`/categories/${cat.id}`)).json().count).toBe(1);
      await cms.del(`/posts/${post.id}`, 'admin');
      expect((await cms.get(`/categories/${cat.id}`)).json().count).toBe(0);
      const none = (await cms.post('/posts', { title: 'No category', categories: [] }, 'admin')).json();
      expect(none.categories).toEqual([]);
    });

    it('stores the spec meta keys, validates their types and deletes them with null', async () => {
      const post = (
        await cms.post(
          '/posts',
          { title: 'Meta', meta: { _cf_changed: true, footnotes: '[1]', unknown: 'x' } },
          'admin',
        )
      ).json();
      expect(post.meta).toEqual({ _cf_changed: true, inline_featured_image: false, footnotes: '[1]' });
      const bad = await cms.post(`/posts/${post.id}`, { meta: { inline_featured_image: 'yes please' } }, 'admin');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe('meta.inline_featured_image is not of type boolean.');
      const cleared = (await cms.post(`/posts/${post.id}`, { meta: { _cf_changed: null } }, 'admin')).json();
      expect(cleared.meta._cf_changed).toBe(false);
      expect((await cms.post(`/posts/${post.id}`, { meta: 'nope' }, 'admin')).statusCode).toBe(400);
    });

    it('filters the HTML of users without unfiltered_html and keeps it for editors', async () => {
      const html = '<p onclick="x()">Hi<script>alert(1)</script></p>';
      const byAuthor = (await cms.post('/posts', { title: '<b>T</b><h1>x</h1>', content: html }, 'arthur')).json();
      expect(byAuthor.content.raw).toBe('<p>Hialert(1)</p>');
      expect(byAuthor.title.raw).toBe('<b>T</b>x');
      const byEditor = (await cms.post('/posts', { title: 'T', content: html }, 'edna')).json();
      expect(byEditor.content.raw).toBe(html);
    });

    it('ignores a featured image that is not an image attachment', async () => {
      const post = (await cms.post('/posts', { title: 'Featured', featured_media: 424242 }, 'admin')).json();
      expect(post.featured_media).toBe(0);
    });

    it('checks the author: a real user, and only editors may set someone else', async () => {
      expect((await cms.post('/posts', { title: 'x', author: 999999 }, 'admin')).json()).toMatchObject({
        code: 'rest_invalid_author',
        data: { status: 400 },
      });
      const byAuthor = await cms.post('/posts', { title: 'x', author: cms.ids.ava }, 'arthur');
      expect(byAuthor.json()).toMatchObject({ code: 'rest_cannot_edit_others', data: { status: 403 } });
      const own = await cms.post('/posts', { title: 'x', author: cms.ids.arthur }, 'arthur');
      expect(own.statusCode).toBe(201);
    });
  });

  describe('password protection and stickiness', () => {
    it('hides protected content and excerpt unless the password or the edit context allows it', async () => {
      const post = (
        await cms.post(
          '/posts',
          { title: 'Secret', content: 'hidden text', excerpt: 'hidden excerpt', password: 'pw', status: 'publish' },
          'admin',
        )
      ).json();
      const anonymous = (await cms.get(`/posts/${post.id}`)).json();
      expect(anonymous.content).toEqual({ rendered: '', protected: true });
      expect(anonymous.excerpt).toEqual({ rendered: '', protected: true });
      expect(anonymous.title.rendered).toBe('Secret');
      expect((await cms.get(`/posts/${post.id}?password=pw`)).json().content.rendered).toBe('<p>hidden text</p>\n');
      const wrong = await cms.get(`/posts/${post.id}?password=nope`);
      expect(wrong.json()).toMatchObject({ code: 'rest_post_incorrect_password', data: { status: 403 } });
      expect((await cms.get(`/posts/${post.id}?context=edit`, 'admin')).json().content.rendered).toBe(
        '<p>hidden text</p>\n',
      );
      const search = await cms.get('/posts?search=Secret');
      expect(search.json().map((p: { id: number }) => p.id)).not.toContain(post.id);
      expect((await cms.get('/posts?search=Secret', 'sam')).json().map((p: { id: number }) => p.id)).toContain(post.id);
    });

    it('refuses sticky posts with a password, in either order', async () => {
      const both = await cms.post('/posts', { title: 'x', password: 'pw', sticky: true }, 'admin');
      expect(both.json()).toMatchObject({
        code: 'rest_invalid_field',
        message: 'A post can not be sticky and have a password.',
      });
      const sticky = (await cms.post('/posts', { title: 'Sticky', sticky: true, status: 'publish' }, 'admin')).json();
      expect(sticky.sticky).toBe(true);
      const protect = await cms.post(`/posts/${sticky.id}`, { password: 'pw' }, 'admin');
      expect(protect.json().message).toBe('A sticky post can not be password protected.');
      const locked = (await cms.post('/posts', { title: 'Locked', password: 'pw' }, 'admin')).json();
      const stick = await cms.post(`/posts/${locked.id}`, { sticky: true }, 'admin');
      expect(stick.json().message).toBe('A password protected post can not be set to sticky.');
      expect((await cms.post(`/posts/${sticky.id}`, { sticky: false }, 'admin')).json().sticky).toBe(false);
    });
  });

  describe('read', () => {
    it('answers rest_post_invalid_id for a missing post or one of another type', async () => {
      const page = (await cms.post('/pages', { title: 'Page', status: 'publish' }, 'admin')).json();
      for (const path of ['/posts/999999', `/posts/${page.id}`, '/pages/999999']) {
        expect((await cms.get(path)).json()).toEqual({
          code: 'rest_post_invalid_id',
          message: 'Invalid post ID.',
          data: { status: 404 },
        });
      }
    });

    it('sends the HTML link of the post as a Link header, and the excerpt at the asked length', async () => {
      const post = (
        await cms.post(
          '/posts',
          { title: 'Linked', content: 'one two three four five six', status: 'publish' },
          'admin',
        )
      ).json();
      const res = await cms.get(`/posts/${post.id}?excerpt_length=3`);
      expect(res.headers.link).toContain('<http://cms.test/linked/>; rel="alternate"; type=text/html');
      expect(res.json().excerpt.rendered).toBe('<p>one two three [&hellip;]</p>\n');
    });

    it('prefixes private titles and shows the private link to those who may read it', async () => {
      const post = (await cms.post('/posts', { title: 'Memo', status: 'private' }, 'admin')).json();
      const seen = (await cms.get(`/posts/${post.id}`, 'edna')).json();
      expect(seen.title.rendered).toBe('Private: Memo');
      expect(seen.link).toBe('http://cms.test/memo/');
    });
  });

  describe('update and delete', () => {
    it('updates only the fields sent and stores revisions', async () => {
      const post = (await cms.post('/posts', { title: 'Versioned', content: 'v1', status: 'publish' }, 'admin')).json();
      const updated = (await cms.post(`/posts/${post.id}`, { content: 'v2' }, 'admin')).json();
      expect(updated).toMatchObject({ title: { raw: 'Versioned' }, content: { raw: 'v2' }, status: 'publish' });
      const links = (await cms.get(`/posts/${post.id}`)).json()._links;
      expect(links['version-history'][0].count).toBe(1);
      expect(links['predecessor-version'][0].href).toMatch(/\/revisions\/\d+$/);
      const put = await cms.call({
        method: 'PUT',
        url: `/cms-json/cms/v2/posts/${post.id}`,
        payload: { title: 'Put' },
        as: 'admin',
      });
      expect(put.json().title.raw).toBe('Put');
      const patch = await cms.call({
        method: 'PATCH',
        url: `/cms-json/cms/v2/posts/${post.id}`,
        payload: { slug: 'Patched Slug' },
        as: 'admin',
      });
      expect(patch.json().slug).toBe('patched-slug');
    });

    it('requires publish rights to publish, and allows pending for contributors', async () => {
      const draft = (await cms.post('/posts', { title: 'Contribution' }, 'conrad')).json();
      const publish = await cms.post(`/posts/${draft.id}`, { status: 'publish' }, 'conrad');
      expect(publish.json()).toMatchObject({ code: 'rest_cannot_publish', data: { status: 403 } });
      const privately = await cms.post(`/posts/${draft.id}`, { status: 'private' }, 'conrad');
      expect(privately.json().message).toBe('Sorry, you are not allowed to create private posts in this post type.');
      const pending = (await cms.post(`/posts/${draft.id}`, { status: 'pending', slug: 'wanted' }, 'conrad')).json();
      expect(pending.status).toBe('pending');
      expect(pending.slug).toBe('');
    });

    it('trashes, refuses to trash twice (410), deletes with force and then answers 404', async () => {
      const post = (await cms.post('/posts', { title: 'Bin me', status: 'publish' }, 'admin')).json();
      const trashed = await cms.del(`/posts/${post.id}`, 'admin');
      expect(trashed.json()).toMatchObject({ status: 'trash', slug: 'bin-me__trashed' });
      expect((await cms.del(`/posts/${post.id}`, 'admin')).json()).toEqual({
        code: 'rest_already_trashed',
        message: 'The post has already been deleted.',
        data: { status: 410 },
      });
      const forced = (await cms.del(`/posts/${post.id}?force=true`, 'admin')).json();
      expect(forced.deleted).toBe(true);
      expect(forced.previous.id).toBe(post.id);
      expect((await cms.get(`/posts/${post.id}`, 'admin')).statusCode).toBe(404);
      const again = (await cms.post('/posts', { title: 'Bin me', status: 'publish' }, 'admin')).json();
      expect(again.slug).toBe('bin-me');
    });

    it('moves child pages up when their parent is deleted', async () => {
      const parent = (await cms.post('/pages', { title: 'Doomed parent', status: 'publish' }, 'admin')).json();
      const child = (
        await cms.post('/pages', { title: 'Orphan', status: 'publish', parent: parent.id }, 'admin')
      ).json();
      await cms.del(`/pages/${parent.id}?force=true`, 'admin');
      expect((await cms.get(`/pages/${child.id}`)).json().parent).toBe(0);
    });
  });

  describe('list parameters', () => {
    let ids: Record<string, number>;
    beforeAll(async () => {
      const cat = (await cms.post('/categories', { name: 'Listed' }, 'admin')).json();
      const child = (await cms.post('/categories', { name: 'Listed child', parent: cat.id }, 'admin')).json();
      const tag = (await cms.post('/tags', { name: 'listed-tag' }, 'admin')).json();
      const mk = async (title: string, extra: Record<string, unknown>) =>
        (await cms.post('/posts', { title, status: 'publish', ...extra }, 'admin')).json().id as number;
      ids = {
        cat: cat.id,
        child: child.id,
        tag: tag.id,
        alpha: await mk('Zebra alpha listing', {
          date: '2022-01-01T00:00:00',
          categories: [cat.id],
          content: 'gamma words',
        }),
        beta: await mk('Beta listing', {
          date: '2022-01-02T00:00:00',
          categories: [child.id],
          tags: [tag.id],
          format: 'quote',
        }),
        gamma: await mk('Gamma listing', { date: '2022-01-03T00:00:00', tags: [tag.id], excerpt: 'listing gamma' }),
      };
    });
    const list = async (query: string, as?: 'admin') =>
      (await cms.get(`/posts?${query}`, as)).json().map((p: { id: number }) => p.id);

    it('filters by categories (with children, AND), tags, exclusions and the relation between them', async () => {
      expect(await list(`categories=${ids.cat}`)).toEqual([ids.alpha]);
      expect(await list(`categories[terms]=${ids.cat}&categories[include_children]=true`)).toEqual([
        ids.beta,
        ids.alpha,
      ]);
      expect(await list(`categories[terms]=${ids.cat},${ids.child}&categories[operator]=AND`)).toEqual([]);
      expect(await list(`tags=${ids.tag}&categories=${ids.cat}&tax_relation=OR`)).toEqual([
        ids.gamma,
        ids.beta,
        ids.alpha,
      ]);
      expect(await list(`tags=${ids.tag}&categories_exclude=${ids.child}`)).toEqual([ids.gamma]);
      expect(await list(`search=listing&tags_exclude=${ids.tag}`)).toEqual([ids.alpha]);
    });

    it('searches title, excerpt and content, or the chosen columns, or exact values', async () => {
      expect(await list('search=gamma')).toEqual([ids.gamma, ids.alpha]);
      expect(await list('search=gamma&search_columns=post_title')).toEqual([ids.gamma]);
      expect(await list('search=gamma&search_columns=post_content,post_excerpt')).toEqual([ids.gamma, ids.alpha]);
      // Exact semantics match each search term against the whole column value, case-insensitively.
      const exact = (await cms.post('/posts', { title: 'Exactword', status: 'publish' }, 'admin')).json();
      expect(await list('search=exactword&search_semantics=exact')).toEqual([exact.id]);
      expect(await list('search=exact&search_semantics=exact')).toEqual([]);
      expect(await list('search=Beta%20listing&search_semantics=exact&search_columns=post_title')).toEqual([]);
      await cms.del(`/posts/${exact.id}?force=true`, 'admin');
      expect(await list('search=listing%20gamma&orderby=relevance')).toEqual([ids.gamma, ids.alpha]);
    });

    it('finds a post by its current text after every change, with LIKE semantics (ASCII case only)', async () => {
      const ids = async (q: string) =>
        (await cms.get(`/posts?search=${encodeURIComponent(q)}&_fields=id`)).json().map((p: { id: number }) => p.id);
      const post = (
        await cms.post(
          '/posts',
          { title: 'Zebrafish notes', content: 'About a "quoted" Ärmel', status: 'publish' },
          'admin',
        )
      ).json();
      expect(await ids('ZEBRAFISH')).toEqual([post.id]);
      expect(await ids('"quoted" Ärmel')).toEqual([post.id]);
      expect(await ids('quoted" Ä')).toEqual([post.id]);
      // Upper and lower case fold for ASCII letters only, as LIKE does on SQLite (PostgreSQL: lower()).
      expect(await ids('rmel')).toEqual([post.id]);
      await cms.post(`/posts/${post.id}`, { title: 'Giraffe notes', content: 'Nothing else' }, 'admin');
      expect(await ids('zebrafish')).toEqual([]);
      expect(await ids('giraffe')).toEqual([post.id]);
      expect(await ids('Ärmel')).toEqual([]);
      await cms.del(`/posts/${post.id}?force=true`, 'admin');
      expect(await ids('giraffe')).toEqual([]);
    });

    it('orders by title, id, slug, include and date, and pages by menu_order', async () => {
      const scoped = `include=${ids.alpha},${ids.beta},${ids.gamma}`;
      expect(await list(`${scoped}&orderby=title&order=asc`)).toEqual([ids.beta, ids.gamma, ids.alpha]);
      expect(await list(`${scoped}&orderby=id&order=asc`)).toEqual([ids.alpha, ids.beta, ids.gamma]);
      expect(await list(`include=${ids.beta},${ids.gamma},${ids.alpha}&orderby=include&order=asc`)).toEqual([
        ids.beta,
        ids.gamma,
        ids.alpha,
      ]);
      expect(await list(`${scoped}&orderby=slug`)).toEqual([ids.alpha, ids.gamma, ids.beta]);
      expect(await list(`${scoped}&exclude=${ids.beta}`)).toEqual([ids.gamma, ids.beta, ids.alpha]);
      expect(await list(`exclude=${ids.beta}&after=2021-12-31T00:00:00&before=2022-02-01T00:00:00`)).toEqual([
        ids.gamma,
        ids.alpha,
      ]);
    });

    it('filters by format, slug, author, date and modified date, with offset', async () => {
      expect(await list('format=quote')).toEqual([ids.beta]);
      expect(await list(`format=standard&include=${ids.alpha},${ids.beta}`)).toEqual([ids.alpha]);
      expect(await list('slug=beta-listing,gamma-listing')).toEqual([ids.gamma, ids.beta]);
      expect(
        await list(`author=${cms.ids.admin}&after=2021-12-31T00:00:00&before=2022-02-01T00:00:00&offset=1`),
      ).toEqual([ids.beta, ids.alpha]);
      expect(
        await list(`author_exclude=${cms.ids.admin}&after=2021-12-31T00:00:00&before=2022-02-01T00:00:00`),
      ).toEqual([]);
      expect(await list('modified_after=2100-01-01T00:00:00')).toEqual([]);
    });

    it('moves sticky posts first when ignore_sticky is false, and filters by stickiness', async () => {
      await cms.post(`/posts/${ids.alpha}`, { sticky: true }, 'admin');
      const first = await list('ignore_sticky=false&per_page=2');
      expect(first[0]).toBe(ids.alpha);
      expect(await list('sticky=true')).toContain(ids.alpha);
      expect(await list('sticky=false&search=listing')).toEqual([ids.gamma, ids.beta]);
      // As in WordPress, `include` wins over the exclusion that sticky=false adds.
      expect(await list(`sticky=false&include=${ids.alpha},${ids.beta}`)).toEqual([ids.beta, ids.alpha]);
      await cms.post(`/posts/${ids.alpha}`, { sticky: false }, 'admin');
    });

    it('filters pages by parent, parent_exclude and menu_order', async () => {
      const parent = (await cms.post('/pages', { title: 'List parent', status: 'publish' }, 'admin')).json();
      const a = (
        await cms.post('/pages', { title: 'Kid A', status: 'publish', parent: parent.id, menu_order: 2 }, 'admin')
      ).json();
      const b = (
        await cms.post('/pages', { title: 'Kid B', status: 'publish', parent: parent.id, menu_order: 1 }, 'admin')
      ).json();
      const kids = async (q: string) => (await cms.get(`/pages?${q}`)).json().map((p: { id: number }) => p.id);
      expect(await kids(`parent=${parent.id}&orderby=menu_order&order=asc`)).toEqual([b.id, a.id]);
      expect(await kids(`parent=${parent.id}&menu_order=2`)).toEqual([a.id]);
      expect(await kids(`include=${a.id},${parent.id}&parent_exclude=${parent.id}`)).toEqual([parent.id]);
    });

    it('paginates with totals and links, and refuses pages past the end and bad values', async () => {
      const res = await cms.get('/posts?per_page=1&page=2');
      expect(Number(res.headers['x-cms-totalpages'])).toBe(Number(res.headers['x-cms-total']));
      expect(res.headers.link).toContain('rel="prev"');
      expect(res.headers.link).toContain('rel="next"');
      expect((await cms.get('/posts?page=9999')).json().code).toBe('rest_post_invalid_page_number');
      expect((await cms.get('/posts?per_page=101')).statusCode).toBe(400);
      expect((await cms.get('/posts?orderby=relevance')).json().code).toBe('rest_no_search_term_defined');
      expect((await cms.get('/posts?orderby=include')).json().code).toBe('rest_orderby_include_missing_include');
      expect((await cms.get('/posts?status=any&per_page=100', 'admin')).json().length).toBeGreaterThan(
        (await cms.get('/posts?per_page=100', 'admin')).json().length,
      );
    });
  });

  describe('batch', () => {
    it('creates and updates posts through /batch/v1', async () => {
      const res = await cms.call({
        method: 'POST',
        url: '/cms-json/batch/v1',
        as: 'admin',
        payload: {
          requests: [
            { path: '/cms/v2/posts', body: { title: 'Batched one', status: 'publish' } },
            { path: '/cms/v2/pages', body: { title: 'Batched page' } },
            { method: 'DELETE', path: '/cms/v2/posts/999999' },
          ],
        },
      });
      expect(res.statusCode).toBe(207);
      const answers = res.json().responses;
      expect(answers.map((r: { status: number }) => r.status)).toEqual([201, 201, 404]);
      expect(answers[0].body.slug).toBe('batched-one');
    });
  });
});
