/**
 * Values longer than their column once stored (names escaped, "A & B" as "A &amp; B"; slugs with a suffix;
 * an attachment's URL) are refused as WordPress's wpdb refuses them (process_field_lengths: the write fails),
 * with WordPress's code for that write (`db_insert_error`, `db_update_error`, or wp_insert_user()'s own
 * `user_login_too_long`, `user_nicename_too_long`, `user_url_too_long`) and status 400 (WordPress: 500), the
 * same on SQLite, which would store them whole, and on PostgreSQL, which would refuse them with an error.
 * Columns measure characters, not UTF-16 units. Nothing of a refused request is written.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoleLogin } from './helpers/cms-test-app.ts';
import { dialects } from './helpers/cms-test-app.ts';
import { makeImage } from './helpers/media-fixtures.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

/** 200 characters, 600 once escaped. */
const ESCAPES_PAST_200 = 'x&'.repeat(100);
/** 200 characters once escaped (`a&amp;` is 6): exactly the width of a term name. */
const ESCAPES_TO_200 = `${'a&'.repeat(33)}ab`;
/** 200 characters outside the BMP: 400 UTF-16 units, 200 characters to both databases. */
const ASTRAL_200 = '😀'.repeat(200);

const dbError = (code: 'db_insert_error' | 'db_update_error', subject: string, column: string, maxLength: number) => ({
  code,
  message:
    code === 'db_insert_error'
      ? `Could not insert ${subject} into the database.`
      : `Could not update ${subject} in the database.`,
  data: { status: 400, column, max_length: maxLength },
});

