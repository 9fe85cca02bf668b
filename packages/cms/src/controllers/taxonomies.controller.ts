/**
 * /cms/v2/taxonomies[/{taxonomy}] — after WP_REST_Taxonomies_Controller (WordPress 6.1).
 * @wp 6.1
 */
import { getTaxonomy, TAXONOMIES, type TaxonomyDef } from '../core/taxonomies.ts';
import type { CmsContext } from '../module.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { READABLE } from '../rest/route.ts';
import type { JsonSchema } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { taxonomyLabels } from './labels.ts';

export class TaxonomiesController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'taxonomies';

  constructor(private readonly ctx: CmsContext) {
    super();
  }

  protected buildItemSchema(): JsonSchema {
    const all: JsonSchema['context'] = ['view', 'edit', 'embed'];
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'taxonomy',
      type: 'object',
      properties: {
        capabilities: {
          description: 'All capabilities used by the taxonomy.',
          type: 'object',
          context: ['edit'],
          readonly: true,
        },
        description: {
          description: 'A human-readable description of the taxonomy.',
          type: 'string',
          context: ['view', 'edit'],
          readonly: true,
        },
        hierarchical: {
          description: 'Whether or not the taxonomy should have children.',
          type: 'boolean',
          context: ['view', 'edit'],
          readonly: true,
        },
        labels: {
          description: 'Human-readable labels for the taxonomy for various contexts.',
          type: 'object',
          context: ['edit'],
          readonly: true,
        },
        name: { description: 'The title for the taxonomy.', type: 'string', context: all, readonly: true },
        slug: {
          description: 'An alphanumeric identifier for the taxonomy.',
          type: 'string',
          context: all,
          readonly: true,
        },
        show_cloud: {
          description: 'Whether or not the term cloud should be displayed.',
          type: 'boolean',
          context: ['edit'],
          readonly: true,
        },
        types: {
          description: 'Types associated with the taxonomy.',
          type: 'array',
          items: { type: 'string' },
          context: ['view', 'edit'],
          readonly: true,
        },
        rest_base: { description: 'REST base route for the taxonomy.', type: 'string', context: all, readonly: true },
        rest_namespace: {
          description: 'REST namespace route for the taxonomy.',
          type: 'string',
          context: all,
          readonly: true,
        },
        visibility: {
          description: 'The visibility settings for the taxonomy.',
          type: 'object',
          context: ['edit'],
          readonly: true,
          properties: {
            public: {
              description:
                'Whether a taxonomy is intended for use publicly either via the admin interface or by front-end users.',
              type: 'boolean',
            },
            publicly_queryable: { description: 'Whether the taxonomy is publicly queryable.', type: 'boolean' },
            show_ui: { description: 'Whether to generate a default UI for managing this taxonomy.', type: 'boolean' },
            show_admin_column: {
              description: 'Whether to allow automatic creation of taxonomy columns on associated post-types table.',
              type: 'boolean',
            },
            show_in_nav_menus: {
              description: 'Whether to make the taxonomy available for selection in navigation menus.',
              type: 'boolean',
            },
            show_in_quick_edit: {
              description: 'Whether to show the taxonomy in the quick/bulk edit panel.',
              type: 'boolean',
            },
          },
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
          args: {
            context: this.contextParam({ default: 'view' }),
            type: { description: 'Limit results to taxonomies associated with a specific post type.', type: 'string' },
          },
        },
      ],
      { schema },
    );
    server.registerRoute(
      this.namespace,
      `/${this.restBase}/(?P<taxonomy>[\\w-]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: (r) => this.getItemPermissionsCheck(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      { schema, args: { taxonomy: { description: 'An alphanumeric identifier for the taxonomy.', type: 'string' } } },
    );
  }

  private async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (request.get('context') === 'edit') {
      for (const taxonomy of TAXONOMIES) {
        if (await request.can(taxonomy.cap.assign_terms)) return true;
      }
      return new RestError('rest_cannot_view', 'Sorry, you are not allowed to manage terms in this taxonomy.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return true;
  }

  private async getItems(request: RestRequest): Promise<RestResponse> {
    const type = request.get<string>('type');
    const data: Record<string, unknown> = {};
    for (const taxonomy of TAXONOMIES) {
      if (type && !taxonomy.objectTypes.includes(type)) continue;
      if (request.get('context') === 'edit' && !(await request.can(taxonomy.cap.assign_terms))) continue;
      data[taxonomy.slug] = this.prepareResponseForCollection(await this.prepareItemForResponse(taxonomy, request));
    }
    return new RestResponse(data);
  }

  private async getItemPermissionsCheck(request: RestRequest): Promise<true | RestError | false> {
    const taxonomy = getTaxonomy(String(request.get('taxonomy') ?? ''));
    if (!taxonomy) return true;
    if (request.get('context') === 'edit' && !(await request.can(taxonomy.cap.assign_terms))) {
      return new RestError('rest_forbidden_context', 'Sorry, you are not allowed to manage terms in this taxonomy.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return true;
  }

  private async getItem(request: RestRequest): Promise<RestResponse> {
    const taxonomy = getTaxonomy(String(request.get('taxonomy') ?? ''));
    if (!taxonomy) throw new RestError('rest_taxonomy_invalid', 'Invalid taxonomy.', { status: 404 });
    return this.prepareItemForResponse(taxonomy, request);
  }

  async prepareItemForResponse(taxonomy: TaxonomyDef, request: RestRequest): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => fields.includes(f);
    const data: Record<string, unknown> = {};
    if (has('name')) data.name = taxonomy.name;
    if (has('slug')) data.slug = taxonomy.slug;
    if (has('capabilities')) data.capabilities = { ...taxonomy.cap };
    if (has('description')) data.description = taxonomy.description;
    if (has('labels')) {
      data.labels = taxonomyLabels(
        String(taxonomy.labels.singular_name),
        String(taxonomy.labels.name),
        taxonomy.hierarchical,
      );
    }
    if (has('types')) data.types = [...taxonomy.objectTypes];
    if (has('show_cloud')) data.show_cloud = taxonomy.showCloud;
    if (has('hierarchical')) data.hierarchical = taxonomy.hierarchical;
    if (has('rest_base')) data.rest_base = taxonomy.restBase;
    if (has('rest_namespace')) data.rest_namespace = taxonomy.restNamespace;
    if (has('visibility')) data.visibility = { ...taxonomy.visibility };
    const response = new RestResponse(this.filterResponseByContext(data, request.context));
    if (this.isFieldIncluded('_links', fields) || this.isFieldIncluded('_embedded', fields)) {
      response.addLink('collection', await this.ctx.server.url(`/${this.namespace}/${this.restBase}`));
      response.addLink(
        'https://api.w.org/items',
        await this.ctx.server.url(`/${taxonomy.restNamespace}/${taxonomy.restBase}`),
      );
    }
    return response;
  }
}
