/**
 * Post URLs as WordPress builds them (get_permalink, get_page_link, get_sample_permalink) for the
 * `permalink_structure` option: published (and readable private) posts get the pretty permalink, others
 * the plain `?p=` / `?page_id=` link; pages nest under their ancestors' slugs.
 */
import type { Post } from './post.ts';

/** What links depend on. */
export interface LinkSettings {
  /** The `home` option, without a trailing slash. */
  home: string;
  permalinkStructure: string;
  showOnFront: string;
  pageOnFront: number;
}

/** Slugs of a page's ancestors, nearest last (get_page_uri's parents). */
export type AncestorSlugs = readonly string[];

const VIEWABLE = new Set(['publish']);

function untrailingslash(s: string): string {
  return s.replace(/\/+$/, '');
}

/** user_trailingslashit() for a permalink structure that ends with a slash (or not). */
function trailing(path: string, structure: string): string {
  const clean = untrailingslash(path);
  return structure.endsWith('/') ? `${clean}/` : clean;
}

/** Whether a post's link is the plain form (wp_force_plain_post_permalink). */
export function forcePlainLink(post: Pick<Post, 'status'>, canReadPrivate: boolean, sample = false): boolean {
  if (VIEWABLE.has(post.status)) return false;
  if (post.status === 'private' && canReadPrivate) return false;
  if (sample && ['future', 'draft', 'pending', 'cf-disabled'].includes(post.status)) return false;
  return true;
}

function fillStructure(structure: string, post: Post, slug: string, leaveName: boolean): string {
  // The default structure needs no date parts.
  if (structure === '/%postname%/') return leaveName ? structure : `/${slug}/`;
  const [date, time] = post.dateLocal.split(' ') as [string, string];
  const [year, month, day] = date.split('-') as [string, string, string];
  const [hour, minute, second] = (time ?? '00:00:00').split(':') as [string, string, string];
  return structure
    .replaceAll('%year%', year)
    .replaceAll('%monthnum%', month)
    .replaceAll('%day%', day)
    .replaceAll('%hour%', hour)
    .replaceAll('%minute%', minute)
    .replaceAll('%second%', second)
    .replaceAll('%post_id%', String(post.id))
    .replaceAll('%postname%', leaveName ? '%postname%' : slug)
    .replaceAll('%category%', 'uncategorized')
    .replaceAll('%author%', '');
}

/** get_permalink() of a post, page or revision. */
export function permalink(
  post: Post,
  settings: LinkSettings,
  options: { ancestors?: AncestorSlugs; canReadPrivate?: boolean; leaveName?: boolean; sample?: boolean } = {},
): string {
  const home = untrailingslash(settings.home);
  const plain = forcePlainLink(post, options.canReadPrivate ?? true, options.sample ?? false);
  if (post.type === 'page') {
    if (settings.showOnFront === 'page' && settings.pageOnFront === post.id) return `${home}/`;
    if (settings.permalinkStructure === '' || plain) return `${home}/?page_id=${post.id}`;
    const uri = options.leaveName ? '%pagename%' : pageUri(post.slug, options.ancestors ?? []);
    return trailing(`${home}/${uri}`, settings.permalinkStructure);
  }
  if (post.type === 'attachment') return `${home}/?attachment_id=${post.id}`;
  if (settings.permalinkStructure === '' || plain) return `${home}/?p=${post.id}`;
  const path = fillStructure(settings.permalinkStructure, post, post.slug, options.leaveName ?? false);
  return `${home}${path.startsWith('/') ? '' : '/'}${path}`;
}

/** get_page_uri(): the ancestors' slugs and the page's own, joined by `/`. */
export function pageUri(slug: string, ancestors: AncestorSlugs): string {
  return [...ancestors.filter((s) => s !== ''), slug].join('/');
}

/**
 * get_sample_permalink()[0]: the permalink with `%postname%` / `%pagename%` left in place, pages under
 * their parents' path. Drafts, pending and scheduled posts are shown as if published; a post whose
 * status has no pretty link even then (trash) keeps its plain link.
 */
export function permalinkTemplate(
  post: Post,
  settings: LinkSettings,
  ancestors: AncestorSlugs = [],
  canReadPrivate = true,
): string {
  const home = untrailingslash(settings.home);
  const status = ['draft', 'pending', 'future'].includes(post.status) ? 'publish' : post.status;
  const plain = post.type === 'page' ? `${home}/?page_id=${post.id}` : `${home}/?p=${post.id}`;
  if (settings.permalinkStructure === '' || forcePlainLink({ status }, canReadPrivate, true)) return plain;
  if (post.type === 'page') {
    if (settings.showOnFront === 'page' && settings.pageOnFront === post.id) return `${home}/`;
    const parents = ancestors.filter((s) => s !== '').join('/');
    return trailing(`${home}/${parents ? `${parents}/` : ''}%pagename%`, settings.permalinkStructure);
  }
  const path = fillStructure(settings.permalinkStructure, post, post.slug, true);
  return `${home}${path.startsWith('/') ? '' : '/'}${path}`;
}
