/**
 * /cms/v2/menu-items — after WP_REST_Menu_Items_Controller: menu items are `nav_menu_item` posts with
 * their link in meta (`_menu_item_type`, `_menu_item_object`, `_menu_item_object_id`, `_menu_item_url`,
 * `_menu_item_menu_item_parent`, `_menu_item_target`, `_menu_item_classes`, `_menu_item_xfn`) and their
 * menu as a `nav_menu` term. Items that point at a post, page or term take its title and URL unless
 * they have their own (wp_setup_nav_menu_item). Lists are ordered by `menu_order` ascending, 100 a page.
 */
import { permalink } from '../content/permalinks.ts';
import type { Post } from '../content/post.ts';
import type { BlockRenderState } from '../content/render/index.ts';
import { trimWords } from '../content/render/index.ts';
import { type ContentRuntime, userCaps } from '../content/runtime.ts';
import type { ContentSettings } from '../content/site-settings.ts';
import { getPostStatus, POST_STATUSES } from '../core/post-statuses.ts';
import { getPostType } from '../core/post-types.ts';
import { getTaxonomy } from '../core/taxonomies.ts';
import type { Term } from '../db/terms-repository.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { sanitizeKey, sanitizeTextField } from '../rest/formatting.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import { isPlainObject, parseList, toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import type { JsonSchema, RestArg } from '../rest/schema.ts';
import { Permalinks, permalinkSettingsFromOptions } from '../site/permalinks.ts';
import { listForRest } from '../site/rest-post-list.ts';
import { canReadMenus } from './menus.controller.ts';
import { type PostExtras, PostsController, toRestError } from './posts.controller.ts';

/** The meta keys of a menu item. */
export const MENU_ITEM_META = {
  type: '_menu_item_type',
  parent: '_menu_item_menu_item_parent',
  objectId: '_menu_item_object_id',
  object: '_menu_item_object',
  target: '_menu_item_target',
  classes: '_menu_item_classes',
  xfn: '_menu_item_xfn',
  url: '_menu_item_url',
} as const;

const META_KEYS = Object.values(MENU_ITEM_META);

/** `sanitize_html_class()`: only A-Z, a-z, 0-9, `_` and `-` survive (percent-encoded octets removed first). */
export function sanitizeHtmlClass(value: string): string {
  return value.replace(/%[a-fA-F0-9][a-fA-F0-9]/g, '').replace(/[^A-Za-z0-9_-]/g, '');
}

/** A menu item as wp_setup_nav_menu_item() describes it. */
export interface MenuItemView {
  post: Post;
  /** Derived title: the item's own, or its object's. */
  title: string;
  type: string;
  typeLabel: string;
  object: string;
  objectId: number;
  parent: number;
  url: string;
  target: string;
  attrTitle: string;
  description: string;
  classes: string[];
  xfn: string;
  invalid: boolean;
  menuId: number;
}

/** The stored link of a menu item, before derivation. */
interface StoredMenuItem {
  type: string;
  object: string;
  objectId: number;
  parent: number;
  target: string;
  classes: string[];
  xfn: string;
  url: string;
}

function storedOf(meta: Map<string, unknown> | undefined): StoredMenuItem {
  const get = (key: string) => meta?.get(key);
  const classes = get(MENU_ITEM_META.classes);
  return {
    type: String(get(MENU_ITEM_META.type) ?? 'custom') || 'custom',
    object: String(get(MENU_ITEM_META.object) ?? ''),
    objectId: toInt(get(MENU_ITEM_META.objectId)),
    parent: toInt(get(MENU_ITEM_META.parent)),
    target: String(get(MENU_ITEM_META.target) ?? ''),
    classes: Array.isArray(classes) ? classes.map(String) : typeof classes === 'string' ? [classes] : [''],
    xfn: String(get(MENU_ITEM_META.xfn) ?? ''),
    url: String(get(MENU_ITEM_META.url) ?? ''),
  };
}

const viewsByExtras = new WeakMap<PostExtras, Map<number, MenuItemView>>();

function forbidden(request: RestRequest, code: string, message: string): RestError {
  return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
}

export class MenuItemsController extends PostsController {
  readonly #rt: ContentRuntime;

  constructor(runtime: ContentRuntime) {
    super(runtime, 'nav_menu_item');
    this.#rt = runtime;
  }

  // ---- schema and parameters ----

  protected override buildItemSchema(): JsonSchema {
    const statuses = POST_STATUSES.filter((s) => !s.internal).map((s) => s.slug);
    const listOfClasses = (value: unknown) => parseList(value).map((v) => sanitizeHtmlClass(String(v)));
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'nav_menu_item',
      type: 'object',
      properties: {
        title: {
          description: 'The title for the object.',
          type: ['string', 'object'],
          context: ['view', 'edit', 'embed'],
          properties: {
            raw: {
              description: 'Title for the object, as it exists in the database.',
              type: 'string',
              context: ['edit'],
            },
            rendered: {
              description: 'HTML title for the object, transformed for display.',
              type: 'string',
              context: ['view', 'edit', 'embed'],
              readonly: true,
            },
          },
        },
        id: {
          description: 'Unique identifier for the object.',
          type: 'integer',
          default: 0,
          minimum: 0,
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
        type_label: {
          description: 'The singular label used to describe this type of menu item.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
        type: {
          description: 'The family of objects originally represented, such as "post_type" or "taxonomy".',
          type: 'string',
          enum: ['taxonomy', 'post_type', 'post_type_archive', 'custom'],
          context: ['view', 'edit', 'embed'],
          default: 'custom',
        },
        status: {
          description: 'A named status for the object.',
          type: 'string',
          enum: statuses,
          default: 'publish',
          context: ['view', 'edit', 'embed'],
        },
        parent: {
          description: 'The ID for the parent of the object.',
          type: 'integer',
          minimum: 0,
          default: 0,
          context: ['view', 'edit', 'embed'],
        },
        attr_title: {
          description: 'Text for the title attribute of the link element for this menu item.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          arg_options: { sanitizeCallback: (v) => sanitizeTextField(v) },
        },
        classes: {
          description: 'Class names for the link element of this menu item.',
          type: 'array',
          items: { type: 'string' },
          context: ['view', 'edit', 'embed'],
          arg_options: { sanitizeCallback: listOfClasses },
        },
        description: {
          description: 'The description of this menu item.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          arg_options: { sanitizeCallback: (v) => sanitizeTextField(v) },
        },
        menu_order: {
          description: "The DB ID of the nav_menu_item that is this item's menu parent, if any, otherwise 0.",
          context: ['view', 'edit', 'embed'],
          type: 'integer',
          minimum: 1,
          default: 1,
        },
        object: {
          description: 'The type of object originally represented, such as "category", "post", or "attachment".',
          context: ['view', 'edit', 'embed'],
          type: 'string',
          arg_options: { sanitizeCallback: (v) => sanitizeKey(v) },
        },
        object_id: {
          description:
            'The database ID of the original object this menu item represents, for example the ID for posts or the term_id for categories.',
          context: ['view', 'edit', 'embed'],
          type: 'integer',
          minimum: 0,
          default: 0,
        },
        target: {
          description: 'The target attribute of the link element for this menu item.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          enum: ['_blank', ''],
        },
        url: {
          description: 'The URL to which this menu item points.',
          type: 'string',
          format: 'uri',
          context: ['view', 'edit', 'embed'],
          arg_options: {
            validateCallback: (value) => {
              if (value === '' || value === undefined || value === null) return true;
              const text = String(value).trim();
              // sanitize_url() keeps relative URLs and allowed schemes; anything it would empty is invalid.
              if (/^(?:javascript|data|vbscript):/i.test(text) || text === '') {
                return new RestError('rest_invalid_url', 'Invalid URL.');
              }
              return true;
            },
          },
        },
        xfn: {
          description: 'The XFN relationship expressed in the link of this menu item.',
          type: 'array',
          items: { type: 'string' },
          context: ['view', 'edit', 'embed'],
          arg_options: { sanitizeCallback: listOfClasses },
        },
        invalid: {
          description: 'Whether the menu item represents an object that no longer exists.',
          context: ['view', 'edit', 'embed'],
          type: 'boolean',
          readonly: true,
        },
        menus: {
          description: 'The terms assigned to the object in the nav_menu taxonomy.',
          type: 'integer',
          context: ['view', 'edit'],
        },
        meta: {
          description: 'Meta fields.',
          type: 'object',
          context: ['view', 'edit'],
          properties: {
            _cf_changed: { type: 'boolean', description: '', default: false },
            inline_featured_image: { type: 'boolean', description: '', default: false },
          },
          arg_options: {
            sanitizeCallback: false,
            validateCallback: (value) => value !== null && typeof value === 'object',
          },
        },
      },
    };
  }

  override collectionParams(): Record<string, RestArg> {
    const params = super.collectionParams();
    delete params.author;
    delete params.author_exclude;
    params.per_page = { ...(params.per_page as RestArg), default: 100 };
    params.menu_order = { description: 'Limit result set to posts with a specific menu_order value.', type: 'integer' };
    params.order = {
      description: 'Order sort attribute ascending or descending.',
      type: 'string',
      default: 'asc',
      enum: ['asc', 'desc'],
    };
    params.orderby = {
      description: 'Sort collection by object attribute.',
      type: 'string',
      default: 'menu_order',
      enum: [
        'author',
        'date',
        'id',
        'include',
        'modified',
        'parent',
        'relevance',
        'slug',
        'include_slugs',
        'title',
        'menu_order',
      ],
    };
    return params;
  }

  // ---- permissions ----

  async #readOnlyAccess(request: RestRequest): Promise<true | RestError> {
    if (await canReadMenus(request)) return true;
    return forbidden(request, 'rest_cannot_view', 'Sorry, you are not allowed to view menu items.');
  }

  override async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const base = await super.getItemsPermissionsCheck(request);
    return base === true ? this.#readOnlyAccess(request) : base;
  }

  override async getItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const base = await super.getItemPermissionsCheck(request);
    return base === true ? this.#readOnlyAccess(request) : base;
  }

  // ---- reading ----

  /** wp_setup_nav_menu_item() for several items at once. */
  async menuItemViews(posts: readonly Post[], settings?: ContentSettings): Promise<Map<number, MenuItemView>> {
    const out = new Map<number, MenuItemView>();
    if (posts.length === 0) return out;
    const s = settings ?? (await this.#rt.service.settings());
    const repo = this.#rt.service.repo;
    const ids = posts.map((p) => p.id);
    const meta = await repo.meta(ids, META_KEYS);
    const menus = new Map<number, number>();
    for (const t of await repo.terms(ids))
      if (t.taxonomy === 'nav_menu' && !menus.has(t.postId)) menus.set(t.postId, t.termId);
    const stored = new Map(posts.map((p) => [p.id, storedOf(meta.get(p.id))]));
    const postIds = [...stored.values()].filter((m) => m.type === 'post_type' && m.objectId > 0).map((m) => m.objectId);
    const termIds = [...stored.values()].filter((m) => m.type === 'taxonomy' && m.objectId > 0).map((m) => m.objectId);
    const objects = new Map((await repo.findByIds([...new Set(postIds)])).map((p) => [p.id, p]));
    const terms = new Map<number, Term>(
      (termIds.length > 0 ? await this.#rt.ctx.terms.findByIds([...new Set(termIds)]) : []).map((t) => [t.id, t]),
    );
    const renderer = await this.#rt.renderer();
    const links = new Permalinks(
      permalinkSettingsFromOptions({ home: s.home, permalink_structure: s.permalinkStructure }),
    );
    for (const post of posts) {
      const m = stored.get(post.id) as StoredMenuItem;
      let title = post.title;
      let typeLabel = 'Custom Link';
      let url = m.url;
      let invalid = false;
      if (m.type === 'post_type') {
        const typeDef = getPostType(m.object);
        typeLabel = typeDef?.labels.singular_name ?? m.object;
        if (!typeDef) invalid = true;
        const original = objects.get(m.objectId);
        let originalTitle = '';
        if (original) {
          if (original.status === 'trash') invalid = true;
          const ancestors = original.type === 'page' ? await this.#rt.service.ancestorSlugs(original.parentId) : [];
          url = permalink(original, s, { ancestors });
          originalTitle = renderer.title(original);
        } else {
          url = '';
          invalid = true;
        }
        if (originalTitle === '') originalTitle = `#${m.objectId} (no title)`;
        title = post.title === '' ? originalTitle : post.title;
      } else if (m.type === 'post_type_archive') {
        const typeDef = getPostType(m.object);
        typeLabel = 'Post Type Archive';
        if (typeDef) {
          if (post.title === '') title = typeDef.slug === 'post' ? 'Posts' : (typeDef.labels.name ?? typeDef.name);
        } else invalid = true;
        url =
          m.object === 'post'
            ? s.showOnFront === 'page' && s.pageForPosts > 0
              ? await this.#postsPageUrl(s)
              : `${s.home}/`
            : '';
      } else if (m.type === 'taxonomy') {
        const tax = getTaxonomy(m.object);
        typeLabel = tax?.labels.singular_name ?? m.object;
        if (!tax) invalid = true;
        const term = terms.get(m.objectId);
        let originalTitle = '';
        if (term && term.taxonomy === m.object) {
          url = links.termLink(term, await this.#termAncestors(term));
          originalTitle = term.name;
        } else {
          url = '';
          invalid = true;
        }
        if (originalTitle === '') originalTitle = `#${m.objectId} (no title)`;
        title = post.title === '' ? originalTitle : post.title;
      }
      out.set(post.id, {
        post,
        title,
        type: m.type,
        typeLabel,
        object: m.type === 'custom' ? 'custom' : m.object,
        objectId: m.type === 'custom' ? post.id : m.objectId,
        parent: m.parent,
        url,
        target: m.target,
        attrTitle: post.excerpt,
        description: trimWords(post.content, 200),
        classes: m.classes,
        xfn: m.xfn,
        invalid,
        menuId: menus.get(post.id) ?? 0,
      });
    }
    return out;
  }

  async #postsPageUrl(s: ContentSettings): Promise<string> {
    const page = await this.#rt.service.repo.findById(s.pageForPosts);
    if (!page) return `${s.home}/`;
    return permalink(page, s, { ancestors: await this.#rt.service.ancestorSlugs(page.parentId) });
  }

  async #termAncestors(term: Term): Promise<string[]> {
    const slugs: string[] = [];
    const seen = new Set([term.id]);
    let parentId = term.parent;
    while (parentId > 0 && !seen.has(parentId)) {
      seen.add(parentId);
      const parent = await this.#rt.ctx.terms.findById(parentId);
      if (!parent) break;
      slugs.unshift(parent.slug);
      parentId = parent.parent;
    }
    return slugs;
  }

  override async loadExtras(
    posts: readonly Post[],
    request: RestRequest,
    settings?: ContentSettings,
  ): Promise<PostExtras> {
    const extras = await super.loadExtras(posts, request, settings);
    viewsByExtras.set(extras, await this.menuItemViews(posts, extras.settings));
    return extras;
  }

  override async getItems(request: RestRequest): Promise<RestResponse> {
    const result = await listForRest({
      runtime: this.#rt,
      type: 'nav_menu_item',
      request,
      taxonomies: [getTaxonomy('nav_menu')].filter((t) => t !== undefined),
      defaultStatuses: ['publish'],
      menuOrder: true,
    });
    const posts: Post[] = [];
    for (const post of result.posts) if (await this.canRead(post, request)) posts.push(post);
    const extras = await this.loadExtras(posts, request);
    const items: unknown[] = [];
    for (const post of posts)
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(post, request, extras)));
    const response = new RestResponse(items);
    setPaginationHeaders(
      response,
      request,
      {
        total: result.total,
        perPage: result.perPage,
        page: result.page,
        baseUrl: await this.#rt.ctx.server.url(`/${this.namespace}/${this.restBase}`),
      },
      this.#rt.ctx.server.headerPrefix,
    );
    return response;
  }

  override async prepareItemForResponse(
    post: Post,
    request: RestRequest,
    extrasIn?: PostExtras,
    _renderState?: BlockRenderState,
  ): Promise<RestResponse> {
    const extras = extrasIn ?? (await this.loadExtras([post], request));
    const view =
      viewsByExtras.get(extras)?.get(post.id) ?? (await this.menuItemViews([post], extras.settings)).get(post.id);
    if (!view) throw new RestError('rest_post_invalid_id', 'Invalid post ID.', { status: 404 });
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => this.isFieldIncluded(f, fields);
    const renderer = await this.#rt.renderer();
    const data: Record<string, unknown> = {};
    if (has('id')) data.id = post.id;
    if (has('title')) {
      const title: Record<string, unknown> = {};
      if (has('title.raw')) title.raw = view.title;
      if (has('title.rendered')) title.rendered = renderer.title({ ...post, title: view.title, status: 'publish' });
      data.title = title;
    }
    if (has('status')) data.status = post.status;
    if (has('url')) data.url = view.url;
    if (has('attr_title')) data.attr_title = view.attrTitle;
    if (has('description')) data.description = view.description;
    if (has('type')) data.type = view.type;
    if (has('type_label')) data.type_label = view.typeLabel;
    if (has('object')) data.object = view.object;
    if (has('object_id')) data.object_id = Math.abs(view.objectId);
    if (has('parent')) data.parent = view.parent;
    if (has('menu_order')) data.menu_order = post.menuOrder;
    if (has('target')) data.target = view.target;
    if (has('classes')) data.classes = view.classes;
    if (has('xfn')) data.xfn = view.xfn.split(' ').map(sanitizeHtmlClass);
    if (has('invalid')) data.invalid = view.invalid;
    if (has('meta')) {
      const stored = extras.meta.get(post.id);
      data.meta = {
        _cf_changed: Boolean(stored?.get('_cf_changed') ?? false),
        inline_featured_image: Boolean(stored?.get('inline_featured_image') ?? false),
      };
    }
    if (has('menus')) data.menus = view.menuId;
    const response = new RestResponse(this.filterResponseByContext(data, request.context));
    if (has('_links') || has('_embedded')) await this.#addLinks(response, view, request);
    return response;
  }

  async #addLinks(response: RestResponse, view: MenuItemView, request: RestRequest): Promise<void> {
    const url = (path: string) => this.#rt.ctx.server.url(path);
    const base = `/${this.namespace}/${this.restBase}`;
    const self = await url(`${base}/${view.post.id}`);
    response.addLink('self', self);
    response.addLink('collection', await url(base));
    response.addLink('about', await url(`/${this.namespace}/types/nav_menu_item`));
    response.addLink('https://api.w.org/term', await url(`/${this.namespace}/menus?post=${view.post.id}`), {
      taxonomy: 'nav_menu',
      embeddable: true,
    });
    if (view.objectId > 0 && (view.type === 'post_type' || view.type === 'taxonomy')) {
      let path = '';
      let objectType = '';
      if (view.type === 'post_type') {
        const object = await this.#rt.service.repo.findById(view.objectId);
        const type = object ? getPostType(object.type) : undefined;
        if (object && type) {
          path = `/${type.restNamespace}/${type.restBase}/${object.id}`;
          objectType = object.type;
        }
      } else {
        const term = await this.#rt.ctx.terms.findById(view.objectId);
        const tax = term ? getTaxonomy(term.taxonomy) : undefined;
        if (term && tax) {
          path = `/${tax.restNamespace}/${tax.restBase}/${term.id}`;
          objectType = term.taxonomy;
        }
      }
      if (path && objectType) {
        response.addLink('https://api.w.org/menu-item-object', await url(path), {
          [view.type]: objectType,
          embeddable: true,
        });
      }
    }
    if (request.context === 'edit') {
      const caps = userCaps(this.#rt, request);
      if (caps.has(this.type.cap.publish_posts)) response.addLink('https://api.w.org/action-publish', self);
      if (caps.has('unfiltered_html')) response.addLink('https://api.w.org/action-unfiltered-html', self);
      if (caps.has('edit_theme_options')) {
        response.addLink('https://api.w.org/action-create-menus', self);
        response.addLink('https://api.w.org/action-assign-menus', self);
      }
    }
  }

  // ---- writing ----

  /**
   * The request as a menu item (prepare_item_for_database): the stored link and the post fields, merged
   * over the existing item, with WordPress's checks of the object and of custom links.
   */
  async #prepareMenuItem(
    request: RestRequest,
    existing: Post | null,
  ): Promise<{
    fields: { title: string; description: string; attrTitle: string; position: number; status: string };
    link: StoredMenuItem;
    menuId: number;
  }> {
    let link: StoredMenuItem;
    let fields: { title: string; description: string; attrTitle: string; position: number; status: string };
    let menuId = 0;
    if (existing) {
      const view = (await this.menuItemViews([existing])).get(existing.id) as MenuItemView;
      link = {
        type: view.type,
        object: view.object,
        objectId: view.objectId,
        parent: view.parent,
        target: view.target,
        classes: view.classes,
        xfn: view.xfn,
        url: view.url,
      };
      fields = {
        title: view.title,
        description: view.description,
        attrTitle: view.attrTitle,
        // Correct the position of a first item saved with 0 (WordPress ticket 28140).
        position: existing.menuOrder === 0 ? 1 : existing.menuOrder,
        status: existing.status,
      };
      menuId = view.menuId;
    } else {
      link = { type: 'custom', object: '', objectId: 0, parent: 0, target: '', classes: [], xfn: '', url: '' };
      fields = { title: '', description: '', attrTitle: '', position: 1, status: 'publish' };
    }
    const get = (name: string) => request.get(name);
    if (get('object_id') !== undefined && get('object_id') !== null) link.objectId = toInt(get('object_id'));
    if (typeof get('object') === 'string') link.object = get('object') as string;
    if (get('parent') !== undefined && get('parent') !== null) link.parent = toInt(get('parent'));
    if (get('menu_order') !== undefined && get('menu_order') !== null) fields.position = toInt(get('menu_order'));
    if (typeof get('type') === 'string') link.type = get('type') as string;
    if (typeof get('url') === 'string') link.url = get('url') as string;
    if (typeof get('description') === 'string') fields.description = get('description') as string;
    if (typeof get('attr_title') === 'string') fields.attrTitle = get('attr_title') as string;
    if (typeof get('target') === 'string') link.target = get('target') as string;
    const classes = get('classes');
    if (classes !== undefined && classes !== null) link.classes = parseList(classes).map(String);
    const xfn = get('xfn');
    if (xfn !== undefined && xfn !== null) link.xfn = parseList(xfn).map(String).join(' ');
    if (typeof get('status') === 'string') fields.status = get('status') as string;
    const menus = toInt(get('menus'));
    if (menus) menuId = Math.abs(menus);
    const title = get('title');
    if (typeof title === 'string') fields.title = title;
    else if (isPlainObject(title) && typeof title.raw === 'string' && title.raw !== '') fields.title = title.raw;

    const errors: RestError[] = [];
    if (!link.object) {
      if (link.type === 'taxonomy') {
        const term = link.objectId > 0 ? await this.#rt.ctx.terms.findById(link.objectId) : null;
        if (!term) errors.push(new RestError('rest_term_invalid_id', 'Invalid term ID.', { status: 400 }));
        else link.object = term.taxonomy;
      } else if (link.type === 'post_type') {
        const original = link.objectId > 0 ? await this.#rt.service.repo.findById(link.objectId) : null;
        if (!original) errors.push(new RestError('rest_post_invalid_id', 'Invalid post ID.', { status: 400 }));
        else link.object = original.type;
      }
    }
    if (link.type === 'post_type_archive' && !getPostType(link.object)) {
      errors.push(new RestError('rest_post_invalid_type', 'Invalid post type.', { status: 400 }));
    }
    if (link.type === 'custom') {
      if (fields.title === '') {
        errors.push(
          new RestError('rest_title_required', 'The title is required when using a custom menu item type.', {
            status: 400,
          }),
        );
      }
      if (link.url.trim() === '') {
        errors.push(
          new RestError('rest_url_required', 'The url is required when using a custom menu item type.', {
            status: 400,
          }),
        );
      }
    }
    if (errors.length > 0) {
      const [first, ...rest] = errors as [RestError, ...RestError[]];
      throw new RestError(first.code, first.message, first.data, rest);
    }
    // Only draft and publish are statuses of menu items.
    if (fields.status !== 'publish') fields.status = 'draft';
    return { fields, link, menuId };
  }

  /** For autosaves: the item's post fields (title, description as content, attribute title as excerpt). */
  override async prepareItemForDatabase(request: RestRequest, existing: Post | null, _settings: ContentSettings) {
    const { fields } = await this.#prepareMenuItem(request, existing);
    return { title: fields.title, content: fields.description, excerpt: fields.attrTitle };
  }

  /** wp_update_nav_menu_item(): saves the post, its menu and its link meta. */
  async #save(request: RestRequest, existing: Post | null): Promise<Post> {
    const { fields, link, menuId } = await this.#prepareMenuItem(request, existing);
    if (menuId) {
      const menu = await this.#rt.ctx.terms.findById(menuId);
      if (menu?.taxonomy !== 'nav_menu') throw new RestError('invalid_menu_id', 'Invalid menu ID.', { status: 400 });
    }
    let title = fields.title;
    let description = fields.description;
    let url = link.url.trim();
    if (link.type !== 'custom') {
      // Items that point at an object keep no URL of their own, and no title when it is the object's.
      url = '';
      let originalTitle = '';
      if (link.type === 'taxonomy') originalTitle = (await this.#rt.ctx.terms.findById(link.objectId))?.name ?? '';
      else if (link.type === 'post_type')
        originalTitle = (await this.#rt.service.repo.findById(link.objectId))?.title ?? '';
      else if (link.type === 'post_type_archive')
        originalTitle = link.object === 'post' ? 'Posts' : (getPostType(link.object)?.labels.name ?? '');
      if (title === originalTitle) title = '';
      if (title === '' && description === '') description = ' ';
    }
    const position = menuId === 0 ? 1 : fields.position;
    const caps = userCaps(this.#rt, request);
    const ctx = {
      actorId: request.user.id,
      canPublish: caps.has(this.type.cap.publish_posts),
      unfilteredHtml: caps.has('unfiltered_html'),
    };
    let post: Post;
    try {
      const write = {
        title,
        content: description,
        excerpt: fields.attrTitle,
        status: fields.status,
        menuOrder: position,
        pingStatus: 'closed',
        commentStatus: 'closed',
        ...(existing ? {} : { slug: '' }),
      };
      post = existing
        ? await this.#rt.service.update(existing.id, write, ctx)
        : await this.#rt.service.create('nav_menu_item', write, ctx);
    } catch (error) {
      throw toRestError(error);
    }
    const repo = this.#rt.service.repo;
    const objectId = link.type === 'custom' ? post.id : link.objectId;
    const object = link.type === 'custom' ? 'custom' : link.object;
    const meta = request.get('meta');
    // The item's menu and its link fields together, in one transaction (through the write batcher, not
    // statement by statement in SQLite's busy handler).
    await writeTransaction(this.#rt.ctx.db, async (trx) => {
      if (menuId) await repo.setTerms(post.id, 'nav_menu', [menuId], trx);
      await repo.setMeta(post.id, MENU_ITEM_META.type, sanitizeKey(link.type), trx);
      await repo.setMeta(post.id, MENU_ITEM_META.parent, String(link.parent), trx);
      await repo.setMeta(post.id, MENU_ITEM_META.objectId, String(objectId), trx);
      await repo.setMeta(post.id, MENU_ITEM_META.object, sanitizeKey(object), trx);
      await repo.setMeta(post.id, MENU_ITEM_META.target, sanitizeKey(link.target), trx);
      // Stored as WordPress stores them: joined and split again, so no class at all gives [''].
      const classes = link.classes.join(' ').split(' ').map(sanitizeHtmlClass);
      await repo.setMeta(post.id, MENU_ITEM_META.classes, classes, trx);
      await repo.setMeta(post.id, MENU_ITEM_META.xfn, link.xfn.split(' ').map(sanitizeHtmlClass).join(' '), trx);
      await repo.setMeta(post.id, MENU_ITEM_META.url, url, trx);
      if (menuId === 0) {
        const orphanedAt = String(Math.floor(this.#rt.ctx.now().getTime() / 1000));
        await repo.setMeta(post.id, '_menu_item_orphaned', orphanedAt, trx);
      } else await repo.deleteMeta(post.id, '_menu_item_orphaned', trx);
      if (isPlainObject(meta)) {
        for (const key of ['_cf_changed', 'inline_featured_image']) {
          if (!Object.hasOwn(meta, key)) continue;
          if (meta[key] === null) await repo.deleteMeta(post.id, key, trx);
          else await repo.setMeta(post.id, key, Boolean(meta[key]), trx);
        }
      }
    });
    return (await repo.findById(post.id)) as Post;
  }

  override async createItem(request: RestRequest): Promise<RestResponse> {
    if (toInt(request.get('id')) > 0)
      throw new RestError('rest_post_exists', 'Cannot create existing post.', { status: 400 });
    const post = await this.#save(request, null);
    request.set('context', 'edit');
    const response = await this.prepareItemForResponse(post, request);
    response.status = 201;
    response.header('Location', await this.#rt.ctx.server.url(`/${this.namespace}/${this.restBase}/${post.id}`));
    return response;
  }

  override async updateItem(request: RestRequest): Promise<RestResponse> {
    const existing = await this.getPost(request.get('id'));
    const post = await this.#save(request, existing);
    request.set('context', 'edit');
    return this.prepareItemForResponse(post, request);
  }

  override async deleteItem(request: RestRequest): Promise<RestResponse> {
    const post = await this.getPost(request.get('id'));
    if (!request.get('force')) {
      throw new RestError(
        'rest_trash_not_supported',
        "Menu items do not support trashing. Set 'force=true' to delete.",
        {
          status: 501,
        },
      );
    }
    const previous = await this.prepareItemForResponse(post, request);
    try {
      await this.#rt.service.delete(post.id);
    } catch (error) {
      throw toRestError(error);
    }
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  /** Whether a status is one a menu item can be listed with (for the public navigation). */
  static isVisibleStatus(status: string): boolean {
    return getPostStatus(status)?.public === true;
  }
}
