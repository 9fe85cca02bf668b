/**
 * Roles and capabilities as WordPress decides them: a user's capabilities are the union of their roles'
 * (plus per-user grants and denials), and a meta capability such as `edit_post` is first mapped to the
 * primitive capabilities it requires, as map_meta_cap() does (wp-includes/capabilities.php, 6.1).
 * Every permission check of the REST routes goes through `userCan`.
 */
import { getPostStatus } from '../core/post-statuses.ts';
import { getPostType, postTypeMetaCaps } from '../core/post-types.ts';
import { getTaxonomy } from '../core/taxonomies.ts';
import type { ContentProvider, PostCapInfo } from '../module.ts';
import type { CurrentUser, RestRequest } from '../rest/request.ts';
import { roleCapabilities } from './roles.ts';

export interface CapabilityDeps {
  /** The content module's provider (read on each check, so a module can install it late). */
  content: () => ContentProvider;
  /** A site option (page_on_front, page_for_posts, default_category, ...). */
  option: (name: string) => Promise<unknown>;
  /** The taxonomy of a term, or null when the term does not exist. */
  termTaxonomy: (termId: number) => Promise<string | null>;
}

const DO_NOT_ALLOW = 'do_not_allow';

/** allCaps() per user object (the answer depends on nothing else). */
const allCapsByUser = new WeakMap<CurrentUser, ReadonlySet<string>>();

/** WP_User::$allcaps of a user: its roles' capabilities and names, its own grants and denials, `exist`. */
function computeAllCaps(user: CurrentUser): ReadonlySet<string> {
  const caps = new Set<string>();

  if (user.id > 0) {
    for (const role of user.roles) {
      caps.add(role);
      for (const c of roleCapabilities(role)) caps.add(c);
    }
    for (const [cap, granted] of Object.entries(user.caps ?? {})) {
      if (granted) caps.add(cap);
      else caps.delete(cap);
    }
  }
  caps.add('exist');
  caps.delete(DO_NOT_ALLOW);
  return caps;
}

/** Primitive block capabilities WordPress maps to the post ones. */
const BLOCK_CAPS = new Set([
  'edit_blocks',
  'edit_others_blocks',
  'publish_blocks',
  'read_private_blocks',
  'delete_blocks',
  'delete_private_blocks',
  'delete_published_blocks',
  'delete_others_blocks',
  'edit_private_blocks',
  'edit_published_blocks',
]);

/**
 * The capabilities a user holds plus the primitive block capabilities they satisfy: map_meta_cap() turns
 * `publish_blocks`, `edit_others_blocks`, ... into the post ones, so a check of a block type's primitive
 * capability (`current_user_can( $post_type->cap->publish_posts )`) passes for whoever holds the post one.
 */
export function withBlockCapabilities(caps: ReadonlySet<string>): ReadonlySet<string> {
  const out = new Set(caps);
  for (const cap of BLOCK_CAPS) if (caps.has(cap.replace('_blocks', '_posts'))) out.add(cap);
  return out;
}

export class Capabilities {
  private readonly deps: CapabilityDeps;
  private readonly metaAliases = postTypeMetaCaps();

  constructor(deps: CapabilityDeps) {
    this.deps = deps;
  }

  /**
   * The capabilities a user holds (WP_User::$allcaps), role names included, plus `exist`. Kept per user
   * object (users are immutable; a changed user is read again as a new object, and roles are fixed), as
   * every permission check asks for them.
   */
  allCaps(user: CurrentUser): ReadonlySet<string> {
    let caps = allCapsByUser.get(user);
    if (!caps) {
      caps = computeAllCaps(user);
      allCapsByUser.set(user, caps);
    }
    return caps;
  }

  /** user_can(): whether `user` has `capability`, meta capabilities mapped with their arguments. */
  async userCan(user: CurrentUser, capability: string, ...args: unknown[]): Promise<boolean> {
    const required = await this.mapMetaCap(capability, user.id, ...args);
    const held = this.allCaps(user);
    return required.every((c) => c !== DO_NOT_ALLOW && held.has(c));
  }

