import { escAttr, escHtml, escUrl, stripTags } from './escape.ts';

/** A link of the navigation menu (built from a menu location or the page list). */
export interface NavLink {
  /** Label as HTML (menu item titles are rendered titles). */
  titleHtml: string;
  url: string;
  children: NavLink[];
  target?: string;
  attrTitle?: string;
  classes?: string[];
  rel?: string[];
  current?: boolean;
}

/** What every page shows around its content. */
export interface SiteChrome {
  name: string;
  description: string;
  homeUrl: string;
  feedUrl: string;
  language: string;
  /** `blog_public` is 0: every page asks search engines to stay away (wp_robots_no_robots). */
  closed: boolean;
  nav: NavLink[];
  recent: Array<{ titleHtml: string; url: string }>;
  categories: Array<{ name: string; url: string; count: number }>;
}

/** A post, page or attachment as the theme shows it. */
export interface PostView {
  id: number;
  type: string;
  titleHtml: string;
  permalink: string;
  /** ISO 8601 with offset, for `<time datetime>`. */
  dateIso: string;
  /** The date in the site's `date_format`. */
  dateText: string;
  author?: { name: string; url: string };
  /** Rendered content; absent in lists (excerpts) and for protected posts. */
  contentHtml?: string;
  excerptHtml?: string;
  categories: Array<{ name: string; url: string }>;
  tags: Array<{ name: string; url: string }>;
  featured?: { src: string; width: number; height: number; alt: string };
  /** Password-protected and not unlocked: show the form instead of the content. */
  locked: boolean;
}

/** The document head's per-page parts. */
export interface PageMeta {
  /** Text of `<title>` (already plain text). */
  title: string;
  canonical?: string;
  feeds: Array<{ title: string; url: string }>;
  /** Extra `<link>` tags (oEmbed discovery) as HTML. */
  headExtra?: string;
  robots?: string;
  bodyClass: string;
}

const STYLE = `body{margin:0;font:17px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1e1e1e;background:#fff}
a{color:#1d4ed8}header.site-header,main,footer.site-footer{max-width:46rem;margin:0 auto;padding:0 1rem}
header.site-header{padding-top:1.5rem;border-bottom:1px solid #ddd}.site-title{font-size:1.6rem;margin:0}
.site-title a{color:inherit;text-decoration:none}.site-description{margin:.2rem 0 1rem;color:#555}
nav.primary ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:1rem}nav.primary ul ul{display:none}
article{margin:2rem 0;padding-bottom:1rem;border-bottom:1px solid #eee}.entry-title{margin:0 0 .3rem;line-height:1.25}
.entry-meta,.entry-footer{color:#666;font-size:.9rem}img{max-width:100%;height:auto}
.pagination{display:flex;justify-content:space-between;margin:2rem 0}aside.widgets{margin:2rem 0;font-size:.95rem}
footer.site-footer{border-top:1px solid #ddd;padding-top:1rem;padding-bottom:2rem;color:#666;font-size:.9rem}
.search-form input[type=search]{padding:.3rem;min-width:12rem}`;

