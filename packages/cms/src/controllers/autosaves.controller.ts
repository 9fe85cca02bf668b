/**
 * /cms/v2/{posts|pages}/{id}/autosaves[/{id}] — after WP_REST_Autosaves_Controller (WordPress 6.1).
 * Saving an autosave of one's own draft updates the draft in place (no revision); any other autosave is
 * kept as one autosave revision per user, overwritten by the next one.
 */
import { createHmac } from 'node:crypto';
import { permalink } from '../content/permalinks.ts';
import type { Post } from '../content/post.ts';
import type { ContentRuntime } from '../content/runtime.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { CREATABLE, EDITABLE, READABLE } from '../rest/route.ts';
import type { JsonSchema, RestArg } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import type { PostsController } from './posts.controller.ts';
import { toRestError } from './posts.controller.ts';
import type { RevisionsController } from './revisions.controller.ts';

export class AutosavesController extends RestController {
  readonly namespace: string;
  readonly restBase = 'autosaves';
  readonly #rt: ContentRuntime;
  readonly #posts: PostsController;
  readonly #revisions: RevisionsController;

  constructor(runtime: ContentRuntime, posts: PostsController, revisions: RevisionsController) {
    super();
    this.#rt = runtime;
    this.#posts = posts;
    this.#revisions = revisions;
    this.namespace = posts.namespace;
  }

  protected buildItemSchema(): JsonSchema {
    const schema = this.#revisions.itemSchema();
    return {
      ...schema,
      properties: {
        ...schema.properties,
        preview_link: {
          description: 'Preview link for the post.',
          type: 'string',
          format: 'uri',
          context: ['edit'],
          readonly: true,
        },
      },
    };
  }

  override collectionParams(): Record<string, RestArg> {
    return { context: this.contextParam({ default: 'view' }) };
  }

  registerRoutes(server: RestServer): void {
    const schema = () => this.publicItemSchema();
    const base = this.#posts.restBase;
    server.registerRoute(
      this.namespace,
      `/${base}/(?P<id>[\\d]+)/${this.restBase}`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItems(r),
          permission: (r) => this.getItemsPermissionsCheck(r),
          args: this.collectionParams(),
        },
        {
          methods: CREATABLE,
          handler: (r) => this.createItem(r),
          permission: (r) => this.createItemPermissionsCheck(r),
          args: this.#posts.endpointArgsForItemSchema(EDITABLE),
        },
      ],
      { schema, args: { parent: { description: 'The ID for the parent of the autosave.', type: 'integer' } } },
    );
    server.registerRoute(
      this.namespace,
      `/${base}/(?P<parent>[\\d]+)/${this.restBase}/(?P<id>[\\d]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: (r) => this.#revisions.getItemPermissionsCheck(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      {
        schema,
        args: {
          parent: { description: 'The ID for the parent of the autosave.', type: 'integer' },
          id: { description: 'The ID for the autosave.', type: 'integer' },
        },
      },
    );
  }

  async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const parent = await this.#revisions.getParent(request.get('id'));
    if (!(await request.can('edit_post', parent.id))) {
      return new RestError('rest_cannot_read', 'Sorry, you are not allowed to view autosaves of this post.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return true;
  }

  async getItems(request: RestRequest): Promise<RestResponse> {
    const parent = await this.#revisions.getParent(request.get('id'));
    const revisions = await this.#rt.service.repo.children(parent.id, 'revision');
    const items: unknown[] = [];
    for (const revision of revisions) {
      if (!revision.slug.includes(`${parent.id}-autosave`)) continue;
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(revision, request)));
    }
    return new RestResponse(items);
  }

  async getItem(request: RestRequest): Promise<RestResponse> {
    const parentId = toInt(request.get('parent'));
    if (parentId <= 0) throw new RestError('rest_post_invalid_id', 'Invalid post parent ID.', { status: 404 });
    const id = toInt(request.get('id'));
    const revisions = await this.#rt.service.repo.children(parentId, 'revision');
    const autosave = revisions.find((r) => r.id === id && r.slug === `${parentId}-autosave-v1`);
    if (!autosave) {
      throw new RestError('rest_post_no_autosave', 'There is no autosave revision for this post.', { status: 404 });
    }
    return this.prepareItemForResponse(autosave, request);
  }

  async createItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (!toInt(request.get('id'))) throw new RestError('rest_post_invalid_id', 'Invalid item ID.', { status: 404 });
    return this.#posts.updateItemPermissionsCheck(request);
  }

  async createItem(request: RestRequest): Promise<RestResponse> {
    const post = await this.#posts.getPost(request.get('id'));
    const settings = await this.#rt.service.settings();
    const write = await this.#posts.prepareItemForDatabase(request, post, settings);
    let autosave: Post;
    try {
      autosave = await this.#rt.service.autosave(post.id, write, {
        actorId: request.user.id,
        canPublish: await request.can('publish_post', post.id),
        unfilteredHtml: this.#rt.ctx.caps.allCaps(request.user).has('unfiltered_html'),
      });
    } catch (err) {
      throw toRestError(err);
    }
    request.set('context', 'edit');
    return this.prepareItemForResponse(autosave, request);
  }

  /** The revision response plus `preview_link`. */
  async prepareItemForResponse(item: Post, request: RestRequest): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const data = await this.#revisions.revisionData(item, request, fields);
    if (fields.includes('preview_link')) data.preview_link = await this.#previewLink(item, request);
    const response = new RestResponse(this.filterResponseByContext(data, request.context));
    if (item.parentId) {
      response.addLink(
        'parent',
        await this.#rt.ctx.server.url(`/${this.namespace}/${this.#posts.restBase}/${item.parentId}`),
      );
    }
    return response;
  }

  /** get_preview_post_link(): the post's link with `preview=true` (and the autosave's parent and a nonce). */
  async #previewLink(item: Post, request: RestRequest): Promise<string> {
    const isAutosave = item.type === 'revision' && item.slug.includes(`${item.parentId}-autosave`);
    const target = isAutosave ? await this.#rt.service.repo.findById(item.parentId) : item;
    if (!target) return '';
    const settings = await this.#rt.service.settings();
    const ancestors = target.type === 'page' ? await this.#rt.service.ancestorSlugs(target.parentId) : [];
    const link = permalink(target, settings, { ancestors });
    const params: string[] = [];
    if (isAutosave) {
      const tick = Math.ceil(this.#rt.service.now().getTime() / 1000 / 43_200);
      const nonce = createHmac('sha256', this.#rt.ctx.secret)
        .update(`${tick}|post_preview_${target.id}|${request.user.id}`)
        .digest('hex')
        .slice(-12, -2);
      params.push(`preview_id=${target.id}`, `preview_nonce=${nonce}`);
    }
    params.push('preview=true');
    return `${link}${link.includes('?') ? '&' : '?'}${params.join('&')}`;
  }
}
