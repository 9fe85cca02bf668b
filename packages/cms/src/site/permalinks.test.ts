import { describe, expect, it } from 'vitest';
import { Permalinks, permalinkSettingsFromOptions } from './permalinks.ts';

const base = permalinkSettingsFromOptions({ home: 'http://site.test/', permalink_structure: '/%postname%/' });

describe('Permalinks', () => {
  const links = new Permalinks(base);

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
