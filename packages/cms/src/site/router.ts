/**
 * WordPress's request parsing for the public site (WP::parse_request with the rewrite rules of a
 * `/%postname%/` site): a URL path and query string become one {@link SiteRoute}. Plain query links
 * (`?p=`, `?page_id=`, `?cat=`, `?tag=`, `?author=`, `?m=`, `?s=`, `?feed=`, `?paged=`) work with any
 * structure, as in WordPress.
 */

/** What the visitor asked for. Paging starts at 1. */
export type SiteRoute =
  | { kind: 'front'; paged: number; feed: boolean }
  | { kind: 'singular'; by: { path: string } | { id: number; type?: string }; embed: boolean }
  | { kind: 'category'; by: { path: string } | { id: number }; paged: number; feed: boolean }
  | { kind: 'tag'; slug: string; paged: number; feed: boolean }
  | { kind: 'author'; by: { nicename: string } | { id: number }; paged: number; feed: boolean }
  | { kind: 'date'; year: number; month?: number; day?: number; paged: number; feed: boolean }
  | { kind: 'search'; query: string; paged: number; feed: boolean }
  | { kind: 'sitemap-index' }
  | { kind: 'sitemap'; provider: 'posts' | 'taxonomies' | 'users'; subtype: string; page: number }
  | { kind: 'sitemap-stylesheet' }
  | { kind: 'redirect'; location: string; status: 301 | 302 }
  | { kind: 'robots' }
  | { kind: 'upload'; path: string }
  | { kind: 'not-found' };

/** Where uploaded files are served from (WordPress: /wp-content/uploads). */
export const UPLOADS_PATH = '/cms-content/uploads';

const FEED_NAMES = new Set(['feed', 'rss2', 'rss', 'rdf', 'atom']);

