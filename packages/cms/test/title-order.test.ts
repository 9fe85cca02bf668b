/**
 * Lists ordered by title compare the raw titles without regard to case or accents, as WordPress's database
 * collation (utf8mb4_unicode_520_ci) orders `post_title`: "Émile" comes between "Edgar" and "Fabien", not
 * after "zeta". The raw title is compared, HTML included, as WordPress orders the stored column.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('title order on $label', (dialect) => {
  let cms: TestCms;
  const created = async (type: 'posts' | 'pages', title: string): Promise<number> => {
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/${type}`,
      as: 'admin',
      payload: { title, status: 'publish' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  };
  const titles = async (url: string): Promise<string[]> => {
    const res = await cms.call({ method: 'GET', url, as: 'admin' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().map((p: { title: { raw: string } }) => p.title.raw);
  };
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  describe.skipIf(dialect.skip)('', () => {
    it('orders posts by title without regard to case or accents, both ways, HTML included', async () => {
      for (const title of ['Fabien', 'zeta', 'Édouard', 'Edgar', 'Øscar', 'apple', 'Über', 'Émile', '<em>Zebra</em>']) {
        await created('posts', title);
      }
      // '<' sorts before letters in the raw title, as in MySQL; a title stripped of its tags would come last.
      const expected = ['<em>Zebra</em>', 'apple', 'Edgar', 'Édouard', 'Émile', 'Fabien', 'Øscar', 'Über', 'zeta'];
      const list = (order: string) =>
        titles(`/cms-json/cms/v2/posts?orderby=title&order=${order}&per_page=100&context=edit&_fields=title`);
      expect(await list('asc')).toEqual(expected);
      expect(await list('desc')).toEqual([...expected].reverse());
    });

    it('keeps the order when a title changes, and breaks ties by id in the direction', async () => {
      const id = await created('posts', 'Temporary');
      const same = await created('posts', 'ÉMILE');
      const res = await cms.call({
        method: 'POST',
        url: `/cms-json/cms/v2/posts/${id}`,
        as: 'admin',
        payload: { title: 'Ångström' },
      });
      expect(res.statusCode, res.body).toBe(200);
      const list = (order: string) =>
        titles(`/cms-json/cms/v2/posts?orderby=title&order=${order}&per_page=100&context=edit&_fields=title`);
      expect((await list('asc')).slice(0, 7)).toEqual([
        '<em>Zebra</em>',
        'Ångström',
        'apple',
        'Edgar',
        'Édouard',
        'Émile',
        'ÉMILE',
      ]);
      expect((await list('desc')).slice(-7)).toEqual([
        'ÉMILE',
        'Émile',
        'Édouard',
        'Edgar',
        'apple',
        'Ångström',
        '<em>Zebra</em>',
      ]);
      await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/posts/${same}?force=true`, as: 'admin' });
      await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/posts/${id}?force=true`, as: 'admin' });
    });

    it('orders pages and revisions the same way', async () => {
      for (const title of ['Fabien page', 'Émile page', 'Edgar page']) await created('pages', title);
      expect(
        await titles('/cms-json/cms/v2/pages?orderby=title&order=asc&per_page=100&context=edit&_fields=title'),
      ).toEqual(['Edgar page', 'Émile page', 'Fabien page']);
      const id = await created('posts', 'Fabien draft');
      for (const title of ['Émile draft', 'zeta draft', 'Edgar draft']) {
        const res = await cms.call({
          method: 'POST',
          url: `/cms-json/cms/v2/posts/${id}`,
          as: 'admin',
          payload: { title },
        });
        expect(res.statusCode, res.body).toBe(200);
      }
      expect(
        await titles(`/cms-json/cms/v2/posts/${id}/revisions?orderby=title&order=asc&context=edit&_fields=title`),
      ).toEqual(['Edgar draft', 'Émile draft', 'zeta draft']);
    });
  });
});
