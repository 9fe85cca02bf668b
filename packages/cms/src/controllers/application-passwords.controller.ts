/**
 * /cms/v2/users/{user_id|me}/application-passwords[/introspect|/{uuid}] — after
 * WP_REST_Application_Passwords_Controller (WordPress 6.1).
 * @wp 6.1
 */
import { createApplicationPassword } from '../auth/application-passwords-service.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import type { ApplicationPasswordRow, ApplicationPasswordsRepository } from '../db/application-passwords-repository.ts';
import type { User } from '../db/users-repository.ts';
import type { CmsContext } from '../module.ts';
import { RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { CREATABLE, DELETABLE, EDITABLE, READABLE } from '../rest/route.ts';
import type { JsonSchema } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';

function gmdate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

export class ApplicationPasswordsController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'users/(?P<user_id>(?:[\\d]+|me))/application-passwords';

  constructor(
    private readonly ctx: CmsContext,
    private readonly repo: ApplicationPasswordsRepository,
    private readonly auth: Authenticator,
    private readonly secret: string,
  ) {
    super();
  }

  protected buildItemSchema(): JsonSchema {
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'application-password',
      type: 'object',
      properties: {
        uuid: {
          description: 'The unique identifier for the application password.',
          type: 'string',
          format: 'uuid',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
        app_id: {
          description:
            'A UUID provided by the application to uniquely identify it. It is recommended to use an UUID v5 with the URL or DNS namespace.',
          type: 'string',
          format: 'uuid',
          context: ['view', 'edit', 'embed'],
        },
        name: {
          description: 'The name of the application password.',
          type: 'string',
          required: true,
          context: ['view', 'edit', 'embed'],
          minLength: 1,
          pattern: '.*\\S.*',
        },
        password: {
          description: 'The generated password. Only available after adding an application.',
          type: 'string',
          context: ['edit'],
          readonly: true,
        },
        created: {
          description: 'The GMT date the application password was created.',
          type: 'string',
          format: 'date-time',
          context: ['view', 'edit'],
          readonly: true,
        },
        last_used: {
          description: 'The GMT date the application password was last used.',
          type: ['string', 'null'],
          format: 'date-time',
          context: ['view', 'edit'],
          readonly: true,
        },
        last_ip: {
          description: 'The IP address the application password was last used by.',
          type: ['string', 'null'],
          format: 'ip',
          context: ['view', 'edit'],
          readonly: true,
        },
      },
    };
  }

  registerRoutes(server: RestServer): void {
    const schema = () => this.publicItemSchema();
    const base = `/${this.restBase}`;
    server.registerRoute(
      this.namespace,
      base,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItems(r),
          permission: (r) =>
            this.check(
              r,
              'list_app_passwords',
              'rest_cannot_list_application_passwords',
              'Sorry, you are not allowed to list application passwords for this user.',
            ),
          args: { context: this.contextParam({ default: 'view' }) },
        },
        {
          methods: CREATABLE,
          handler: (r) => this.createItem(r),
          permission: (r) =>
            this.check(
              r,
              'create_app_password',
              'rest_cannot_create_application_passwords',
              'Sorry, you are not allowed to create application passwords for this user.',
            ),
          args: this.endpointArgsForItemSchema(CREATABLE),
        },
        {
          methods: DELETABLE,
          handler: (r) => this.deleteItems(r),
          permission: (r) =>
            this.check(
              r,
              'delete_app_passwords',
              'rest_cannot_delete_application_passwords',
              'Sorry, you are not allowed to delete application passwords for this user.',
            ),
        },
      ],
      { schema },
    );
    server.registerRoute(
      this.namespace,
      `${base}/introspect`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getCurrentItem(r),
          permission: (r) => this.introspectPermission(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
      ],
      { schema },
    );
    server.registerRoute(
      this.namespace,
      `${base}/(?P<uuid>[\\w\\-]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: (r) =>
            this.check(
              r,
              'read_app_password',
              'rest_cannot_read_application_password',
              'Sorry, you are not allowed to read this application password.',
            ),
          args: { context: this.contextParam({ default: 'view' }) },
        },
        {
          methods: EDITABLE,
          handler: (r) => this.updateItem(r),
          permission: (r) =>
            this.check(
              r,
              'edit_app_password',
              'rest_cannot_edit_application_password',
              'Sorry, you are not allowed to edit this application password.',
            ),
          args: this.endpointArgsForItemSchema(EDITABLE),
        },
        {
          methods: DELETABLE,
          handler: (r) => this.deleteItem(r),
          permission: (r) =>
            this.check(
              r,
              'delete_app_password',
              'rest_cannot_delete_application_password',
              'Sorry, you are not allowed to delete this application password.',
            ),
        },
      ],
      { schema },
    );
  }

  /** get_user(): `me` or an id; 404 for unknown users. */
  private async getUser(request: RestRequest): Promise<User> {
    const raw = request.get('user_id');
    if (raw === 'me') {
      if (request.user.id === 0)
        throw new RestError('rest_not_logged_in', 'You are not currently logged in.', { status: 401 });
      const me = await this.ctx.users.findById(request.user.id);
      if (me) return me;
    }
    const id = toInt(raw);
    const user = id > 0 ? await this.ctx.users.findById(id) : null;
    if (!user) throw new RestError('rest_user_invalid_id', 'Invalid user ID.', { status: 404 });
    return user;
  }

  private async check(request: RestRequest, cap: string, code: string, message: string): Promise<true | RestError> {
    const user = await this.getUser(request);
    if (!(await request.can(cap, user.id, request.get('uuid')))) {
      return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
    }
    return true;
  }

  private async introspectPermission(request: RestRequest): Promise<true | RestError> {
    const user = await this.getUser(request);
    if (request.user.id !== user.id) {
      return new RestError(
        'rest_cannot_introspect_app_password_for_non_authenticated_user',
        'The authenticated application password can only be introspected for the current user.',
        { status: authorizationRequiredCode(request.user.id) },
      );
    }
    return true;
  }

  private async getPassword(request: RestRequest, user: User): Promise<ApplicationPasswordRow> {
    const row = await this.repo.find(user.id, String(request.get('uuid') ?? ''));
    if (!row)
      throw new RestError('rest_application_password_not_found', 'Application password not found.', { status: 404 });
    return row;
  }

  private async getItems(request: RestRequest): Promise<RestResponse> {
    const user = await this.getUser(request);
    const items: unknown[] = [];
    for (const row of await this.repo.listForUser(user.id)) {
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(row, user, request)));
    }
    return new RestResponse(items);
  }

  private async getItem(request: RestRequest): Promise<RestResponse> {
    const user = await this.getUser(request);
    return this.prepareItemForResponse(await this.getPassword(request, user), user, request);
  }

  private async createItem(request: RestRequest): Promise<RestResponse> {
    const user = await this.getUser(request);
    const appId = request.get('app_id');
    const created = await createApplicationPassword(this.repo, this.secret, {
      userId: user.id,
      name: String(request.get('name') ?? ''),
      ...(appId ? { appId: String(appId) } : {}),
      now: this.ctx.now(),
    });
    request.set('context', 'edit');
    const response = await this.prepareItemForResponse(created.row, user, request, created.password);
    response.status = 201;
    response.header('Location', await this.selfUrl(user, created.row));
    return response;
  }

  private async updateItem(request: RestRequest): Promise<RestResponse> {
    const user = await this.getUser(request);
    const row = await this.getPassword(request, user);
    const name = request.get('name');
    if (typeof name === 'string' && name !== row.name) {
      if (name.trim() === '') {
        throw new RestError(
          'application_password_empty_name',
          'An application name is required to create an application password.',
          {
            status: 400,
          },
        );
      }
      await this.repo.rename(user.id, row.uuid, name);
    }
    request.set('context', 'edit');
    return this.prepareItemForResponse((await this.repo.find(user.id, row.uuid)) ?? row, user, request);
  }

  private async deleteItems(request: RestRequest): Promise<RestResponse> {
    const user = await this.getUser(request);
    const count = await this.repo.deleteAll(user.id);
    this.auth.forgetUser(user.id);
    return new RestResponse({ deleted: true, count });
  }

  private async deleteItem(request: RestRequest): Promise<RestResponse> {
    const user = await this.getUser(request);
    const row = await this.getPassword(request, user);
    request.set('context', 'edit');
    const previous = await this.prepareItemForResponse(row, user, request);
    await this.repo.delete(user.id, row.uuid);
    this.auth.forgetUser(user.id);
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  private async getCurrentItem(request: RestRequest): Promise<RestResponse> {
    const user = await this.getUser(request);
    const uuid = (request.user as { appPasswordUuid?: string }).appPasswordUuid;
    if (!uuid)
      throw new RestError('rest_no_authenticated_app_password', 'Cannot introspect application password.', {
        status: 404,
      });
    const row = await this.repo.find(user.id, uuid);
    if (!row)
      throw new RestError('rest_application_password_not_found', 'Application password not found.', { status: 500 });
    return this.prepareItemForResponse(row, user, request);
  }

  private selfUrl(user: User, row: ApplicationPasswordRow): Promise<string> {
    return this.ctx.server.url(`/${this.namespace}/users/${user.id}/application-passwords/${row.uuid}`);
  }

  private async prepareItemForResponse(
    row: ApplicationPasswordRow,
    user: User,
    request: RestRequest,
    newPassword?: string,
  ): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const data: Record<string, unknown> = {
      uuid: row.uuid,
      app_id: row.app_id || '',
      name: row.name,
      created: gmdate(Number(row.created)),
      last_used: row.last_used ? gmdate(Number(row.last_used)) : null,
      last_ip: row.last_ip || null,
    };
    if (newPassword) data.password = newPassword;
    const response = new RestResponse(this.filterResponseByContext(data, request.context));
    if (this.isFieldIncluded('_links', fields) || this.isFieldIncluded('_embedded', fields)) {
      response.addLink('self', await this.selfUrl(user, row));
    }
    return response;
  }
}
