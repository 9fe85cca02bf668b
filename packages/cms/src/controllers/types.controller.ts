/**
 * /cms/v2/types[/{type}] — after WP_REST_Post_Types_Controller (WordPress 6.1).
 * @wp 6.1
 */
import { getPostType, POST_TYPES, type PostTypeDef } from '../core/post-types.ts';
import type { CmsContext } from '../module.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { READABLE } from '../rest/route.ts';
import type { JsonSchema } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { postTypeLabels } from './labels.ts';

export class TypesController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'types';

  constructor(private readonly ctx: CmsContext) {
    super();
  }

  protected buildItemSchema(): JsonSchema {
    const all: JsonSchema['context'] = ['view', 'edit', 'embed'];
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'type',
      type: 'object',
      properties: {
        capabilities: {
          description: 'All capabilities used by the post type.',
          type: 'object',
          context: ['edit'],
          readonly: true,
        },
        description: {
          description: 'A human-readable description of the post type.',
          type: 'string',
          context: ['view', 'edit'],
          readonly: true,
        },
        hierarchical: {
          description: 'Whether or not the post type should have children.',
          type: 'boolean',
          context: ['view', 'edit'],
          readonly: true,
        },
        viewable: {
          description: 'Whether or not the post type can be viewed.',
          type: 'boolean',
          context: ['edit'],
          readonly: true,
        },
        labels: {
          description: 'Human-readable labels for the post type for various contexts.',
          type: 'object',
          context: ['edit'],
          readonly: true,
        },
        name: { description: 'The title for the post type.', type: 'string', context: all, readonly: true },
        slug: {
          description: 'An alphanumeric identifier for the post type.',
          type: 'string',
          context: all,
          readonly: true,
        },
        supports: {
          description: 'All features, supported by the post type.',
          type: 'object',
          context: ['edit'],
          readonly: true,
        },
        has_archive: {
          description:
            'If the value is a string, the value will be used as the archive slug. If the value is false the post type has no archive.',
          type: ['string', 'boolean'],
          context: ['view', 'edit'],
          readonly: true,
        },
        taxonomies: {
          description: 'Taxonomies associated with post type.',
          type: 'array',
          items: { type: 'string' },
          context: ['view', 'edit'],
          readonly: true,
        },
        rest_base: { description: 'REST base route for the post type.', type: 'string', context: all, readonly: true },
        rest_namespace: { description: 'REST route for the post type.', type: 'string', context: all, readonly: true },
        visibility: {
          description: 'The visibility settings for the post type.',
          type: 'object',
          context: ['edit'],
          readonly: true,
          properties: {
            show_ui: { description: 'Whether to generate a default UI for managing this post type.', type: 'boolean' },
            show_in_nav_menus: {
              description: 'Whether to make the post type available for selection in navigation menus.',
              type: 'boolean',
            },
          },
        },
        icon: {
          description: 'The icon for the post type.',
          type: ['string', 'null'],
          context: ['view', 'edit', 'embed'],
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
      `/${this.restBase}/(?P<type>[\\w-]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: () => true,
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      { schema, args: { type: { description: 'An alphanumeric identifier for the post type.', type: 'string' } } },
    );
  }

  /** The edit context of the list needs edit rights on the posts of at least one type. */
  private async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (request.get('context') !== 'edit') return true;
    for (const type of POST_TYPES) {
      if (await request.can(type.cap.edit_posts)) return true;
    }
    return new RestError('rest_cannot_view', 'Sorry, you are not allowed to edit posts in this post type.', {
      status: authorizationRequiredCode(request.user.id),
    });
  }

  private async getItems(request: RestRequest): Promise<RestResponse> {
    const data: Record<string, unknown> = {};
    for (const type of POST_TYPES) {
      if (request.get('context') === 'edit' && !(await request.can(type.cap.edit_posts))) continue;
      data[type.slug] = this.prepareResponseForCollection(await this.prepareItemForResponse(type, request));
    }
    return new RestResponse(data);
  }

  private async getItem(request: RestRequest): Promise<RestResponse> {
    const type = getPostType(String(request.get('type') ?? ''));
    if (!type) throw new RestError('rest_type_invalid', 'Invalid post type.', { status: 404 });
    if (request.get('context') === 'edit' && !(await request.can(type.cap.edit_posts))) {
      throw new RestError('rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return this.prepareItemForResponse(type, request);
  }

  async prepareItemForResponse(type: PostTypeDef, request: RestRequest): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => fields.includes(f);
    const data: Record<string, unknown> = {};
    if (has('capabilities')) data.capabilities = { ...type.cap };
    if (has('description')) data.description = type.description;
    if (has('hierarchical')) data.hierarchical = type.hierarchical;
    if (has('has_archive')) data.has_archive = false;
    if (has('visibility')) data.visibility = { show_in_nav_menus: type.viewable, show_ui: true };
    if (has('viewable')) data.viewable = type.viewable;
    if (has('labels')) {
      data.labels = postTypeLabels(String(type.labels.singular_name), String(type.labels.name), type.hierarchical);
    }
    if (has('name')) data.name = type.name;
    if (has('slug')) data.slug = type.slug;
    if (has('icon')) data.icon = type.icon;
    if (has('supports')) data.supports = { ...type.supports };
    if (has('taxonomies')) data.taxonomies = [...type.taxonomies];
    if (has('rest_base')) data.rest_base = type.restBase;
    if (has('rest_namespace')) data.rest_namespace = type.restNamespace;
    const response = new RestResponse(this.filterResponseByContext(data, request.context));
    if (this.isFieldIncluded('_links', fields) || this.isFieldIncluded('_embedded', fields)) {
      response.addLink('collection', await this.ctx.server.url(`/${this.namespace}/${this.restBase}`));
      response.addLink('https://api.w.org/items', await this.ctx.server.url(`/${type.restNamespace}/${type.restBase}`));
    }
    return response;
  }
}
