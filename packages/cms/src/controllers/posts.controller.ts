/**
 * /cms/v2/posts and /cms/v2/pages — after WP_REST_Posts_Controller (WordPress 6.1, with the later
 * collection parameters the spec lists: search_columns, search_semantics, ignore_sticky, format,
 * excerpt_length). One class serves both types; the item schema, the collection parameters and the
 * links follow the type (pages add parent and menu_order, posts add sticky, format and terms).
 */

import { ContentError } from '../content/content-errors.ts';
import type { PostWrite, SavedFacts } from '../content/content-service.ts';
import {
  dateQueryBound,
  dateResponse,
  dateWithGmt,
  formatMysql,
  gmtFromLocal,
  wallClockMs,
  ZERO_DATE,
} from '../content/dates.ts';
import type { ItemJsonCache } from '../content/item-cache.ts';
import { permalink, permalinkTemplate } from '../content/permalinks.ts';
import type { Post, PostKey } from '../content/post.ts';
import type { PostAccess, PostListQuery, PostOrderBy, SearchColumn, TaxClause } from '../content/post-query.ts';
import { type BlockRenderState, blockVersion } from '../content/render/index.ts';
import type { CachedRenderer } from '../content/render-cache.ts';
import { type ContentRuntime, type RegisteredMeta, userCaps } from '../content/runtime.ts';
import type { ContentSettings } from '../content/site-settings.ts';
import { sanitizeTitle, sanitizeTitleForQuery, uniqueSlug } from '../content/slugs.ts';
import { getPostStatus, POST_STATUSES } from '../core/post-statuses.ts';
import { getPostType, type PostTypeDef } from '../core/post-types.ts';
import { getTaxonomy, type TaxonomyDef } from '../core/taxonomies.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { isFieldIncluded } from '../rest/fields.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import { absint, isPlainObject, parseList, stripslashes, toInt } from '../rest/php.ts';
import { RawJson } from '../rest/raw-json.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import type { JsonSchema, RestArg } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { sanitizeValueFromSchema, validateValueFromSchema } from '../rest/validation.ts';

const FORMATS = ['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'];

/** Statuses a post may be given (the non-internal ones). */
export const WRITABLE_STATUSES = POST_STATUSES.filter((s) => !s.internal).map((s) => s.slug);

/** What a response needs beyond the post row, fetched once for a page of posts. */
export interface PostExtras {
  settings: ContentSettings;
  sticky: Set<number>;
  terms: Map<number, Map<string, number[]>>;
  meta: Map<number, Map<string, unknown>>;
  revisions: Map<number, { count: number; latestId: number }>;
  ancestors: Map<number, string[]>;
  generatedSlugs: Map<number, string>;
  canReadPrivate: boolean;
  /** rest_is_field_included() for this request. */
  wants: (field: string) => boolean;
  renderer: CachedRenderer;
  /** The API root, with its trailing slash. */
  apiRoot: string;
  /** The action link relations of the edit context. */
  actions: string[];
  excerptLength: number | undefined;
}

/**
 * What the create of a request knows about the post it wrote (see SavedFacts): loadExtras uses it for
 * that post instead of reading its terms, meta and revisions back and checking its slug again.
 */
const createdFacts = new WeakMap<RestRequest, { id: number; facts: SavedFacts }>();

function forbidden(request: RestRequest, code: string, message: string): RestError {
  return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
}

/** A content-layer error as the REST error WordPress sends. */
export function toRestError(err: unknown): unknown {
  if (err instanceof ContentError) return new RestError(err.code, err.message, { status: err.status, ...err.data });
  return err;
}

export class PostsController extends RestController {
  readonly namespace: string;
  readonly restBase: string;
  readonly type: PostTypeDef;
  readonly #rt: ContentRuntime;
  readonly #taxonomies: TaxonomyDef[];
  /**
   * Whether reads may use the item cache: only this class's own items, whose inputs the cache key
   * covers (subclasses add fields from elsewhere).
   */
  readonly #cacheable: boolean;

  constructor(runtime: ContentRuntime, typeSlug: string) {
    super();
    this.#cacheable = new.target === PostsController;
    const type = getPostType(typeSlug);
    if (!type) throw new Error(`unknown post type ${typeSlug}`);
    this.type = type;
    this.#rt = runtime;
    this.namespace = type.restNamespace;
    this.restBase = type.restBase;
    this.#taxonomies = type.taxonomies.map((t) => getTaxonomy(t)).filter((t): t is TaxonomyDef => t !== undefined);
  }

