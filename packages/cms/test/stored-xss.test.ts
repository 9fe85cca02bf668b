/**
 * Stored script from users without unfiltered_html (authors, contributors): what they save must not come back
 * as markup that runs, neither in the REST `rendered` values nor on the public site.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeImage } from './helpers/media-fixtures.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
beforeAll(async () => {
  cms = await createSiteTestCms();
});
afterAll(async () => {
  await cms?.close();
});

const SCRIPT = '<script>alert(1)</script>';
const HANDLER = '<img src=x onerror=alert(2)>';

describe('media uploads by an author (no unfiltered_html)', () => {
  it('filters the caption, description and title given with the upload, as an update does', async () => {
    const query = new URLSearchParams({ caption: SCRIPT, description: HANDLER, title: `T${SCRIPT}` }).toString();
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media?${query}`,
      as: 'arthur',
      headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="xss.png"' },
      payload: await makeImage(20, 20, 'png'),
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.caption.raw).toBe('alert(1)');
    expect(body.description.raw).toBe('<img src="x">');
    expect(body.title.raw).toBe('Talert(1)');
    const rendered = `${body.caption.rendered}${body.description.rendered}${body.title.rendered}`;
    expect(rendered).not.toContain('<script');
    expect(rendered).not.toContain('onerror');

    const page = await cms.call({ method: 'GET', url: `/?attachment_id=${body.id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(SCRIPT);
    expect(page.body).not.toContain('onerror');
  });

  it('keeps an administrator’s HTML in the caption (unfiltered_html)', async () => {
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media?caption=${encodeURIComponent('<em onclick="x()">Dawn</em>')}`,
      as: 'admin',
      headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="trusted.png"' },
      payload: await makeImage(20, 20, 'png'),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().caption.raw).toBe('<em onclick="x()">Dawn</em>');
  });
});

describe('[caption] shortcode attributes', () => {
  it('a hex or octal escape in an attribute shows the character and never becomes markup', async () => {
    const content =
      '[caption width="100" caption="\\x3cscript\\x3ealert(1)\\x3c/script\\x3e \\74b\\76"]<img src="a.jpg">[/caption]';
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'arthur',
      payload: { title: 'Escapes', status: 'publish', content },
    });
    expect(res.statusCode).toBe(201);
    const rendered: string = res.json().content.rendered;
    expect(rendered).toContain(
      '<figcaption class="wp-caption-text">&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;</figcaption>',
    );
    const page = await cms.call({ method: 'GET', url: new URL(res.json().link).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<script>alert(1)');
  });

  it('an escape in the class attribute cannot close the attribute', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'arthur',
      payload: {
        title: 'Class',
        status: 'publish',
        content: '[caption width="100" class="x\\x22 onmouseover=\\x22alert(1)"]<img src="a.jpg"> Dawn[/caption]',
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().content.rendered).not.toMatch(/class="[^"]*" onmouseover/);
  });
});
