/**
 * /cms/v2/users, /users/{id}, /users/me — after WP_REST_Users_Controller (WordPress 6.1).
 * @wp 6.1
 */
import { createHash } from 'node:crypto';
import { hashPassword } from '../auth/passwords.ts';
import { ROLES } from '../auth/roles.ts';
import {
  checkUserLengths,
  createUser,
  deleteUser,
  isValidUsername,
  phpEmpty,
  sanitizeUserEmail,
  sanitizeUserUrl,
  uniqueNicename,
} from '../auth/users-service.ts';
import { ksesData, sanitizeNameField } from '../content/render/kses.ts';
import { sanitizeTitle } from '../content/slugs.ts';
import { POST_TYPES } from '../core/post-types.ts';
import type { User, UserQuery } from '../db/users-repository.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import type { CmsContext } from '../module.ts';
import { RestController, sanitizeTextArg } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import { absint, isNumeric, toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { CREATABLE, DELETABLE, EDITABLE, READABLE } from '../rest/route.ts';
import type { JsonSchema, RestArg } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';

const AVATAR_SIZES = [24, 48, 96];

/** Post types whose authors count for `who=authors` / `has_published_posts`. */
const REST_POST_TYPES = POST_TYPES.map((t) => t.slug);

function err(code: string, message: string, request: RestRequest): RestError {
  return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
}

export class UsersController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'users';

  constructor(private readonly ctx: CmsContext) {
    super();
  }

  protected buildItemSchema(): JsonSchema {
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'user',
      type: 'object',
      properties: {
        id: {
          description: 'Unique identifier for the user.',
          type: 'integer',
          context: ['embed', 'view', 'edit'],
          readonly: true,
        },
        username: {
          description: 'Login name for the user.',
          type: 'string',
          context: ['edit'],
          required: true,
          arg_options: { sanitizeCallback: (v) => this.checkUsername(v) },
        },
        name: {
          description: 'Display name for the user.',
          type: 'string',
          context: ['embed', 'view', 'edit'],
          arg_options: { sanitizeCallback: sanitizeTextArg },
        },
        first_name: {
          description: 'First name for the user.',
          type: 'string',
          context: ['edit'],
          arg_options: { sanitizeCallback: sanitizeTextArg },
        },
        last_name: {
          description: 'Last name for the user.',
          type: 'string',
          context: ['edit'],
          arg_options: { sanitizeCallback: sanitizeTextArg },
        },
        email: {
          description: 'The email address for the user.',
          type: 'string',
          format: 'email',
          context: ['edit'],
          required: true,
        },
        url: {
          description: 'URL of the user.',
          type: 'string',
          format: 'uri',
          context: ['embed', 'view', 'edit'],
        },
        description: { description: 'Description of the user.', type: 'string', context: ['embed', 'view', 'edit'] },
        link: {
          description: 'Author URL of the user.',
          type: 'string',
          format: 'uri',
          context: ['embed', 'view', 'edit'],
          readonly: true,
        },
        locale: { description: 'Locale for the user.', type: 'string', enum: ['', 'en_US'], context: ['edit'] },
        nickname: {
          description: 'The nickname for the user.',
          type: 'string',
          context: ['edit'],
          arg_options: { sanitizeCallback: sanitizeTextArg },
        },
        slug: {
          description: 'An alphanumeric identifier for the user.',
          type: 'string',
          context: ['embed', 'view', 'edit'],
          arg_options: { sanitizeCallback: (v) => sanitizeTitle(String(v)) },
        },
        registered_date: {
          description: 'Registration date for the user.',
          type: 'string',
          format: 'date-time',
          context: ['edit'],
          readonly: true,
        },
        roles: {
          description: 'Roles assigned to the user.',
          type: 'array',
          items: { type: 'string' },
          context: ['edit'],
        },
        password: {
          description: 'Password for the user (never included).',
          type: 'string',
          context: [],
          required: true,
          arg_options: { sanitizeCallback: (v) => this.checkPassword(v) },
        },
        capabilities: {
          description: 'All capabilities assigned to the user.',
          type: 'object',
          context: ['edit'],
          readonly: true,
        },
        extra_capabilities: {
          description: 'Any extra capabilities assigned to the user.',
          type: 'object',
          context: ['edit'],
          readonly: true,
        },
        avatar_urls: {
          description: 'Avatar URLs for the user.',
          type: 'object',
          context: ['embed', 'view', 'edit'],
          readonly: true,
          properties: Object.fromEntries(
            AVATAR_SIZES.map((size) => [
              String(size),
              {
                description: `Avatar URL with image size of ${size} pixels.`,
                type: 'string',
                format: 'uri',
                context: ['embed', 'view', 'edit'],
              } satisfies JsonSchema,
            ]),
          ),
        },
        meta: {
          description: 'Meta fields.',
          type: 'object',
          context: ['view', 'edit'],
          properties: {
            persisted_preferences: {
              type: 'object',
              description: '',
              default: [],
              context: ['edit'],
              properties: {
                _modified: {
                  description: 'The date and time the preferences were updated.',
                  type: 'string',
                  format: 'date-time',
                  readonly: false,
                },
              },
              additionalProperties: true,
            },
          },
        },
      },
    };
  }

  /** The `check_username` sanitiser. */
  private checkUsername(value: unknown): unknown {
    const username = String(value ?? '');
    if (!isValidUsername(username)) {
      return new RestError(
        'rest_user_invalid_username',
        'This username is invalid because it uses illegal characters. Please enter a valid username.',
        { status: 400 },
      );
    }
    return username;
  }

  /** The `check_user_password` sanitiser. */
  private checkPassword(value: unknown): unknown {
    const password = String(value ?? '');
    if (password === '') {
      return new RestError('rest_user_invalid_password', 'Passwords cannot be empty.', { status: 400 });
    }
    if (password.includes('\\')) {
      return new RestError('rest_user_invalid_password', 'Passwords cannot contain the "\\" character.', {
        status: 400,
      });
    }
    return password;
  }

  /** The `check_reassign` sanitiser: a number, or false for "delete their posts". */
  private checkReassign(value: unknown): unknown {
    if (isNumeric(value)) return value;
    if (value === '' || value === false || value === 'false' || value === null || value === 0 || value === '0')
      return false;
    return new RestError('rest_invalid_param', 'Invalid user parameter(s).', { status: 400 });
  }

  override collectionParams(): Record<string, RestArg> {
    const params = super.collectionParams();
    return {
      ...params,
      context: { ...params.context!, default: 'view' },
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
        default: 'asc',
        description: 'Order sort attribute ascending or descending.',
        enum: ['asc', 'desc'],
        type: 'string',
      },
      orderby: {
        default: 'name',
        description: 'Sort collection by user attribute.',
        enum: ['id', 'include', 'name', 'registered_date', 'slug', 'include_slugs', 'email', 'url'],
        type: 'string',
      },
      slug: {
        description: 'Limit result set to users with one or more specific slugs.',
        type: 'array',
        items: { type: 'string' },
      },
      roles: {
        description:
          'Limit result set to users matching at least one specific role provided. Accepts csv list or single role.',
        type: 'array',
        items: { type: 'string' },
      },
      capabilities: {
        description:
          'Limit result set to users matching at least one specific capability provided. Accepts csv list or single capability.',
        type: 'array',
        items: { type: 'string' },
      },
      who: { description: 'Limit result set to users who are considered authors.', type: 'string', enum: ['authors'] },
      has_published_posts: {
        description: 'Limit result set to users who have published posts.',
        type: ['boolean', 'array'],
        items: { type: 'string', enum: REST_POST_TYPES },
      },
    };
  }

  private deleteArgs(): Record<string, RestArg> {
    return {
      force: { type: 'boolean', default: false, description: 'Required to be true, as users do not support trashing.' },
      reassign: {
        type: 'integer',
        description: "Reassign the deleted user's posts and links to this user ID.",
        required: true,
        sanitizeCallback: (v) => this.checkReassign(v),
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
          args: this.collectionParams(),
        },
        {
          methods: CREATABLE,
          handler: (r) => this.createItem(r),
          permission: (r) => this.createItemPermissionsCheck(r),
          args: this.endpointArgsForItemSchema(CREATABLE),
        },
      ],
      { schema },
    );
    server.registerRoute(
      this.namespace,
      `/${this.restBase}/(?P<id>[\\d]+)`,
      [
        {
          methods: READABLE,
          handler: (r) => this.getItem(r),
          permission: (r) => this.getItemPermissionsCheck(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
        {
          methods: EDITABLE,
          handler: (r) => this.updateItem(r, toInt(r.get('id'))),
          permission: (r) => this.updateItemPermissionsCheck(r, toInt(r.get('id'))),
          args: this.endpointArgsForItemSchema(EDITABLE),
        },
        {
          methods: DELETABLE,
          handler: (r) => this.deleteItem(r, toInt(r.get('id'))),
          permission: (r) => this.deleteItemPermissionsCheck(r, toInt(r.get('id'))),
          args: this.deleteArgs(),
        },
      ],
      { schema, args: { id: { description: 'Unique identifier for the user.', type: 'integer' } } },
    );
    server.registerRoute(
      this.namespace,
      `/${this.restBase}/me`,
      [
        {
          methods: READABLE,
          permission: () => true,
          handler: (r) => this.getCurrentItem(r),
          args: { context: this.contextParam({ default: 'view' }) },
        },
        {
          methods: EDITABLE,
          handler: (r) => this.updateItem(r, r.user.id),
          permission: (r) => this.updateItemPermissionsCheck(r, r.user.id),
          args: this.endpointArgsForItemSchema(EDITABLE),
        },
        {
          methods: DELETABLE,
          handler: (r) => this.deleteItem(r, r.user.id),
          permission: (r) => this.deleteItemPermissionsCheck(r, r.user.id),
          args: this.deleteArgs(),
        },
      ],
      { schema },
    );
  }

  // --- lookups ----------------------------------------------------------------------------------------

  private async getUser(id: unknown): Promise<User> {
    const n = toInt(id);
    const user = n > 0 ? await this.ctx.users.findById(n) : null;
    if (!user) throw new RestError('rest_user_invalid_id', 'Invalid user ID.', { status: 404 });
    return user;
  }

  private async canEditAnyAuthoredType(request: RestRequest): Promise<boolean> {
    for (const type of POST_TYPES) {
      if (type.supports.author && (await request.can(type.cap.edit_posts))) return true;
    }
    return false;
  }

  // --- collection -------------------------------------------------------------------------------------

  private async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const listUsers = await request.can('list_users');
    const roles = request.get<unknown[]>('roles');
    if (Array.isArray(roles) && roles.length > 0 && !listUsers) {
      return err('rest_user_cannot_view', 'Sorry, you are not allowed to filter users by role.', request);
    }
    const capabilities = request.get<unknown[]>('capabilities');
    if (Array.isArray(capabilities) && capabilities.length > 0 && !listUsers) {
      return err('rest_user_cannot_view', 'Sorry, you are not allowed to filter users by capability.', request);
    }
    if (request.get('context') === 'edit' && !listUsers) {
      return err('rest_forbidden_context', 'Sorry, you are not allowed to edit users.', request);
    }
    const orderby = request.get('orderby');
    if ((orderby === 'email' || orderby === 'registered_date') && !listUsers) {
      return err('rest_forbidden_orderby', 'Sorry, you are not allowed to order users by this parameter.', request);
    }
    if (request.get('who') === 'authors') {
      if (await this.canEditAnyAuthoredType(request)) return true;
      return err('rest_forbidden_who', 'Sorry, you are not allowed to query users by this parameter.', request);
    }
    return true;
  }

  private async getItems(request: RestRequest): Promise<RestResponse> {
    const listUsers = await request.can('list_users');
    const perPage = toInt(request.get('per_page'));
    const page = toInt(request.get('page'));
    const offsetParam = toInt(request.get('offset'));
    const offset = offsetParam ? offsetParam : (page - 1) * perPage;
    const query: UserQuery = {
      // wp_parse_id_list(): absint() of each id.
      include: (request.get<number[]>('include') ?? []).map(absint),
      exclude: (request.get<number[]>('exclude') ?? []).map(absint),
      order: request.get('order') === 'desc' ? 'desc' : 'asc',
      orderby: String(request.get('orderby') ?? 'name') as UserQuery['orderby'],
      limit: perPage,
      offset,
    };
    const slugs = request.get<string[]>('slug');
    if (slugs && slugs.length > 0) query.slugs = slugs.map(String);
    const roles = request.get<string[]>('roles');
    if (roles && roles.length > 0) query.rolesAnyOf = roles.map(String);
    const capabilities = request.get<string[]>('capabilities');
    if (capabilities && capabilities.length > 0) {
      const wanted = capabilities.map(String);
      const holders = Object.entries(ROLES)
        .filter(([, role]) => wanted.some((c) => role.capabilities.includes(c)))
        .map(([name]) => name);
      query.rolesAnyOf = query.rolesAnyOf ? query.rolesAnyOf.filter((r) => holders.includes(r)) : holders;
    }
    let publishedTypes: readonly string[] | null = null;
    if (request.get('who') === 'authors') {
      // WP_User_Query `who=authors`: users whose user_level is not 0, i.e. roles above subscriber.
      const authors = Object.entries(ROLES)
        .filter(([, role]) => role.capabilities.includes('level_1'))
        .map(([name]) => name);
      query.rolesAnyOf = query.rolesAnyOf ? query.rolesAnyOf.filter((r) => authors.includes(r)) : authors;
    } else if (!listUsers) {
      publishedTypes = REST_POST_TYPES;
    }
    const hasPublished = request.get('has_published_posts');
    if (hasPublished === true) publishedTypes = REST_POST_TYPES;
    else if (Array.isArray(hasPublished) && hasPublished.length > 0) publishedTypes = hasPublished.map(String);
    if (publishedTypes) query.onlyIds = [...(await this.ctx.content.usersWithPublishedPosts(publishedTypes))];
    const search = request.get<string>('search');
    if (search) {
      // Without list_users, search may not reveal emails or URLs.
      query.search = `*${search}*`;
      if (!listUsers) query.searchColumns = ['id', 'login', 'nicename', 'display_name'];
    }
    const users = await this.ctx.users.list(query);
    const items: unknown[] = [];
    const editContext = request.get('context') === 'edit';
    for (const user of users) {
      if (editContext && !(await request.can('edit_user', user.id))) continue;
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(user, request)));
    }
    const response = new RestResponse(items);
    const { limit: _l, offset: _o, ...countQuery } = query;
    const total = await this.ctx.users.countMatching(countQuery);
    setPaginationHeaders(
      response,
      request,
      {
        total,
        perPage,
        page: Math.ceil(offset / perPage + 1),
        baseUrl: await this.ctx.server.url(`/${this.namespace}/${this.restBase}`),
      },
      this.ctx.server.headerPrefix,
    );
    return response;
  }

  // --- single -----------------------------------------------------------------------------------------

  private async getItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const user = await this.getUser(request.get('id'));
    if (request.user.id === user.id) return true;
    const canEdit = await request.can('edit_user', user.id);
    if (request.get('context') === 'edit' && !canEdit) {
      return err('rest_forbidden_context', 'Sorry, you are not allowed to edit this user.', request);
    }
    if (!canEdit && !(await request.can('list_users'))) {
      const authors = await this.ctx.content.usersWithPublishedPosts(REST_POST_TYPES);
      if (!authors.has(user.id))
        return err('rest_user_cannot_view', 'Sorry, you are not allowed to list users.', request);
    }
    return true;
  }

  private async getItem(request: RestRequest): Promise<RestResponse> {
    return this.prepareItemForResponse(await this.getUser(request.get('id')), request);
  }

  private async getCurrentItem(request: RestRequest): Promise<RestResponse> {
    if (request.user.id === 0)
      throw new RestError('rest_not_logged_in', 'You are not currently logged in.', { status: 401 });
    return this.prepareItemForResponse(await this.getUser(request.user.id), request);
  }

  // --- create / update --------------------------------------------------------------------------------

  private async createItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (!(await request.can('create_users'))) {
      return err('rest_cannot_create_user', 'Sorry, you are not allowed to create new users.', request);
    }
    return true;
  }

  /** check_role_update(): roles must exist, be grantable, and not demote yourself out of edit_users. */
  private async checkRoleUpdate(request: RestRequest, userId: number, roles: unknown[]): Promise<void> {
    for (const role of roles.map(String)) {
      const def = ROLES[role];
      if (!def) throw new RestError('rest_user_invalid_role', `The role ${role} does not exist.`, { status: 400 });
      if (request.user.id === userId && !def.capabilities.includes('edit_users')) {
        throw err('rest_user_invalid_role', 'Sorry, you are not allowed to give users that role.', request);
      }
      // get_editable_roles(): every role for someone who may promote users; none otherwise.
      if (!(await request.can('promote_users'))) {
        throw new RestError('rest_user_invalid_role', 'Sorry, you are not allowed to give users that role.', {
          status: 403,
        });
      }
    }
  }

  private async createItem(request: RestRequest): Promise<RestResponse> {
    if (request.get('id')) throw new RestError('rest_user_exists', 'Cannot create existing user.', { status: 400 });
    const roles = request.get<unknown[]>('roles');
    if (Array.isArray(roles) && roles.length > 0) await this.checkRoleUpdate(request, 0, roles);
    const str = (name: string) => {
      const v = request.get(name);
      return v === undefined || v === null ? undefined : String(v);
    };
    const user = await createUser(this.ctx, {
      login: String(request.get('username') ?? ''),
      email: String(request.get('email') ?? ''),
      password: String(request.get('password') ?? ''),
      ...(Array.isArray(roles) && roles.length > 0 ? { roles: roles.map(String) } : {}),
      ...(str('name') !== undefined ? { displayName: str('name')! } : {}),
      ...(str('first_name') !== undefined ? { firstName: str('first_name')! } : {}),
      ...(str('last_name') !== undefined ? { lastName: str('last_name')! } : {}),
      ...(str('nickname') !== undefined ? { nickname: str('nickname')! } : {}),
      ...(str('slug') ? { slug: str('slug')! } : {}),
      ...(str('description') !== undefined ? { description: ksesData(str('description')!) } : {}),
      ...(str('url') !== undefined ? { url: str('url')! } : {}),
      ...(str('locale') !== undefined ? { locale: str('locale')! } : {}),
    });
    request.set('context', 'edit');
    const response = await this.prepareItemForResponse(user, request);
    response.status = 201;
    response.header('Location', await this.ctx.server.url(`/${this.namespace}/${this.restBase}/${user.id}`));
    return response;
  }

  private async updateItemPermissionsCheck(request: RestRequest, id: number): Promise<true | RestError> {
    const user = await this.getUser(id);
    const roles = request.get<unknown[]>('roles');
    if (Array.isArray(roles) && roles.length > 0) {
      if (!(await request.can('promote_user', user.id))) {
        return err('rest_cannot_edit_roles', 'Sorry, you are not allowed to edit roles of this user.', request);
      }
      const keys = Object.keys(request.getParams()).filter((k) => k !== 'id' && k !== 'roles');
      // Only roles (and the id) given: promote_user is enough.
      if (keys.length === 0) return true;
    }
    if (!(await request.can('edit_user', user.id))) {
      return err('rest_cannot_edit', 'Sorry, you are not allowed to edit this user.', request);
    }
    return true;
  }

  private async updateItem(request: RestRequest, id: number): Promise<RestResponse> {
    const user = await this.getUser(id);
    const email = request.get('email');
    if (typeof email === 'string') {
      const owner = await this.ctx.users.findByEmail(sanitizeUserEmail(email));
      if (owner && owner.id !== user.id) {
        throw new RestError('rest_user_invalid_email', 'Invalid email address.', { status: 400 });
      }
    }
    const username = request.get('username');
    if (username && username !== user.login) {
      throw new RestError('rest_user_invalid_argument', 'Username is not editable.', { status: 400 });
    }
    const slug = request.get('slug');
    if (slug && slug !== user.nicename && (await this.ctx.users.findBySlug(String(slug)))) {
      throw new RestError('rest_user_invalid_slug', 'Invalid slug.', { status: 400 });
    }
    const roles = request.get<unknown[]>('roles');
    if (Array.isArray(roles) && roles.length > 0) await this.checkRoleUpdate(request, user.id, roles);
    const changes: Parameters<typeof this.ctx.users.update>[1] = {};
    const set = <K extends keyof typeof changes>(
      key: K,
      param: string,
      map: (v: unknown) => (typeof changes)[K] = (v) => String(v) as never,
    ) => {
      const v = request.get(param);
      if (v !== undefined && v !== null) changes[key] = map(v);
    };
    set('email', 'email', (v) => sanitizeUserEmail(String(v)));
    // The pre_user_* save filters: names are stored escaped ("A & B" as "A &amp; B"). wp_insert_user() on an
    // update: an empty (PHP's empty()) display name or nickname becomes the login, an empty first or last
    // name ''; the display name is not recomputed from the first and last names.
    const orLogin = (v: unknown) => sanitizeNameField(phpEmpty(String(v)) ? user.login : v);
    const orEmpty = (v: unknown) => sanitizeNameField(phpEmpty(String(v)) ? '' : v);
    set('display_name', 'name', orLogin);
    set('first_name', 'first_name', orEmpty);
    set('last_name', 'last_name', orEmpty);
    set('nickname', 'nickname', orLogin);
    set('description', 'description', (v) => ksesData(String(v)));
    set('url', 'url', sanitizeUserUrl);
    set('locale', 'locale');
    // wp_insert_user()'s length checks, as on create; the display name and email are checked by the repository.
    checkUserLengths({
      ...(typeof slug === 'string' && slug !== '' ? { nicename: slug } : {}),
      ...(changes.url !== undefined ? { url: changes.url } : {}),
    });
    if (typeof slug === 'string' && slug !== '') changes.nicename = await uniqueNicename(this.ctx, slug, user.id);
    const password = request.get('password');
    if (typeof password === 'string' && password !== '') changes.pass_hash = await hashPassword(password);
    if (Array.isArray(roles) && roles.length > 0) changes.roles = roles.map(String);
    await writeTransaction(this.ctx.db, (trx) => this.ctx.users.update(user.id, changes, trx));
    request.set('context', 'edit');
    return this.prepareItemForResponse(await this.getUser(user.id), request);
  }

  // --- delete -----------------------------------------------------------------------------------------

  private async deleteItemPermissionsCheck(request: RestRequest, id: number): Promise<true | RestError> {
    const user = await this.getUser(id);
    if (!(await request.can('delete_user', user.id))) {
      return err('rest_user_cannot_delete', 'Sorry, you are not allowed to delete this user.', request);
    }
    return true;
  }

  private async deleteItem(request: RestRequest, id: number): Promise<RestResponse> {
    const user = await this.getUser(id);
    const reassignParam = request.get('reassign');
    const reassign = reassignParam === false ? null : absint(reassignParam);
    const force = Boolean(request.get('force'));
    if (!force) {
      throw new RestError('rest_trash_not_supported', "Users do not support trashing. Set 'force=true' to delete.", {
        status: 501,
      });
    }
    if (reassign) {
      if (reassign === user.id || !(await this.ctx.users.findById(reassign))) {
        throw new RestError('rest_user_invalid_reassign', 'Invalid user ID for reassignment.', { status: 400 });
      }
    }
    request.set('context', 'edit');
    const previous = await this.prepareItemForResponse(user, request);
    await deleteUser(this.ctx, user.id, reassign || null);
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  // --- shaping ----------------------------------------------------------------------------------------

  /** get_avatar_url() for the three REST sizes, on Gravatar like WordPress. */
  private async avatarUrls(email: string): Promise<Record<string, string>> {
    const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    const secure = String(await this.ctx.options.get('home')).startsWith('https:');
    const host = secure ? 'https://secure.gravatar.com' : `http://${Number.parseInt(hash[0]!, 16) % 3}.gravatar.com`;
    return Object.fromEntries(AVATAR_SIZES.map((s) => [String(s), `${host}/avatar/${hash}?s=${s}&d=mm&r=g`]));
  }

  /** prepare_item_for_response(). */
  async prepareItemForResponse(user: User, request: RestRequest): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => fields.includes(f);
    const data: Record<string, unknown> = {};
    if (has('id')) data.id = user.id;
    if (has('username')) data.username = user.login;
    if (has('name')) data.name = user.display_name;
    if (has('first_name')) data.first_name = user.first_name;
    if (has('last_name')) data.last_name = user.last_name;
    if (has('email')) data.email = user.email;
    if (has('url')) data.url = user.url;
    if (has('description')) data.description = user.description;
    if (has('link')) {
      data.link = `${String(await this.ctx.options.get('home')).replace(/\/+$/, '')}/author/${user.nicename}/`;
    }
    if (has('locale')) data.locale = user.locale || String((await this.ctx.options.get('WPLANG')) || 'en_US');
    if (has('nickname')) data.nickname = user.nickname;
    if (has('slug')) data.slug = user.nicename;
    if (has('roles') && ((await request.can('list_users')) || (await request.can('edit_user', user.id)))) {
      data.roles = [...user.roles];
    }
    if (has('registered_date')) data.registered_date = `${user.registered.replace(' ', 'T')}+00:00`;
    if (has('capabilities')) {
      data.capabilities = Object.fromEntries(
        [...this.ctx.caps.allCaps({ id: user.id, login: user.login, roles: user.roles, caps: user.caps })]
          .filter((c) => c !== 'exist')
          .map((c) => [c, true]),
      );
    }
    if (has('extra_capabilities')) {
      data.extra_capabilities = { ...Object.fromEntries(user.roles.map((r) => [r, true])), ...user.caps };
    }
    if (has('avatar_urls')) data.avatar_urls = await this.avatarUrls(user.email);
    if (has('meta')) data.meta = request.get('context') === 'edit' ? { persisted_preferences: [] } : [];
    const context = (request.get<string>('context') || 'embed') as 'view' | 'embed' | 'edit';
    const filtered = this.filterResponseByContext(data, context);
    const response = new RestResponse(filtered);
    if (this.isFieldIncluded('_links', fields) || this.isFieldIncluded('_embedded', fields)) {
      response.addLink('self', await this.ctx.server.url(`/${this.namespace}/${this.restBase}/${user.id}`));
      response.addLink('collection', await this.ctx.server.url(`/${this.namespace}/${this.restBase}`));
    }
    return response;
  }
}
