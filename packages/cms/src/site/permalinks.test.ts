import { describe, expect, it } from 'vitest';
import { type LinkablePost, Permalinks, permalinkSettingsFromOptions } from './permalinks.ts';

const base = permalinkSettingsFromOptions({ home: 'http://site.test/', permalink_structure: '/%postname%/' });

function post(fields: Partial<LinkablePost>): LinkablePost {
  return {
    id: 7,
    type: 'post',
    status: 'publish',
    slug: 'hello-world',
    parentId: 0,
    dateLocal: '2024-05-06 07:08:09',
    authorId: 1,
    ...fields,
  };
}

describe('Permalinks', () => {
  const pages = new Map<number, LinkablePost>([
    [10, post({ id: 10, type: 'page', slug: 'about', parentId: 0 })],
    [11, post({ id: 11, type: 'page', slug: 'team', parentId: 10 })],
  ]);
  const links = new Permalinks(base, { post: async (id) => pages.get(id) ?? null });

  it('links published posts by /%postname%/ and unpublished ones by ?p=', async () => {
    expect(await links.postLink(post({}))).toBe('http://site.test/hello-world/');
    expect(await links.postLink(post({ status: 'private' }))).toBe('http://site.test/hello-world/');
    for (const status of ['draft', 'pending', 'auto-draft', 'future']) {
      expect(await links.postLink(post({ status }))).toBe('http://site.test/?p=7');
    }
  });

  it('links pages by their ancestor path, drafts by ?page_id=, the static front page as home', async () => {
    expect(await links.postLink(post({ id: 12, type: 'page', slug: 'alice', parentId: 11 }))).toBe(
      'http://site.test/about/team/alice/',
    );
    expect(await links.postLink(post({ id: 12, type: 'page', status: 'draft', slug: '' }))).toBe(
      'http://site.test/?page_id=12',
    );
    const front = new Permalinks({ ...base, showOnFront: 'page', pageOnFront: 10 });
    expect(await front.postLink(pages.get(10) as LinkablePost)).toBe('http://site.test/');
  });

  it('supports date-based structures and plain links', async () => {
    const dated = new Permalinks({ ...base, structure: '/%year%/%monthnum%/%day%/%postname%/' });
    expect(await dated.postLink(post({}))).toBe('http://site.test/2024/05/06/hello-world/');
    const plain = new Permalinks({ ...base, structure: '' });
    expect(await plain.postLink(post({}))).toBe('http://site.test/?p=7');
    expect(await plain.postLink(post({ id: 10, type: 'page', slug: 'about' }))).toBe('http://site.test/?page_id=10');
  });

  it('links other post types with post_type and p', async () => {
    expect(await links.postLink(post({ type: 'cms_block' }))).toBe('http://site.test/?post_type=cms_block&p=7');
  });

  it('links archives, feeds, search and pagination', () => {
    expect(links.termLink({ id: 4, slug: 'web', taxonomy: 'category' }, ['technology'])).toBe(
      'http://site.test/category/technology/web/',
    );
    expect(links.termLink({ id: 12, slug: 'php', taxonomy: 'post_tag' })).toBe('http://site.test/tag/php/');
    expect(links.authorLink(1, 'admin')).toBe('http://site.test/author/admin/');
    expect(links.dateLink(2024, 5)).toBe('http://site.test/2024/05/');
    expect(links.dateLink(2024, 5, 6)).toBe('http://site.test/2024/05/06/');
    expect(links.feedLink()).toBe('http://site.test/feed/');
    expect(links.feedLink('http://site.test/tag/php/')).toBe('http://site.test/tag/php/feed/');
    expect(links.searchLink('nebula dust')).toBe('http://site.test/?s=nebula+dust');
    expect(links.pagedLink('http://site.test/tag/php/', 2)).toBe('http://site.test/tag/php/page/2/');
    const plain = new Permalinks({ ...base, structure: '' });
    expect(plain.termLink({ id: 4, slug: 'web', taxonomy: 'category' })).toBe('http://site.test/?cat=4');
    expect(plain.dateLink(2024, 5)).toBe('http://site.test/?m=202405');
    expect(plain.pagedLink('http://site.test/?cat=4', 3)).toBe('http://site.test/?cat=4&paged=3');
  });
});
