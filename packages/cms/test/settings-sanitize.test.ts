/**
 * POST /settings stores what WordPress's update_option() stores after sanitize_option(): the title and
 * tagline escaped by esc_html ("A & B" as "A &amp; B", quotes and tags as entities, nothing escaped
 * twice, so saving back what GET returned changes nothing), date and time formats without tags and with
 * `&` as `&amp;`, ids and the week's first day as absolute integers, posts_per_page 0 as 1 and below -1
 * as its absolute value; an unknown time zone or language or a non-http(s) URL leaves the stored value.
 * The public site, its feed and the oEmbed iframe show the escaped title once (no `&amp;amp;`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('settings sanitized on save on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const save = async (payload: Record<string, unknown>) => {
    const res = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/settings', as: 'admin', payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, unknown>;
  };
  const TITLE = 'Tom &amp; Jerry&#039;s &lt;b&gt;Site&lt;/b&gt;';

  describe.skipIf(dialect.skip)('', () => {
    it('escapes the title and tagline once, as esc_html does', async () => {
      const saved = await save({ title: `Tom & Jerry's <b>Site</b>`, description: 'Cats "&" mice &amp; more' });
      expect(saved).toMatchObject({ title: TITLE, description: 'Cats &quot;&amp;&quot; mice &amp; more' });
      const again = await save({ title: saved.title, description: saved.description });
      expect(again).toMatchObject({ title: TITLE, description: 'Cats &quot;&amp;&quot; mice &amp; more' });
      const read = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/settings', as: 'admin' });
      expect(read.json().title).toBe(TITLE);
      const index = await cms.call({ method: 'GET', url: '/cms-json/?_fields=name,description' });
      expect(index.json()).toEqual({ name: TITLE, description: 'Cats &quot;&amp;&quot; mice &amp; more' });
    });

    it('shows the escaped title once on the site, in the feed and in the oEmbed iframe', async () => {
      const post = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/posts',
        as: 'admin',
        payload: { title: 'Hello', content: 'Hi', status: 'publish' },
      });
      expect(post.statusCode, post.body).toBe(201);
      const home = await cms.call({ method: 'GET', url: '/' });
      expect(home.statusCode).toBe(200);
      expect(home.body).toContain(`rel="home">${TITLE}</a>`);
      expect(home.body).toContain('<p class="site-description">Cats &quot;&amp;&quot; mice &amp; more</p>');
      expect(home.body).not.toContain('&amp;amp;');
      expect(home.body).not.toContain('&amp;#039;');
      const feed = await cms.call({ method: 'GET', url: '/feed/' });
      expect(feed.body).toContain(`<title>Tom &amp; Jerry&apos;s &lt;b&gt;Site&lt;/b&gt;</title>`);
      expect(feed.body).toContain('<description>Cats &quot;&amp;&quot; mice &amp; more</description>');
      expect(feed.body).not.toContain('&amp;amp;');
      const embed = await cms.call({
        method: 'GET',
        url: `/cms-json/oembed/1.0/embed?url=${encodeURIComponent(post.json().link)}`,
      });
      expect(embed.statusCode, embed.body).toBe(200);
      expect(embed.json().provider_name).toBe(TITLE);
      expect(embed.json().html).toContain(`title="&#8220;Hello&#8221; &#8212; ${TITLE}"`);
      expect(embed.json().html).not.toContain('&amp;amp;');
    });

    it('strips tags from date and time formats and keeps & as &amp;', async () => {
      const saved = await save({ date_format: 'F j, Y <b>&</b> l', time_format: '<i>H:i</i>' });
      expect(saved).toMatchObject({ date_format: 'F j, Y &amp; l', time_format: 'H:i' });
    });

    it('stores ids and the first day of the week as absolute integers, posts_per_page at least 1 or -1', async () => {
      expect(
        await save({ start_of_week: -3, page_on_front: -5, page_for_posts: -6, default_category: -1 }),
      ).toMatchObject({ start_of_week: 3, page_on_front: 5, page_for_posts: 6, default_category: 1 });
      expect((await save({ posts_per_page: 0 })).posts_per_page).toBe(1);
      expect((await save({ posts_per_page: -5 })).posts_per_page).toBe(5);
      expect((await save({ posts_per_page: -1 })).posts_per_page).toBe(-1);
      expect((await save({ site_icon: -7 })).site_icon).toBe(7);
      await save({ page_on_front: 0, page_for_posts: 0, default_category: 1, posts_per_page: 10, site_icon: 0 });
    });

    it('leaves the stored value for an unknown time zone, a language not installed or a non-http(s) URL', async () => {
      expect((await save({ timezone: 'Europe/Paris' })).timezone).toBe('Europe/Paris');
      expect((await save({ timezone: 'Mars/Olympus' })).timezone).toBe('Europe/Paris');
      expect((await save({ timezone: 'europe/berlin' })).timezone).toBe('Europe/Paris');
      expect((await save({ timezone: 'US/Eastern' })).timezone).toBe('US/Eastern');
      expect((await save({ timezone: '' })).timezone).toBe('');
      expect((await save({ language: 'fr_FR' })).language).toBe('en_US');
      expect((await save({ url: 'ftp://files.example.test' })).url).toBe('http://cms.test');
    });
  });
});
