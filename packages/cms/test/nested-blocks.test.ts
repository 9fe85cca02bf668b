/**
 * Block content nested (or left open) to any depth an author can send renders, through the REST API and on
 * the public page, without a 500: the renderer keeps its own stack and bounds the text unclosed blocks repeat.
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

const open = '<!-- wp:group --><div class="wp-block-group">';
const close = '</div><!-- /wp:group -->';
const flow = '<div class="is-layout-flow wp-block-group">';

async function publish(content: string): Promise<number> {
  const res = await cms.call({
    method: 'POST',
    url: '/cms-json/cms/v2/posts',
    as: 'arthur',
    payload: { title: 'Deep', content, status: 'publish' },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id as number;
}

describe('deeply nested blocks', () => {
  // Before: 10,000 levels overflowed the call stack (a 500), 2,000 unclosed openers made 60 MB and then a 500.
  it.each([
    ['50,000 nested groups', `${open.repeat(50_000)}<p>core</p>${close.repeat(50_000)}`, 50_000, '</div>'],
    ['2,000 groups never closed', `${open}<p>core</p>`.repeat(2000), 2000, ''],
  ])('%s render in the API and on the public page', async (_name, content, depth, end) => {
    const id = await publish(content);
    const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/posts/${id}` });
    expect(res.statusCode).toBe(200);
    const post = res.json();
    const rendered = post.content.rendered as string;
    expect(rendered.split(flow).length - 1).toBe(depth);
    expect(rendered.startsWith(`${flow}${end ? '' : '<p>core</p>'}`)).toBe(true);
    expect(rendered.endsWith(`<p>core</p>${end.repeat(depth)}`)).toBe(true);
    expect(post.excerpt.rendered).toBe('<p>core</p>\n');
    const page = await cms.call({ method: 'GET', url: new URL(post.link).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`${flow}<p>core</p>`);
  });
});
