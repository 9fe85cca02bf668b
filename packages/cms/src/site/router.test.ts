import { describe, expect, it } from 'vitest';
import { routeSiteRequest } from './router.ts';

const pretty = (path: string, query: Record<string, unknown> = {}) => routeSiteRequest(path, query, '/%postname%/');

describe('routeSiteRequest', () => {
  it('routes the front page and its pages', () => {
    expect(pretty('/')).toEqual({ kind: 'front', paged: 1, feed: false });
    expect(pretty('/page/3/')).toEqual({ kind: 'front', paged: 3, feed: false });
    expect(pretty('/', { paged: '2' })).toEqual({ kind: 'front', paged: 2, feed: false });
  });

  it('routes posts and pages by path, and their embed views', () => {
    expect(pretty('/hello-world/')).toEqual({ kind: 'singular', by: { path: 'hello-world' }, embed: false });
    expect(pretty('/about/team/')).toEqual({ kind: 'singular', by: { path: 'about/team' }, embed: false });
    expect(pretty('/hello-world/embed/')).toEqual({ kind: 'singular', by: { path: 'hello-world' }, embed: true });
    expect(pretty('/caf%C3%A9/')).toEqual({ kind: 'singular', by: { path: 'café' }, embed: false });
  });

  it('routes archives with paging and feeds', () => {
    expect(pretty('/category/technology/web/page/2/')).toEqual({
      kind: 'category',
      by: { path: 'technology/web' },
      paged: 2,
      feed: false,
    });
    expect(pretty('/tag/php/feed/')).toEqual({ kind: 'tag', slug: 'php', paged: 1, feed: true });
    expect(pretty('/author/admin/')).toEqual({ kind: 'author', by: { nicename: 'admin' }, paged: 1, feed: false });
    expect(pretty('/2024/05/')).toEqual({ kind: 'date', year: 2024, month: 5, paged: 1, feed: false });
    expect(pretty('/2024/05/06/page/2/')).toEqual({
      kind: 'date',
      year: 2024,
      month: 5,
      day: 6,
      paged: 2,
      feed: false,
    });
    expect(pretty('/2024/13/')).toEqual({ kind: 'not-found' });
    expect(pretty('/feed/')).toEqual({ kind: 'front', paged: 1, feed: true });
    expect(pretty('/feed/rss2/')).toEqual({ kind: 'front', paged: 1, feed: true });
  });

  it('routes searches from the query string and /search/', () => {
    expect(pretty('/', { s: 'nebula' })).toEqual({ kind: 'search', query: 'nebula', paged: 1, feed: false });
    expect(pretty('/search/nebula/page/2/')).toEqual({ kind: 'search', query: 'nebula', paged: 2, feed: false });
  });

  it('accepts plain query links with any structure', () => {
    expect(pretty('/', { p: '12' })).toEqual({ kind: 'singular', by: { id: 12 }, embed: false });
    expect(pretty('/', { page_id: '2' })).toEqual({ kind: 'singular', by: { id: 2, type: 'page' }, embed: false });
    expect(pretty('/', { cat: '3', feed: 'rss2' })).toEqual({ kind: 'category', by: { id: 3 }, paged: 1, feed: true });
    expect(pretty('/', { m: '202405' })).toEqual({ kind: 'date', year: 2024, month: 5, paged: 1, feed: false });
    expect(routeSiteRequest('/hello-world/', {}, '')).toEqual({ kind: 'not-found' });
  });

  it('routes sitemaps, robots.txt and uploads', () => {
    expect(pretty('/cms-sitemap.xml')).toEqual({ kind: 'sitemap-index' });
    expect(pretty('/cms-sitemap-posts-post-2.xml')).toEqual({
      kind: 'sitemap',
      provider: 'posts',
      subtype: 'post',
      page: 2,
    });
    expect(pretty('/cms-sitemap-taxonomies-post_tag-1.xml')).toEqual({
      kind: 'sitemap',
      provider: 'taxonomies',
      subtype: 'post_tag',
      page: 1,
    });
    expect(pretty('/cms-sitemap-users-1.xml')).toEqual({ kind: 'sitemap', provider: 'users', subtype: '', page: 1 });
    expect(pretty('/sitemap.xml')).toEqual({ kind: 'redirect', location: '/cms-sitemap.xml', status: 301 });
    expect(pretty('/robots.txt')).toEqual({ kind: 'robots' });
    expect(pretty('/cms-content/uploads/2026/11/a.jpg')).toEqual({ kind: 'upload', path: '2026/11/a.jpg' });
  });

  it('refuses encoded slashes and malformed escapes in paths', () => {
    expect(pretty('/a%2Fb/')).toEqual({ kind: 'not-found' });
    expect(pretty('/%E0%A4%A/')).toEqual({ kind: 'not-found' });
  });
});