function positiveInt(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** A path segment decoded, or undefined when it is malformed or holds U+0000 (no slug or search can). */
function decodeSegment(segment: string): string | undefined {
  try {
    const decoded = decodeURIComponent(segment);
    return decoded.includes('\u0000') ? undefined : decoded;
  } catch {
    return undefined;
  }
}

/**
 * Parses a site request. `path` is the URL path (percent-encoded, as received); `query` the parsed query
 * string. `structure` is the permalink structure ('' = plain links only).
 */
export function routeSiteRequest(path: string, query: Record<string, unknown>, structure: string): SiteRoute {
  const q = (name: string) => first(query[name]);
  const paged = positiveInt(q('paged')) ?? positiveInt(q('page')) ?? 1;
  const feedVar = q('feed');
  const feedByQuery = typeof feedVar === 'string' && FEED_NAMES.has(feedVar);

  // Paths that exist whatever the structure.
  if (path === '/robots.txt') return { kind: 'robots' };
  if (path === '/sitemap.xml' || path === '/sitemap_index.xml')
    return { kind: 'redirect', location: '/cms-sitemap.xml', status: 301 };
  if (path === '/cms-sitemap.xml') return { kind: 'sitemap-index' };
  if (path === '/cms-sitemap.xsl') return { kind: 'sitemap-stylesheet' };
  const sitemap = /^\/cms-sitemap-(posts|taxonomies|users)(?:-([a-z0-9_-]+?))?-(\d+)\.xml$/.exec(path);
  if (sitemap) {
    const provider = sitemap[1] as 'posts' | 'taxonomies' | 'users';
    const page = positiveInt(sitemap[3]);
    if (!page || (provider !== 'users' && !sitemap[2]) || (provider === 'users' && sitemap[2]))
      return { kind: 'not-found' };
    return { kind: 'sitemap', provider, subtype: sitemap[2] ?? '', page };
  }
  if (path.startsWith(`${UPLOADS_PATH}/`)) return { kind: 'upload', path: path.slice(UPLOADS_PATH.length + 1) };

  // Query-string forms (plain permalinks, and always accepted).
  const search = q('s');
  if (typeof search === 'string') return { kind: 'search', query: search, paged, feed: feedByQuery };
  const p = positiveInt(q('p'));
  if (p) {
    const type = typeof q('post_type') === 'string' ? (q('post_type') as string) : undefined;
    return { kind: 'singular', by: { id: p, ...(type ? { type } : {}) }, embed: q('embed') === 'true' };
  }
  const pageId = positiveInt(q('page_id'));
  if (pageId) return { kind: 'singular', by: { id: pageId, type: 'page' }, embed: q('embed') === 'true' };
  const attachmentId = positiveInt(q('attachment_id'));
  if (attachmentId) return { kind: 'singular', by: { id: attachmentId, type: 'attachment' }, embed: false };
  const cat = positiveInt(q('cat'));
  if (cat) return { kind: 'category', by: { id: cat }, paged, feed: feedByQuery };
  const tag = q('tag');
  if (typeof tag === 'string' && tag !== '') return { kind: 'tag', slug: tag, paged, feed: feedByQuery };
  const author = positiveInt(q('author'));
  if (author) return { kind: 'author', by: { id: author }, paged, feed: feedByQuery };
  const m = q('m');
  if (typeof m === 'string' && /^\d{4}(\d{2}(\d{2})?)?$/.test(m)) {
    return dateRoute(m.slice(0, 4), m.slice(4, 6) || undefined, m.slice(6, 8) || undefined, paged, feedByQuery);
  }

  if (path === '/' || path === '' || path === '/index.php') return { kind: 'front', paged, feed: feedByQuery };
  if (structure === '') return { kind: 'not-found' };

  // Pretty permalinks: split off the endpoints (feed, paging, embed) at the end of the path.
  const rawSegments = path.split('/').filter((s) => s !== '');
  const segments: string[] = [];
  for (const raw of rawSegments) {
    const decoded = decodeSegment(raw);
    if (decoded === undefined || decoded.includes('/')) return { kind: 'not-found' };
    segments.push(decoded);
  }
  let feed = feedByQuery;
  let pageNumber = paged;
  let embed = false;
  const last = () => segments[segments.length - 1];
  if (last() !== undefined && FEED_NAMES.has(last() as string)) {
    const name = segments.pop() as string;
    if (name !== 'feed' && last() === 'feed') segments.pop();
    feed = true;
  } else if (segments.length >= 2 && segments[segments.length - 2] === 'page' && positiveInt(last())) {
    pageNumber = positiveInt(segments.pop()) as number;
    segments.pop();
  } else if (last() === 'embed' && segments.length >= 2) {
    segments.pop();
    embed = true;
  }
  if (segments.length === 0) return { kind: 'front', paged: pageNumber, feed };

  const [head, ...rest] = segments as [string, ...string[]];
  if (head === 'category' && rest.length > 0 && !embed) {
    return { kind: 'category', by: { path: rest.join('/') }, paged: pageNumber, feed };
  }
  if (head === 'tag' && rest.length === 1 && !embed)
    return { kind: 'tag', slug: rest[0] as string, paged: pageNumber, feed };
  if (head === 'author' && rest.length === 1 && !embed) {
    return { kind: 'author', by: { nicename: rest[0] as string }, paged: pageNumber, feed };
  }
  if (head === 'search' && rest.length === 1 && !embed) {
    return { kind: 'search', query: rest[0] as string, paged: pageNumber, feed };
  }
  if (/^\d{4}$/.test(head) && rest.length <= 2 && rest.every((s) => /^\d{1,2}$/.test(s)) && !embed) {
    return dateRoute(head, rest[0], rest[1], pageNumber, feed);
  }
  // A post or page; a single segment may be either, deeper paths are page hierarchies (or date-based
  // post links, which end in the post name).
  if (feed || pageNumber > 1) return { kind: 'not-found' };
  return { kind: 'singular', by: { path: segments.join('/') }, embed };
}

function dateRoute(
  year: string,
  month: string | undefined,
  day: string | undefined,
  paged: number,
  feed: boolean,
): SiteRoute {
  const y = Number(year);
  const mo = month === undefined ? undefined : Number(month);
  const d = day === undefined ? undefined : Number(day);
  if (mo !== undefined && (mo < 1 || mo > 12)) return { kind: 'not-found' };
  if (d !== undefined && (d < 1 || d > 31)) return { kind: 'not-found' };
  return {
    kind: 'date',
    year: y,
    ...(mo !== undefined ? { month: mo } : {}),
    ...(d !== undefined ? { day: d } : {}),
    paged,
    feed,
  };
}
