/**
 * Duplicate term names as WordPress 6.1 decides them (wp_insert_term(), wp_update_nav_menu_object()), the same on
 * SQLite and PostgreSQL:
 * - tags and categories: the database's collation finds the names at the same level equal without regard to case
 *   or accents, then PHP's strtolower() (ASCII letters only) must make them equal: "javascript" is a duplicate of
 *   "JavaScript", but "Cafe" is not one of "Café", nor "CAFÉ" of "café". A tag is answered `term_exists` "... in this
 *   taxonomy."; a category only when a sibling has exactly the name or the slug, "... with this parent.".
 * - menus: get_term_by( 'name' ) alone, the collation: "main menu" and "Máin Menu" clash with "Main Menu".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strtolower } from '../src/rest/php.ts';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';
import { runEach, wordpressPhpSkip } from './helpers/wordpress-php.ts';

describe("PHP's strtolower()", () => {
  it.skipIf(wordpressPhpSkip)('lowers ASCII letters only, as the PHP that runs WordPress does', () => {
    const inputs = [
      'JavaScript',
      'CAFÉ',
      'Café',
      'ÀÉÎÕÜ',
      'İstanbul',
      'STRASSE ẞ',
      'ΑΒΓ',
      'ДОМ',
      'Ǆ',
      'ＡＢＣ',
      'Mixed 123 _-',
    ];
    expect(inputs.map(strtolower)).toEqual(
      runEach(
        'strtolower',
        inputs.map((s) => [s]),
      ),
    );
  });
});

describe.each(dialects())('duplicate term names on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (!dialect.skip) cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const post = (url: string, payload: Record<string, unknown>) =>
    cms.call({ method: 'POST', url: `/cms-json/cms/v2${url}`, as: 'admin', payload });
  const created = async (url: string, payload: Record<string, unknown>) => {
    const res = await post(url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number; name: string; slug: string };
  };
  const termExists = (id: number, where: 'in this taxonomy' | 'with this parent') => ({
    code: 'term_exists',
    message: `A term with the name provided already exists ${where}.`,
    data: { status: 400, term_id: id },
    additional_data: [id, id],
  });

  describe.skipIf(dialect.skip)('', () => {
    it('tags: a name equal but for ASCII case is a duplicate, "in this taxonomy"', async () => {
      const js = await created('/tags', { name: 'JavaScript' });
      for (const name of ['JavaScript', 'javascript', 'JAVASCRIPT', 'jAvAsCrIpT']) {
        const res = await post('/tags', { name });
        expect(res.statusCode, name).toBe(400);
        expect(res.json()).toEqual(termExists(js.id, 'in this taxonomy'));
      }
      // A slug given that no term has makes room for the same name; one another term has does not.
      const php = await created('/tags', { name: 'PHP' });
      expect(await post('/tags', { name: 'javascript', slug: php.slug })).toMatchObject({ statusCode: 400 });
      expect((await post('/tags', { name: 'javascript', slug: php.slug })).json()).toEqual(
        termExists(js.id, 'in this taxonomy'),
      );
      expect(await created('/tags', { name: 'javascript', slug: 'js-lower' })).toMatchObject({ name: 'javascript' });
    });

    it('tags: accents, and case outside ASCII, tell names apart (strtolower), though the collation would not', async () => {
      const cafe = await created('/tags', { name: 'Café' });
      expect(cafe.slug).toBe('cafe');
      expect(await created('/tags', { name: 'Cafe' })).toMatchObject({ name: 'Cafe', slug: 'cafe-2' });
      expect(await created('/tags', { name: 'CAFÉ' })).toMatchObject({ name: 'CAFÉ', slug: 'cafe-3' });
      // ... but ASCII case is still ignored around the accent.
      expect((await post('/tags', { name: 'cAFé' })).json()).toEqual(termExists(cafe.id, 'in this taxonomy'));
    });

    it('tags: the name compared is the one stored, escaped', async () => {
      const rock = await created('/tags', { name: 'Rock & Roll' });
      expect((await post('/tags', { name: 'ROCK &amp; ROLL' })).json()).toEqual(
        termExists(rock.id, 'in this taxonomy'),
      );
    });

    it('categories: a sibling with the exact name, or with the slug the name makes, "with this parent"', async () => {
      const news = await created('/categories', { name: 'News' });
      const tech = await created('/categories', { name: 'Technology' });
      expect((await post('/categories', { name: 'Technology' })).json()).toEqual(
        termExists(tech.id, 'with this parent'),
      );
      // Not the exact name, but its slug, "technology", is the sibling's.
      expect((await post('/categories', { name: 'TECHNOLOGY' })).json()).toEqual(
        termExists(tech.id, 'with this parent'),
      );
      // Another level is another set of names.
      expect(await created('/categories', { name: 'technology', parent: news.id })).toMatchObject({
        parent: news.id,
        slug: 'technology-2',
      });
    });

    it('categories: the same name but for case is created when no sibling has its exact name or slug', async () => {
      const sci = await created('/categories', { name: 'Science', slug: 'sci' });
      // "science" matches "Science" (strtolower), but no sibling is named exactly "science" or has the slug
      // "science": WordPress creates it.
      expect(await created('/categories', { name: 'science' })).toMatchObject({ name: 'science', slug: 'science' });
      expect((await post('/categories', { name: 'Science' })).json()).toEqual(termExists(sci.id, 'with this parent'));
      expect(await created('/categories', { name: 'Économie' })).toMatchObject({ slug: 'economie' });
      expect(await created('/categories', { name: 'Economie' })).toMatchObject({ slug: 'economie-2' });
    });

    it('menus: the collation alone, without regard to case or accents', async () => {
      const main = await created('/menus', { name: 'Main Menu' });
      for (const name of ['main menu', 'MAIN MENU', 'Máin Menü']) {
        const res = await post('/menus', { name });
        expect(res.statusCode, name).toBe(400);
        expect(res.json()).toMatchObject({ code: 'menu_exists', data: { status: 400, term_id: main.id } });
      }
      const footer = await created('/menus', { name: 'Footer' });
      const renamed = await post(`/menus/${footer.id}`, { name: 'MAIN menu' });
      expect(renamed.statusCode).toBe(400);
      expect(renamed.json().code).toBe('menu_exists');
      // A menu may take its own name in another case.
      const own = await post(`/menus/${main.id}`, { name: 'MAIN MENU' });
      expect(own.statusCode, own.body).toBe(200);
      expect(own.json().name).toBe('MAIN MENU');
    });
  });
});