  get #ctx() {
    return this.#rt.ctx;
  }

  get #isPost(): boolean {
    return this.type.slug === 'post';
  }

  get #isPage(): boolean {
    return this.type.hierarchical;
  }

  /** The REST meta keys of this type. */
  get #meta(): RegisteredMeta[] {
    return this.#rt.meta[this.type.slug] ?? [];
  }

  // ---- schema ----

  protected buildItemSchema(): JsonSchema {
    const p: Record<string, JsonSchema> = {
      date: {
        description: "The date the post was published, in the site's timezone.",
        type: ['string', 'null'],
        format: 'date-time',
        context: ['view', 'edit', 'embed'],
      },
      date_gmt: {
        description: 'The date the post was published, as GMT.',
        type: ['string', 'null'],
        format: 'date-time',
        context: ['view', 'edit'],
      },
      guid: {
        description: 'The globally unique identifier for the post.',
        type: 'object',
        context: ['view', 'edit'],
        readonly: true,
        properties: {
          raw: {
            description: 'GUID for the post, as it exists in the database.',
            type: 'string',
            context: ['edit'],
            readonly: true,
          },
          rendered: {
            description: 'GUID for the post, transformed for display.',
            type: 'string',
            context: ['view', 'edit'],
            readonly: true,
          },
        },
      },
      id: {
        description: 'Unique identifier for the post.',
        type: 'integer',
        context: ['view', 'edit', 'embed'],
        readonly: true,
      },
      link: {
        description: 'URL to the post.',
        type: 'string',
        format: 'uri',
        context: ['view', 'edit', 'embed'],
        readonly: true,
      },
      modified: {
        description: "The date the post was last modified, in the site's timezone.",
        type: 'string',
        format: 'date-time',
        context: ['view', 'edit'],
        readonly: true,
      },
      modified_gmt: {
        description: 'The date the post was last modified, as GMT.',
        type: 'string',
        format: 'date-time',
        context: ['view', 'edit'],
        readonly: true,
      },
      slug: {
        description: 'An alphanumeric identifier for the post unique to its type.',
        type: 'string',
        context: ['view', 'edit', 'embed'],
        arg_options: { sanitizeCallback: (value) => sanitizeTitle(String(value ?? '')) },
      },
      status: {
        description: 'A named status for the post.',
        type: 'string',
        enum: WRITABLE_STATUSES,
        context: ['view', 'edit'],
        arg_options: { validateCallback: (value, request, param) => this.#checkStatus(value, request, param) },
      },
      type: {
        description: 'Type of post.',
        type: 'string',
        context: ['view', 'edit', 'embed'],
        readonly: true,
      },
      password: {
        description: 'A password to protect access to the content and excerpt.',
        type: 'string',
        context: ['edit'],
      },
      permalink_template: {
        description: 'Permalink template for the post.',
        type: 'string',
        context: ['edit'],
        readonly: true,
      },
      generated_slug: {
        description: 'Slug automatically generated from the post title.',
        type: 'string',
        context: ['edit'],
        readonly: true,
      },
    };
    if (this.#isPage) {
      p.parent = { description: 'The ID for the parent of the post.', type: 'integer', context: ['view', 'edit'] };
    }
    const noValidation = { sanitizeCallback: false as const, validateCallback: undefined };
    p.title = {
      description: 'The title for the post.',
      type: 'object',
      context: ['view', 'edit', 'embed'],
      arg_options: noValidation,
      properties: {
        raw: { description: 'Title for the post, as it exists in the database.', type: 'string', context: ['edit'] },
        rendered: {
          description: 'HTML title for the post, transformed for display.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
      },
    };
    p.content = {
      description: 'The content for the post.',
      type: 'object',
      context: ['view', 'edit'],
      arg_options: noValidation,
      properties: {
        raw: { description: 'Content for the post, as it exists in the database.', type: 'string', context: ['edit'] },
        rendered: {
          description: 'HTML content for the post, transformed for display.',
          type: 'string',
          context: ['view', 'edit'],
          readonly: true,
        },
        block_version: {
          description: 'Version of the content block format used by the post.',
          type: 'integer',
          context: ['edit'],
          readonly: true,
        },
        protected: {
          description: 'Whether the content is protected with a password.',
          type: 'boolean',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
      },
    };
    p.author = {
      description: 'The ID for the author of the post.',
      type: 'integer',
      context: ['view', 'edit', 'embed'],
    };
    p.excerpt = {
      description: 'The excerpt for the post.',
      type: 'object',
      context: ['view', 'edit', 'embed'],
      arg_options: noValidation,
      properties: {
        raw: { description: 'Excerpt for the post, as it exists in the database.', type: 'string', context: ['edit'] },
        rendered: {
          description: 'HTML excerpt for the post, transformed for display.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
        protected: {
          description: 'Whether the excerpt is protected with a password.',
          type: 'boolean',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
      },
    };
    p.featured_media = {
      description: 'The ID of the featured media for the post.',
      type: 'integer',
      context: ['view', 'edit', 'embed'],
    };
    p.comment_status = {
      description: 'Whether or not comments are open on the post.',
      type: 'string',
      enum: ['open', 'closed'],
      context: ['view', 'edit'],
    };
    p.ping_status = {
      description: 'Whether or not the post can be pinged.',
      type: 'string',
      enum: ['open', 'closed'],
      context: ['view', 'edit'],
    };
    if (this.#isPage) {
      p.menu_order = {
        description: 'The order of the post in relation to other posts.',
        type: 'integer',
        context: ['view', 'edit'],
      };
    }
    if (this.#isPost) {
      p.format = { description: 'The format for the post.', type: 'string', enum: FORMATS, context: ['view', 'edit'] };
    }
    p.meta = this.#metaSchema();
    if (this.#isPost) {
      p.sticky = {
        description: 'Whether or not the post should be treated as sticky.',
        type: 'boolean',
        context: ['view', 'edit'],
      };
    }
    p.template = {
      description: 'The theme file to use to display the post.',
      type: 'string',
      context: ['view', 'edit'],
      arg_options: { validateCallback: (value, request) => this.#checkTemplate(value, request) },
    };
    for (const tax of this.#taxonomies) {
      p[tax.restBase] = {
        description: `The terms assigned to the post in the ${tax.slug} taxonomy.`,
        type: 'array',
        items: { type: 'integer' },
        context: ['view', 'edit'],
      };
    }
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: this.type.slug,
      type: 'object',
      properties: p,
    };
  }

  #metaSchema(): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    for (const m of this.#meta) properties[m.key] = { type: m.type, description: m.description, default: m.default };
    return {
      description: 'Meta fields.',
      type: 'object',
      context: ['view', 'edit'],
      properties,
      arg_options: {
        sanitizeCallback: false,
        validateCallback: (value) => value !== null && typeof value === 'object',
      },
    };
  }

  /** check_status(): the post's current status is always accepted, others must be writable. */
  async #checkStatus(value: unknown, request: RestRequest, param: string): Promise<true | RestError> {
    const id = toInt(request.get('id'));
    if (id > 0) {
      const post = await this.#rt.service.repo.findById(id);
      if (post && post.type === this.type.slug && post.status === value) return true;
    }
    return validateValueFromSchema(value, { type: 'string', enum: WRITABLE_STATUSES }, param);
  }

  /** check_template(): a template the theme offers for this type (or the post's current one). */
  async #checkTemplate(value: unknown, request: RestRequest): Promise<true | RestError> {
    if (!value) return true;
    const id = toInt(request.get('id'));
    if (id > 0) {
      const post = await this.#rt.service.repo.findById(id);
      if (post && post.template === value) return true;
    }
    const allowed = this.#rt.templates[this.type.slug] ?? [];
    if (allowed.includes(String(value))) return true;
    return new RestError('rest_invalid_param', `template is not one of ${allowed.join(', ')}.`);
  }

  override collectionParams(): Record<string, RestArg> {
    const base = super.collectionParams();
    const params: Record<string, RestArg> = {
      ...base,
      context: { ...base.context!, default: 'view' },
      after: {
        description: 'Limit response to posts published after a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      modified_after: {
        description: 'Limit response to posts modified after a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      author: {
        description: 'Limit result set to posts assigned to specific authors.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
      },
      author_exclude: {
        description: 'Ensure result set excludes posts assigned to specific authors.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
      },
      before: {
        description: 'Limit response to posts published before a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      modified_before: {
        description: 'Limit response to posts modified before a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      exclude: {
        description: 'Ensure result set excludes specific IDs.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
      },
      include: {
        description: 'Limit result set to specific IDs.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
      },
    };
    if (this.#isPage) {
      params.menu_order = {
        description: 'Limit result set to posts with a specific menu_order value.',
        type: 'integer',
      };
    }
    params.search_semantics = { description: 'How to interpret the search input.', type: 'string', enum: ['exact'] };
    params.offset = { description: 'Offset the result set by a specific number of items.', type: 'integer' };
    params.order = {
      description: 'Order sort attribute ascending or descending.',
      type: 'string',
      default: 'desc',
      enum: ['asc', 'desc'],
    };
    params.orderby = {
      description: 'Sort collection by post attribute.',
      type: 'string',
      default: 'date',
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
        ...(this.#isPage ? ['menu_order'] : []),
      ],
    };
    if (this.#isPage) {
      params.parent = {
        description: 'Limit result set to items with particular parent IDs.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
      };
      params.parent_exclude = {
        description: 'Limit result set to all items except those of a particular parent ID.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
      };
    }
    params.search_columns = {
      default: [],
      description: 'Array of column names to be searched.',
      type: 'array',
      items: { enum: ['post_title', 'post_content', 'post_excerpt'], type: 'string' },
    };
    params.slug = {
      description: 'Limit result set to posts with one or more specific slugs.',
      type: 'array',
      items: { type: 'string' },
    };
    params.status = {
      default: 'publish',
      description: 'Limit result set to posts assigned one or more statuses.',
      type: 'array',
      items: { enum: [...POST_STATUSES.map((s) => s.slug), 'any'], type: 'string' },
      sanitizeCallback: (value, request, param) => this.#sanitizeStatuses(value, request, param),
    };
    if (this.#taxonomies.length > 0) Object.assign(params, this.#taxonomyParams());
    if (this.#isPost) {
      params.sticky = { description: 'Limit result set to items that are sticky.', type: 'boolean' };
      params.ignore_sticky = { description: 'Whether to ignore sticky posts or not.', type: 'boolean', default: true };
      params.format = {
        description: 'Limit result set to items assigned one or more given formats.',
        type: 'array',
        uniqueItems: true,
        items: { enum: FORMATS, type: 'string' },
      };
    }
    return params;
  }

  /** prepare_taxonomy_limit_schema(): `tax_relation` and the include/exclude filters of each taxonomy. */
  #taxonomyParams(): Record<string, RestArg> {
    const out: Record<string, RestArg> = {
      tax_relation: {
        description: 'Limit result set based on relationship between multiple taxonomies.',
        type: 'string',
        enum: ['AND', 'OR'],
      },
    };
    const limit = (hierarchical: boolean, include: boolean): RestArg['oneOf'] => {
      const properties: Record<string, JsonSchema> = {
        terms: { description: 'Term IDs.', type: 'array', items: { type: 'integer' }, default: [] },
      };
      if (hierarchical) {
        properties.include_children = {
          description: 'Whether to include child terms in the terms limiting the result set.',
          type: 'boolean',
          default: false,
        };
      }
      if (include) {
        properties.operator = {
          description: 'Whether items must be assigned all or any of the specified terms.',
          type: 'string',
          enum: ['AND', 'OR'],
          default: 'OR',
        };
      }
      return [
        {
          title: 'Term ID List',
          description: 'Match terms with the listed IDs.',
          type: 'array',
          items: { type: 'integer' },
        },
        {
          title: 'Term ID Taxonomy Query',
          description: 'Perform an advanced term query.',
          type: 'object',
          properties,
          additionalProperties: false,
        },
      ];
    };
    for (const tax of this.#taxonomies) {
      out[tax.restBase] = {
        description: `Limit result set to items with specific terms assigned in the ${tax.restBase} taxonomy.`,
        type: ['object', 'array'],
        oneOf: limit(tax.hierarchical, true),
      };
      out[`${tax.restBase}_exclude`] = {
        description: `Limit result set to items except those with specific terms assigned in the ${tax.restBase} taxonomy.`,
        type: ['object', 'array'],
        oneOf: limit(tax.hierarchical, false),
      };
    }
    return out;
  }

  /**
   * sanitize_post_statuses(): a status other than the default needs edit_posts (or, for `private`,
   * read_private_posts); each must be a known status.
   */
  #sanitizeStatuses(value: unknown, request: RestRequest, param: string): unknown {
    const statuses = parseList(value).map((s) =>
      String(s)
        .toLowerCase()
        .replace(/[^a-z0-9_-]/g, ''),
    );
    const unique = [...new Set(statuses)];
    const caps = userCaps(this.#rt, request);
    const itemSchema: JsonSchema = { type: 'string', enum: [...POST_STATUSES.map((s) => s.slug), 'any'] };
    for (const status of unique) {
      if (status === 'publish') continue;
      if (caps.has(this.type.cap.edit_posts) || (status === 'private' && caps.has(this.type.cap.read_private_posts))) {
        const valid = validateValueFromSchema(status, itemSchema, param);
        if (valid !== true) return valid;
      } else {
        return new RestError('rest_forbidden_status', 'Status is forbidden.', {
          status: authorizationRequiredCode(request.user.id),
        });
      }
    }
    return unique;
  }

  // ---- routes ----

  registerRoutes(server: RestServer): void {
    this.registerCrudRoutes(server, {
      itemReadArgs: {
        context: this.contextParam({ default: 'view' }),
        excerpt_length: { description: 'Override the default excerpt length.', type: 'integer' },
        password: { description: 'The password for the post if it is password protected.', type: 'string' },
      },
      deleteArgs: {
        force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' },
      },
      idDescription: 'Unique identifier for the post.',
      batch: true,
    });
  }

  // ---- helpers ----

  /**
   * get_post(): the post of this type, or `rest_post_invalid_id`. Given a reading request (GET, HEAD),
   * the row is read once for its permission checks, the Allow header's checks and the response alike
   * (WordPress's post cache).
   */
  async getPost(id: unknown, request?: RestRequest): Promise<Post> {
    const n = toInt(id);
    const repo = this.#rt.service.repo;
    const reading = request !== undefined && (request.method === 'GET' || request.method === 'HEAD');
    const post =
      n <= 0
        ? null
        : reading
          ? await request.memo(`content:post:${n}`, () => repo.findById(n))
          : await repo.findById(n);
    if (!post || post.type !== this.type.slug) {
      throw new RestError('rest_post_invalid_id', 'Invalid post ID.', { status: 404 });
    }
    return post;
  }

  /** check_read_permission(). */
  async canRead(post: Post, request: RestRequest): Promise<boolean> {
    if (post.status === 'publish') return true;
    if (await request.can('read_post', post.id)) return true;
    if (getPostStatus(post.status)?.public) return true;
    if (post.status === 'inherit' && post.parentId > 0) {
      const parent = await this.#rt.service.repo.findById(post.parentId);
      if (parent) return this.canRead(parent, request);
    }
    return post.status === 'inherit';
  }

  /** can_access_password_content(). */
  async #canAccessPassword(post: PostKey, request: RestRequest): Promise<boolean> {
    if (post.password === '') return false;
    if (request.context === 'edit' && (await request.can('edit_post', post.id))) return true;
    const password = request.get('password');
    if (typeof password !== 'string' || password === '') return false;
    return password === post.password;
  }

  async #publishDue(): Promise<void> {
    await this.#rt.scheduler.publishDue();
  }

  // ---- GET collection ----

  async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (request.context === 'edit' && !userCaps(this.#rt, request).has(this.type.cap.edit_posts)) {
      return forbidden(
        request,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit posts in this post type.',
      );
    }
    return true;
  }

  async getItems(request: RestRequest): Promise<RestResponse> {
    const orderby = String(request.get('orderby') ?? 'date') as PostOrderBy;
    const search = String(request.get('search') ?? '');
    const include = (request.get<unknown[]>('include') ?? []).map(toInt);
    if (orderby === 'relevance' && search === '') {
      throw new RestError('rest_no_search_term_defined', 'You need to define a search term to order by relevance.', {
        status: 400,
      });
    }
    if (orderby === 'include' && include.length === 0) {
      throw new RestError(
        'rest_orderby_include_missing_include',
        'You need to define an include parameter to order by include.',
        { status: 400 },
      );
    }
    await this.#publishDue();
    const settings = await this.#rt.service.settings();
    const query = await this.#listQuery(request, settings, include, search, orderby);
    const perPage = toInt(request.get('per_page')) || 10;
    const page = Math.max(1, toInt(request.get('page')) || 1);
    const offsetParam = request.get('offset');
    const offset =
      offsetParam !== undefined && offsetParam !== null ? Math.abs(toInt(offsetParam)) : (page - 1) * perPage;
    const repo = this.#rt.service.repo;
    const stickyFirst =
      this.#isPost && request.get('ignore_sticky') === false && this.#stickyFirst(request, query, page);
    // Each item's blocks are numbered on their own (its `wp-container-N` from 1), as the item cache keeps them
    // and as a read of the item alone shows them; WordPress goes on counting across the posts of a list.
    const cache = this.#cacheFor(request);
    let items: unknown[] | null = null;
    let total = 0;
    if (cache) {
      // Only the keys of the page's posts are read; their text only for the items not cached.
      const result = await repo.listKeys(query, { limit: perPage, offset });
      let keys = result.posts;
      if (stickyFirst) {
        keys = await this.#moveStickiesFirst(keys, query, settings.stickyPosts, (q, p) => repo.listKeys(q, p));
      }
      total = this.#foundPosts(result.total, keys.length, page, offsetParam);
      this.#checkPageNumber(page, perPage, total);
      const extras = await this.loadExtras(keys, request, settings, false);
      items = await this.#cachedItems(cache, keys, request, extras, (missing) => this.#fullRows(missing));
    }
    if (items === null) {
      const result = await repo.list(query, { limit: perPage, offset });
      let posts = result.posts;
      if (stickyFirst) {
        posts = await this.#moveStickiesFirst(posts, query, settings.stickyPosts, (q, p) => repo.list(q, p));
      }
      total = this.#foundPosts(result.total, posts.length, page, offsetParam);
      this.#checkPageNumber(page, perPage, total);
      const extras = await this.loadExtras(posts, request, settings);
      items = [];
      for (const post of posts) {
        const response = await this.prepareItemForResponse(post, request, extras);
        items.push(this.prepareResponseForCollection(response));
      }
    }
    const response = new RestResponse(items);
    setPaginationHeaders(
      response,
      request,
      {
        total,
        perPage,
        page,
        baseUrl: await this.#ctx.server.url(`/${this.namespace}/${this.restBase}`),
      },
      this.#ctx.server.headerPrefix,
    );
    return response;
  }

  /**
   * The total WordPress reports: WP_Query leaves found_posts at 0 when the page has no row, and the REST
   * controller counts again only for a page past the first without the offset (the recount keeps the
   * offset), so an offset past the end reports 0 posts and 0 pages, not the number of matches.
   */
  #foundPosts(total: number, rows: number, page: number, offsetParam: unknown): number {
    if (rows > 0) return total;
    const offsetGiven = offsetParam !== undefined && offsetParam !== null;
    return offsetGiven || page === 1 ? 0 : total;
  }

  #checkPageNumber(page: number, perPage: number, total: number): void {
    if (page > Math.ceil(total / perPage) && total > 0) {
      throw new RestError(
        'rest_post_invalid_page_number',
        'The page number requested is larger than the number of pages available.',
        { status: 400 },
      );
    }
  }

  /**
   * The full rows of posts read as keys, or null when one of them changed (or went) since: the caller
   * then reads the page again in one statement, so an item never mixes two states of its post.
   */
  async #fullRows(keys: readonly PostKey[]): Promise<Post[] | null> {
    const posts = await this.#rt.service.repo.findByIds(keys.map((k) => k.id));
    if (posts.length !== keys.length) return null;
    for (let i = 0; i < keys.length; i++) if ((posts[i] as Post).version !== (keys[i] as PostKey).version) return null;
    return posts;
  }

  /** The WP_Query arguments of a collection request, as a list query. */
  async #listQuery(
    request: RestRequest,
    settings: ContentSettings,
    include: number[],
    search: string,
    orderby: PostOrderBy,
  ): Promise<PostListQuery> {
    const ints = (name: string) => (request.get<unknown[]>(name) ?? []).map(toInt);
    // WP_Query reads every id list through absint(): `include=-5` is post 5.
    const ids = (name: string) => (request.get<unknown[]>(name) ?? []).map(absint);
    const statuses = (request.get<string[]>('status') ?? ['publish']).map(String);
    let exclude = ints('exclude');
    let includeIds = include;
    const sticky = request.get('sticky');
    if (this.#isPost && sticky !== undefined && sticky !== null) {
      const stickies = settings.stickyPosts;
      if (sticky === true) {
        includeIds = includeIds.length > 0 ? stickies.filter((id) => includeIds.includes(id)) : stickies;
        if (includeIds.length === 0) includeIds = [0];
      } else if (stickies.length > 0) {
        exclude = [...exclude, ...stickies];
      }
    }
    const query: PostListQuery = {
      type: this.type.slug,
      statuses,
      include: includeIds.map(absint),
      exclude: exclude.map(absint),
      authors: ids('author'),
      authorsExclude: ids('author_exclude'),
      orderby,
      order: request.get('order') === 'asc' ? 'asc' : 'desc',
      access: this.#access(request),
    };
    if (search !== '') {
      query.search = {
        // WP_Query::parse_search() strips slashes first: `a\b` searches `ab`, a lone `\` every post.
        text: stripslashes(search),
        columns: (request.get<string[]>('search_columns') ?? []) as SearchColumn[],
        exact: request.get('search_semantics') === 'exact',
        loggedIn: request.isLoggedIn,
      };
    }
    for (const [param, key] of [
      ['after', 'after'],
      ['before', 'before'],
      ['modified_after', 'modifiedAfter'],
      ['modified_before', 'modifiedBefore'],
    ] as const) {
      const value = request.get(param);
      if (typeof value === 'string' && value !== '') {
        const bound = dateQueryBound(value, settings.zone);
        if (bound) query[key] = bound;
      }
    }
    const slugs = request.get<unknown[]>('slug');
    if (slugs && slugs.length > 0) query.slugs = slugs.map((s) => sanitizeTitleForQuery(String(s)));
    if (this.#isPage) {
      query.parents = ids('parent');
      query.parentsExclude = ids('parent_exclude');
      const menuOrder = request.get('menu_order');
      if (menuOrder !== undefined && menuOrder !== null) query.menuOrder = toInt(menuOrder);
    }
    const clauses: TaxClause[] = [];
    for (const tax of this.#taxonomies) {
      const inc = await this.#taxClause(request.get(tax.restBase), tax, false);
      if (inc) clauses.push(inc);
      const exc = await this.#taxClause(request.get(`${tax.restBase}_exclude`), tax, true);
      if (exc) clauses.push(exc);
    }
    if (clauses.length > 0) query.tax = { relation: request.get('tax_relation') === 'OR' ? 'OR' : 'AND', clauses };
    const formats = request.get<string[]>('format');
    if (this.#isPost && Array.isArray(formats) && formats.length > 0) query.formats = formats.map(String);
    return query;
  }

  /** prepare_tax_query() for one taxonomy filter (a list of ids, or `{ terms, include_children, operator }`). */
  async #taxClause(value: unknown, tax: TaxonomyDef, exclude: boolean): Promise<TaxClause | null> {
    if (value === undefined || value === null) return null;
    let terms: number[] = [];
    let includeChildren = false;
    let operator: TaxClause['operator'] = exclude ? 'NOT IN' : 'IN';
    if (Array.isArray(value)) terms = value.map(absint);
    else if (isPlainObject(value)) {
      const raw = value.terms;
      terms = Array.isArray(raw) ? raw.map(absint) : [];
      includeChildren = Boolean(value.include_children);
      if (!exclude && value.operator === 'AND') operator = 'AND';
    }
    if (terms.length === 0) return null;
    if (includeChildren && tax.hierarchical) {
      terms = [...new Set([...terms, ...(await this.#ctx.terms.descendantIds(tax.slug, terms))])];
    }
    return { termIds: terms, operator };
  }

  /** Which rows a list may show the user: what they may read (view) or edit (edit context). */
  #access(request: RestRequest): PostAccess {
    const caps = userCaps(this.#rt, request);
    const c = this.type.cap;
    return {
      userId: request.user.id,
      mode: request.context === 'edit' ? 'edit' : 'read',
      read: request.user.id > 0 && caps.has(c.read),
      readPrivate: caps.has(c.read_private_posts),
      editPosts: caps.has(c.edit_posts),
      editOthers: caps.has(c.edit_others_posts),
      editPublished: caps.has(c.edit_published_posts),
      editPrivate: caps.has(c.edit_private_posts),
    };
  }

  /** Whether WP_Query would move sticky posts to the front (a plain first page of the blog). */
  #stickyFirst(request: RestRequest, query: PostListQuery, page: number): boolean {
    if (page > 1 || query.search || query.tax || query.formats) return false;
    if ((request.get<unknown[]>('include') ?? []).length > 0) return false;
    if (request.get('sticky') === true) return false;
    return true;
  }

  /** The sticky posts of a page moved first, and the missing published ones added (WP_Query's sticky handling). */
  async #moveStickiesFirst<T extends { id: number }>(
    posts: T[],
    query: PostListQuery,
    stickyIds: number[],
    list: (query: PostListQuery, page: { limit: number; offset: number }) => Promise<{ posts: T[] }>,
  ): Promise<T[]> {
    if (stickyIds.length === 0) return posts;
    const remaining = [...stickyIds];
    const out = [...posts];
    let at = 0;
    for (let i = 0; i < out.length; i++) {
      const post = out[i] as T;
      const index = remaining.indexOf(post.id);
      if (index === -1) continue;
      out.splice(i, 1);
      out.splice(at++, 0, post);
      remaining.splice(index, 1);
    }
    const excluded = query.exclude ?? [];
    const missing = remaining.filter((id) => !excluded.includes(id));
    if (missing.length > 0) {
      const extra = await list(
        { type: this.type.slug, statuses: ['publish'], include: missing, orderby: 'date', order: 'desc' },
        { limit: missing.length, offset: 0 },
      );
      for (const post of extra.posts) out.splice(at++, 0, post);
    }
    return out;
  }

  // ---- GET item ----

  async getItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    await this.#publishDue();
    const post = await this.getPost(request.get('id'), request);
    if (request.context === 'edit' && !(await request.can('edit_post', post.id))) {
      return forbidden(request, 'rest_forbidden_context', 'Sorry, you are not allowed to edit this post.');
    }
    const password = request.query.password;
    if (typeof password === 'string' && password !== '' && password !== post.password) {
      return new RestError('rest_post_incorrect_password', 'Incorrect post password.', { status: 403 });
    }
    if (!(await this.canRead(post, request))) {
      return forbidden(request, 'rest_forbidden', 'Sorry, you are not allowed to do that.');
    }
    return true;
  }

  async getItem(request: RestRequest): Promise<RestResponse> {
    const post = await this.getPost(request.get('id'), request);
    const cache = this.#cacheFor(request);
    let response: RestResponse;
    if (cache) {
      const extras = await this.loadExtras([post], request, undefined, false);
      const [item] = (await this.#cachedItems(cache, [post], request, extras, async () => [post])) ?? [];
      response = new RestResponse(item);
    } else {
      response = await this.prepareItemForResponse(post, request);
    }
    if (this.type.viewable) {
      const link = await this.#link(post, request);
      response.headers.Link = `<${link}>; rel="alternate"; type=text/html`;
    }
    return response;
  }

  async #link(post: Post, request: RestRequest): Promise<string> {
    const settings = await this.#rt.service.settings();
    const ancestors = this.#isPage ? await this.#rt.service.ancestorSlugs(post.parentId) : [];
    return permalink(post, settings, {
      ancestors,
      canReadPrivate: post.status !== 'private' || (await request.can('read_post', post.id)),
    });
  }

  // ---- create ----

  async createItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (toInt(request.get('id')) > 0) {
      return new RestError('rest_post_exists', 'Cannot create existing post.', { status: 400 });
    }
    const caps = userCaps(this.#rt, request);
    const c = this.type.cap;
    const author = toInt(request.get('author'));
    if (author && author !== request.user.id && !caps.has(c.edit_others_posts)) {
      return forbidden(request, 'rest_cannot_edit_others', 'Sorry, you are not allowed to create posts as this user.');
    }
    if (request.get('sticky') && (!caps.has(c.edit_others_posts) || !caps.has(c.publish_posts))) {
      return forbidden(request, 'rest_cannot_assign_sticky', 'Sorry, you are not allowed to make posts sticky.');
    }
    if (!caps.has(c.create_posts)) {
      return forbidden(request, 'rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.');
    }
    if (!(await this.#canAssignTerms(request))) {
      return forbidden(request, 'rest_cannot_assign_term', 'Sorry, you are not allowed to assign the provided terms.');
    }
    return true;
  }

  /**
   * check_assign_terms_permission(): every existing term sent must be assignable. Answered once per
   * request (the Allow header asks again), with the terms read in one query — only when the user lacks
   * a taxonomy's assign capability: map_meta_cap makes `assign_term` of any existing term of a taxonomy
   * that capability, so a user who has it may assign whatever exists of it (what does not is skipped).
   */
  #canAssignTerms(request: RestRequest): Promise<boolean> {
    return request.memo(`content:canAssignTerms:${this.type.slug}`, async () => {
      const sent: Array<{ tax: TaxonomyDef; ids: number[] }> = [];
      for (const tax of this.#taxonomies) {
        const value = request.get(tax.restBase);
        if (value === undefined || value === null) continue;
        const ids = parseList(value).map(toInt);
        if (ids.some((id) => id > 0) && !(await request.can(tax.cap.assign_terms))) sent.push({ tax, ids });
      }
      const all = sent.flatMap((s) => s.ids).filter((id) => id > 0);
      if (all.length === 0) return true;
      const terms = new Map((await this.#ctx.terms.findByIds([...new Set(all)])).map((t) => [Number(t.id), t]));
      for (const { tax, ids } of sent) {
        for (const id of ids) {
          const term = terms.get(id);
          if (!term || term.taxonomy !== tax.slug) continue;
          // What map_meta_cap makes of assign_term for a term of this taxonomy, without looking the term
          // up again (it was just read with the others).
          if (!(await request.can(tax.cap.assign_terms, id))) return false;
        }
      }
      return true;
    });
  }

  async createItem(request: RestRequest): Promise<RestResponse> {
    if (toInt(request.get('id')) > 0) {
      throw new RestError('rest_post_exists', 'Cannot create existing post.', { status: 400 });
    }
    const settings = await this.#rt.service.settings();
    const write = await this.prepareItemForDatabase(request, null, settings);
    if (write.slug && (write.status === 'draft' || write.status === 'pending')) {
      write.slug = await uniqueSlug(write.slug, {
        status: 'publish',
        type: this.type.slug,
        hierarchical: this.type.hierarchical,
        permalinkStructure: settings.permalinkStructure,
        isTaken: (s) =>
          this.#rt.service.repo.slugTaken(s, {
            type: this.type.slug,
            excludeId: 0,
            hierarchical: this.type.hierarchical,
            parentId: write.parentId ?? 0,
          }),
      });
    }
    const caps = userCaps(this.#rt, request);
    const canPublish = caps.has(this.type.cap.publish_posts);
    let post: Post;
    const facts: SavedFacts = {};
    try {
      post = await this.#rt.service.create(
        this.type.slug,
        write,
        { actorId: request.user.id, canPublish, unfilteredHtml: caps.has('unfiltered_html') },
        facts,
      );
    } catch (err) {
      throw toRestError(err);
    }
    createdFacts.set(request, { id: post.id, facts });
    request.set('context', 'edit');
    const response = await this.prepareItemForResponse(post, request);
    response.status = 201;
    response.header('Location', await this.#ctx.server.url(`/${this.namespace}/${this.restBase}/${post.id}`));
    return response;
  }

  // ---- update ----

  async updateItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const post = await this.getPost(request.get('id'), request);
    const caps = userCaps(this.#rt, request);
    const c = this.type.cap;
    if (!(await request.can('edit_post', post.id))) {
      return forbidden(request, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    }
    const author = toInt(request.get('author'));
    if (author && author !== request.user.id && !caps.has(c.edit_others_posts)) {
      return forbidden(request, 'rest_cannot_edit_others', 'Sorry, you are not allowed to update posts as this user.');
    }
    if (request.get('sticky') && (!caps.has(c.edit_others_posts) || !caps.has(c.publish_posts))) {
      return forbidden(request, 'rest_cannot_assign_sticky', 'Sorry, you are not allowed to make posts sticky.');
    }
    if (!(await this.#canAssignTerms(request))) {
      return forbidden(request, 'rest_cannot_assign_term', 'Sorry, you are not allowed to assign the provided terms.');
    }
    return true;
  }

  async updateItem(request: RestRequest): Promise<RestResponse> {
    const existing = await this.getPost(request.get('id'));
    const settings = await this.#rt.service.settings();
    const write = await this.prepareItemForDatabase(request, existing, settings);
    const status = write.status ?? existing.status;
    if (write.slug && (status === 'draft' || status === 'pending')) {
      write.slug = await uniqueSlug(write.slug, {
        status: 'publish',
        type: this.type.slug,
        hierarchical: this.type.hierarchical,
        permalinkStructure: settings.permalinkStructure,
        currentSlug: existing.slug,
        isTaken: (s) =>
          this.#rt.service.repo.slugTaken(s, {
            type: this.type.slug,
            excludeId: existing.id,
            hierarchical: this.type.hierarchical,
            parentId: write.parentId ?? 0,
          }),
      });
    }
    const canPublish = await request.can('publish_post', existing.id);
    let post: Post;
    try {
      post = await this.#rt.service.update(existing.id, write, {
        actorId: request.user.id,
        canPublish,
        unfilteredHtml: userCaps(this.#rt, request).has('unfiltered_html'),
      });
    } catch (err) {
      throw toRestError(err);
    }
    request.set('context', 'edit');
    return this.prepareItemForResponse(post, request);
  }

  /**
   * prepare_item_for_database(): the request's fields as a write, with WordPress's checks (status
   * rights, author, password and sticky, parent) and its quirks (an object title with an empty `raw`
   * is ignored).
   */
  async prepareItemForDatabase(
    request: RestRequest,
    existing: Post | null,
    settings: ContentSettings,
  ): Promise<PostWrite> {
    const w: PostWrite = {};
    const text = (name: string, requireRaw: boolean): string | undefined => {
      const value = request.get(name);
      if (value === undefined || value === null) return undefined;
      if (typeof value === 'string') return value;
      if (isPlainObject(value) && value.raw !== undefined && value.raw !== null) {
        const raw = typeof value.raw === 'string' ? value.raw : String(value.raw);
        if (requireRaw && (raw === '' || raw === '0')) return undefined;
        return raw;
      }
      return undefined;
    };
    const title = text('title', true);
    if (title !== undefined) w.title = title;
    const content = text('content', false);
    if (content !== undefined) w.content = content;
    const excerpt = text('excerpt', false);
    if (excerpt !== undefined) w.excerpt = excerpt;

    const status = request.get('status');
    if (typeof status === 'string' && (!existing || existing.status !== status)) {
      w.status = await this.#handleStatus(status, request);
    }

    const date = request.get('date');
    const dateGmt = request.get('date_gmt');
    if (typeof date === 'string' && date !== '') {
      const parsed = dateWithGmt(date, settings.zone);
      if (parsed && (!existing || existing.dateLocal !== parsed[0])) w.date = { local: parsed[0], gmt: parsed[1] };
    } else if (typeof dateGmt === 'string' && dateGmt !== '') {
      const parsed = dateWithGmt(dateGmt, settings.zone, true);
      if (parsed && (!existing || existing.dateGmt !== parsed[1])) w.date = { local: parsed[0], gmt: parsed[1] };
    }
    if (
      (request.has('date_gmt') && request.get('date_gmt') === null) ||
      (request.has('date') && request.get('date') === null)
    ) {
      w.date = null;
    }

    const slug = request.get('slug');
    if (typeof slug === 'string') w.slug = slug;

    const author = toInt(request.get('author'));
    if (author) {
      if (author !== request.user.id && !(await this.#ctx.users.findById(author))) {
        throw new RestError('rest_invalid_author', 'Invalid author ID.', { status: 400 });
      }
      w.authorId = author;
    }

    const password = request.get('password');
    const sticky = request.get('sticky');
    if (typeof password === 'string') {
      w.password = password;
      if (password !== '') {
        if (this.#isPost && sticky) {
          throw new RestError('rest_invalid_field', 'A post can not be sticky and have a password.', { status: 400 });
        }
        if (existing && this.#isPost && (await this.#rt.service.isSticky(existing.id))) {
          throw new RestError('rest_invalid_field', 'A sticky post can not be password protected.', { status: 400 });
        }
      }
    }
    if (this.#isPost && sticky && existing && existing.password !== '') {
      throw new RestError('rest_invalid_field', 'A password protected post can not be set to sticky.', { status: 400 });
    }
    if (this.#isPost && typeof sticky === 'boolean') w.sticky = sticky;

    if (this.#isPage) {
      const parent = request.get('parent');
      if (parent !== undefined && parent !== null) {
        const parentId = toInt(parent);
        if (parentId === 0) w.parentId = 0;
        else {
          const found = await this.#rt.service.repo.findById(parentId);
          if (!found) throw new RestError('rest_post_invalid_id', 'Invalid post parent ID.', { status: 400 });
          w.parentId = found.id;
        }
      }
      const menuOrder = request.get('menu_order');
      if (menuOrder !== undefined && menuOrder !== null) w.menuOrder = toInt(menuOrder);
    }

    const commentStatus = request.get('comment_status');
    if (typeof commentStatus === 'string' && commentStatus !== '') w.commentStatus = commentStatus;
    const pingStatus = request.get('ping_status');
    if (typeof pingStatus === 'string' && pingStatus !== '') w.pingStatus = pingStatus;

    const featured = request.get('featured_media');
    if (featured !== undefined && featured !== null) w.featuredMedia = toInt(featured);
    if (this.#isPost) {
      const format = request.get('format');
      if (typeof format === 'string' && format !== '') w.format = format;
    }
    const template = request.get('template');
    if (typeof template === 'string') {
      w.template = template;
      w.allowedTemplates = this.#rt.templates[this.type.slug] ?? [];
    }
    const terms: Record<string, number[]> = {};
    for (const tax of this.#taxonomies) {
      const value = request.get(tax.restBase);
      if (value !== undefined && value !== null) terms[tax.slug] = parseList(value).map(toInt);
    }
    if (Object.keys(terms).length > 0) w.terms = terms;
    const meta = request.get('meta');
    if (isPlainObject(meta)) w.meta = await this.#prepareMeta(meta, request, existing);
    return w;
  }

  /** handle_status_param(): publishing (and private) needs publish rights; an unknown status becomes draft. */
  async #handleStatus(status: string, request: RestRequest): Promise<string> {
    const canPublish = userCaps(this.#rt, request).has(this.type.cap.publish_posts);
    switch (status) {
      case 'draft':
      case 'pending':
        return status;
      case 'private':
        if (!canPublish) {
          throw forbidden(
            request,
            'rest_cannot_publish',
            'Sorry, you are not allowed to create private posts in this post type.',
          );
        }
        return status;
      case 'publish':
      case 'future':
        if (!canPublish) {
          throw forbidden(
            request,
            'rest_cannot_publish',
            'Sorry, you are not allowed to publish posts in this post type.',
          );
        }
        return status;
      default:
        return getPostStatus(status) ? status : 'draft';
    }
  }

  /** WP_REST_Meta_Fields::update_value(): each registered key validated; null deletes it. */
  async #prepareMeta(
    meta: Record<string, unknown>,
    request: RestRequest,
    existing: Post | null,
  ): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const m of this.#meta) {
      if (!Object.hasOwn(meta, m.key)) continue;
      const value = meta[m.key];
      if (value === null) {
        out[m.key] = null;
        continue;
      }
      const schema: JsonSchema = { type: m.type };
      const valid = validateValueFromSchema(value, schema, `meta.${m.key}`);
      if (valid !== true) {
        throw new RestError(valid.code, valid.message, { ...(valid.data ?? {}), status: 400 });
      }
      if (existing && !(await request.can('edit_post', existing.id))) {
        throw forbidden(request, 'rest_cannot_update', `Sorry, you are not allowed to edit the ${m.key} custom field.`);
      }
      out[m.key] = sanitizeValueFromSchema(value, schema);
    }
    return out;
  }

  // ---- delete ----

  async deleteItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const post = await this.getPost(request.get('id'), request);
    if (!(await request.can('delete_post', post.id))) {
      return forbidden(request, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this post.');
    }
    return true;
  }

  async deleteItem(request: RestRequest): Promise<RestResponse> {
    const post = await this.getPost(request.get('id'));
    const force = Boolean(request.get('force'));
    request.set('context', 'edit');
    if (force) {
      const previous = await this.prepareItemForResponse(post, request);
      await this.#rt.service.delete(post.id);
      return new RestResponse({ deleted: true, previous: previous.data });
    }
    if (post.status === 'trash') {
      throw new RestError('rest_already_trashed', 'The post has already been deleted.', { status: 410 });
    }
    let trashed: Post;
    try {
      trashed = await this.#rt.service.trash(post.id, request.user.id);
    } catch (err) {
      throw toRestError(err);
    }
    return this.prepareItemForResponse(trashed, request);
  }

  // ---- response ----

  /** What a page of posts needs for its responses, fetched in a few queries and computed once per request. */
  async loadExtras(
    posts: readonly PostKey[],
    request: RestRequest,
    settings?: ContentSettings,
    withPostData = true,
  ): Promise<PostExtras> {
    const s = settings ?? (await this.#rt.service.settings());
    const repo = this.#rt.service.repo;
    const ids = posts.map((p) => p.id);
    const wants = includedFields(this.fieldsForResponse(request));
    const wantsLinks = wants('_links') || wants('_embedded');
    const created = createdFacts.get(request);
    const known = created && posts.length === 1 && posts[0]?.id === created.id ? created.facts : undefined;
    const revisions =
      known?.revisions !== undefined
        ? new Map([[created!.id, known.revisions]])
        : wantsLinks
          ? await repo.revisionSummaries(ids)
          : new Map();
    const ancestors = new Map<number, string[]>();
    if (this.#isPage && (wants('link') || wants('permalink_template'))) {
      for (const parentId of new Set(posts.map((p) => p.parentId).filter((id) => id > 0))) {
        ancestors.set(parentId, await this.#rt.service.ancestorSlugs(parentId));
      }
    }
    const generatedSlugs = new Map<number, string>();
    if (known?.generatedSlug !== undefined) generatedSlugs.set(created!.id, known.generatedSlug);
    else if (wants('generated_slug')) {
      const owners = await this.#baseSlugOwners(posts);
      for (const post of posts) generatedSlugs.set(post.id, await this.#generatedSlug(post, s, owners));
    }
    const lengthParam = request.get('excerpt_length');
    const extras: PostExtras = {
      settings: s,
      sticky: new Set(s.stickyPosts),
      terms: new Map(),
      meta: new Map(),
      revisions,
      ancestors,
      generatedSlugs,
      canReadPrivate: userCaps(this.#rt, request).has(this.type.cap.read_private_posts),
      wants,
      renderer: await this.#rt.renderer(),
      apiRoot: await this.#ctx.server.url('/'),
      actions: wantsLinks && request.context === 'edit' ? await this.#availableActions(request) : [],
      excerptLength: lengthParam !== undefined && lengthParam !== null ? toInt(lengthParam) : undefined,
    };
    if (known?.terms) extras.terms.set(created!.id, known.terms);
    if (known?.meta) extras.meta.set(created!.id, known.meta);
    if (withPostData) await this.#loadPostData(posts, extras);
    return extras;
  }

  /**
   * The rows an item is built from besides its post row (its terms and meta), added to `extras`: loaded
   * with the other extras, or later for only the posts whose item is not cached.
   */
  async #loadPostData(posts: readonly PostKey[], extras: PostExtras): Promise<void> {
    const repo = this.#rt.service.repo;
    const ids = posts.map((p) => p.id);
    if (ids.length === 0) return;
    const wants = extras.wants;
    // A created post's terms and meta are already there (see createdFacts).
    const missingTerms = ids.filter((id) => !extras.terms.has(id));
    if (missingTerms.length > 0 && this.#taxonomies.some((t) => wants(t.restBase))) {
      for (const t of await repo.terms(missingTerms)) {
        let byTax = extras.terms.get(t.postId);
        if (!byTax) {
          byTax = new Map();
          extras.terms.set(t.postId, byTax);
        }
        const list = byTax.get(t.taxonomy);
        if (list) list.push(t.termId);
        else byTax.set(t.taxonomy, [t.termId]);
      }
    }
    const missingMeta = ids.filter((id) => !extras.meta.has(id));
    if (missingMeta.length > 0 && wants('meta')) {
      const meta = await repo.meta(
        missingMeta,
        this.#meta.map((m) => m.key),
      );
      for (const [id, values] of meta) extras.meta.set(id, values);
    }
  }

  /** The item cache, when it may answer this request: reads of whole items of posts and pages (not subclasses). */
  #cacheFor(request: RestRequest): ItemJsonCache | null {
    if (!this.#cacheable || !request.acceptsRawJson) return null;
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    return this.#rt.itemCache;
  }

  /**
   * The cache key of a post's item for this request: its row version plus every input that is not in
   * its row, its meta or its terms (see item-cache.ts).
   */
  async #itemKey(post: PostKey, request: RestRequest, extras: PostExtras, scope: number): Promise<string> {
    const revisions = extras.revisions.get(post.id);
    let key = `${scope}:${post.id}:${post.version}:${revisions ? `${revisions.count}.${revisions.latestId}` : '-'}:`;
    key += extras.sticky.has(post.id) ? 's' : '-';
    key += extras.canReadPrivate || post.authorId === request.user.id ? 'r' : '-';
    if (post.password !== '') key += (await this.#canAccessPassword(post, request)) ? 'P' : 'p';
    if (this.#isPage) key += JSON.stringify(extras.ancestors.get(post.parentId) ?? []);
    const generated = extras.generatedSlugs.get(post.id);
    if (generated !== undefined) key += JSON.stringify(generated);
    return key;
  }

  /** What every item of a request shares that its output depends on, as a cache scope. */
  #cacheScope(cache: ItemJsonCache, request: RestRequest, extras: PostExtras): number {
    return cache.scopeId(
      JSON.stringify([
        this.restBase,
        request.context,
        extras.apiRoot,
        extras.settings,
        extras.excerptLength ?? null,
        extras.actions,
      ]),
    );
  }

  /**
   * The items of `posts` as JSON, from the cache or prepared from the full rows `fetch` gives for the
   * missing ones (and cached); null when `fetch` gives none.
   */
  async #cachedItems(
    cache: ItemJsonCache,
    posts: readonly PostKey[],
    request: RestRequest,
    extras: PostExtras,
    fetch: (missing: PostKey[]) => Promise<Post[] | null>,
  ): Promise<RawJson[] | null> {
    const scope = this.#cacheScope(cache, request, extras);
    const keys: string[] = [];
    const json: Array<string | undefined> = [];
    const missing: PostKey[] = [];
    for (const post of posts) {
      const key = await this.#itemKey(post, request, extras, scope);
      const hit = cache.get(key);
      keys.push(key);
      json.push(hit);
      if (hit === undefined) missing.push(post);
    }
    if (missing.length > 0) {
      const full = await fetch(missing);
      if (!full) return null;
      await this.#loadPostData(full, extras);
      let next = 0;
      for (let i = 0; i < posts.length; i++) {
        if (json[i] !== undefined) continue;
        const response = await this.prepareItemForResponse(full[next++] as Post, request, extras);
        const text = JSON.stringify(this.prepareResponseForCollection(response));
        cache.set(keys[i] as string, text);
        json[i] = text;
      }
    }
    return json.map((text) => new RawJson(text as string));
  }

  /**
   * Who already uses the slug each post's title gives, fetched for the whole page at once; null when the
   * type's uniqueness scope is not a plain per-type one (pages: per parent; attachments: every type).
   * Also null for one post: its own slug check is one query, where the prefetch (kept until the next
   * write, with its write-generation checks) costs three after a write such as a create.
   */
  async #baseSlugOwners(posts: readonly PostKey[]): Promise<BaseSlugOwners | null> {
    if (this.type.hierarchical || this.type.slug === 'attachment' || posts.length < 2) return null;
    const bases = posts.map((post) => sanitizeTitle(post.title, String(post.id)));
    return { checked: new Set(bases), owners: await this.#rt.service.repo.slugOwners(bases, this.type.slug) };
  }

  /** get_sample_permalink()[1]: the slug the title would give, made unique as if published. */
  async #generatedSlug(
    post: PostKey,
    settings: ContentSettings,
    prefetched: BaseSlugOwners | null = null,
  ): Promise<string> {
    const status = ['draft', 'pending', 'future'].includes(post.status) ? 'publish' : post.status;
    const base = sanitizeTitle(post.title, String(post.id));
    return uniqueSlug(base, {
      status,
      type: post.type,
      hierarchical: this.type.hierarchical,
      permalinkStructure: settings.permalinkStructure,
      currentSlug: post.slug,
      isTaken: async (s) => {
        if (prefetched?.checked.has(s) && post.type === this.type.slug) {
          return (prefetched.owners.get(s) ?? []).some((id) => id !== post.id);
        }
        return this.#rt.service.repo.slugTaken(s, {
          type: post.type,
          excludeId: post.id,
          hierarchical: this.type.hierarchical,
          parentId: post.parentId,
        });
      },
    });
  }

  /**
   * prepare_item_for_response(). Fields are built for the request's context directly (raw values and
   * block_version only in the edit context), which is what filtering by the schema's contexts gives.
   */
  async prepareItemForResponse(
    post: Post,
    request: RestRequest,
    extrasIn?: PostExtras,
    renderState?: BlockRenderState,
  ): Promise<RestResponse> {
    const extras = extrasIn ?? (await this.loadExtras([post], request));
    const s = extras.settings;
    const renderer = extras.renderer;
    const has = extras.wants;
    const edit = request.context === 'edit';
    const data: Record<string, unknown> = {};
    const ancestors = extras.ancestors.get(post.parentId) ?? [];

    if (has('id')) data.id = post.id;
    if (has('date')) data.date = dateResponse(post.dateGmt, post.dateLocal);
    if (has('date_gmt')) {
      const gmt = post.dateGmt === ZERO_DATE ? gmtFromLocal(post.dateLocal, s.zone) : post.dateGmt;
      data.date_gmt = dateResponse(gmt);
    }
    if (has('guid')) data.guid = edit ? { rendered: post.guid, raw: post.guid } : { rendered: post.guid };
    if (has('modified')) data.modified = dateResponse(post.modifiedGmt, post.modifiedLocal);
    if (has('modified_gmt')) {
      const gmt =
        post.modifiedGmt === ZERO_DATE
          ? formatMysql(wallClockMs(post.modifiedLocal) - s.gmtOffsetHours * 3_600_000)
          : post.modifiedGmt;
      data.modified_gmt = dateResponse(gmt);
    }
    if (has('password')) data.password = post.password;
    if (has('slug')) data.slug = post.slug;
    if (has('status')) data.status = post.status;
    if (has('type')) data.type = post.type;
    if (has('link')) {
      data.link = permalink(post, s, {
        ancestors,
        canReadPrivate: post.status !== 'private' || extras.canReadPrivate || post.authorId === request.user.id,
      });
    }
    if (has('title')) {
      const title: Record<string, unknown> = {};
      if (edit && has('title.raw')) title.raw = post.title;
      if (has('title.rendered')) title.rendered = renderer.title(post);
      data.title = title;
    }
    const passwordOk = post.password === '' || (await this.#canAccessPassword(post, request));
    if (has('content')) {
      const content: Record<string, unknown> = {};
      if (edit && has('content.raw')) content.raw = post.content;
      if (has('content.rendered')) content.rendered = passwordOk ? renderer.content(post, renderState) : '';
      if (has('content.protected')) content.protected = post.password !== '';
      if (edit && has('content.block_version')) content.block_version = blockVersion(post.content);
      data.content = content;
    }
    if (has('excerpt')) {
      const rendered = passwordOk ? renderer.excerpt(post, extras.excerptLength, renderState) : '';
      data.excerpt = edit
        ? { raw: post.excerpt, rendered, protected: post.password !== '' }
        : { rendered, protected: post.password !== '' };
    }
    if (has('author')) data.author = post.authorId;
    if (has('featured_media')) data.featured_media = post.featuredMedia;
    if (this.#isPage && has('parent')) data.parent = post.parentId;
    if (this.#isPage && has('menu_order')) data.menu_order = post.menuOrder;
    if (has('comment_status')) data.comment_status = post.commentStatus;
    if (has('ping_status')) data.ping_status = post.pingStatus;
    if (this.#isPost && has('sticky')) data.sticky = extras.sticky.has(post.id);
    if (has('template')) data.template = post.template;
    if (this.#isPost && has('format')) data.format = post.format || 'standard';
    if (has('meta')) {
      const stored = extras.meta.get(post.id);
      const meta: Record<string, unknown> = {};
      for (const m of this.#meta) meta[m.key] = prepareMetaValue(stored?.has(m.key) ? stored.get(m.key) : m.default, m);
      data.meta = this.#meta.length > 0 ? meta : [];
    }
    for (const tax of this.#taxonomies) {
      if (has(tax.restBase)) data[tax.restBase] = extras.terms.get(post.id)?.get(tax.slug) ?? [];
    }
    if (this.type.viewable && edit) {
      if (has('permalink_template')) {
        data.permalink_template = permalinkTemplate(
          post,
          s,
          ancestors,
          extras.canReadPrivate || post.authorId === request.user.id,
        );
      }
      if (has('generated_slug')) {
        data.generated_slug = extras.generatedSlugs.get(post.id) ?? sanitizeTitle(post.title, String(post.id));
      }
    }

    const response = new RestResponse(data);
    if (has('_links') || has('_embedded')) {
      this.#addLinks(response, post, extras);
      if (extras.actions.length > 0) {
        const self = `${extras.apiRoot}${this.namespace}/${this.restBase}/${post.id}`;
        for (const rel of extras.actions) response.addLink(rel, self);
      }
    }
    return response;
  }

  /** prepare_links(). */
  #addLinks(response: RestResponse, post: Post, extras: PostExtras): void {
    const root = extras.apiRoot;
    const ns = `${root}${this.namespace}`;
    const base = `${ns}/${this.restBase}`;
    response.addLink('self', `${base}/${post.id}`);
    response.addLink('collection', base);
    response.addLink('about', `${ns}/types/${this.type.slug}`);
    if (post.authorId) response.addLink('author', `${ns}/users/${post.authorId}`, { embeddable: true });
    response.addLink('replies', `${ns}/comments?post=${post.id}`, { embeddable: true });
    const revisions = extras.revisions.get(post.id) ?? { count: 0, latestId: 0 };
    response.addLink('version-history', `${base}/${post.id}/revisions`, { count: revisions.count });
    if (revisions.count > 0) {
      response.addLink('predecessor-version', `${base}/${post.id}/revisions/${revisions.latestId}`, {
        id: revisions.latestId,
      });
    }
    if (this.type.hierarchical && post.parentId)
      response.addLink('up', `${base}/${post.parentId}`, { embeddable: true });
    if (post.featuredMedia) {
      response.addLink('https://api.w.org/featuredmedia', `${ns}/media/${post.featuredMedia}`, { embeddable: true });
    }
    response.addLink('https://api.w.org/attachment', `${ns}/media?parent=${post.id}`);
    for (const tax of this.#taxonomies) {
      response.addLink('https://api.w.org/term', `${root}${tax.restNamespace}/${tax.restBase}?post=${post.id}`, {
        taxonomy: tax.slug,
        embeddable: true,
      });
    }
  }

  /** get_available_actions(): what the user may do with posts of this type (edit context only). */
  async #availableActions(request: RestRequest): Promise<string[]> {
    const c = this.type.cap;
    const caps = userCaps(this.#rt, request);
    const rels: string[] = [];
    if (caps.has(c.publish_posts)) rels.push('https://api.w.org/action-publish');
    if (caps.has('unfiltered_html')) rels.push('https://api.w.org/action-unfiltered-html');
    if (this.#isPost && caps.has(c.edit_others_posts) && caps.has(c.publish_posts)) {
      rels.push('https://api.w.org/action-sticky');
    }
    if (this.type.supports.author && caps.has(c.edit_others_posts)) rels.push('https://api.w.org/action-assign-author');
    for (const tax of this.#taxonomies) {
      const createCap = tax.hierarchical ? tax.cap.edit_terms : tax.cap.assign_terms;
      if (await request.can(createCap)) rels.push(`https://api.w.org/action-create-${tax.restBase}`);
      if (await request.can(tax.cap.assign_terms)) rels.push(`https://api.w.org/action-assign-${tax.restBase}`);
    }
    return rels;
  }
}

/** The posts using each slug a page of titles gives (`checked`: the slugs asked about). */
interface BaseSlugOwners {
  checked: Set<string>;
  owners: Map<string, number[]>;
}

/**
 * rest_is_field_included() over a request's field list, answered from a cache: a field is included when
 * it, one of its parents or one of its children is listed.
 */
export function includedFields(fields: readonly string[]): (field: string) => boolean {
  const cache = new Map<string, boolean>();
  return (field) => {
    let answer = cache.get(field);
    if (answer === undefined) {
      answer = isFieldIncluded(field, fields);
      cache.set(field, answer);
    }
    return answer;
  };
}

/** WP_REST_Meta_Fields::prepare_value(): a stored value in the registered type, null when it does not fit. */
export function prepareMetaValue(value: unknown, meta: RegisteredMeta): unknown {
  if (meta.type === 'boolean' && typeof value === 'boolean') return value;
  if (meta.type === 'string' && typeof value === 'string') return value;
  let v = value;
  if (v === '' && (meta.type === 'boolean' || meta.type === 'integer' || meta.type === 'number')) v = meta.default;
  const schema: JsonSchema = { type: meta.type };
  if (validateValueFromSchema(v, schema) !== true) return null;
  return sanitizeValueFromSchema(v, schema);
}
