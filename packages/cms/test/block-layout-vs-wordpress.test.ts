/**
 * Layout containers (group, columns, column, buttons, gallery, social links inside cover and group, flow,
 * constrained and flex layouts) rendered as WordPress 6.1 with twentytwentythree renders them: which blocks
 * get `has-global-padding`, which get a `wp-container-N` class and with which number. The expectations in
 * fixtures/block-layout-wordpress.json were recorded from the oracle's REST API (a draft per case, read in the
 * edit context, then deleted); the last suite checks them against the live oracle when it runs here.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORACLE_URL, oracleAnswers, oracleAuthorization } from './helpers/oracle-fixtures.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

interface Recorded {
  content: string;
  wordpress: { content: string; excerpt: string };
}

const recorded: Record<string, Recorded> = JSON.parse(
  readFileSync(new URL('./fixtures/block-layout-wordpress.json', import.meta.url), 'utf8'),
);
const cases = Object.entries(recorded);

describe('layout containers rendered as WordPress renders them', () => {
  let cms: SiteTestCms;
  beforeAll(async () => {
    cms = await createSiteTestCms();
  });
  afterAll(async () => {
    await cms?.close();
  });

  const create = async (title: string, content: string, status: string, date?: string) => {
    const res = await cms.call({
      method: 'POST',
      // Without the rendered fields, so that nothing renders the post before the reads below.
      url: '/cms-json/cms/v2/posts?_fields=id,link',
      as: 'admin',
      payload: { title, content, status, ...(date ? { date } : {}) },
    });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: number; link: string };
  };

  it.each(cases)(
    '%s: the REST API renders the content and the excerpt as WordPress',
    async (name, { content, wordpress }) => {
      // Drafts, as on the oracle (and out of the feed below).
      const { id } = await create(`layout ${name}`, content, 'draft');
      const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/posts/${id}?context=edit`, as: 'admin' });
      const body = res.json();
      expect(body.content.rendered).toBe(wordpress.content);
      expect(body.excerpt.rendered).toBe(wordpress.excerpt);
    },
  );

  it('the public page of a post shows them as WordPress renders the post, also after a feed rendered it among others', async () => {
    const { content, wordpress } = recorded.columnsNested as Recorded;
    const older = await create('Stacked older', content, 'publish', '2024-05-01T10:00:00');
    await create('Stacked newer', content, 'publish', '2024-05-02T10:00:00');
    // The feed renders the newer post first, so the older one's containers are numbered after the newer one's
    // (WordPress counts on through the request); its own page numbers them from 1 again.
    const feed = await cms.call({ method: 'GET', url: '/feed/' });
    expect(feed.statusCode).toBe(200);
    const shifted = wordpress.content.trim().replace(/wp-container-(\d+)/g, (_, n) => `wp-container-${Number(n) + 4}`);
    const encoded = [...feed.body.matchAll(/<content:encoded><!\[CDATA\[([\s\S]*?)\]\]><\/content:encoded>/g)];
    expect(encoded.map((m) => m[1]?.trim())).toEqual([wordpress.content.trim(), shifted]);
    const page = await cms.call({ method: 'GET', url: new URL(older.link).pathname + new URL(older.link).search });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(wordpress.content.trim());
    // A list of the REST API numbers each item's containers on their own, as a read of the item shows them.
    const list = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/posts?search=Stacked&per_page=2' });
    expect(list.json()).toHaveLength(2);
    for (const item of list.json()) expect(item.content.rendered).toBe(wordpress.content);
  });
});

const ORACLE = ORACLE_URL;

const auth = oracleAuthorization();
const live = auth !== null && (await oracleAnswers());

describe.skipIf(!live)('the recorded renderings next to the live WordPress oracle', () => {
  it.each(cases)('%s: the oracle still renders it as recorded', async (name, { content, wordpress }) => {
    const headers = { authorization: auth as string, 'content-type': 'application/json' };
    const created = await fetch(`${ORACLE}/wp-json/wp/v2/posts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: `layout check ${name}`, content, status: 'draft' }),
    });
    const { id } = (await created.json()) as { id: number };
    try {
      const read = await fetch(`${ORACLE}/wp-json/wp/v2/posts/${id}?context=edit`, { headers });
      const post = (await read.json()) as { content: { rendered: string }; excerpt: { rendered: string } };
      expect({ content: post.content.rendered, excerpt: post.excerpt.rendered }).toEqual(wordpress);
    } finally {
      await fetch(`${ORACLE}/wp-json/wp/v2/posts/${id}?force=true`, { method: 'DELETE', headers });
    }
  });
});
