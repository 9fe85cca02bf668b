/**
 * /cms/v2/blocks — after WP_REST_Blocks_Controller: reusable blocks are `cms_block` posts. Their title
 * and content are shown raw (also in view context) and never rendered; reading one needs `read_post`
 * (mapped to edit_posts for this type); `pattern_category` and `pattern_category_exclude` filter lists
 * by the pattern categories taxonomy, in the list or object form the spec gives.
 */
import type { Post } from '../content/post.ts';
import type { BlockRenderState } from '../content/render/index.ts';
import type { ContentRuntime } from '../content/runtime.ts';
import type { ContentSettings } from '../content/site-settings.ts';
import { getPostStatus } from '../core/post-statuses.ts';
import { getTaxonomy } from '../core/taxonomies.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import type { JsonSchema, RestArg, RestContext } from '../rest/schema.ts';
import { listForRest } from '../site/rest-post-list.ts';
import { type PostExtras, PostsController } from './posts.controller.ts';

/** Fields of the posts schema a reusable block does not have (it supports title, editor and revisions). */
const UNSUPPORTED = ['excerpt', 'author', 'featured_media', 'comment_status', 'ping_status', 'format', 'sticky'];

export class BlocksController extends PostsController {
  readonly #rt: ContentRuntime;

  constructor(runtime: ContentRuntime) {
    super(runtime, 'cms_block');
    this.#rt = runtime;
  }

  protected override buildItemSchema(): JsonSchema {
    const schema = super.buildItemSchema();
    const properties: Record<string, JsonSchema> = { ...(schema.properties ?? {}) };
    for (const name of UNSUPPORTED) delete properties[name];
    for (const name of ['title', 'content'] as const) {
      const field = properties[name];
      if (!field?.properties) continue;
      const { rendered: _rendered, ...rest } = field.properties;
      // Blocks show their raw markup in view context too, and have no rendered form.
      properties[name] = {
        ...field,
        properties: { ...rest, raw: { ...(rest.raw as JsonSchema), context: ['view', 'edit'] } },
      };
    }
    return { ...schema, properties };
  }

  override collectionParams(): Record<string, RestArg> {
    const params = super.collectionParams();
    delete params.author;
    delete params.author_exclude;
    return params;
  }

  override filterResponseByContext<T>(data: T, context: RestContext): T {
    const filtered = super.filterResponseByContext(data, context) as Record<string, unknown>;
    for (const name of ['title', 'content']) {
      const field = filtered[name];
      if (field && typeof field === 'object') delete (field as Record<string, unknown>).rendered;
    }
    return filtered as T;
  }

  /**
   * handle_status_param() with the block capabilities mapped as map_meta_cap does (`publish_blocks` is
   * `publish_posts`), then the posts rules for everything else.
   */
  override async prepareItemForDatabase(request: RestRequest, existing: Post | null, settings: ContentSettings) {
    const status = request.get('status');
    if (typeof status !== 'string' || (existing && existing.status === status)) {
      return super.prepareItemForDatabase(request, existing, settings);
    }
    request.set('status', undefined);
    try {
      const write = await super.prepareItemForDatabase(request, existing, settings);
      if (['publish', 'future', 'private'].includes(status) && !(await request.can(this.type.cap.publish_posts))) {
        throw new RestError(
          'rest_cannot_publish',
          status === 'private'
            ? 'Sorry, you are not allowed to create private posts in this post type.'
            : 'Sorry, you are not allowed to publish posts in this post type.',
          { status: authorizationRequiredCode(request.user.id) },
        );
      }
      write.status = ['draft', 'pending', 'publish', 'future', 'private'].includes(status)
        ? status
        : getPostStatus(status)
          ? status
          : 'draft';
      return write;
    } finally {
      request.set('status', status);
    }
  }

  /** check_read_permission(): `read_post` first (edit_posts for blocks), then the posts rules. */
  override async canRead(post: Post, request: RestRequest): Promise<boolean> {
    if (!(await request.can('read_post', post.id))) return false;
    return super.canRead(post, request);
  }

  /** get_items(): the query, then each block's read check (the total still counts what is hidden). */
  override async getItems(request: RestRequest): Promise<RestResponse> {
    const result = await listForRest({
      runtime: this.#rt,
      type: this.type.slug,
      request,
      taxonomies: this.type.taxonomies.map((t) => getTaxonomy(t)).filter((t) => t !== undefined),
      defaultStatuses: ['publish'],
    });
    const posts: Post[] = [];
    for (const post of result.posts) if (await this.canRead(post, request)) posts.push(post);
    const extras = await this.loadExtras(posts, request);
    const state = (await this.#rt.renderer()).inner.newState();
    const items: unknown[] = [];
    for (const post of posts) {
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(post, request, extras, state)));
    }
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
    extras?: PostExtras,
    renderState?: BlockRenderState,
  ): Promise<RestResponse> {
    const response = await super.prepareItemForResponse(post, request, extras, renderState);
    const data = response.data as Record<string, unknown>;
    // Title and content are shown raw in view and edit context, never rendered (filter_response_by_context).
    const context = request.context;
    const rawVisible = context === 'view' || context === 'edit';
    if ('title' in data) data.title = rawVisible ? { raw: post.title } : {};
    if ('content' in data) {
      const content = (data.content ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      if (rawVisible) out.raw = post.content;
      if ('protected' in content) out.protected = content.protected;
      if ('block_version' in content) out.block_version = content.block_version;
      data.content = out;
    }
    if ('link' in data) {
      // get_post_permalink() of a type without rewrite rules or query var.
      const settings = extras?.settings ?? (await this.#rt.service.settings());
      data.link = `${settings.home}/?post_type=${this.type.slug}&p=${post.id}`;
    }
    // A block has no author or comments support; its attachments link stays (prepare_links() adds it to
    // every type but attachments, menu items and revisions).
    for (const rel of ['author', 'replies']) response.links.delete(rel);
    return response;
  }
}
