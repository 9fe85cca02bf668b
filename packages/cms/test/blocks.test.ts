import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
let heroId = 0;
let footerId = 0;
let layoutCat = 0;
let ctaCat = 0;
beforeAll(async () => {
  cms = await createSiteTestCms();
  layoutCat = (
    await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/pattern_category',
      as: 'admin',
      payload: { name: 'Layout' },
    })
  ).json().id;
  ctaCat = (
    await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/pattern_category',
      as: 'admin',
      payload: { name: 'Call to action' },
    })
  ).json().id;
});
afterAll(async () => {
  await cms?.close();
});

const content = '<!-- wp:paragraph -->\n<p>Hello <b>blocks</b></p>\n<!-- /wp:paragraph -->';

describe('/cms/v2/blocks', () => {
  it('creates a reusable block; title and content are raw in view context and never rendered', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/blocks',
      as: 'edna',
      payload: { title: 'Hero', content, status: 'publish', pattern_category: [layoutCat, ctaCat] },
    });
    expect(res.statusCode).toBe(201);
    heroId = res.json().id;
    expect(res.json()).toMatchObject({
      type: 'cms_block',
      status: 'publish',
      slug: 'hero',
      title: { raw: 'Hero' },
      content: { raw: content, protected: false, block_version: 1 },
      // Term ids in name order, as get_the_terms() returns them.
      pattern_category: [ctaCat, layoutCat],
      link: `http://cms.test/?post_type=cms_block&p=${heroId}`,
    });
    const view = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/blocks/${heroId}`, as: 'arthur' });
    expect(view.json().title).toEqual({ raw: 'Hero' });
    expect(view.json().content).toEqual({ raw: content, protected: false });
    for (const absent of ['excerpt', 'author', 'featured_media', 'comment_status', 'ping_status', 'format', 'sticky']) {
      expect(view.json()[absent], absent).toBeUndefined();
    }
    footerId = (
      await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/blocks',
        as: 'admin',
        payload: { title: 'Footer', content: '<p>bye</p>', status: 'publish', pattern_category: [layoutCat] },
      })
    ).json().id;
  });

  it('needs edit_posts to read a block', async () => {
    const anonymous = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/blocks/${heroId}` });
    expect(anonymous.statusCode).toBe(401);
    const subscriber = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/blocks', as: 'sam' });
    expect(subscriber.json()).toEqual([]);
    const contributorCreate = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/blocks',
      as: 'conrad',
      payload: { title: 'x', content: 'y' },
    });
    expect(contributorCreate.json()).toMatchObject({ code: 'rest_cannot_create', data: { status: 403 } });
  });

  it('filters by pattern_category in list and object forms, with exclusion and tax_relation', async () => {
    const ids = async (query: string) =>
      (await cms.call({ method: 'GET', url: `/cms-json/cms/v2/blocks?${query}&orderby=id&order=asc`, as: 'admin' }))
        .json()
        .map((b: { id: number }) => b.id);
    expect(await ids(`pattern_category=${ctaCat}`)).toEqual([heroId]);
    expect(await ids(`pattern_category=${layoutCat}`)).toEqual([heroId, footerId]);
    expect(
      await ids(
        `pattern_category[terms][]=${layoutCat}&pattern_category[terms][]=${ctaCat}&pattern_category[operator]=AND`,
      ),
    ).toEqual([heroId]);
    expect(await ids(`pattern_category_exclude=${ctaCat}`)).toEqual([footerId]);
    expect(await ids(`pattern_category=${ctaCat}&pattern_category_exclude=${layoutCat}&tax_relation=OR`)).toEqual([
      heroId,
    ]);
    const noAuthor = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/blocks?author=1', as: 'admin' });
    expect(noAuthor.statusCode).toBe(200);
  });

  it('keeps revisions and autosaves', async () => {
    await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/blocks/${heroId}`,
      as: 'admin',
      payload: { content: '<p>v2</p>' },
    });
    const revisions = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/blocks/${heroId}/revisions`,
      as: 'admin',
    });
    expect(revisions.statusCode).toBe(200);
    expect(revisions.json().length).toBeGreaterThanOrEqual(1);
    const autosave = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/blocks/${heroId}/autosaves`,
      as: 'admin',
      payload: { content: '<p>draft</p>' },
    });
    expect(autosave.statusCode).toBe(200);
  });

  it('is batch-capable and trashes without force', async () => {
    const batch = await cms.call({
      method: 'POST',
      url: '/cms-json/batch/v1',
      as: 'admin',
      payload: { requests: [{ method: 'DELETE', path: `/cms/v2/blocks/${footerId}` }] },
    });
    expect(batch.json().responses[0]).toMatchObject({ status: 200, body: { status: 'trash' } });
  });

  it('lists the pattern categories taxonomy and its terms', async () => {
    const tax = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/taxonomies/cms_pattern_category' });
    expect(tax.json()).toMatchObject({
      slug: 'cms_pattern_category',
      rest_base: 'pattern_category',
      types: ['cms_block'],
    });
    const terms = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/pattern_category', as: 'admin' });
    expect(terms.json().map((t: { name: string }) => t.name)).toEqual(['Call to action', 'Layout']);
  });
});
