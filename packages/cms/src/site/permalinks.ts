/**
 * The public URLs of the site's objects (WordPress's link-template.php for this CMS): posts by the
 * `permalink_structure` (`/%postname%/` by default; plain `?p=` links when empty), pages by their path of
 * ancestor slugs, the front page as the home URL, term, author and date archives, feeds, search and embed
 * URLs. The REST `link` fields and the public site's router use the same rules, so they always agree.
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

/** What a link needs to know about a post. */
export interface LinkablePost {
  id: number;
  type: string;
  status: string;
  slug: string;
  parentId: number;
  /** `YYYY-MM-DD HH:MM:SS` in the site's zone (for date-based structures). */
  dateLocal: string;
  authorId: number;
}

/** Lookups some links need; all optional (a link that needs a missing one falls back to a plain link). */
export interface PermalinkSources {
  /** A post by id (page ancestors). */
  post?(id: number): Promise<LinkablePost | null>;
  /** The public file URL of an attachment. */
  attachmentUrl?(id: number): Promise<string | undefined>;
  /** A user's `nicename` (the `%author%` tag, author archives). */
  authorSlug?(userId: number): Promise<string | undefined>;
  /** The category path (`parent/child`) a post is filed under (the `%category%` tag). */
  categoryPath?(postId: number): Promise<string | undefined>;
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

/** Statuses whose posts have no pretty link yet (`get_permalink`'s `$draft_or_pending`). */
const UNPUBLISHED_POST = new Set(['draft', 'pending', 'auto-draft', 'future']);
/** Same for pages (`_get_page_link` does not count `future`). */
const UNPUBLISHED_PAGE = new Set(['draft', 'pending', 'auto-draft']);

/** Encodes one path segment the way WordPress stores slugs (already URL-encoded for non-ASCII). */
function segment(slug: string): string {
  return /^[A-Za-z0-9%._~-]*$/.test(slug) ? slug : encodeURIComponent(slug);
}

/** Builds the site's URLs. */
export class Permalinks {
  readonly settings: PermalinkSettings;
  readonly #sources: PermalinkSources;

  constructor(settings: PermalinkSettings, sources: PermalinkSources = {}) {
    this.settings = settings;
    this.#sources = sources;
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

  /** `get_permalink()` for any post type. */
  async postLink(post: LinkablePost): Promise<string> {
    switch (post.type) {
      case 'post':
        return this.#postTypePostLink(post);
      case 'page':
        return this.pageLink(post);
      case 'attachment':
        return (await this.#sources.attachmentUrl?.(post.id)) ?? this.home(`/?attachment_id=${post.id}`);
      default:
        return this.home(`/?post_type=${encodeURIComponent(post.type)}&p=${post.id}`);
    }
  }

  async #postTypePostLink(post: LinkablePost): Promise<string> {
    if (!this.pretty || UNPUBLISHED_POST.has(post.status) || post.slug === '') return this.home(`/?p=${post.id}`);
    const [date = '', time = ''] = post.dateLocal.split(' ');
    const [year = '', month = '', day = ''] = date.split('-');
    const [hour = '', minute = '', second = ''] = time.split(':');
    let path = this.settings.structure;
    if (path.includes('%author%')) {
      const author = await this.#sources.authorSlug?.(post.authorId);
      path = path.replace('%author%', segment(author ?? ''));
    }
    if (path.includes('%category%')) {
      const category = (await this.#sources.categoryPath?.(post.id)) ?? 'uncategorized';
      path = path.replace('%category%', category.split('/').map(segment).join('/'));
    }
    path = path
      .replace('%year%', year)
      .replace('%monthnum%', month)
      .replace('%day%', day)
      .replace('%hour%', hour)
      .replace('%minute%', minute)
      .replace('%second%', second)
      .replace('%post_id%', String(post.id))
      .replace('%postname%', segment(post.slug));
    return this.home(path);
  }

  /** `_get_page_link()`: the home URL for the static front page, the page path, or `?page_id=`. */
  async pageLink(page: LinkablePost): Promise<string> {
    if (this.settings.showOnFront === 'page' && this.settings.pageOnFront === page.id) return this.home('/');
    if (!this.pretty || UNPUBLISHED_PAGE.has(page.status) || page.slug === '') return this.home(`/?page_id=${page.id}`);
    return this.#pretty(await this.pageUri(page));
  }

  /** `get_page_uri()`: the slugs of the page's ancestors and its own, joined by `/`. */
  async pageUri(page: LinkablePost): Promise<string> {
    const slugs = [segment(page.slug)];
    const seen = new Set([page.id]);
    let parentId = page.parentId;
    while (parentId > 0 && !seen.has(parentId) && this.#sources.post) {
      seen.add(parentId);
      const parent = await this.#sources.post(parentId);
      if (!parent) break;
      if (parent.slug !== '') slugs.unshift(segment(parent.slug));
      parentId = parent.parentId;
    }
    return slugs.join('/');
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

  /** The URL of the blog (post index): the home page, or the posts page when the front page is static. */
  async postsPageLink(findPage: (id: number) => Promise<LinkablePost | null>): Promise<string> {
    if (this.settings.showOnFront === 'page' && this.settings.pageForPosts > 0) {
      const page = await findPage(this.settings.pageForPosts);
      if (page) return this.pageLink(page);
    }
    return this.home('/');
  }
}
