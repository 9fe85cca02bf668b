/**
 * /cms/v2/{posts|pages}/{parent}/revisions[/{id}] — after WP_REST_Revisions_Controller (WordPress 6.1,
 * with the later parent/revision mismatch check). Revisions (autosaves included) are read by whoever
 * may edit the parent; they cannot be trashed, so DELETE needs `force=true`.
 */

import { dateResponse, ZERO_DATE } from '../content/dates.ts';
import type { Post } from '../content/post.ts';
import type { PostListQuery, PostOrderBy } from '../content/post-query.ts';
import type { ContentRuntime } from '../content/runtime.ts';
import type { PostTypeDef } from '../core/post-types.ts';
import { getPostType } from '../core/post-types.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import { absint, stripslashes, toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { DELETABLE, READABLE } from '../rest/route.ts';
import type { JsonSchema, RestArg } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import type { PostsController } from './posts.controller.ts';

function forbidden(request: RestRequest, code: string, message: string): RestError {
  return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
}

export class RevisionsController extends RestController {
  readonly namespace: string;
  readonly restBase = 'revisions';
  readonly parentType: PostTypeDef;
  readonly rt: ContentRuntime;
  readonly parentController: PostsController;

  constructor(runtime: ContentRuntime, parentController: PostsController) {
    super();
    this.rt = runtime;
    this.parentController = parentController;
    this.parentType = parentController.type;
    this.namespace = parentController.namespace;
  }

  get parentBase(): string {
    return this.parentType.restBase;
  }

