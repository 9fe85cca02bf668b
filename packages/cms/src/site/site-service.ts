/**
 * The public site: resolves a request (see router.ts) against the content and renders it with the
 * built-in theme — the front page per `show_on_front` / `page_on_front` / `page_for_posts`, single posts
 * and pages, attachment pages, archives by category, tag, author and date, search, 404, RSS 2.0 feeds,
 * the sitemaps and robots.txt. Visitors are anonymous: only published content is shown, and
 * password-protected posts show a form until the visitor has given the password.
 */
import { createHash } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { ValueNotStorableError } from '@svc/platform';
import { wallClockMs, ZERO_DATE } from '../content/dates.ts';
import { permalink } from '../content/permalinks.ts';
import { type Post, toPost } from '../content/post.ts';
import { type PostListQuery, postListOrder, postListWhere, type TaxClause } from '../content/post-query.ts';
import type { ContentSettings } from '../content/site-settings.ts';
import { getTaxonomy } from '../core/taxonomies.ts';
import { literalLimit } from '../db/limit.ts';
import type { Term } from '../db/terms-repository.ts';
import type { User } from '../db/users-repository.ts';
import { type AttachmentMetadata, baseName, mimeForFilename, relativeDir } from '../media/index.ts';
import { oembedDiscoveryLinks } from '../oembed/index.ts';
import { type FeedItem, rss2Feed } from './feeds.ts';
import { getMenuLocations } from './nav-menus.ts';
import { Permalinks, permalinkSettingsFromOptions } from './permalinks.ts';
import { phpDate } from './php-date.ts';
import { routeSiteRequest, type SiteRoute, UPLOADS_PATH } from './router.ts';
import type { SiteRuntime } from './site-runtime.ts';
import { robotsTxt, SITEMAP_MAX_URLS, type SitemapUrl, sitemapIndexXml, sitemapUrl, sitemapXml } from './sitemaps.ts';
import { escHtml, escUrl, stripTags } from './theme/escape.ts';
import {
  embedView,
  layout,
  listView,
  type NavLink,
  notFoundView,
  type PageMeta,
  type PostView,
  type SiteChrome,
  singleView,
} from './theme/views.ts';

/** What the HTTP layer sends. */
export interface SiteResult {
  status: number;
  headers: Record<string, string>;
  body: string | ReadStream | null;
}

/** A site request as the HTTP layer hands it over. */
export interface SiteRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  cookies: Record<string, string>;
}

/** Everything the site reads from the options, once per request. */
export interface SiteSettings extends ContentSettings {
  name: string;
  description: string;
  postsPerPage: number;
  postsPerRss: number;
  dateFormat: string;
  isPublic: boolean;
  useExcerptInFeeds: boolean;
  links: Permalinks;
}

/** The cookie holding the hash of a post password a visitor has given (`wp-postpass_*`). */
export const POSTPASS_COOKIE = 'cms-postpass';

/** The hash stored in the post-password cookie. */
export function postPasswordHash(password: string): string {
  return createHash('sha256').update(`cms-postpass:${password}`).digest('hex');
}

const PUBLIC = ['publish'];

/** One page of a list plus what pagination needs. */
interface ListPage {
  posts: Post[];
  total: number;
}

export class SiteService {
  readonly #site: SiteRuntime;
  #chrome: { at: number; key: string; options: unknown; value: SiteChrome } | undefined;
  /**
   * How long the header, menu and sidebar are reused between requests (they change rarely). What they take
   * from the options (name, tagline, menu locations, permalinks) is exact: a change of any option builds them
   * again; their recent posts, categories and menu items may be this much older than the page.
   */
  chromeTtlMs = 2000;

  constructor(site: SiteRuntime) {
    this.#site = site;
  }