/** The whole HTML document. */
export function layout(chrome: SiteChrome, meta: PageMeta, main: string): string {
  const robots = chrome.closed ? 'noindex, nofollow' : meta.robots;
  const feeds = meta.feeds
    .map(
      (f) => `<link rel="alternate" type="application/rss+xml" title="${escAttr(f.title)}" href="${escUrl(f.url)}" />`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="${escAttr(chrome.language)}">
<head>
<meta charset="UTF-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${escHtml(meta.title)}</title>
${robots ? `<meta name="robots" content="${escAttr(robots)}" />\n` : ''}${meta.canonical ? `<link rel="canonical" href="${escUrl(meta.canonical)}" />\n` : ''}${feeds}
${meta.headExtra ?? ''}<style>${STYLE}</style>
</head>
<body class="${escAttr(meta.bodyClass)}">
<header class="site-header">
<p class="site-title"><a href="${escUrl(chrome.homeUrl)}" rel="home">${escHtml(chrome.name)}</a></p>
${chrome.description ? `<p class="site-description">${escHtml(chrome.description)}</p>\n` : ''}${navMenu(chrome.nav)}
</header>
<main id="main">
${main}
${sidebar(chrome)}
</main>
<footer class="site-footer"><p>${escHtml(chrome.name)} &middot; <a href="${escUrl(chrome.feedUrl)}">RSS</a></p></footer>
</body>
</html>
`;
}

function navMenu(links: readonly NavLink[]): string {
  if (links.length === 0) return '';
  return `<nav class="primary" aria-label="Primary">${navList(links)}</nav>`;
}

function navList(links: readonly NavLink[]): string {
  const items = links.map((link) => {
    const classes = ['menu-item', ...(link.classes ?? []), ...(link.current ? ['current-menu-item'] : [])];
    const attrs = [
      `href="${escUrl(link.url)}"`,
      link.target ? `target="${escAttr(link.target)}"` : '',
      link.attrTitle ? `title="${escAttr(link.attrTitle)}"` : '',
      link.rel && link.rel.length > 0 ? `rel="${escAttr(link.rel.join(' '))}"` : '',
      link.current ? 'aria-current="page"' : '',
    ]
      .filter((a) => a !== '')
      .join(' ');
    const children = link.children.length > 0 ? navList(link.children) : '';
    return `<li class="${escAttr(classes.join(' '))}"><a ${attrs}>${link.titleHtml}</a>${children}</li>`;
  });
  return `<ul>${items.join('')}</ul>`;
}

function sidebar(chrome: SiteChrome): string {
  const recent = chrome.recent.map((p) => `<li><a href="${escUrl(p.url)}">${p.titleHtml}</a></li>`).join('');
  const categories = chrome.categories
    .map((c) => `<li><a href="${escUrl(c.url)}">${escHtml(c.name)}</a> (${c.count})</li>`)
    .join('');
  return `<aside class="widgets">
${searchForm(chrome.homeUrl, '')}
${recent ? `<section><h2>Recent Posts</h2><ul>${recent}</ul></section>` : ''}
${categories ? `<section><h2>Categories</h2><ul>${categories}</ul></section>` : ''}
</aside>`;
}

/** The search form (`get_search_form`). */
export function searchForm(homeUrl: string, query: string): string {
  return `<form role="search" method="get" class="search-form" action="${escUrl(homeUrl)}"><label><span class="screen-reader-text">Search for:</span> <input type="search" class="search-field" name="s" value="${escAttr(query)}" /></label> <input type="submit" class="search-submit" value="Search" /></form>`;
}

function entryMeta(post: PostView): string {
  if (post.type !== 'post') return '';
  const author = post.author
    ? ` by <span class="author"><a href="${escUrl(post.author.url)}" rel="author">${escHtml(post.author.name)}</a></span>`
    : '';
  return `<div class="entry-meta">Posted on <time datetime="${escAttr(post.dateIso)}">${escHtml(post.dateText)}</time>${author}</div>`;
}

function entryFooter(post: PostView): string {
  const parts: string[] = [];
  if (post.categories.length > 0) {
    parts.push(
      `Posted in ${post.categories.map((c) => `<a href="${escUrl(c.url)}" rel="category tag">${escHtml(c.name)}</a>`).join(', ')}`,
    );
  }
  if (post.tags.length > 0) {
    parts.push(
      `Tagged ${post.tags.map((t) => `<a href="${escUrl(t.url)}" rel="tag">${escHtml(t.name)}</a>`).join(', ')}`,
    );
  }
  return parts.length > 0 ? `<footer class="entry-footer">${parts.join(' &middot; ')}</footer>` : '';
}

function featuredImage(post: PostView): string {
  if (!post.featured) return '';
  const f = post.featured;
  return `<figure class="post-thumbnail"><img src="${escUrl(f.src)}" width="${f.width}" height="${f.height}" alt="${escAttr(f.alt)}" loading="lazy" /></figure>`;
}

/** The form shown instead of a password-protected post's content (`get_the_password_form`). */
export function passwordForm(post: PostView, action: string): string {
  const field = `pwbox-${post.id}`;
  return `<form action="${escUrl(action)}" class="post-password-form" method="post"><p>This content is password protected. To view it please enter your password below:</p><p><label for="${field}">Password: <input name="post_password" id="${field}" type="password" size="20" /></label> <input type="hidden" name="redirect_to" value="${escAttr(post.permalink)}" /><input type="submit" name="Submit" value="Enter" /></p></form>`;
}

/** One post or page shown on its own (single.php / page.php). */
export function singleView(post: PostView, passwordAction: string): string {
  const body = post.locked ? passwordForm(post, passwordAction) : (post.contentHtml ?? '');
  return `<article id="post-${post.id}" class="${escAttr(`${post.type} type-${post.type} post-${post.id}`)}">
<header><h1 class="entry-title">${post.titleHtml}</h1>${entryMeta(post)}</header>
${featuredImage(post)}<div class="entry-content">
${body}
</div>
${entryFooter(post)}
</article>`;
}

/** A post in a list (index.php / archive.php / search.php). */
export function summaryView(post: PostView): string {
  return `<article id="post-${post.id}" class="${escAttr(`${post.type} type-${post.type} post-${post.id}`)}">
<header><h2 class="entry-title"><a href="${escUrl(post.permalink)}" rel="bookmark">${post.titleHtml}</a></h2>${entryMeta(post)}</header>
<div class="entry-summary">
${post.locked ? '<p>There is no excerpt because this is a protected post.</p>' : (post.excerptHtml ?? '')}
</div>
${entryFooter(post)}
</article>`;
}

/** Links to the newer and older pages of a list. */
export interface Pagination {
  newerUrl?: string;
  olderUrl?: string;
}

/** A list of posts with an optional heading and pagination links. */
export function listView(
  heading: string | undefined,
  posts: readonly PostView[],
  pagination: Pagination,
  emptyMessage: string,
): string {
  const head = heading ? `<header class="page-header"><h1 class="page-title">${heading}</h1></header>\n` : '';
  const items =
    posts.length > 0 ? posts.map(summaryView).join('\n') : `<p class="no-results">${escHtml(emptyMessage)}</p>`;
  const nav =
    pagination.newerUrl || pagination.olderUrl
      ? `<nav class="pagination" aria-label="Posts">${pagination.olderUrl ? `<a class="next" href="${escUrl(pagination.olderUrl)}">&larr; Older posts</a>` : '<span></span>'}${pagination.newerUrl ? `<a class="prev" href="${escUrl(pagination.newerUrl)}">Newer posts &rarr;</a>` : ''}</nav>`
      : '';
  return `${head}${items}\n${nav}`;
}

/** The 404 page's content. */
export function notFoundView(homeUrl: string): string {
  return `<section class="error-404 not-found"><header class="page-header"><h1 class="page-title">Oops! That page can&rsquo;t be found.</h1></header>
<p>It looks like nothing was found at this location. Maybe try a search?</p>
${searchForm(homeUrl, '')}</section>`;
}

/** The embed view of a post (what the oEmbed iframe shows). */
export function embedView(chrome: SiteChrome, post: PostView): string {
  const excerpt = post.locked
    ? '<p>There is no excerpt because this is a protected post.</p>'
    : (post.excerptHtml ?? '');
  return `<!DOCTYPE html>
<html lang="${escAttr(chrome.language)}">
<head><meta charset="UTF-8" /><meta name="robots" content="${chrome.closed ? 'noindex, nofollow' : 'noindex, follow'}" /><title>${escHtml(stripTags(post.titleHtml))} &#8211; ${escHtml(chrome.name)}</title>
<base target="_top" />
<style>body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1e1e1e}.cms-embed{padding:20px;border:1px solid #ddd;border-radius:4px;overflow:hidden}.cms-embed-heading{font-size:1.2rem;margin:0 0 .5rem}.cms-embed-heading a{color:inherit}.cms-embed-footer{color:#666;font-size:.85rem;margin-top:1rem}</style>
</head>
<body class="cms-embed-responsive">
<div class="cms-embed post-${post.id}">
${post.featured ? `<img src="${escUrl(post.featured.src)}" width="${post.featured.width}" height="${post.featured.height}" alt="" style="max-width:100%;height:auto" />` : ''}
<p class="cms-embed-heading"><a href="${escUrl(post.permalink)}">${post.titleHtml}</a></p>
<div class="cms-embed-excerpt">${excerpt}</div>
<div class="cms-embed-footer"><a href="${escUrl(chrome.homeUrl)}">${escHtml(chrome.name)}</a></div>
</div>
<script>${EMBED_FRAME_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * Frame half of the embed handshake: reports the document height to the host with the secret found in
 * the URL fragment, so the host page can size the iframe.
 */
const EMBED_FRAME_SCRIPT =
  '!function(w,d){var m=/secret=([a-zA-Z0-9]+)/.exec(w.location.hash);if(!m||w.parent===w)return;' +
  'function send(){w.parent.postMessage({message:"height",value:Math.ceil(d.body.getBoundingClientRect().height),secret:m[1]},"*")}' +
  'w.addEventListener("load",send);w.addEventListener("resize",send)}(window,document);';