  protected buildItemSchema(): JsonSchema {
    const parent = this.parentController.itemSchema().properties ?? {};
    const properties: Record<string, JsonSchema> = {
      author: {
        description: 'The ID for the author of the revision.',
        type: 'integer',
        context: ['view', 'edit', 'embed'],
      },
      date: {
        description: "The date the revision was published, in the site's timezone.",
        type: 'string',
        format: 'date-time',
        context: ['view', 'edit', 'embed'],
      },
      date_gmt: {
        description: 'The date the revision was published, as GMT.',
        type: 'string',
        format: 'date-time',
        context: ['view', 'edit'],
      },
      guid: {
        description: 'GUID for the revision, as it exists in the database.',
        type: 'string',
        context: ['view', 'edit'],
      },
      id: { description: 'Unique identifier for the revision.', type: 'integer', context: ['view', 'edit', 'embed'] },
      modified: {
        description: "The date the revision was last modified, in the site's timezone.",
        type: 'string',
        format: 'date-time',
        context: ['view', 'edit'],
      },
      modified_gmt: {
        description: 'The date the revision was last modified, as GMT.',
        type: 'string',
        format: 'date-time',
        context: ['view', 'edit'],
      },
      parent: {
        description: 'The ID for the parent of the revision.',
        type: 'integer',
        context: ['view', 'edit', 'embed'],
      },
      slug: {
        description: 'An alphanumeric identifier for the revision unique to its type.',
        type: 'string',
        context: ['view', 'edit', 'embed'],
      },
    };
    for (const name of ['title', 'content', 'excerpt', 'guid'] as const) {
      if (parent[name]) properties[name] = parent[name];
    }
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: `${this.parentType.slug}-revision`,
      type: 'object',
      properties,
    };
  }

  override collectionParams(): Record<string, RestArg> {
    const base = super.collectionParams();
    const perPage = { ...base.per_page! };
    delete perPage.default;
    return {
      context: { ...base.context!, default: 'view' },
      page: base.page!,
      per_page: perPage,
      search: base.search!,
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
      offset: { description: 'Offset the result set by a specific number of items.', type: 'integer' },
      order: {
        description: 'Order sort attribute ascending or descending.',
        type: 'string',
        default: 'desc',
        enum: ['asc', 'desc'],
      },
      orderby: {
        description: 'Sort collection by object attribute.',
        type: 'string',
        default: 'date',
        enum: ['date', 'id', 'include', 'relevance', 'slug', 'include_slugs', 'title'],
      },
    };
  }

  registerRoutes(server: RestServer): void {
    const schema = () => this.publicItemSchema();
    const parentArg = { parent: { description: 'The ID for the parent of the revision.', type: 'integer' } } as const;
    server.registerRoute(
      this.namespace,
      `/${this.parentBase}/(?P<parent>[\\d]+)/${this.restBase}`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItems(r),
          permission: (r) => this.getItemsPermissionsCheck(r),
          args: this.collectionParams(),
        },
      ],
      { schema, args: parentArg },
    );
    server.registerRoute(
      this.namespace,
      `/${this.parentBase}/(?P<parent>[\\d]+)/${this.restBase}/(?P<id>[\\d]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: (r) => this.getItemPermissionsCheck(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
        {
          methods: DELETABLE,
          handler: (r) => this.deleteItem(r),
          permission: (r) => this.deleteItemPermissionsCheck(r),
          args: {
            force: {
              type: 'boolean',
              default: false,
              description: 'Required to be true, as revisions do not support trashing.',
            },
          },
        },
      ],
      {
        schema,
        args: { ...parentArg, id: { description: 'Unique identifier for the revision.', type: 'integer' } },
      },
    );
  }

  /** get_parent(): the parent post of this type, or `rest_post_invalid_parent` (404). */
  async getParent(id: unknown): Promise<Post> {
    const n = toInt(id);
    const post = n > 0 ? await this.rt.service.repo.findById(n) : null;
    if (!post || post.type !== this.parentType.slug) {
      throw new RestError('rest_post_invalid_parent', 'Invalid post parent ID.', { status: 404 });
    }
    return post;
  }

  /** get_revision(): a revision, or `rest_post_invalid_id` (404). */
  async getRevision(id: unknown): Promise<Post> {
    const n = toInt(id);
    const post = n > 0 ? await this.rt.service.repo.findById(n) : null;
    if (post?.type !== 'revision') {
      throw new RestError('rest_post_invalid_id', 'Invalid revision ID.', { status: 404 });
    }
    return post;
  }

  #checkBelongs(parent: Post, revision: Post): void {
    if (revision.parentId !== parent.id) {
      throw new RestError(
        'rest_revision_parent_id_mismatch',
        `The revision does not belong to the specified parent with id of "${parent.id}"`,
        { status: 404 },
      );
    }
  }

  async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const parent = await this.getParent(request.get('parent'));
    if (!(await request.can('edit_post', parent.id))) {
      return forbidden(request, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
    }
    return true;
  }

  async getItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    return this.getItemsPermissionsCheck(request);
  }

  async getItems(request: RestRequest): Promise<RestResponse> {
    const parent = await this.getParent(request.get('parent'));
    const orderby = String(request.get('orderby') ?? 'date') as PostOrderBy;
    const search = String(request.get('search') ?? '');
    const include = (request.get<unknown[]>('include') ?? []).map(absint);
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
    const query: PostListQuery = {
      type: 'revision',
      statuses: ['inherit'],
      parents: [parent.id],
      include,
      exclude: (request.get<unknown[]>('exclude') ?? []).map(absint),
      orderby,
      order: request.get('order') === 'asc' ? 'asc' : 'desc',
      ...(search !== ''
        ? { search: { text: stripslashes(search), columns: [], exact: false, loggedIn: request.isLoggedIn } }
        : {}),
    };
    const perPageParam = request.get('per_page');
    const perPage = perPageParam !== undefined && perPageParam !== null ? toInt(perPageParam) : 0;
    const page = Math.max(1, toInt(request.get('page')) || 1);
    const offsetParam = request.get('offset');
    const offset = offsetParam !== undefined && offsetParam !== null ? Math.abs(toInt(offsetParam)) : 0;
    const start = offsetParam !== undefined && offsetParam !== null ? offset : perPage > 0 ? (page - 1) * perPage : 0;
    const result = await this.rt.service.repo.list(query, { limit: perPage > 0 ? perPage : 1_000_000, offset: start });
    const total = result.total;
    const maxPages = perPage > 0 ? Math.ceil(total / perPage) : total > 0 ? 1 : 0;
    if (total > 0) {
      if (offset >= total && offset > 0) {
        throw new RestError(
          'rest_revision_invalid_offset_number',
          'The offset number requested is larger than or equal to the number of available revisions.',
          { status: 400 },
        );
      }
      if (!offset && page > maxPages) {
        throw new RestError(
          'rest_revision_invalid_page_number',
          'The page number requested is larger than the number of pages available.',
          { status: 400 },
        );
      }
    }
    const renderer = await this.rt.renderer();
    const state = renderer.inner.newState();
    const items: unknown[] = [];
    for (const revision of result.posts) {
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(revision, request, state)));
    }
    const response = new RestResponse(items);
    setPaginationHeaders(
      response,
      request,
      {
        total,
        perPage: perPage > 0 ? perPage : Math.max(total, 0),
        page,
        baseUrl: await this.rt.ctx.server.url(`/${this.namespace}/${this.parentBase}/${parent.id}/${this.restBase}`),
      },
      this.rt.ctx.server.headerPrefix,
    );
    return response;
  }

  async getItem(request: RestRequest): Promise<RestResponse> {
    const parent = await this.getParent(request.get('parent'));
    const revision = await this.getRevision(request.get('id'));
    this.#checkBelongs(parent, revision);
    return this.prepareItemForResponse(revision, request);
  }

  async deleteItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const parent = await this.getParent(request.get('parent'));
    if (!(await request.can('delete_post', parent.id))) {
      return forbidden(request, 'rest_cannot_delete', 'Sorry, you are not allowed to delete revisions of this post.');
    }
    await this.getRevision(request.get('id'));
    const readable = await this.getItemsPermissionsCheck(request);
    if (readable !== true) return readable;
    // WordPress maps delete_post on a revision to do_not_allow unless a plugin lifts it; here whoever may
    // delete and edit the parent may delete its revisions.
    return true;
  }

  async deleteItem(request: RestRequest): Promise<RestResponse> {
    const parent = await this.getParent(request.get('parent'));
    const revision = await this.getRevision(request.get('id'));
    this.#checkBelongs(parent, revision);
    if (!request.get('force')) {
      throw new RestError(
        'rest_trash_not_supported',
        "Revisions do not support trashing. Set 'force=true' to delete.",
        {
          status: 501,
        },
      );
    }
    const previous = await this.prepareItemForResponse(revision, request);
    await this.rt.service.deleteRevision(revision.id);
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  /** The response data of a revision (WP_REST_Revisions_Controller::prepare_item_for_response). */
  async revisionData(
    revision: Post,
    request: RestRequest,
    fields: readonly string[],
    state?: import('../content/render/index.ts').BlockRenderState,
  ): Promise<Record<string, unknown>> {
    const renderer = await this.rt.renderer();
    const has = (f: string) => fields.includes(f);
    const data: Record<string, unknown> = {};
    if (has('author')) data.author = revision.authorId;
    if (has('date'))
      data.date = revision.dateGmt === ZERO_DATE ? null : dateResponse(revision.dateGmt, revision.dateLocal);
    if (has('date_gmt')) data.date_gmt = dateResponse(revision.dateGmt);
    if (has('id')) data.id = revision.id;
    if (has('modified')) {
      data.modified =
        revision.modifiedGmt === ZERO_DATE ? null : dateResponse(revision.modifiedGmt, revision.modifiedLocal);
    }
    if (has('modified_gmt')) data.modified_gmt = dateResponse(revision.modifiedGmt);
    if (has('parent')) data.parent = revision.parentId;
    if (has('slug')) data.slug = revision.slug;
    if (has('guid')) data.guid = { rendered: revision.guid, raw: revision.guid };
    if (has('title')) data.title = { raw: revision.title, rendered: renderer.title(revision) };
    if (has('content')) data.content = { raw: revision.content, rendered: renderer.content(revision, state) };
    if (has('excerpt')) {
      data.excerpt = {
        raw: revision.excerpt,
        rendered: revision.excerpt === '' ? '' : renderer.inner.excerptFilters(revision.excerpt),
      };
    }
    void request;
    return data;
  }

  async prepareItemForResponse(
    revision: Post,
    request: RestRequest,
    state?: import('../content/render/index.ts').BlockRenderState,
  ): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const data = await this.revisionData(revision, request, fields, state);
    const response = new RestResponse(this.filterResponseByContext(data, request.context));
    if (revision.parentId) {
      const parentType =
        getPostType((await this.rt.service.repo.findById(revision.parentId))?.type ?? '') ?? this.parentType;
      response.addLink(
        'parent',
        await this.rt.ctx.server.url(`/${parentType.restNamespace}/${parentType.restBase}/${revision.parentId}`),
      );
    }
    return response;
  }
}
