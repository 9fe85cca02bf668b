/**
 * Content a contributor saves must not let one request (or every later read of the post) hold a CMS process
 * for minutes: what renders it runs in time linear in its length.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
beforeAll(async () => {
  cms = await createSiteTestCms();
});
afterAll(async () => {
  await cms?.close();
});

describe('shortcodes in large content', () => {
  // Before the shortcode scan was linear, 900 KB of "[caption " took 234 s to render, "[caption]" repeated 72 s.
  it.each([
    ['unclosed openings', '[caption '.repeat(100_000), '<p>[caption [caption '],
    // Each is a caption without width or text: it renders as nothing.
    ['openings never closed', `${'[caption]'.repeat(100_000)}x`, '<p>x</p>'],
    ['paragraphs of openings', '[caption \n\n'.repeat(80_000), '<p>[caption </p>'],
  ])('a post of %s (about 900 KB) is saved, rendered and served', async (_name, content, shown) => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'conrad',
      payload: { title: 'Brackets', content },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().content.raw).toBe(content);
    expect(res.json().content.rendered).toContain(shown);
    const page = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/posts/${res.json().id}?context=edit`,
      as: 'admin',
    });
    expect(page.statusCode).toBe(200);
  });

  it('still expands a caption that follows many unclosed openings', async () => {
    const content = `${'[caption '.repeat(1000)}\n\n[caption width="10" caption="Dawn"]<img src="a.jpg">[/caption]`;
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'admin',
      payload: { title: 'Mixed', content },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().content.rendered).toContain('<figcaption class="wp-caption-text">Dawn</figcaption>');
  });
});