describe.each(dialects())('values too long for their columns on $label', (dialect) => {
  let cms: SiteTestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createSiteTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, as: RoleLogin = 'admin') =>
    cms.call({ method, url: `/cms-json${url}`, as, ...(payload ? { payload: payload as object } : {}) });

  describe.skipIf(dialect.skip)('', () => {
    describe.each(['/cms/v2/tags', '/cms/v2/categories', '/cms/v2/menus'])('%s', (base) => {
      const count = async () => Number((await api('GET', `${base}?per_page=1`)).headers['x-cms-total']);

      it('refuses a name longer than its column once escaped, on create and update, and writes nothing', async () => {
        const before = await count();
        const created = await api('POST', base, { name: ESCAPES_PAST_200 });
        expect(created.statusCode, created.body).toBe(400);
        expect(created.json()).toEqual(dbError('db_insert_error', 'term', 'name', 200));
        expect(await count()).toBe(before);

        const kept = await api('POST', base, { name: `Kept ${base}`, description: 'before' });
        expect(kept.statusCode, kept.body).toBe(201);
        const { id } = kept.json();
        const updated = await api('POST', `${base}/${id}`, { name: ESCAPES_PAST_200, description: 'after' });
        expect(updated.statusCode, updated.body).toBe(400);
        expect(updated.json()).toEqual(dbError('db_update_error', 'term', 'name', 200));
        const read = (await api('GET', `${base}/${id}?context=edit`)).json();
        expect(read).toMatchObject({ name: `Kept ${base}`, description: 'before' });
      });

      it('takes names as long as the column in characters, escaped or outside the BMP', async () => {
        const escaped = await api('POST', base, { name: ESCAPES_TO_200 });
        expect(escaped.statusCode, escaped.body).toBe(201);
        expect(escaped.json().name).toBe(`${'a&amp;'.repeat(33)}ab`);
        const astral = await api('POST', base, { name: ASTRAL_200 });
        expect(astral.statusCode, astral.body).toBe(201);
        expect(astral.json().name).toBe(ASTRAL_200);
        const longer = await api('POST', `${base}/${astral.json().id}`, { name: `${ASTRAL_200}!` });
        expect(longer.json()).toEqual(dbError('db_update_error', 'term', 'name', 200));
      });

      it('refuses a slug its uniqueness suffix takes past the column', async () => {
        // Both names make the same 200-character slug: the second one's `-2` does not fit (WordPress's
        // wp_unique_term_slug() does not shorten it either, and its insert fails).
        const first = await api('POST', base, { name: `${'s'.repeat(199)}!` });
        expect(first.statusCode, first.body).toBe(201);
        expect(first.json().slug).toBe('s'.repeat(199));
        const before = await count();
        const second = await api('POST', base, { name: `${'s'.repeat(199)}?`, slug: '' });
        expect(second.json()).toMatchObject(dbError('db_insert_error', 'term', 'slug', 200));
        expect(await count()).toBe(before);
      });
    });

    describe('users', () => {
      let n = 0;
      const newUser = (fields: Record<string, unknown>) => {
        n++;
        return api('POST', '/cms/v2/users', {
          username: `len${n}`,
          email: `len${n}@example.test`,
          password: 'pw',
          ...fields,
        });
      };
      const userCount = async () => Number((await api('GET', '/cms/v2/users?per_page=1')).headers['x-cms-total']);

      it("refuses too long a login, nicename or URL with wp_insert_user()'s codes, and creates nobody", async () => {
        const before = await userCount();
        const login = await newUser({ username: 'u'.repeat(61) });
        expect(login.json()).toEqual({
          code: 'user_login_too_long',
          message: 'Username may not be longer than 60 characters.',
          data: { status: 400 },
        });
        const nicename = await newUser({ slug: 's'.repeat(51) });
        expect(nicename.json()).toEqual({
          code: 'user_nicename_too_long',
          message: 'Nicename may not be longer than 50 characters.',
          data: { status: 400 },
        });
        // 97 characters typed, 101 once the `&` is stored as `&amp;`.
        const url = await newUser({ url: `http://x.test/?${'q'.repeat(78)}&b=1` });
        expect(url.json()).toEqual({
          code: 'user_url_too_long',
          message: 'User URL may not be longer than 100 characters.',
          data: { status: 400 },
        });
        expect(await userCount()).toBe(before);
        const fits = await newUser({ slug: 's'.repeat(50), url: `http://x.test/?${'q'.repeat(79)}&b` });
        expect(fits.statusCode, fits.body).toBe(201);
        expect(fits.json()).toMatchObject({ slug: 's'.repeat(50), url: `http://x.test/?${'q'.repeat(79)}&amp;b` });
        // The next user wanting that nicename gets WordPress's suffix within the 50 characters.
        const next = await newUser({ slug: 's'.repeat(50) });
        expect(next.json().slug).toBe(`${'s'.repeat(48)}-2`);
      });

      it('refuses a display name or email longer than its column with db_insert_error', async () => {
        const before = await userCount();
        expect((await newUser({ name: ESCAPES_PAST_200 })).json()).toEqual(
          dbError('db_insert_error', 'user', 'display_name', 250),
        );
        // The display name made from the first and last names ("First Last") is checked the same way.
        expect((await newUser({ first_name: 'f'.repeat(200), last_name: 'l'.repeat(50) })).json()).toEqual(
          dbError('db_insert_error', 'user', 'display_name', 250),
        );
        expect((await newUser({ email: `${'e'.repeat(94)}@x.test` })).json()).toEqual(
          dbError('db_insert_error', 'user', 'email', 100),
        );
        expect(await userCount()).toBe(before);
        const astral = await newUser({ name: '😀'.repeat(250) });
        expect(astral.statusCode, astral.body).toBe(201);
      });

      it('refuses the same on update, and changes nothing of the request', async () => {
        const user = (await newUser({ name: 'Before', description: 'before' })).json();
        const update = (fields: Record<string, unknown>) =>
          api('POST', `/cms/v2/users/${user.id}`, { description: 'after', ...fields });
        expect((await update({ name: ESCAPES_PAST_200 })).json()).toEqual(
          dbError('db_update_error', 'user', 'display_name', 250),
        );
        expect((await update({ email: `${'e'.repeat(94)}@x.test` })).json()).toEqual(
          dbError('db_update_error', 'user', 'email', 100),
        );
        expect((await update({ slug: 's'.repeat(51) })).json()).toMatchObject({ code: 'user_nicename_too_long' });
        expect((await update({ url: `http://x.test/${'p'.repeat(90)}` })).json()).toMatchObject({
          code: 'user_url_too_long',
          data: { status: 400 },
        });
        const read = (await api('GET', `/cms/v2/users/${user.id}?context=edit`)).json();
        expect(read).toMatchObject({ name: 'Before', description: 'before', slug: user.slug, email: user.email });
      });
    });

    describe('posts', () => {
      const postCount = async () =>
        Number((await api('GET', '/cms/v2/posts?status=any&per_page=1')).headers['x-cms-total']);

      it('refuses a password longer than its column on create and update, and writes nothing', async () => {
        const before = await postCount();
        const created = await api('POST', '/cms/v2/posts', { title: 'Locked', password: 'p'.repeat(256) });
        expect(created.json()).toEqual(dbError('db_insert_error', 'post', 'password', 255));
        expect(await postCount()).toBe(before);

        const post = (await api('POST', '/cms/v2/posts', { title: 'Open', password: '😀'.repeat(255) })).json();
        expect(post.password).toBe('😀'.repeat(255));
        const updated = await api('POST', `/cms/v2/posts/${post.id}`, { title: 'Changed', password: 'p'.repeat(256) });
        expect(updated.json()).toEqual(dbError('db_update_error', 'post', 'password', 255));
        const read = (await api('GET', `/cms/v2/posts/${post.id}?context=edit`)).json();
        expect(read.title.raw).toBe('Open');
        const revisions = (await api('GET', `/cms/v2/posts/${post.id}/revisions`)).json();
        expect(revisions).toEqual([]);
      });

      it('answers the same inside a batch, where the other requests still run', async () => {
        const before = await postCount();
        const batch = await api('POST', '/batch/v1', {
          requests: [
            { method: 'POST', path: '/cms/v2/posts', body: { title: 'Batched', password: 'p'.repeat(300) } },
            { method: 'POST', path: '/cms/v2/posts', body: { title: 'Batched fine' } },
          ],
        });
        expect(batch.statusCode).toBe(207);
        const [refused, created] = batch.json().responses;
        expect(refused).toMatchObject({ status: 400, body: dbError('db_insert_error', 'post', 'password', 255) });
        expect(created).toMatchObject({ status: 201, body: { title: { raw: 'Batched fine' } } });
        expect(await postCount()).toBe(before + 1);
      });

      it("leaves the guid empty when the permalink does not fit its column, as WordPress's ignored update does", async () => {
        const parent = await api('POST', '/cms/v2/pages', { title: 'p'.repeat(200), status: 'publish' });
        expect(parent.statusCode, parent.body).toBe(201);
        expect(parent.json().guid.raw).toBe(`http://cms.test/${'p'.repeat(200)}/`);
        const child = await api('POST', '/cms/v2/pages', {
          title: 'c'.repeat(200),
          status: 'publish',
          parent: parent.json().id,
        });
        expect(child.statusCode, child.body).toBe(201);
        expect(child.json()).toMatchObject({
          guid: { raw: '', rendered: '' },
          link: `http://cms.test/${'p'.repeat(200)}/${'c'.repeat(200)}/`,
        });
      });
    });

    describe('media', () => {
      const upload = async (name: string) =>
        cms.call({
          method: 'POST',
          url: '/cms-json/cms/v2/media',
          as: 'admin',
          headers: { 'content-type': 'image/png', 'content-disposition': `attachment; filename="${name}"` },
          payload: await makeImage(20, 20, 'png'),
        });
      const files = async () =>
        (await readdir(cms.uploadsDir, { recursive: true, withFileTypes: true }))
          .filter((entry) => entry.isFile())
          .map((entry) => entry.name)
          .sort();

      it('refuses an upload whose URL is longer than the guid column, and keeps no file or attachment', async () => {
        // File names are kept to 180 bytes, so it takes a site URL of some length.
        const site = `http://cms.test/${'h'.repeat(40)}`;
        await cms.ctx.options.set('siteurl', site);
        try {
          const before = await files();
          const count = Number((await api('GET', '/cms/v2/media?per_page=1')).headers['x-cms-total']);
          // The site, /cms-content/uploads/2026/11/ and 184 characters: 270.
          const refused = await upload(`${'n'.repeat(180)}.png`);
          expect(refused.json()).toEqual(dbError('db_insert_error', 'attachment', 'guid', 255));
          expect(await files()).toEqual(before);
          expect(Number((await api('GET', '/cms/v2/media?per_page=1')).headers['x-cms-total'])).toBe(count);
          const fits = await upload(`${'n'.repeat(150)}.png`);
          expect(fits.statusCode, fits.body).toBe(201);
          expect(fits.json().guid.raw).toBe(`${site}/cms-content/uploads/2026/11/${'n'.repeat(150)}.png`);
        } finally {
          await cms.ctx.options.set('siteurl', 'http://cms.test');
        }
      });
    });
  });
});
