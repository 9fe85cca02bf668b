/**
 * U+0000 in a request: PostgreSQL's text cannot hold it (an insert or a comparison fails), SQLite stores it. The
 * kernel removes it from every parameter after WordPress's validation and before the handler
 * (RestRequest.removeNulCharacters), as WordPress's save filters remove it from the fields they filter
 * (wp_kses_no_null, sanitize_title, esc_url): every write path answers as it would without the character, the
 * same on both stores, with the same value in the answer as in the store, and a check WordPress makes on the
 * value as sent (a username, an email, an enum) still refuses it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeUser, stripAllTags } from '../src/rest/formatting.ts';
import { basic, dialects, type RoleLogin } from './helpers/cms-test-app.ts';
import { makeImage, withIptc } from './helpers/media-fixtures.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';
import { runEach, wordpressPhpSkip } from './helpers/wordpress-php.ts';

const NUL = '\u0000';
const N = `a${NUL}b`;

/** Every string in `value` (keys too), for the "no U+0000 anywhere" checks. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  }
  return out;
}

const withNul = (value: unknown) => strings(value).filter((s) => s.includes(NUL));

describe('the text filters', () => {
  const inputs = [
    'ad\u0000min',
    '\u0000admin\u0000',
    'a <b>x\u0000</b> y',
    ' Ann  Lee ',
    'x%41y&amp;z',
    'a\u0000@b.test',
  ];
  it.skipIf(wordpressPhpSkip)("drop NUL as PHP's strip_tags() does: wp_strip_all_tags(), sanitize_user()", () => {
    expect(inputs.map((s) => stripAllTags(s))).toEqual(
      runEach(
        'wp_strip_all_tags',
        inputs.map((s) => [s]),
      ),
    );
    expect(inputs.map((s) => sanitizeUser(s, false))).toEqual(
      runEach(
        'sanitize_user',
        inputs.map((s) => [s, false]),
      ),
    );
    expect(inputs.map((s) => sanitizeUser(s, true))).toEqual(
      runEach(
        'sanitize_user',
        inputs.map((s) => [s, true]),
      ),
    );
  });
});

describe.each(dialects())('U+0000 in requests on $label', (dialect) => {
  let cms: SiteTestCms;
  beforeAll(async () => {
    if (!dialect.skip) cms = await createSiteTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: unknown, as: RoleLogin | null = 'admin') =>
    cms.call({
      method,
      url: `/cms-json${url}`,
      ...(as ? { as } : {}),
      ...(payload ? { payload: payload as object } : {}),
    });

  /** Creates (or updates) with `payload`, expects `status`, and returns the answer after checking it and the item read back. */
  async function write(url: string, payload: unknown, status: number, as: RoleLogin = 'admin') {
    const res = await api('POST', url, payload, as);
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json();
    expect(withNul(body)).toEqual([]);
    return body;
  }

  async function readBack(url: string) {
    const res = await api('GET', `${url}${url.includes('?') ? '&' : '?'}context=edit`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  describe.skipIf(dialect.skip)('', () => {
    it('posts, pages and blocks: title, content, excerpt, slug, password and meta, for any role', async () => {
      for (const [base, as] of [
        ['/cms/v2/posts', 'admin'],
        ['/cms/v2/posts', 'arthur'],
        ['/cms/v2/pages', 'edna'],
        ['/cms/v2/blocks', 'admin'],
      ] as const) {
        const created = await write(
          base,
          {
            title: N,
            status: 'publish',
            content: `<p>${N}</p>`,
            excerpt: { raw: N },
            slug: `s${N}${as}`,
            ...(base === '/cms/v2/blocks' ? {} : { password: `p${N}` }),
            ...(base === '/cms/v2/posts' ? { meta: { footnotes: N } } : {}),
          },
          201,
          as,
        );
        expect(created.title.raw).toBe('ab');
        expect(created.content.raw).toBe('<p>ab</p>');
        expect(created.slug).toBe(`sab${as}`);
        if (base !== '/cms/v2/blocks') expect(created.password).toBe('pab');
        if (base === '/cms/v2/posts') expect(created.meta.footnotes).toBe('ab');
        const read = await readBack(`${base}/${created.id}`);
        expect(read.title.raw).toBe('ab');
        expect(read.content.raw).toBe('<p>ab</p>');
        if (base !== '/cms/v2/blocks') {
          expect(read.excerpt.raw).toBe('ab');
          expect(read.password).toBe('pab');
          // The post password as a reader sends it finds the post (the same characters removed from both).
          const unlocked = await api(
            'GET',
            `${base}/${created.id}?password=${encodeURIComponent(`p${N}`)}`,
            undefined,
            null,
          );
          expect(unlocked.statusCode, unlocked.body).toBe(200);
          expect(unlocked.json().content).toMatchObject({ rendered: '<p>ab</p>\n', protected: true });
        }

        const updated = await write(`${base}/${created.id}`, { title: `u${N}`, content: N }, 200, as);
        expect(updated.title.raw).toBe('uab');
        expect((await readBack(`${base}/${created.id}`)).content.raw).toBe('ab');
      }
    });

    it('tags, categories and menus: name, description and slug', async () => {
      for (const base of ['/cms/v2/tags', '/cms/v2/categories', '/cms/v2/menus']) {
        const created = await write(
          base,
          { name: `t${N}${base.length}`, description: N, slug: `x${N}${base.length}` },
          201,
        );
        expect(created.name).toBe(`tab${base.length}`);
        expect(created.description).toBe('ab');
        expect(created.slug).toBe(`xab${base.length}`);
        const updated = await write(
          `${base}/${created.id}`,
          { name: `v${N}${base.length}`, description: `d${N}` },
          200,
        );
        expect(updated.name).toBe(`vab${base.length}`);
        expect((await readBack(`${base}/${created.id}`)).description).toBe('dab');
      }
    });

    it('users: names, description, URL and nickname; the username and email are still checked as sent', async () => {
      const created = await write(
        '/cms/v2/users',
        {
          username: 'nuluser',
          email: 'nuluser@example.test',
          password: `pw${N}`,
          name: N,
          first_name: `f${N}`,
          last_name: `l${N}`,
          nickname: `n${N}`,
          description: `d${N}`,
          url: `http://example.test/${N}`,
          slug: `nul${N}user`,
        },
        201,
      );
      const read = await readBack(`/cms/v2/users/${created.id}`);
      expect(read).toMatchObject({
        name: 'ab',
        first_name: 'fab',
        last_name: 'lab',
        nickname: 'nab',
        description: 'dab',
        url: 'http://example.test/ab',
        slug: 'nulabuser',
      });
      const updated = await write(`/cms/v2/users/${created.id}`, { name: `x${N}`, description: N }, 200);
      expect(updated.name).toBe('xab');

      // validate_username() and is_email() see the character, as in WordPress, and refuse the value.
      const login = await api('POST', '/cms/v2/users', {
        username: `nul${NUL}2`,
        email: 'nul2@example.test',
        password: 'pw',
      });
      expect(login.statusCode).toBe(400);
      expect(login.json().data.params).toHaveProperty('username');
      const email = await api('POST', '/cms/v2/users', {
        username: 'nul3',
        email: `nul3${NUL}@example.test`,
        password: 'pw',
      });
      expect(email.statusCode).toBe(400);
      expect(email.json().data.params).toHaveProperty('email');
    });

    it('application password names', async () => {
      const created = await write('/cms/v2/users/me/application-passwords', { name: `laptop${N}` }, 201);
      expect(created.name).toBe('laptopab');
      const list = (await api('GET', '/cms/v2/users/me/application-passwords')).json() as Array<{
        uuid: string;
        name: string;
      }>;
      expect(list.find((p) => p.uuid === created.uuid)?.name).toBe('laptopab');
      const renamed = await write(`/cms/v2/users/me/application-passwords/${created.uuid}`, { name: `desk${N}` }, 200);
      expect(renamed.name).toBe('deskab');
    });

    it('settings', async () => {
      const saved = await write(
        '/cms/v2/settings',
        { title: `Site${N}`, description: `Tag${N}line`, date_format: `Y${N}m`, time_format: `H${N}i` },
        200,
      );
      expect(saved).toMatchObject({
        title: 'Siteab',
        description: 'Tagabline',
        date_format: 'Yabm',
        time_format: 'Habi',
      });
      expect(withNul((await api('GET', '/cms/v2/settings')).json())).toEqual([]);
      const enumValue = await api('POST', '/cms/v2/settings', { default_ping_status: `open${NUL}` });
      expect(enumValue.statusCode).toBe(400);
    });

    it('menu items and media fields', async () => {
      const menu = await write('/cms/v2/menus', { name: 'Nul menu' }, 201);
      const item = await write(
        '/cms/v2/menu-items',
        {
          title: `i${N}`,
          url: `http://example.test/${N}`,
          attr_title: `t${N}`,
          description: `d${N}`,
          classes: [`c${N}`],
          xfn: [`x${N}`],
          menus: menu.id,
        },
        201,
      );
      expect(item).toMatchObject({ attr_title: 'tab', description: 'dab', url: 'http://example.test/ab' });
      expect((await readBack(`/cms/v2/menu-items/${item.id}`)).title.raw).toBe('iab');

      const upload = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/media',
        as: 'admin',
        headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="nul.png"' },
        payload: await makeImage(16, 16, 'png'),
      });
      expect(upload.statusCode, upload.body).toBe(201);
      const media = await write(
        `/cms/v2/media/${upload.json().id}`,
        { title: `m${N}`, alt_text: `a${N}`, caption: `c${N}`, description: `d${N}` },
        200,
      );
      expect(media).toMatchObject({ alt_text: 'aab', caption: { raw: 'cab' }, description: { raw: 'dab' } });
    });

    it("an upload's IPTC title and caption: control characters removed, as wp_kses_post_deep() does", async () => {
      const jpeg = withIptc(await makeImage(16, 16, 'jpeg'), [
        [5, `Light${NUL}house\u0001`],
        [120, `At${NUL} night`],
        [25, `key${NUL}word`],
      ]);
      const upload = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/media',
        as: 'admin',
        headers: { 'content-type': 'image/jpeg', 'content-disposition': 'attachment; filename="iptc.jpg"' },
        payload: jpeg,
      });
      expect(upload.statusCode, upload.body).toBe(201);
      const body = upload.json();
      expect(withNul(body)).toEqual([]);
      expect(body.title.raw).toBe('Lighthouse');
      expect(body.caption.raw).toBe('At night');
      expect(body.media_details.image_meta).toMatchObject({
        title: 'Lighthouse',
        caption: 'At night',
        keywords: ['keyword'],
      });
      const read = await readBack(`/cms/v2/media/${body.id}`);
      expect(read.title.raw).toBe('Lighthouse');
    });

    it('batch requests: each one cleaned, and each one checked as sent', async () => {
      const res = await api('POST', '/batch/v1', {
        requests: [
          { path: '/cms/v2/posts', body: { title: `b${N}`, content: N } },
          { path: '/cms/v2/posts', body: { title: 'bad format', format: `standard${NUL}` } },
          { path: `/cms/v2/pages?_fields=${encodeURIComponent(`id,title${NUL}`)}`, body: { title: `p${N}` } },
        ],
      });
      expect(res.statusCode).toBe(207);
      const [post, refused, page] = res.json().responses;
      expect(post.status).toBe(201);
      expect(post.body.title.raw).toBe('bab');
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('rest_invalid_param');
      expect(page.status).toBe(201);
      expect(withNul(res.json())).toEqual([]);
    });

    it('searches and filters read as without the character', async () => {
      await write('/cms/v2/posts', { title: 'findable nulsearch', status: 'publish' }, 201);
      for (const url of [
        `/cms/v2/posts?search=${encodeURIComponent(`nul${NUL}search`)}`,
        `/cms/v2/users?search=${encodeURIComponent(`nul${NUL}`)}`,
        `/cms/v2/tags?search=${encodeURIComponent(`t${NUL}`)}`,
        `/cms/v2/posts?slug=${encodeURIComponent(`a${NUL}b`)}`,
      ]) {
        const res = await api('GET', url);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      }
      const found = (await api('GET', `/cms/v2/posts?search=${encodeURIComponent(`nul${NUL}search`)}`)).json();
      expect(found.map((p: { title: { rendered: string } }) => p.title.rendered)).toEqual(['findable nulsearch']);
    });

    it('site pages: a path segment with U+0000 is not found, a query value is read without it', async () => {
      await write('/cms/v2/tags', { name: 'site tag', slug: 'ab' }, 201);
      const page = async (url: string) => (await cms.app.inject({ method: 'GET', url })).statusCode;
      for (const url of ['/a%00b/', '/tag/a%00b/', '/category/a%00b/', '/author/a%00b/', '/search/a%00b/']) {
        expect(await page(url), url).toBe(404);
      }
      expect(await page('/?s=a%00b')).toBe(200);
      // `?tag=` as WordPress reads it: the query var sanitize_title_for_query() strips the character from.
      expect(await page('/?tag=a%00b')).toBe(200);
      // On PostgreSQL an id past the integer columns' range cannot be compared; it names nothing, as on SQLite.
      for (const url of ['/?p=99999999999', '/?cat=99999999999', '/?author=99999999999', '/?page_id=99999999999']) {
        expect(await page(url), url).toBe(404);
      }
    });

    it('Basic credentials: the login is looked up as sanitize_user() leaves it, NUL removed', async () => {
      const me = (login: string, password: string) =>
        cms.app.inject({
          method: 'GET',
          url: '/cms-json/cms/v2/users/me',
          headers: { authorization: basic(login, password) },
        });
      const admin = await me(`ad${NUL}min`, cms.passwords.admin);
      expect(admin.statusCode, admin.body).toBe(200);
      expect(admin.json().id).toBe(cms.ids.admin);
      for (const login of [`ad${NUL}min@example.test`, `nobody${NUL}`]) {
        const res = await me(login, cms.passwords.admin);
        expect(res.statusCode, res.body).toBe(401);
        expect(res.json().code).toBe('invalid_username');
      }
    });

    it('leaves no U+0000 in the store', async () => {
      const db = cms.database.db;
      const tables = ['posts', 'postmeta', 'terms', 'users', 'options', 'application_passwords'] as const;
      for (const table of tables) {
        const rows = await sql`select * from ${sql.table(table)}`.execute(db);
        const found = strings(rows.rows.map((r) => JSON.stringify(r))).filter((s) => s.includes('\\u0000'));
        expect(found, table).toEqual([]);
      }
    });
  });
});
