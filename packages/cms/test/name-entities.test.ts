/**
 * Names that WordPress's save filters escape (pre_term_name, pre_user_display_name, pre_user_first_name,
 * pre_user_last_name, pre_user_nickname: sanitize_text_field, wp_filter_kses, _wp_specialchars; and
 * wp_filter_kses on pre_user_url): "A & B" is stored and returned as "A &amp; B", a name already escaped
 * is not escaped twice, the slug is WordPress's ("a-b"), the duplicate-name check compares the stored
 * form, and the public site shows the name once escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('escaped names on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    cms.call({ method, url: `/cms-json/cms/v2${url}`, as: 'admin', ...(payload ? { payload } : {}) });

  describe.skipIf(dialect.skip)('', () => {
    it('stores a category name with & escaped, slugs it like WordPress and reads it back the same', async () => {
      const created = await api('POST', '/categories', { name: 'A & B' });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({ name: 'A &amp; B', slug: 'a-b' });
      const read = await api('GET', `/categories/${created.json().id}`);
      expect(read.json().name).toBe('A &amp; B');
      const listed = await api('GET', '/categories?slug=a-b');
      expect(listed.json().map((t: { name: string }) => t.name)).toEqual(['A &amp; B']);
    });

    it('does not escape an escaped name twice, and finds it a duplicate of the same name typed plainly', async () => {
      const again = await api('POST', '/categories', { name: 'A &amp; B' });
      expect(again.statusCode).toBe(400);
      expect(again.json().code).toBe('term_exists');
      const tag = await api('POST', '/tags', { name: 'Rock &amp; Roll' });
      expect(tag.json()).toMatchObject({ name: 'Rock &amp; Roll', slug: 'rock-roll' });
      const plain = await api('POST', '/tags', { name: 'Rock & Roll' });
      expect(plain.json().code).toBe('term_exists');
    });

    it('escapes < and > and drops tags in term names, on create and update', async () => {
      const tag = await api('POST', '/tags', { name: '5 > 4 <b>bold</b>' });
      expect(tag.json()).toMatchObject({ name: '5 &gt; 4 bold', slug: '5-4-bold' });
      const updated = await api('POST', `/tags/${tag.json().id}`, { name: 'Salt & Pepper' });
      expect(updated.json().name).toBe('Salt &amp; Pepper');
    });

    it('escapes menu names (menus are terms)', async () => {
      const menu = await api('POST', '/menus', { name: 'Main & Footer' });
      expect(menu.statusCode, menu.body).toBe(201);
      expect(menu.json()).toMatchObject({ name: 'Main &amp; Footer', slug: 'main-footer' });
    });

    it("escapes a user's display name, first and last name, nickname and the & of a URL", async () => {
      const created = await api('POST', '/users?context=edit', {
        username: 'tom',
        email: 'tom@example.test',
        password: 'a long enough password 1',
        name: 'Tom & Jerry',
        first_name: 'Tom & Co',
        last_name: 'Jerry &amp; Sons',
        nickname: 'T&J',
        url: 'http://tom.test/?a=1&b=2',
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({
        name: 'Tom &amp; Jerry',
        first_name: 'Tom &amp; Co',
        last_name: 'Jerry &amp; Sons',
        nickname: 'T&amp;J',
        url: 'http://tom.test/?a=1&amp;b=2',
        slug: 'tom',
      });
      const updated = await api('POST', `/users/${created.json().id}`, {
        name: 'Tom &amp; Jerry 2',
        nickname: 'a > b',
      });
      expect(updated.json()).toMatchObject({ name: 'Tom &amp; Jerry 2', nickname: 'a &gt; b' });
      const view = await api('GET', `/users/${created.json().id}`);
      expect(view.json().name).toBe('Tom &amp; Jerry 2');
    });

    it('shows an escaped name on the public site escaped once', async () => {
      const page = await cms.call({ method: 'GET', url: '/category/a-b/' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Category: <span>A &amp; B</span>');
      expect(page.body).not.toContain('&amp;amp;');
    });
  });
});
