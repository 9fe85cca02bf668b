/**
 * The `menu_exists` error of wp_update_nav_menu_object() word for word: "The menu name <strong>{name}
 * </strong> conflicts with another menu name. Please try another.", the name as typed, slashed (the REST
 * controller passes wp_slash()ed data) and esc_html()ed. A create carries the clash's id (`term_id`, and
 * `additional_data`); an update does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('menu name conflicts on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const api = (url: string, payload: Record<string, unknown>) =>
    cms.call({ method: 'POST', url: `/cms-json/cms/v2${url}`, as: 'admin', payload });
  const message = (shown: string) =>
    `The menu name <strong>${shown}</strong> conflicts with another menu name. Please try another.`;

  describe.skipIf(dialect.skip)('', () => {
    it('refuses a second menu of the same name with the name in <strong>', async () => {
      const first = await api('/menus', { name: 'Main' });
      expect(first.statusCode, first.body).toBe(201);
      const id = first.json().id;
      const dup = await api('/menus', { name: 'Main' });
      expect(dup.statusCode).toBe(400);
      expect(dup.json()).toEqual({
        code: 'menu_exists',
        message: message('Main'),
        data: { status: 400, term_id: id },
        additional_data: [id],
      });
    });

    it('shows the typed name slashed and escaped, whichever form of it clashes', async () => {
      const first = await api('/menus', { name: `Tom & Jerry's "Best"` });
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json().name).toBe(`Tom &amp; Jerry's "Best"`);
      const plain = await api('/menus', { name: `Tom & Jerry's "Best"` });
      expect(plain.json().message).toBe(message('Tom &amp; Jerry\\&#039;s \\&quot;Best\\&quot;'));
      const escaped = await api('/menus', { name: `Tom &amp; Jerry's "Best"` });
      expect(escaped.json().message).toBe(message('Tom &amp; Jerry\\&#039;s \\&quot;Best\\&quot;'));
    });

    it('refuses renaming a menu to another menu name, without the id', async () => {
      const other = await api('/menus', { name: 'Footer <i>links</i>' });
      expect(other.statusCode, other.body).toBe(201);
      const res = await api(`/menus/${other.json().id}`, { name: 'Main' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'menu_exists', message: message('Main'), data: { status: 400 } });
      const same = await api(`/menus/${other.json().id}`, { name: 'Footer links', description: 'kept' });
      expect(same.statusCode, same.body).toBe(200);
    });
  });
});
