/**
 * /cms/v2/menu-locations — after WP_REST_Menu_Locations_Controller: the theme's menu locations and the
 * menu assigned to each. Read-only; assignments are made through the menus route's `locations` field.
 */
import type { CmsContext } from '../module.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { READABLE } from '../rest/route.ts';
import type { JsonSchema, RestContext } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { getMenuLocations, REGISTERED_MENU_LOCATIONS } from '../site/nav-menus.ts';

export class MenuLocationsController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'menu-locations';

  constructor(private readonly ctx: CmsContext) {
    super();
  }

  protected buildItemSchema(): JsonSchema {
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'menu-location',
      type: 'object',
      properties: {
        name: {
          description: 'The name of the menu location.',
          type: 'string',
          context: ['embed', 'view', 'edit'],
          readonly: true,
        },
        description: {
          description: 'The description of the menu location.',
          type: 'string',
          context: ['embed', 'view', 'edit'],
          readonly: true,
        },
        menu: {
          description: 'The ID of the assigned menu.',
          type: 'integer',
          context: ['embed', 'view', 'edit'],
          readonly: true,
        },
      },
    };
  }

  registerRoutes(server: RestServer): void {
    const schema = () => this.publicItemSchema();
    const permission = (r: RestRequest) => this.permissionsCheck(r);
    server.registerRoute(
      this.namespace,
      `/${this.restBase}`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItems(r),
          permission,
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      { schema },
    );
    server.registerRoute(
      this.namespace,
      `/${this.restBase}/(?P<location>[\\w-]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission,
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      {
        schema,
        args: { location: { description: 'An alphanumeric identifier for the menu location.', type: 'string' } },
      },
    );
  }

  private async permissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (!(await request.can('edit_theme_options'))) {
      return new RestError('rest_cannot_view', 'Sorry, you are not allowed to view menu locations.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return true;
  }

  private async getItems(request: RestRequest): Promise<RestResponse> {
    const assigned = await getMenuLocations(this.ctx.options);
    const data: Record<string, unknown> = {};
    for (const [name, description] of Object.entries(REGISTERED_MENU_LOCATIONS)) {
      data[name] = this.prepareResponseForCollection(await this.prepareItem(name, description, assigned, request));
    }
    return new RestResponse(data);
  }

  private async getItem(request: RestRequest): Promise<RestResponse> {
    const name = String(request.get('location') ?? '');
    const description = REGISTERED_MENU_LOCATIONS[name];
    if (description === undefined) {
      throw new RestError('rest_menu_location_invalid', 'Invalid menu location.', { status: 404 });
    }
    return this.prepareItem(name, description, await getMenuLocations(this.ctx.options), request);
  }

  private async prepareItem(
    name: string,
    description: string,
    assigned: Record<string, number>,
    request: RestRequest,
  ): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const menu = assigned[name] ?? 0;
    const data: Record<string, unknown> = {};
    if (this.isFieldIncluded('name', fields)) data.name = name;
    if (this.isFieldIncluded('description', fields)) data.description = description;
    if (this.isFieldIncluded('menu', fields)) data.menu = menu;
    const context = (request.get<string>('context') || 'view') as RestContext;
    const response = new RestResponse(this.filterResponseByContext(data, context));
    if (this.isFieldIncluded('_links', fields) || this.isFieldIncluded('_embedded', fields)) {
      const base = `/${this.namespace}/${this.restBase}`;
      response.addLink('self', await this.ctx.server.url(`${base}/${name}`));
      response.addLink('collection', await this.ctx.server.url(base));
      if (menu)
        response.addLink('https://api.w.org/menu', await this.ctx.server.url(`/cms/v2/menus/${menu}`), {
          embeddable: true,
        });
    }
    return response;
  }
}