  get #content() {
    return this.#site.content;
  }

  get #repo() {
    return this.#site.content.service.repo;
  }

  // ---- settings and links ----

  async settings(): Promise<SiteSettings> {
    const base = await this.#content.service.settings();
    const o = await this.#site.ctx.options.getMany([
      'blogname',
      'blogdescription',
      'posts_per_page',
      'posts_per_rss',
      'date_format',
      'blog_public',
      'rss_use_excerpt',
      'category_base',
      'tag_base',
    ]);
    const positive = (value: unknown, fallback: number) => {
      const n = Number(value);
      return Number.isInteger(n) && n > 0 ? n : fallback;
    };
    return {
      ...base,
      name: String(o.blogname ?? ''),
      description: String(o.blogdescription ?? ''),
      postsPerPage: positive(o.posts_per_page, 10),
      postsPerRss: positive(o.posts_per_rss, 10),
      dateFormat: typeof o.date_format === 'string' && o.date_format !== '' ? o.date_format : 'F j, Y',
      isPublic:
        o.blog_public === undefined || o.blog_public === null
          ? true
          : Boolean(Number(o.blog_public) || o.blog_public === true),
      useExcerptInFeeds: Boolean(Number(o.rss_use_excerpt ?? 0)),
      links: new Permalinks(
        permalinkSettingsFromOptions({
          home: base.home,
          permalink_structure: base.permalinkStructure,
          show_on_front: base.showOnFront,
          page_on_front: base.pageOnFront,
          page_for_posts: base.pageForPosts,
          category_base: o.category_base,
          tag_base: o.tag_base,
        }),
      ),
    };
  }

  /** The post's public URL, exactly as the REST `link` field gives it. */
  async permalinkOf(post: Post, settings: ContentSettings): Promise<string> {
    const ancestors = post.type === 'page' ? await this.#content.service.ancestorSlugs(post.parentId) : [];
    return permalink(post, settings, { ancestors, canReadPrivate: false });
  }

  // ---- resolving ----

  /** Whether a visitor may see a post (published; attachments of published or no parents). */
  async #isVisible(post: Post): Promise<boolean> {
    if (post.status === 'publish') return true;
    if (post.type === 'attachment' && post.status === 'inherit') {
      if (post.parentId === 0) return true;
      const parent = await this.#repo.findById(post.parentId);
      return parent?.status === 'publish';
    }
    return false;
  }

  /** get_page_by_path(): the published page at a path of slugs, ancestors included. */
  async #pageByPath(path: string): Promise<Post | null> {
    const slugs = path.split('/').filter((s) => s !== '');
    const leaf = slugs[slugs.length - 1];
    if (!leaf) return null;
    const candidates = await this.#repo.list(
      { type: 'page', statuses: PUBLIC, slugs: [leaf], orderby: 'id', order: 'asc' },
      { limit: 20, offset: 0 },
    );
    for (const page of candidates.posts) {
      const ancestors = await this.#content.service.ancestorSlugs(page.parentId);
      if (ancestors.join('/') === slugs.slice(0, -1).join('/')) return page;
    }
    return null;
  }

  /** The post or page a singular route names, if a visitor may see it. */
  async findSingular(by: { path: string } | { id: number; type?: string }): Promise<Post | null> {
    if ('id' in by) {
      const post = await this.#repo.findById(by.id);
      if (!post || (by.type && post.type !== by.type)) return null;
      if (!['post', 'page', 'attachment'].includes(post.type)) return null;
      return (await this.#isVisible(post)) ? post : null;
    }
    const page = await this.#pageByPath(by.path);
    if (page) return page;
    const slug = by.path
      .split('/')
      .filter((s) => s !== '')
      .pop();
    if (!slug) return null;
    const found = await this.#repo.list(
      { type: 'post', statuses: PUBLIC, slugs: [slug], orderby: 'id', order: 'asc' },
      { limit: 1, offset: 0 },
    );
    if (found.posts[0]) return found.posts[0];
    // Attachment pages: `/{slug}/` when unattached, `/{parent path}/{slug}/` (or `/attachment/{slug}/`) otherwise.
    const attachments = await this.#repo.list(
      { type: 'attachment', statuses: ['inherit'], slugs: [slug], orderby: 'id', order: 'asc' },
      { limit: 5, offset: 0 },
    );
    for (const attachment of attachments.posts) if (await this.#isVisible(attachment)) return attachment;
    return null;
  }

  /** url_to_postid(): the visible post a URL of this site points at, or null. */
  async urlToPost(url: string): Promise<Post | null> {
    const settings = await this.settings();
    let parsed: URL;
    let home: URL;
    try {
      parsed = new URL(url);
      home = new URL(`${settings.home}/`);
    } catch {
      return null;
    }
    if (parsed.host.toLowerCase().replace(/^www\./, '') !== home.host.toLowerCase().replace(/^www\./, '')) return null;
    const homePath = home.pathname.replace(/\/+$/, '');
    if (homePath && !parsed.pathname.startsWith(homePath)) return null;
    const path = parsed.pathname.slice(homePath.length) || '/';
    const query: Record<string, unknown> = Object.fromEntries(parsed.searchParams.entries());
    const route = routeSiteRequest(path, query, settings.permalinkStructure);
    if (route.kind === 'front' && settings.showOnFront === 'page' && settings.pageOnFront > 0) {
      return this.findSingular({ id: settings.pageOnFront, type: 'page' });
    }
    return route.kind === 'singular' ? this.findSingular(route.by) : null;
  }

  // ---- handling ----

  /** Answers one site request. */
  async handle(request: SiteRequest): Promise<SiteResult> {
    const settings = await this.settings();
    try {
      return await this.#handle(request, settings);
    } catch (err) {
      // The site only reads: a value the database cannot hold cannot equal anything stored, so what it names
      // does not exist. (An id past PostgreSQL's 32-bit columns in `?p=` or `?cat=` no longer gets here: the
      // connection compiles such comparisons so they cannot fail, WideIntegerComparisonsPlugin.)
      if (err instanceof ValueNotStorableError) return this.#notFound(settings);
      throw err;
    }
  }

  async #handle(request: SiteRequest, settings: SiteSettings): Promise<SiteResult> {
    const route = routeSiteRequest(request.path, request.query, settings.permalinkStructure);
    switch (route.kind) {
      case 'upload':
        return this.#upload(route.path);
      case 'robots':
        return text(200, 'text/plain; charset=UTF-8', robotsTxt(settings.home, settings.isPublic));
      case 'redirect':
        return { status: route.status, headers: { Location: `${settings.home}${route.location}` }, body: null };
      case 'sitemap-index':
      case 'sitemap':
      case 'sitemap-stylesheet':
        return this.#sitemap(route, settings);
      case 'not-found':
        return this.#notFound(settings);
      case 'singular':
        return this.#singular(route, request, settings);
      case 'front':
        return this.#front(route, request, settings);
      default:
        return this.#archive(route, request, settings);
    }
  }

  async #front(
    route: Extract<SiteRoute, { kind: 'front' }>,
    request: SiteRequest,
    settings: SiteSettings,
  ): Promise<SiteResult> {
    if (!route.feed && settings.showOnFront === 'page' && settings.pageOnFront > 0) {
      const page = await this.findSingular({ id: settings.pageOnFront, type: 'page' });
      if (page) return this.#renderSingular(page, request, settings, false);
    }
    return this.#blog(route.paged, route.feed, request, settings, settings.links.home('/'));
  }

  /** The post index (home page or the posts page): newest first, sticky posts first on page 1. */
  async #blog(
    paged: number,
    feed: boolean,
    request: SiteRequest,
    settings: SiteSettings,
    baseUrl: string,
  ): Promise<SiteResult> {
    const query: PostListQuery = { type: 'post', statuses: PUBLIC, orderby: 'date', order: 'desc', search: undefined };
    if (feed) return this.#feed(query, settings, settings.name, baseUrl, settings.description);
    const page = await this.#list(query, paged, settings.postsPerPage);
    if (paged === 1 && settings.stickyPosts.length > 0)
      page.posts = await this.#stickiesFirst(page.posts, settings.stickyPosts);
    if (paged > 1 && page.posts.length === 0) return this.#notFound(settings);
    return this.#renderList(request, settings, {
      heading: undefined,
      title:
        paged > 1
          ? `${settings.name} – Page ${paged}`
          : settings.description
            ? `${settings.name} – ${settings.description}`
            : settings.name,
      page,
      paged,
      baseUrl,
      bodyClass: 'home blog',
      empty: 'Nothing has been published yet.',
      feeds: [],
    });
  }

  async #stickiesFirst(posts: Post[], stickyIds: number[]): Promise<Post[]> {
    const remaining = [...stickyIds];
    const out = [...posts];
    let at = 0;
    for (let i = 0; i < out.length; i++) {
      const post = out[i] as Post;
      const index = remaining.indexOf(post.id);
      if (index === -1) continue;
      out.splice(i, 1);
      out.splice(at++, 0, post);
      remaining.splice(index, 1);
    }
    if (remaining.length > 0) {
      const extra = await this.#repo.list(
        { type: 'post', statuses: PUBLIC, include: remaining, orderby: 'date', order: 'desc' },
        { limit: remaining.length, offset: 0 },
      );
      for (const post of extra.posts) out.splice(at++, 0, post);
    }
    return out;
  }

  async #list(query: PostListQuery, paged: number, perPage: number): Promise<ListPage> {
    const result = await this.#repo.list(query, { limit: perPage, offset: (paged - 1) * perPage });
    return { posts: result.posts, total: result.total };
  }

  async #singular(
    route: Extract<SiteRoute, { kind: 'singular' }>,
    request: SiteRequest,
    settings: SiteSettings,
  ): Promise<SiteResult> {
    const post = await this.findSingular(route.by);
    if (!post) return this.#notFound(settings);
    const canonical = await this.permalinkOf(post, settings);
    // redirect_canonical(): plain ?p= and ?page_id= links of a pretty-permalink site move to the pretty URL.
    if ('id' in route.by && !route.embed && settings.permalinkStructure !== '' && !canonical.includes('?')) {
      return { status: 301, headers: { Location: canonical }, body: null };
    }
    if (post.type === 'page' && settings.showOnFront === 'page' && post.id === settings.pageForPosts && !route.embed) {
      return this.#blog(1, false, request, settings, canonical);
    }
    return this.#renderSingular(post, request, settings, route.embed);
  }

  async #renderSingular(post: Post, request: SiteRequest, settings: SiteSettings, embed: boolean): Promise<SiteResult> {
    const [view] = await this.#views([post], settings, request, 'single');
    if (!view) return this.#notFound(settings);
    const chrome = await this.#chromeFor(settings, view.permalink);
    if (embed) return html(200, embedView(chrome, view));
    const restBase = post.type === 'page' ? 'pages' : post.type === 'attachment' ? 'media' : 'posts';
    const restUrl = `${settings.home}/cms-json/cms/v2/${restBase}/${post.id}`;
    const meta: PageMeta = {
      title: `${stripTags(view.titleHtml)} – ${settings.name}`,
      canonical: view.permalink,
      feeds: [{ title: `${settings.name} » Feed`, url: settings.links.feedLink() }],
      headExtra: `<link rel="alternate" type="application/json" href="${escUrl(restUrl)}" />\n${oembedDiscoveryLinks(`${settings.home}/cms-json/`, view.permalink)}`,
      bodyClass: `single single-${post.type} postid-${post.id}`,
    };
    const result = html(200, layout(chrome, meta, singleView(view, `${settings.home}/cms-postpass`)));
    result.headers.Link = `<${settings.home}/cms-json/>; rel="https://api.w.org/", <${restUrl}>; rel="alternate"; type="application/json"`;
    return result;
  }

  async #archive(route: SiteRoute, request: SiteRequest, settings: SiteSettings): Promise<SiteResult> {
    const query: PostListQuery = { type: 'post', statuses: PUBLIC, orderby: 'date', order: 'desc' };
    let heading = '';
    let title = '';
    let baseUrl = '';
    let bodyClass = 'archive';
    let empty = 'It seems we can’t find what you’re looking for.';
    let paged = 1;
    let feed = false;
    switch (route.kind) {
      case 'category': {
        const term =
          'id' in route.by ? await this.#termById(route.by.id, 'category') : await this.#categoryByPath(route.by.path);
        if (!term) return this.#notFound(settings);
        const ids = [term.id, ...(await this.#site.ctx.terms.descendantIds('category', [term.id]))];
        query.tax = { relation: 'AND', clauses: [{ termIds: ids, operator: 'IN' } satisfies TaxClause] };
        heading = `Category: <span>${escHtml(term.name)}</span>`;
        title = `${term.name} – ${settings.name}`;
        baseUrl = settings.links.termLink(term, await this.#termAncestorSlugs(term));
        bodyClass = `archive category category-${term.slug}`;
        ({ paged, feed } = route);
        break;
      }
      case 'tag': {
        const term = await this.#site.ctx.terms.findBySlug('post_tag', route.slug);
        if (!term) return this.#notFound(settings);
        query.tax = { relation: 'AND', clauses: [{ termIds: [term.id], operator: 'IN' }] };
        heading = `Tag: <span>${escHtml(term.name)}</span>`;
        title = `${term.name} – ${settings.name}`;
        baseUrl = settings.links.termLink(term);
        bodyClass = `archive tag tag-${term.slug}`;
        ({ paged, feed } = route);
        break;
      }
      case 'author': {
        const user =
          'id' in route.by
            ? await this.#site.ctx.users.findById(route.by.id)
            : await this.#site.ctx.users.findBySlug(route.by.nicename);
        if (!user) return this.#notFound(settings);
        query.authors = [user.id];
        heading = `Author: <span>${escHtml(user.display_name)}</span>`;
        title = `${user.display_name} – ${settings.name}`;
        baseUrl = settings.links.authorLink(user.id, user.nicename);
        bodyClass = `archive author author-${user.nicename}`;
        ({ paged, feed } = route);
        break;
      }
      case 'date': {
        const { year, month, day } = route;
        const from = `${String(year).padStart(4, '0')}-${String(month ?? 1).padStart(2, '0')}-${String(day ?? 1).padStart(2, '0')} 00:00:00`;
        const start = wallClockMs(from);
        const end = new Date(start);
        if (day !== undefined) end.setUTCDate(end.getUTCDate() + 1);
        else if (month !== undefined) end.setUTCMonth(end.getUTCMonth() + 1);
        else end.setUTCFullYear(end.getUTCFullYear() + 1);
        query.after = formatMysqlMs(start - 1000);
        query.before = formatMysqlMs(end.getTime());
        const label =
          day !== undefined
            ? phpDate(settings.dateFormat, from)
            : month !== undefined
              ? phpDate('F Y', from)
              : String(year);
        heading = `${day !== undefined ? 'Day' : month !== undefined ? 'Month' : 'Year'}: <span>${escHtml(label)}</span>`;
        title = `${label} – ${settings.name}`;
        baseUrl = settings.links.dateLink(year, month, day);
        bodyClass = 'archive date';
        ({ paged, feed } = route);
        break;
      }
      case 'search': {
        query.type = 'post';
        query.search = { text: route.query, columns: [], exact: false, loggedIn: false };
        query.orderby = 'relevance';
        heading = `Search Results for: <span>${escHtml(route.query)}</span>`;
        title = `Search Results for “${route.query}” – ${settings.name}`;
        baseUrl = settings.links.searchLink(route.query);
        bodyClass = 'search';
        empty = 'Sorry, but nothing matched your search terms. Please try again with some different keywords.';
        ({ paged, feed } = route);
        if (route.query.trim() === '') query.search = undefined;
        if (feed)
          return this.#feed(
            query,
            settings,
            `${settings.name} » Search Results for “${route.query}”`,
            baseUrl,
            settings.description,
          );
        return this.#searchResults(query, request, settings, { heading, title, baseUrl, bodyClass, empty, paged });
      }
      default:
        return this.#notFound(settings);
    }
    if (feed)
      return this.#feed(query, settings, `${settings.name} » ${stripTags(heading)}`, baseUrl, settings.description);
    const page = await this.#list(query, paged, settings.postsPerPage);
    if (paged > 1 && page.posts.length === 0) return this.#notFound(settings);
    return this.#renderList(request, settings, {
      heading,
      title,
      page,
      paged,
      baseUrl,
      bodyClass,
      empty,
      feeds: [{ title: `${settings.name} » ${stripTags(heading)} Feed`, url: settings.links.feedLink(baseUrl) }],
    });
  }

  /** Search covers posts and pages, as WordPress's searchable types do. */
  async #searchResults(
    query: PostListQuery,
    request: SiteRequest,
    settings: SiteSettings,
    info: { heading: string; title: string; baseUrl: string; bodyClass: string; empty: string; paged: number },
  ): Promise<SiteResult> {
    const db = this.#site.ctx.db;
    const posts = { ...query, type: 'post' };
    const pages = { ...query, type: 'page' };
    // biome-ignore lint/suspicious/noExplicitAny: the posts expression builder is the content module's, typed loosely there too
    const where = (eb: any) => eb.or([postListWhere(eb, posts), postListWhere(eb, pages)]);
    let q = db
      .selectFrom('posts')
      .selectAll('posts')
      .where(where as never);
    for (const item of postListOrder(posts)) q = q.orderBy(item.expr as never, item.direction);
    const perPage = settings.postsPerPage;
    const rows = await q
      .limit(literalLimit(perPage))
      .offset((info.paged - 1) * perPage)
      .execute();
    const count = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(where as never)
      .executeTakeFirstOrThrow();
    const page = { posts: rows.map((r) => toPost(r as never)), total: Number(count.n) };
    if (info.paged > 1 && page.posts.length === 0) return this.#notFound(settings);
    const result = await this.#renderList(request, settings, {
      ...info,
      page,
      feeds: [],
      searchQuery: query.search?.text ?? '',
    });
    return result;
  }

  async #renderList(
    request: SiteRequest,
    settings: SiteSettings,
    info: {
      heading: string | undefined;
      title: string;
      page: ListPage;
      paged: number;
      baseUrl: string;
      bodyClass: string;
      empty: string;
      feeds: Array<{ title: string; url: string }>;
      searchQuery?: string;
    },
  ): Promise<SiteResult> {
    const views = await this.#views(info.page.posts, settings, request, 'summary');
    const pages = Math.max(1, Math.ceil(info.page.total / settings.postsPerPage));
    const pagination = {
      ...(info.paged > 1 ? { newerUrl: settings.links.pagedLink(info.baseUrl, info.paged - 1) } : {}),
      ...(info.paged < pages ? { olderUrl: settings.links.pagedLink(info.baseUrl, info.paged + 1) } : {}),
    };
    const canonical = settings.links.pagedLink(info.baseUrl, info.paged);
    const chrome = await this.#chromeFor(settings, canonical);
    const meta: PageMeta = {
      title: info.title,
      canonical,
      feeds: [{ title: `${settings.name} » Feed`, url: settings.links.feedLink() }, ...info.feeds],
      bodyClass: info.paged > 1 ? `${info.bodyClass} paged paged-${info.paged}` : info.bodyClass,
      ...(info.searchQuery !== undefined ? { robots: 'noindex, follow' } : {}),
    };
    const main = listView(info.heading, views, pagination, info.empty);
    const result = html(200, layout(chrome, meta, main));
    result.headers.Link = `<${settings.home}/cms-json/>; rel="https://api.w.org/"`;
    return result;
  }

  async #notFound(settings: SiteSettings): Promise<SiteResult> {
    const chrome = await this.#chromeFor(settings, '');
    const meta: PageMeta = {
      title: `Page not found – ${settings.name}`,
      feeds: [],
      bodyClass: 'error404',
      robots: 'noindex',
    };
    return html(404, layout(chrome, meta, notFoundView(settings.links.home('/'))));
  }

  // ---- terms ----

  async #termById(id: number, taxonomy: string): Promise<Term | null> {
    const term = await this.#site.ctx.terms.findById(id);
    return term?.taxonomy === taxonomy ? term : null;
  }

  async #categoryByPath(path: string): Promise<Term | null> {
    const slugs = path.split('/').filter((s) => s !== '');
    const leaf = slugs[slugs.length - 1];
    if (!leaf) return null;
    const term = await this.#site.ctx.terms.findBySlug('category', leaf);
    if (!term) return null;
    // A wrong parent path is still the category (WordPress redirects it); only the leaf decides.
    return term;
  }

  async #termAncestorSlugs(term: Term): Promise<string[]> {
    const slugs: string[] = [];
    const seen = new Set([term.id]);
    let parentId = term.parent;
    while (parentId > 0 && !seen.has(parentId)) {
      seen.add(parentId);
      const parent = await this.#site.ctx.terms.findById(parentId);
      if (!parent) break;
      slugs.unshift(parent.slug);
      parentId = parent.parent;
    }
    return slugs;
  }

  // ---- views ----

  /** The theme's view of several posts, with authors, terms and featured images fetched together. */
  async #views(
    posts: readonly Post[],
    settings: SiteSettings,
    request: SiteRequest,
    mode: 'single' | 'summary',
  ): Promise<PostView[]> {
    if (posts.length === 0) return [];
    const renderer = await this.#content.renderer();
    const state = renderer.inner.newState();
    const authors = new Map<number, User | null>();
    for (const id of new Set(posts.map((p) => p.authorId))) authors.set(id, await this.#site.ctx.users.findById(id));
    const postTerms = await this.#repo.terms(posts.map((p) => p.id));
    const terms = new Map<number, Term>(
      postTerms.length > 0
        ? (await this.#site.ctx.terms.findByIds([...new Set(postTerms.map((t) => t.termId))])).map((t) => [t.id, t])
        : [],
    );
    const ancestorCache = new Map<number, string[]>();
    const termLink = async (term: Term) => {
      let ancestors = ancestorCache.get(term.id);
      if (!ancestors) {
        ancestors = await this.#termAncestorSlugs(term);
        ancestorCache.set(term.id, ancestors);
      }
      return settings.links.termLink(term, ancestors);
    };
    const featuredIds = posts.map((p) => (p.type === 'attachment' ? p.id : p.featuredMedia)).filter((id) => id > 0);
    const media = await this.#mediaImages(featuredIds, settings);
    const unlocked = request.cookies[POSTPASS_COOKIE];
    const views: PostView[] = [];
    for (const post of posts) {
      const author = authors.get(post.authorId);
      const locked = post.password !== '' && unlocked !== postPasswordHash(post.password);
      const own = postTerms.filter((t) => t.postId === post.id);
      const categories: PostView['categories'] = [];
      const tags: PostView['tags'] = [];
      for (const t of own) {
        const term = terms.get(t.termId);
        if (!term) continue;
        if (term.taxonomy === 'category') categories.push({ name: term.name, url: await termLink(term) });
        else if (term.taxonomy === 'post_tag') tags.push({ name: term.name, url: await termLink(term) });
      }
      const image = media.get(post.type === 'attachment' ? post.id : post.featuredMedia);
      let contentHtml: string | undefined;
      if (mode === 'single' && !locked) {
        contentHtml = renderer.content(post, state);
        if (post.type === 'attachment') contentHtml = this.#attachmentBody(post, image, contentHtml);
      }
      const view: PostView = {
        id: post.id,
        type: post.type,
        titleHtml: renderer.title(post),
        permalink: await this.permalinkOf(post, settings),
        dateIso: isoWithOffset(post),
        dateText: phpDate(settings.dateFormat, post.dateLocal),
        ...(author
          ? { author: { name: author.display_name, url: settings.links.authorLink(author.id, author.nicename) } }
          : {}),
        ...(contentHtml !== undefined ? { contentHtml } : {}),
        ...(mode === 'summary' && !locked ? { excerptHtml: renderer.excerpt(post, undefined, state) } : {}),
        categories,
        tags,
        ...(image && post.type !== 'attachment' ? { featured: image } : {}),
        locked,
      };
      views.push(view);
    }
    return views;
  }

  /** An attachment page's body: the image (or a link to the file) and its description. */
  #attachmentBody(post: Post, image: PostView['featured'] | undefined, description: string): string {
    if (image) {
      return `<figure class="attachment"><a href="${escUrl(image.src)}"><img src="${escUrl(image.src)}" width="${image.width}" height="${image.height}" alt="${escHtml(image.alt)}" /></a>${post.excerpt ? `<figcaption>${escHtml(post.excerpt)}</figcaption>` : ''}</figure>\n${description}`;
    }
    return `<p class="attachment"><a href="${escUrl(post.guid)}">${escHtml(baseName(post.guid))}</a></p>\n${description}`;
  }

  /** Image URLs of attachments, preferring the `large` size (the theme's content width). */
  async #mediaImages(
    ids: readonly number[],
    settings: SiteSettings,
  ): Promise<Map<number, NonNullable<PostView['featured']>>> {
    const out = new Map<number, NonNullable<PostView['featured']>>();
    if (ids.length === 0) return out;
    const unique = [...new Set(ids)];
    const attachments = (await this.#repo.findByIds(unique)).filter(
      (a) => a.type === 'attachment' && a.mimeType.startsWith('image/'),
    );
    const meta = await this.#repo.meta(
      attachments.map((a) => a.id),
      ['_wp_attached_file', '_wp_attachment_metadata', '_wp_attachment_image_alt'],
    );
    const base = `${settings.siteUrl || settings.home}${UPLOADS_PATH}/`;
    const encode = (rel: string) => base + rel.split('/').map(encodeURIComponent).join('/');
    for (const a of attachments) {
      const m = meta.get(a.id);
      const file = m?.get('_wp_attached_file');
      const data = m?.get('_wp_attachment_metadata') as AttachmentMetadata | undefined;
      if (typeof file !== 'string' || !data?.width || !data.height) continue;
      const large = data.sizes?.large;
      const dir = relativeDir(file);
      const alt = m?.get('_wp_attachment_image_alt');
      out.set(
        a.id,
        large
          ? {
              src: encode(dir ? `${dir}/${large.file}` : large.file),
              width: large.width,
              height: large.height,
              alt: typeof alt === 'string' ? alt : '',
            }
          : { src: encode(file), width: data.width, height: data.height, alt: typeof alt === 'string' ? alt : '' },
      );
    }
    return out;
  }

  // ---- chrome ----

  async #chromeFor(settings: SiteSettings, currentUrl: string): Promise<SiteChrome> {
    const key = `${settings.home}|${settings.name}`;
    const options = this.#site.ctx.options.currentGeneration();
    let chrome =
      this.#chrome &&
      this.#chrome.key === key &&
      this.#chrome.options === options &&
      Date.now() - this.#chrome.at < this.chromeTtlMs
        ? this.#chrome.value
        : undefined;
    if (!chrome) {
      chrome = await this.#buildChrome(settings);
      this.#chrome = { at: Date.now(), key, options, value: chrome };
    }
    if (!currentUrl) return chrome;
    const mark = (links: NavLink[]): NavLink[] =>
      links.map((l) => ({ ...l, current: l.url === currentUrl, children: mark(l.children) }));
    return { ...chrome, nav: mark(chrome.nav) };
  }

  async #buildChrome(settings: SiteSettings): Promise<SiteChrome> {
    const renderer = await this.#content.renderer();
    const recent = await this.#repo.list(
      { type: 'post', statuses: PUBLIC, orderby: 'date', order: 'desc' },
      { limit: 5, offset: 0 },
    );
    const categories = await this.#site.ctx.terms.list({
      taxonomy: 'category',
      hideEmpty: true,
      orderby: 'name',
      order: 'asc',
    });
    const categoryLinks: SiteChrome['categories'] = [];
    for (const term of categories) {
      categoryLinks.push({
        name: term.name,
        url: settings.links.termLink(term, await this.#termAncestorSlugs(term)),
        count: term.count,
      });
    }
    const recentLinks: SiteChrome['recent'] = [];
    for (const post of recent.posts)
      recentLinks.push({ titleHtml: renderer.title(post), url: await this.permalinkOf(post, settings) });
    return {
      name: settings.name,
      description: settings.description,
      homeUrl: settings.links.home('/'),
      feedUrl: settings.links.feedLink(),
      language: 'en-US',
      closed: !settings.isPublic,
      nav: await this.#navigation(settings),
      recent: recentLinks,
      categories: categoryLinks,
    };
  }

  /** The primary menu (its published items as a tree), or the top-level pages when none is assigned. */
  async #navigation(settings: SiteSettings): Promise<NavLink[]> {
    const menuId = (await getMenuLocations(this.#site.ctx.options)).primary;
    const renderer = await this.#content.renderer();
    if (menuId && this.#site.menuItems) {
      const items = await this.#repo.list(
        {
          type: 'nav_menu_item',
          statuses: PUBLIC,
          tax: { relation: 'AND', clauses: [{ termIds: [menuId], operator: 'IN' }] },
          orderby: 'menu_order',
          order: 'asc',
        },
        { limit: 500, offset: 0 },
      );
      const views = await this.#site.menuItems.menuItemViews(items.posts, settings);
      const nodes = new Map<number, NavLink & { parent: number }>();
      for (const post of items.posts) {
        const view = views.get(post.id);
        if (!view || view.invalid) continue;
        nodes.set(post.id, {
          titleHtml: renderer.title({ ...post, title: view.title, status: 'publish' }),
          url: view.url,
          children: [],
          parent: view.parent,
          ...(view.target ? { target: view.target } : {}),
          ...(view.attrTitle ? { attrTitle: view.attrTitle } : {}),
          classes: view.classes.filter((c) => c !== ''),
          rel: view.xfn.split(' ').filter((x) => x !== ''),
        });
      }
      const roots: NavLink[] = [];
      for (const node of nodes.values()) {
        const parent = node.parent ? nodes.get(node.parent) : undefined;
        if (parent) parent.children.push(node);
        else roots.push(node);
      }
      return roots;
    }
    const pages = await this.#repo.list(
      { type: 'page', statuses: PUBLIC, parents: [0], orderby: 'menu_order', order: 'asc' },
      { limit: 20, offset: 0 },
    );
    const links: NavLink[] = [{ titleHtml: 'Home', url: settings.links.home('/'), children: [] }];
    for (const page of pages.posts) {
      if (settings.showOnFront === 'page' && page.id === settings.pageOnFront) continue;
      links.push({ titleHtml: renderer.title(page), url: await this.permalinkOf(page, settings), children: [] });
    }
    return links;
  }

  // ---- feeds ----

  async #feed(
    query: PostListQuery,
    settings: SiteSettings,
    title: string,
    link: string,
    description: string,
  ): Promise<SiteResult> {
    const page = await this.#list(query, 1, settings.postsPerRss);
    const renderer = await this.#content.renderer();
    const state = renderer.inner.newState();
    const postTerms = await this.#repo.terms(page.posts.map((p) => p.id));
    const items: FeedItem[] = [];
    let lastModified = '';
    for (const post of page.posts) {
      const author = await this.#site.ctx.users.findById(post.authorId);
      const locked = post.password !== '';
      if (post.modifiedGmt > lastModified) lastModified = post.modifiedGmt;
      const excerpt = locked
        ? 'There is no excerpt because this is a protected post.'
        : stripTags(renderer.excerpt(post, undefined, state)).trim();
      items.push({
        titleHtml: renderer.title(post),
        link: await this.permalinkOf(post, settings),
        guid: post.guid || `${settings.home}/?p=${post.id}`,
        creator: author?.display_name ?? '',
        pubDate: phpDate('D, d M Y H:i:s +0000', post.dateGmt === ZERO_DATE ? post.dateLocal : post.dateGmt),
        categories: postTerms
          .filter((t) => t.postId === post.id && (t.taxonomy === 'category' || t.taxonomy === 'post_tag'))
          .map((t) => t.name),
        descriptionHtml: excerpt,
        ...(locked || settings.useExcerptInFeeds ? {} : { contentHtml: renderer.content(post, state) }),
        commentCount: post.commentCount,
      });
    }
    const body = rss2Feed(
      {
        title,
        selfUrl: settings.links.feedLink(link === settings.links.home('/') ? undefined : link),
        link,
        description,
        lastBuildDate: phpDate('D, d M Y H:i:s +0000', lastModified || '1970-01-01 00:00:00'),
        language: 'en-US',
      },
      items,
    );
    return text(200, 'application/rss+xml; charset=UTF-8', body);
  }

  // ---- sitemaps ----

  async #sitemap(route: SiteRoute, settings: SiteSettings): Promise<SiteResult> {
    if (!settings.isPublic || route.kind === 'sitemap-stylesheet') return this.#notFound(settings);
    const home = settings.home;
    const db = this.#site.ctx.db;
    const countPublished = async (type: string) =>
      Number(
        (
          await db
            .selectFrom('posts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('type', '=', type)
            .where('status', '=', 'publish')
            .where('password', '=', '')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const pagesOf = (count: number) => Math.ceil(count / SITEMAP_MAX_URLS);
    if (route.kind === 'sitemap-index') {
      const entries: string[] = [];
      for (const type of ['post', 'page']) {
        const n = pagesOf((await countPublished(type)) + (type === 'page' && settings.showOnFront === 'posts' ? 1 : 0));
        for (let i = 1; i <= n; i++) entries.push(sitemapUrl(home, 'posts', type, i));
      }
      for (const taxonomy of ['category', 'post_tag']) {
        const n = pagesOf(await this.#site.ctx.terms.countMatching({ taxonomy, hideEmpty: true }));
        for (let i = 1; i <= n; i++) entries.push(sitemapUrl(home, 'taxonomies', taxonomy, i));
      }
      const authors = await this.#site.ctx.content.usersWithPublishedPosts(['post', 'page']);
      for (let i = 1; i <= pagesOf(authors.size); i++) entries.push(sitemapUrl(home, 'users', '', i));
      return text(200, 'application/xml; charset=UTF-8', sitemapIndexXml(entries));
    }
    if (route.kind !== 'sitemap') return this.#notFound(settings);
    const offset = (route.page - 1) * SITEMAP_MAX_URLS;
    const urls: SitemapUrl[] = [];
    if (route.provider === 'posts') {
      if (route.subtype !== 'post' && route.subtype !== 'page') return this.#notFound(settings);
      let skip = offset;
      let limit = SITEMAP_MAX_URLS;
      if (route.subtype === 'page' && settings.showOnFront === 'posts') {
        // The home page leads the page sitemap when it shows the latest posts.
        if (route.page === 1) {
          const latest = await this.#repo.list(
            { type: 'post', statuses: PUBLIC, orderby: 'modified', order: 'desc' },
            { limit: 1, offset: 0 },
          );
          urls.push({ loc: `${home}/`, ...(latest.posts[0] ? { lastmod: w3c(latest.posts[0].modifiedGmt) } : {}) });
          limit -= 1;
        } else skip -= 1;
      }
      const rows = await db
        .selectFrom('posts')
        .selectAll()
        .where('type', '=', route.subtype)
        .where('status', '=', 'publish')
        .where('password', '=', '')
        .orderBy('id', 'asc')
        .limit(literalLimit(limit))
        .offset(skip)
        .execute();
      for (const row of rows) {
        const post = toPost(row as never);
        urls.push({ loc: await this.permalinkOf(post, settings), lastmod: w3c(post.modifiedGmt) });
      }
    } else if (route.provider === 'taxonomies') {
      if (!getTaxonomy(route.subtype) || !['category', 'post_tag'].includes(route.subtype))
        return this.#notFound(settings);
      const terms = await this.#site.ctx.terms.list({
        taxonomy: route.subtype,
        hideEmpty: true,
        orderby: 'id',
        order: 'asc',
        limit: SITEMAP_MAX_URLS,
        offset,
      });
      for (const term of terms) urls.push({ loc: settings.links.termLink(term, await this.#termAncestorSlugs(term)) });
    } else {
      const authors = [...(await this.#site.ctx.content.usersWithPublishedPosts(['post', 'page']))].sort(
        (a, b) => a - b,
      );
      for (const id of authors.slice(offset, offset + SITEMAP_MAX_URLS)) {
        const user = await this.#site.ctx.users.findById(id);
        if (user) urls.push({ loc: settings.links.authorLink(user.id, user.nicename) });
      }
    }
    if (urls.length === 0) return this.#notFound(settings);
    return text(200, 'application/xml; charset=UTF-8', sitemapXml(urls));
  }

  // ---- uploads ----

  async #upload(relPath: string): Promise<SiteResult> {
    const storage = this.#site.media.storage;
    let decoded: string;
    try {
      decoded = relPath.split('/').map(decodeURIComponent).join('/');
    } catch {
      return { status: 404, headers: { 'Content-Type': 'text/plain; charset=UTF-8' }, body: 'Not found' };
    }
    let size: number | undefined;
    try {
      size = await storage.size(decoded);
    } catch {
      size = undefined;
    }
    if (size === undefined)
      return { status: 404, headers: { 'Content-Type': 'text/plain; charset=UTF-8' }, body: 'Not found' };
    const type = mimeForFilename(decoded)?.mime ?? 'application/octet-stream';
    return {
      status: 200,
      headers: {
        'Content-Type': type,
        'Content-Length': String(size),
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'public, max-age=31536000, immutable',
        // Uploaded files never run as pages of this site, even if a browser would sniff them as such.
        'Content-Security-Policy':
          "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox",
      },
      body: storage.stream(decoded),
    };
  }
}

function html(status: number, body: string): SiteResult {
  return { status, headers: { 'Content-Type': 'text/html; charset=UTF-8' }, body };
}

function text(status: number, type: string, body: string): SiteResult {
  return { status, headers: { 'Content-Type': type }, body };
}

/** `YYYY-MM-DD HH:MM:SS` of a millisecond wall-clock instant. */
function formatMysqlMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** A GMT date as W3C datetime with `+00:00`. */
function w3c(gmt: string): string {
  return `${gmt.replace(' ', 'T')}+00:00`;
}

/** The post date as ISO 8601 with the site's offset at that time. */
function isoWithOffset(post: Post): string {
  const local = post.dateLocal.replace(' ', 'T');
  if (post.dateGmt === ZERO_DATE) return local;
  const minutes = Math.round((wallClockMs(post.dateLocal) - wallClockMs(post.dateGmt)) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