  /** map_meta_cap(): the primitive capabilities `capability` requires of user `userId`. */
  async mapMetaCap(capability: string, userId: number, ...args: unknown[]): Promise<string[]> {
    switch (capability) {
      case 'remove_user':
        return args[0] !== undefined && Number(args[0]) === userId ? [DO_NOT_ALLOW] : ['remove_users'];
      case 'promote_user':
      case 'add_users':
        return ['promote_users'];
      case 'edit_user':
      case 'edit_users':
        if (capability === 'edit_user' && args[0] !== undefined && Number(args[0]) === userId) return [];
        return ['edit_users'];
      case 'create_app_password':
      case 'list_app_passwords':
      case 'read_app_password':
      case 'edit_app_password':
      case 'delete_app_passwords':
      case 'delete_app_password':
        return this.mapMetaCap('edit_user', userId, args[0]);
      case 'delete_user':
      case 'delete_users':
        return ['delete_users'];
      case 'create_users':
        return ['create_users'];
      case 'delete_post':
      case 'delete_page':
        return this.mapDeletePost(capability, userId, args[0]);
      case 'edit_post':
      case 'edit_page':
        return this.mapEditPost(userId, args[0]);
      case 'read_post':
      case 'read_page':
        return this.mapReadPost(userId, args[0]);
      case 'publish_post': {
        const post = await this.post(args[0]);
        if (!post) return [DO_NOT_ALLOW];
        const type = getPostType(post.type);
        return [type ? type.cap.publish_posts : 'edit_others_posts'];
      }
      case 'edit_post_meta':
      case 'delete_post_meta':
      case 'add_post_meta': {
        const post = await this.post(args[0]);
        if (!post) return [DO_NOT_ALLOW];
        const caps = await this.mapEditPost(userId, post.id);
        const key = args[1];
        // Keys starting with `_` are protected meta (is_protected_meta).
        if (typeof key === 'string' && key.startsWith('_')) caps.push(capability);
        return caps;
      }
      case 'edit_user_meta':
      case 'delete_user_meta':
      case 'add_user_meta':
        return this.mapMetaCap('edit_user', userId, args[0]);
      case 'edit_term':
      case 'delete_term':
      case 'assign_term': {
        if (args[0] === undefined) return [DO_NOT_ALLOW];
        const termId = Number(args[0]);
        const taxonomySlug = await this.deps.termTaxonomy(termId);
        const taxonomy = taxonomySlug ? getTaxonomy(taxonomySlug) : undefined;
        if (!taxonomy) return [DO_NOT_ALLOW];
        if (capability === 'delete_term') {
          const defaultTerm = await this.deps.option(`default_${taxonomy.slug}`);
          if (defaultTerm !== undefined && defaultTerm !== null && Number(defaultTerm) === termId)
            return [DO_NOT_ALLOW];
        }
        const taxCap = taxonomy.cap[`${capability}s` as 'edit_terms' | 'delete_terms' | 'assign_terms'];
        return this.mapMetaCap(taxCap, userId, termId);
      }
      case 'manage_post_tags':
      case 'edit_categories':
      case 'edit_post_tags':
      case 'delete_categories':
      case 'delete_post_tags':
        return ['manage_categories'];
      case 'assign_categories':
      case 'assign_post_tags':
        return ['edit_posts'];
      case 'manage_links':
        // The link manager is off on new sites.
        return [DO_NOT_ALLOW];
      case 'customize':
        return ['edit_theme_options'];
      case 'unfiltered_upload':
        return [DO_NOT_ALLOW];
      case 'setup_network':
        return ['manage_options'];
      case 'delete_site':
        return [DO_NOT_ALLOW];
      case 'activate_plugin':
      case 'deactivate_plugin':
      case 'deactivate_plugins':
        return ['activate_plugins'];
      default: {
        const alias = this.metaAliases.get(capability);
        if (alias) return this.mapMetaCap(alias, userId, ...args);
        // Block capabilities map to their post equivalent (map_meta_cap's $block_caps).
        if (BLOCK_CAPS.has(capability)) return [capability.replace('_blocks', '_posts')];
        return [capability];
      }
    }
  }

  private async post(id: unknown, request?: RestRequest): Promise<PostCapInfo | null> {
    if (id === undefined || id === null) return null;
    const n = Number(id);
    if (!Number.isInteger(n) || n <= 0) return null;
    return this.deps.content().getPostForCaps(n, request);
  }

