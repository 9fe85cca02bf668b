/**
 * The public URLs of the site's archives (WordPress's link-template.php for this CMS): term, author and
 * date archives, feeds, search and paged lists, for `/%postname%/`-style structures and plain links. Post
 * and page URLs come from the content module's `permalink()` (src/content/permalinks.ts), which the REST
 * `link` fields use too; the site's router (router.ts) answers both.
 */

/** The options that decide URLs. */
export interface PermalinkSettings {
  /** The `home` option without a trailing slash. */
  home: string;
  /** The `permalink_structure` option; '' for plain links. */
  structure: string;
  showOnFront: 'posts' | 'page';
  pageOnFront: number;
  pageForPosts: number;
  /** `category_base` ('' means `category`). */
  categoryBase: string;
  /** `tag_base` ('' means `tag`). */
  tagBase: string;
}

/** Settings from option values (as the options repository returns them). */
export function permalinkSettingsFromOptions(options: Record<string, unknown>): PermalinkSettings {
  return {
    home: String(options.home ?? '').replace(/\/+$/, ''),
    structure: typeof options.permalink_structure === 'string' ? options.permalink_structure : '/%postname%/',
    showOnFront: options.show_on_front === 'page' ? 'page' : 'posts',
    pageOnFront: Number(options.page_on_front) || 0,
    pageForPosts: Number(options.page_for_posts) || 0,
    categoryBase: typeof options.category_base === 'string' ? options.category_base.replace(/^\/+|\/+$/g, '') : '',
    tagBase: typeof options.tag_base === 'string' ? options.tag_base.replace(/^\/+|\/+$/g, '') : '',
  };
}

/** The option names {@link permalinkSettingsFromOptions} reads. */
export const PERMALINK_OPTION_NAMES = [
  'home',
  'permalink_structure',
  'show_on_front',
  'page_on_front',
  'page_for_posts',
  'category_base',
  'tag_base',
] as const;

/** Encodes one path segment the way WordPress stores slugs (already URL-encoded for non-ASCII). */
function segment(slug: string): string {
  return /^[A-Za-z0-9%._~-]*$/.test(slug) ? slug : encodeURIComponent(slug);
}

/** Builds the site's URLs. */
export class Permalinks {
  readonly settings: PermalinkSettings;

  constructor(settings: PermalinkSettings) {
    this.settings = settings;
  }

  /** Whether pretty permalinks are on. */
  get pretty(): boolean {
    return this.settings.structure !== '';
  }

  /** `home_url($path)`. */
  home(path = '/'): string {
    return `${this.settings.home}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /** A pretty path with a trailing slash when the structure ends in one (`user_trailingslashit`). */
  #pretty(path: string): string {
    const trimmed = path.replace(/^\/+|\/+$/g, '');
    const slash = this.settings.structure.endsWith('/') ? '/' : '';
    return this.home(trimmed === '' ? '/' : `/${trimmed}${slash}`);
  }

  /** `get_term_link()` for categories (with parent path), tags and other taxonomies. */
  termLink(term: { id: number; slug: string; taxonomy: string }, ancestorSlugs: readonly string[] = []): string {
    if (term.taxonomy === 'category') {
      if (!this.pretty) return this.home(`/?cat=${term.id}`);
      const base = this.settings.categoryBase || 'category';
      return this.#pretty(`${base}/${[...ancestorSlugs, term.slug].map(segment).join('/')}`);
    }
    if (term.taxonomy === 'post_tag') {
      if (!this.pretty) return this.home(`/?tag=${encodeURIComponent(term.slug)}`);
      return this.#pretty(`${this.settings.tagBase || 'tag'}/${segment(term.slug)}`);
    }
    if (term.taxonomy === 'post_format') {
      const format = term.slug.replace(/^post-format-/, '');
      return this.pretty
        ? this.#pretty(`type/${segment(format)}`)
        : this.home(`/?post_format=${encodeURIComponent(format)}`);
    }
    return this.home(`/?taxonomy=${encodeURIComponent(term.taxonomy)}&term=${encodeURIComponent(term.slug)}`);
  }

  /** `get_author_posts_url()`. */
  authorLink(userId: number, nicename: string): string {
    return this.pretty ? this.#pretty(`author/${segment(nicename)}`) : this.home(`/?author=${userId}`);
  }

  /** `get_year_link()` / `get_month_link()` / `get_day_link()`. */
  dateLink(year: number, month?: number, day?: number): string {
    const y = String(year).padStart(4, '0');
    const m = month === undefined ? undefined : String(month).padStart(2, '0');
    const d = day === undefined ? undefined : String(day).padStart(2, '0');
    if (!this.pretty) return this.home(`/?m=${y}${m ?? ''}${m && d ? d : ''}`);
    return this.#pretty([y, m, m ? d : undefined].filter((p) => p !== undefined).join('/'));
  }

  /** `get_search_link()`: the search results page for a query. */
  searchLink(query: string): string {
    return this.home(`/?s=${encodeURIComponent(query).replace(/%20/g, '+')}`);
  }

  /** `get_feed_link()` of the site, or the feed of an archive given its URL. */
  feedLink(archiveUrl?: string): string {
    if (!archiveUrl) return this.pretty ? this.#pretty('feed') : this.home('/?feed=rss2');
    if (!this.pretty || archiveUrl.includes('?'))
      return `${archiveUrl}${archiveUrl.includes('?') ? '&' : '?'}feed=rss2`;
    return `${archiveUrl.replace(/\/+$/, '')}/feed/`;
  }

  /** A page of a paged archive (`get_pagenum_link`). */
  pagedLink(archiveUrl: string, page: number): string {
    if (page <= 1) return archiveUrl;
    if (!this.pretty || archiveUrl.includes('?'))
      return `${archiveUrl}${archiveUrl.includes('?') ? '&' : '?'}paged=${page}`;
    return `${archiveUrl.replace(/\/+$/, '')}/page/${page}/`;
  }
}
