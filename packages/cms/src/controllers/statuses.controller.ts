/**
 * /cms/v2/statuses[/{status}] — after WP_REST_Post_Statuses_Controller (WordPress 6.1).
 * @wp 6.1
 */
import { getPostStatus, POST_STATUSES, type PostStatusDef } from '../core/post-statuses.ts';
import { POST_TYPES } from '../core/post-types.ts';
import type { CmsContext } from '../module.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { READABLE } from '../rest/route.ts';
import type { JsonSchema } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';

export class StatusesController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'statuses';

  constructor(private readonly ctx: CmsContext) {
    super();
  }

  protected buildItemSchema(): JsonSchema {
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'status',
      type: 'object',
      properties: {
        name: {
          description: 'The title for the status.',
          type: 'string',
          context: ['embed', 'view', 'edit'],
          readonly: true,
        },
        private: {
          description: 'Whether posts with this status should be private.',
          type: 'boolean',
          context: ['edit'],
          readonly: true,
        },
        protected: {
          description: 'Whether posts with this status should be protected.',
          type: 'boolean',
          context: ['edit'],
          readonly: true,
        },
        public: {
          description: 'Whether posts of this status should be shown in the front end of the site.',
          type: 'boolean',
          context: ['view', 'edit'],
          readonly: true,
        },
        queryable: {
          description: 'Whether posts with this status should be publicly-queryable.',
          type: 'boolean',
          context: ['view', 'edit'],
          readonly: true,
        },
        show_in_list: {
          description: 'Whether to include posts in the edit listing for their post type.',
          type: 'boolean',
          context: ['edit'],
          readonly: true,
        },
        slug: {
          description: 'An alphanumeric identifier for the status.',
          type: 'string',
          context: ['embed', 'view', 'edit'],
          readonly: true,
        },
        date_floating: {
          description: 'Whether posts of this status may have floating published dates.',
          type: 'boolean',
          context: ['view', 'edit'],
          readonly: true,
        },
      },
    };
  }

  registerRoutes(server: RestServer): void {
    const schema = () => this.publicItemSchema();
    server.registerRoute(
      this.namespace,
      `/${this.restBase}`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItems(r),
          permission: (r) => this.getItemsPermissionsCheck(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      { schema },
    );
    server.registerRoute(
      this.namespace,
      `/${this.restBase}/(?P<status>[\\w-]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: (r) => this.getItemPermissionsCheck(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      { schema, args: { status: { description: 'An alphanumeric identifier for the status.', type: 'string' } } },
    );
  }

  private async canEditAnyType(request: RestRequest): Promise<boolean> {
    for (const type of POST_TYPES) if (await request.can(type.cap.edit_posts)) return true;
    return false;
  }

  /** check_read_permission(): public statuses for all; the others for users who can edit some post type. */
  private async canRead(status: PostStatusDef, request: RestRequest): Promise<boolean> {
    if (status.public) return true;
    if (!request.isLoggedIn) return false;
    return this.canEditAnyType(request);
  }

  private async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (request.get('context') === 'edit') {
      if (await this.canEditAnyType(request)) return true;
      return new RestError('rest_cannot_view', 'Sorry, you are not allowed to manage post statuses.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return true;
  }

  private async getItems(request: RestRequest): Promise<RestResponse> {
    const data: Record<string, unknown> = {};
    const listed = POST_STATUSES.filter((s) => !s.internal || s.slug === 'trash');
    for (const status of listed) {
      if (!(await this.canRead(status, request))) continue;
      data[status.slug] = this.prepareResponseForCollection(await this.prepareItemForResponse(status, request));
    }
    return new RestResponse(data);
  }

  private async getItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const status = getPostStatus(String(request.get('status') ?? ''));
    if (!status) throw new RestError('rest_status_invalid', 'Invalid status.', { status: 404 });
    if (!(await this.canRead(status, request))) {
      return new RestError('rest_cannot_read_status', 'Cannot view status.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return true;
  }

  private async getItem(request: RestRequest): Promise<RestResponse> {
    const status = getPostStatus(String(request.get('status') ?? ''));
    if (!status) throw new RestError('rest_status_invalid', 'Invalid status.', { status: 404 });
    return this.prepareItemForResponse(status, request);
  }

  async prepareItemForResponse(status: PostStatusDef, request: RestRequest): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => fields.includes(f);
    const data: Record<string, unknown> = {};
    if (has('name')) data.name = status.label;
    if (has('private')) data.private = status.private;
    if (has('protected')) data.protected = status.protected;
    if (has('public')) data.public = status.public;
    if (has('queryable')) data.queryable = status.publiclyQueryable;
    if (has('show_in_list')) data.show_in_list = status.showInAdminAllList;
    if (has('slug')) data.slug = status.slug;
    if (has('date_floating')) data.date_floating = status.dateFloating;
    const response = new RestResponse(this.filterResponseByContext(data, request.context));
    const posts = await this.ctx.server.url('/cms/v2/posts');
    response.addLink('archives', status.slug === 'publish' ? posts : `${posts}?status=${status.slug}`);
    return response;
  }
}