  /**
   * A view of these capabilities whose post lookups are made once each and then shared: for the checks
   * of one read-only request (given, its other steps' lookups of the same posts are shared too), never
   * across requests (posts change).
   */
  withPostCache(request?: RestRequest): Capabilities {
    const cache = new Map<number, Promise<PostCapInfo | null>>();
    const view = Object.create(this) as Capabilities;
    view.post = (id: unknown) => {
      const n = Number(id);
      if (id === undefined || id === null || !Number.isInteger(n) || n <= 0) return this.post(id);
      let hit = cache.get(n);
      if (!hit) {
        hit = this.post(n, request);
        cache.set(n, hit);
      }
      return hit;
    };
    return view;
  }

  private async mapDeletePost(capability: string, userId: number, id: unknown): Promise<string[]> {
    const post = await this.post(id);
    if (!post) return [DO_NOT_ALLOW];
    if (post.type === 'revision') return [DO_NOT_ALLOW];
    const pageForPosts = Number((await this.deps.option('page_for_posts')) ?? 0);
    const pageOnFront = Number((await this.deps.option('page_on_front')) ?? 0);
    if (pageForPosts === post.id || pageOnFront === post.id) return ['manage_options'];
    const type = getPostType(post.type);
    if (!type) return ['edit_others_posts'];
    if (!type.mapMetaCap) return [type.cap[capability === 'delete_page' ? 'delete_post' : 'delete_post']];
    const caps: string[] = [];
    if (post.authorId && userId === post.authorId) {
      const status = post.status === 'trash' ? (post.trashedFromStatus ?? '') : post.status;
      if (['publish', 'future'].includes(status)) caps.push(type.cap.delete_published_posts);
      else caps.push(type.cap.delete_posts);
    } else {
      caps.push(type.cap.delete_others_posts);
      if (['publish', 'future'].includes(post.status)) caps.push(type.cap.delete_published_posts);
      else if (post.status === 'private') caps.push(type.cap.delete_private_posts);
    }
    if (await this.isPrivacyPolicyPage(post.id)) caps.push('manage_options');
    return caps;
  }

  /** The privacy policy page also needs manage_privacy_options (mapped to manage_options). */
  private async isPrivacyPolicyPage(postId: number): Promise<boolean> {
    const page = Number((await this.deps.option('page_for_privacy_policy')) ?? 0);
    return page > 0 && page === postId;
  }

  private async mapEditPost(userId: number, id: unknown): Promise<string[]> {
    let post = await this.post(id);
    if (!post) return [DO_NOT_ALLOW];
    if (post.type === 'revision') {
      post = await this.post(post.parentId);
      if (!post) return [DO_NOT_ALLOW];
    }
    const type = getPostType(post.type);
    if (!type) return ['edit_others_posts'];
    if (!type.mapMetaCap) return [type.cap.edit_post];
    const caps: string[] = [];
    if (post.authorId && userId === post.authorId) {
      const status = post.status === 'trash' ? (post.trashedFromStatus ?? '') : post.status;
      if (['publish', 'future'].includes(status)) caps.push(type.cap.edit_published_posts);
      else caps.push(type.cap.edit_posts);
    } else {
      caps.push(type.cap.edit_others_posts);
      if (['publish', 'future'].includes(post.status)) caps.push(type.cap.edit_published_posts);
      else if (post.status === 'private') caps.push(type.cap.edit_private_posts);
    }
    if (await this.isPrivacyPolicyPage(post.id)) caps.push('manage_options');
    return caps;
  }

  private async mapReadPost(userId: number, id: unknown): Promise<string[]> {
    let post = await this.post(id);
    if (!post) return [DO_NOT_ALLOW];
    if (post.type === 'revision') {
      post = await this.post(post.parentId);
      if (!post) return [DO_NOT_ALLOW];
    }
    const type = getPostType(post.type);
    if (!type) return ['edit_others_posts'];
    if (!type.mapMetaCap) return [type.cap.read_post];
    // Attachments and revisions take the status of their parent (get_post_status).
    let statusSlug = post.status;
    if (statusSlug === 'inherit' && post.parentId > 0) {
      const parent = await this.post(post.parentId);
      statusSlug = parent ? parent.status : 'publish';
    } else if (statusSlug === 'inherit') statusSlug = 'publish';
    const status = getPostStatus(statusSlug);
    if (!status) return ['edit_others_posts'];
    if (status.public) return [type.cap.read];
    if (post.authorId && userId === post.authorId) return [type.cap.read];
    if (status.private) return [type.cap.read_private_posts];
    return this.mapEditPost(userId, post.id);
  }
}
