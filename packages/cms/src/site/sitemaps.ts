import { escXml } from './theme/escape.ts';

/** URLs per sitemap page (`wp_sitemaps_get_max_urls`). */
export const SITEMAP_MAX_URLS = 2000;

/** One entry of a sitemap. */
export interface SitemapUrl {
  loc: string;
  /** W3C datetime, e.g. `2024-05-06T07:08:09+00:00`. */
  lastmod?: string;
}

/** `<sitemapindex>` listing the sub-sitemaps (`WP_Sitemaps_Renderer::get_sitemap_index_xml`). */
export function sitemapIndexXml(sitemaps: readonly string[]): string {
  const entries = sitemaps.map((loc) => `<sitemap><loc>${escXml(loc)}</loc></sitemap>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</sitemapindex>\n`;
}

/** `<urlset>` of one sub-sitemap (`WP_Sitemaps_Renderer::get_sitemap_xml`). */
export function sitemapXml(urls: readonly SitemapUrl[]): string {
  const entries = urls
    .map((u) => `<url><loc>${escXml(u.loc)}</loc>${u.lastmod ? `<lastmod>${escXml(u.lastmod)}</lastmod>` : ''}</url>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</urlset>\n`;
}

/** The URL of a sub-sitemap page. */
export function sitemapUrl(
  home: string,
  provider: 'posts' | 'taxonomies' | 'users',
  subtype: string,
  page: number,
): string {
  return `${home}/cms-sitemap-${provider}${subtype ? `-${subtype}` : ''}-${page}.xml`;
}

/** robots.txt pointing crawlers at the sitemap (`do_robots` with core sitemaps), or closing the site. */
export function robotsTxt(home: string, isPublic: boolean): string {
  if (!isPublic) return 'User-agent: *\nDisallow: /\n';
  return `User-agent: *\nDisallow:\n\nSitemap: ${home}/cms-sitemap.xml\n`;
}
