/**
 * /cms/v2/menus — after WP_REST_Menus_Controller (a terms controller for the `nav_menu` taxonomy): menus
 * with their theme `locations` and `auto_add` flag. Deleting a menu deletes its items.
 */

import { ksesData, sanitizeNameField, specialChars } from '../content/render/kses.ts';
import { sanitizeTitle } from '../content/slugs.ts';
import { getTaxonomy, type TaxonomyDef } from '../core/taxonomies.ts';
import type { Term, TermQuery } from '../db/terms-repository.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import type { CmsContext } from '../module.ts';
import { RestController, sanitizeTextArg } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import { toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { CREATABLE, DELETABLE, EDITABLE, READABLE } from '../rest/route.ts';
import type { JsonSchema, RestArg, RestContext } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import {
  assignMenuLocations,
  autoAddMenus,
  forgetMenu,
  locationsOfMenu,
  REGISTERED_MENU_LOCATIONS,
  setAutoAdd,
} from '../site/nav-menus.ts';

/** `check_has_read_only_access()` of the menu controllers: theme editors and anyone who edits content. */
export async function canReadMenus(request: RestRequest): Promise<boolean> {
  for (const cap of ['edit_theme_options', 'edit_posts', 'edit_pages']) {
    if (await request.can(cap)) return true;
  }
  return false;
}

export class MenusController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'menus';
  private readonly taxonomy: TaxonomyDef;

  constructor(private readonly ctx: CmsContext) {
    super();
    const taxonomy = getTaxonomy('nav_menu');
    if (!taxonomy) throw new Error('The nav_menu taxonomy is not registered');
    this.taxonomy = taxonomy;
  }

  protected buildItemSchema(): JsonSchema {
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'nav_menu',
      type: 'object',
      properties: {
        id: {
          description: 'Unique identifier for the term.',
          type: 'integer',
          context: ['view', 'embed', 'edit'],
          readonly: true,
        },
        description: { description: 'HTML description of the term.', type: 'string', context: ['view', 'edit'] },
        name: {
          description: 'HTML title for the term.',
          type: 'string',
          context: ['view', 'embed', 'edit'],
          arg_options: { sanitizeCallback: sanitizeTextArg },
          required: true,
        },
        slug: {
          description: 'An alphanumeric identifier for the term unique to its type.',
          type: 'string',
          context: ['view', 'embed', 'edit'],
          arg_options: { sanitizeCallback: (v) => sanitizeTitle(String(v ?? '')) },
        },
        meta: {
          description: 'Meta fields.',
          type: 'object',
          context: ['view', 'edit'],
          properties: {},
          arg_options: { sanitizeCallback: false },
        },
        locations: {
          description: 'The locations assigned to the menu.',
          type: 'array',
          items: { type: 'string' },
          context: ['view', 'edit'],
          arg_options: {
            validateCallback: (value) => {
              const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/) : [];
              for (const location of list) {
                if (!(String(location) in REGISTERED_MENU_LOCATIONS)) {
                  return new RestError('rest_invalid_menu_location', 'Invalid menu location.', { location });
                }
              }
              return true;
            },
          },
        },
        auto_add: {
          description: 'Whether to automatically add top level pages to this menu.',
          context: ['view', 'edit'],
          type: 'boolean',
        },
      },
    };
  }

  override collectionParams(): Record<string, RestArg> {
    const base = super.collectionParams();
    return {
      ...base,
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
        default: 'asc',
        enum: ['asc', 'desc'],
      },
      orderby: {
        description: 'Sort collection by term attribute.',
        type: 'string',
        default: 'name',
        enum: ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'],
      },
      hide_empty: { description: 'Whether to hide terms not assigned to any posts.', type: 'boolean', default: false },
      post: { description: 'Limit result set to terms assigned to a specific post.', type: 'integer', default: null },
      slug: {
        description: 'Limit result set to terms with one or more specific slugs.',
        type: 'array',
        items: { type: 'string' },
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
          permission: (r) => this.readPermission(r, true),
          args: this.collectionParams(),
        },
        {
          methods: CREATABLE,
          handler: (r) => this.createItem(r),
          permission: (r) =>
            this.writePermission(
              r,
              'rest_cannot_create',
              'Sorry, you are not allowed to create terms in this taxonomy.',
            ),
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
          permission: (r) => this.readPermission(r, false),
          args: { context: this.contextParam({ default: 'view' }) },
        },
        {
          methods: EDITABLE,
          handler: (r) => this.updateItem(r),
          permission: (r) =>
            this.writePermission(r, 'rest_cannot_update', 'Sorry, you are not allowed to edit this term.'),
          args: this.endpointArgsForItemSchema(EDITABLE),
        },
        {
          methods: DELETABLE,
          handler: (r) => this.deleteItem(r),
          permission: (r) =>
            this.writePermission(r, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this term.'),
          args: {
            force: {
              type: 'boolean',
              default: false,
              description: 'Required to be true, as terms do not support trashing.',
            },
          },
        },
      ],
      { schema, args: { id: { description: 'Unique identifier for the term.', type: 'integer' } } },
    );
  }

  private forbidden(code: string, message: string, request: RestRequest): RestError {
    return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
  }

  private async getMenu(id: unknown): Promise<Term> {
    const n = toInt(id);
    const term = n > 0 ? await this.ctx.terms.findById(n) : null;
    if (term?.taxonomy !== 'nav_menu')
      throw new RestError('rest_term_invalid', 'Term does not exist.', { status: 404 });
    return term;
  }

  private async readPermission(request: RestRequest, collection: boolean): Promise<true | RestError> {
    if (!collection) await this.getMenu(request.get('id'));
    if (request.get('context') === 'edit' && !(await request.can(this.taxonomy.cap.edit_terms))) {
      return this.forbidden(
        'rest_forbidden_context',
        collection
          ? 'Sorry, you are not allowed to edit terms in this taxonomy.'
          : 'Sorry, you are not allowed to edit this term.',
        request,
      );
    }
    if (!(await canReadMenus(request)))
      return this.forbidden('rest_cannot_view', 'Sorry, you are not allowed to view menus.', request);
    return true;
  }

  private async writePermission(request: RestRequest, code: string, message: string): Promise<true | RestError> {
    if (request.has('id')) {
      const term = await this.getMenu(request.get('id'));
      const cap = code === 'rest_cannot_delete' ? 'delete_term' : 'edit_term';
      if (!(await request.can(cap, term.id))) return this.forbidden(code, message, request);
      return true;
    }
    if (!(await request.can(this.taxonomy.cap.edit_terms))) return this.forbidden(code, message, request);
    return true;
  }

  private async getItems(request: RestRequest): Promise<RestResponse> {
    const perPage = toInt(request.get('per_page'));
    const page = toInt(request.get('page'));
    const offset = request.get('offset') !== undefined ? toInt(request.get('offset')) : (page - 1) * perPage;
    const query: TermQuery = {
      taxonomy: 'nav_menu',
      include: (request.get<unknown[]>('include') ?? []).map(toInt),
      exclude: (request.get<unknown[]>('exclude') ?? []).map(toInt),
      order: request.get('order') === 'desc' ? 'desc' : 'asc',
      orderby: String(request.get('orderby') ?? 'name') as TermQuery['orderby'],
      hideEmpty: Boolean(request.get('hide_empty')),
    };
    const search = request.get<string>('search');
    if (search) query.search = search;
    const slugs = request.get<unknown[]>('slug');
    if (slugs && slugs.length > 0) query.slugs = slugs.map(String);
    const post = toInt(request.get('post'));
    if (post) query.onlyIds = await this.ctx.content.termIdsOfPost(post, 'nav_menu');
    const total = await this.ctx.terms.countMatching(query);
    const terms = await this.ctx.terms.list({ ...query, limit: perPage, offset });
    const items: unknown[] = [];
    for (const term of terms)
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(term, request)));
    const response = new RestResponse(items);
    setPaginationHeaders(
      response,
      request,
      { total, perPage, page, baseUrl: await this.ctx.server.url(`/${this.namespace}/${this.restBase}`) },
      this.ctx.server.headerPrefix,
    );
    return response;
  }

  private async getItem(request: RestRequest): Promise<RestResponse> {
    return this.prepareItemForResponse(await this.getMenu(request.get('id')), request);
  }

  /**
   * `wp_update_nav_menu_object()`'s name rule: menu names are unique. `typed` is the name as the request
   * gave it (after sanitize_text_field): WordPress's message shows it slashed (the REST controller passes
   * wp_slash()ed data) and then esc_html()ed, in `<strong>`. A create adds the clash's id to the error (as
   * `term_id` and in `additional_data`); an update does not (WordPress then sends it without a status, so
   * 500; 400 here).
   */
  private async assertNameFree(name: string, typed: string, exceptId: number): Promise<void> {
    // get_term_by( 'name' ): the database's collation decides, without regard to case or accents ("main menu"
    // and "Máin Menu" clash with "Main Menu"). WordPress takes the first row the database returns (in no set
    // order) and lets it be the menu itself; here any other menu with such a name is a clash.
    const clash = (await this.ctx.terms.findByNameKey('nav_menu', name)).find((term) => term.id !== exceptId);
    if (clash) {
      const slashed = typed.replace(/[\\'"]/g, '\\$&').replaceAll('\u0000', '\\0');
      const shown = specialChars(slashed, true);
      const message = `The menu name <strong>${shown}</strong> conflicts with another menu name. Please try another.`;
      if (exceptId !== 0) throw new RestError('menu_exists', message, { status: 400 });
      const error = new RestError('menu_exists', message, { status: 400, term_id: clash.id });
      error.additionalData = [clash.id];
      throw error;
    }
  }

  private async uniqueSlug(base: string, exceptId = 0): Promise<string> {
    const start = base === '' ? 'menu' : base;
    let candidate = start;
    for (let n = 2; ; n++) {
      const other = await this.ctx.terms.findBySlug('nav_menu', candidate);
      if (!other || other.id === exceptId) return candidate;
      candidate = `${start}-${n}`;
    }
  }

  private async createItem(request: RestRequest): Promise<RestResponse> {
    if (request.has('parent')) {
      throw new RestError('rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.', {
        status: 400,
      });
    }
    // A menu is a term: its name is stored escaped, as pre_term_name leaves it.
    const name = sanitizeNameField(request.get('name') ?? '');
    if (name === '') throw new RestError('empty_term_name', 'A name is required for this term.', { status: 400 });
    await this.assertNameFree(name, String(request.get('name') ?? ''), 0);
    const requested = request.get<string>('slug');
    if (requested && (await this.ctx.terms.findBySlug('nav_menu', requested))) {
      throw new RestError('duplicate_term_slug', `The slug “${requested}” is already in use by another term.`, {
        status: 400,
      });
    }
    const slug = await this.uniqueSlug(requested || sanitizeTitle(name));
    const id = await writeTransaction(this.ctx.db, (trx) =>
      this.ctx.terms.insert(
        {
          taxonomy: 'nav_menu',
          name,
          slug,
          description: ksesData(String(request.get('description') ?? '')),
          parent: 0,
        },
        trx,
      ),
    );
    await this.handleLocationsAndAutoAdd(id, request);
    request.set('context', 'view');
    const response = await this.prepareItemForResponse(await this.getMenu(id), request);
    response.status = 201;
    response.header('Location', await this.ctx.server.url(`/${this.namespace}/${this.restBase}/${id}`));
    return response;
  }

  private async handleLocationsAndAutoAdd(id: number, request: RestRequest): Promise<void> {
    const locations = request.get<unknown>('locations');
    if (locations !== undefined && locations !== null) {
      const list = (Array.isArray(locations) ? locations : [locations]).map(String);
      for (const location of list) {
        if (!(location in REGISTERED_MENU_LOCATIONS)) {
          throw new RestError('rest_invalid_menu_location', 'Invalid menu location.', { status: 400, location });
        }
      }
      await assignMenuLocations(this.ctx.options, id, list);
    }
    const autoAdd = request.get<unknown>('auto_add');
    if (autoAdd !== undefined && autoAdd !== null) await setAutoAdd(this.ctx.options, id, Boolean(autoAdd));
  }

  private async updateItem(request: RestRequest): Promise<RestResponse> {
    const term = await this.getMenu(request.get('id'));
    if (request.has('parent')) {
      throw new RestError('rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.', {
        status: 400,
      });
    }
    const changes: Partial<Term> = {};
    const typed = request.get('name');
    if (typeof typed === 'string') {
      // A menu is a term: wp_update_nav_menu_object() passes the name on to wp_update_term(), which refuses
      // one that is empty once sanitized (WordPress sends it without a status, so 500; 400 here).
      const name = sanitizeNameField(typed);
      if (name === '') throw new RestError('empty_term_name', 'A name is required for this term.', { status: 400 });
      if (name !== term.name) {
        await this.assertNameFree(name, typed, term.id);
        changes.name = name;
      }
    }
    const description = request.get('description');
    if (typeof description === 'string') changes.description = ksesData(description);
    const slug = request.get('slug');
    if (typeof slug === 'string' && slug !== '' && slug !== term.slug) {
      const other = await this.ctx.terms.findBySlug('nav_menu', slug);
      if (other && other.id !== term.id) {
        throw new RestError('duplicate_term_slug', `The slug “${slug}” is already in use by another term.`, {
          status: 400,
        });
      }
      changes.slug = slug;
    }
    if (Object.keys(changes).length > 0) await this.ctx.terms.update(term.id, changes);
    await this.handleLocationsAndAutoAdd(term.id, request);
    request.set('context', 'view');
    return this.prepareItemForResponse(await this.getMenu(term.id), request);
  }

  private async deleteItem(request: RestRequest): Promise<RestResponse> {
    const term = await this.getMenu(request.get('id'));
    if (!request.get('force')) {
      throw new RestError('rest_trash_not_supported', "Menus do not support trashing. Set 'force=true' to delete.", {
        status: 501,
      });
    }
    request.set('context', 'view');
    const previous = await this.prepareItemForResponse(term, request);
    await writeTransaction(this.ctx.db, async (trx) => {
      // wp_delete_nav_menu(): the menu's items go with it.
      const items = await trx
        .selectFrom('term_relationships as tr')
        .innerJoin('posts as p', 'p.id', 'tr.object_id')
        .select('p.id')
        .where('tr.term_id', '=', term.id)
        .where('p.type', '=', 'nav_menu_item')
        .execute();
      const ids = items.map((r) => Number(r.id));
      if (ids.length > 0) {
        await trx.deleteFrom('postmeta').where('post_id', 'in', ids).execute();
        await trx.deleteFrom('term_relationships').where('object_id', 'in', ids).execute();
        await trx.deleteFrom('posts').where('id', 'in', ids).execute();
      }
      await this.ctx.content.removeTermFromObjects(trx, term.id);
      await this.ctx.terms.delete(term, trx);
    });
    await forgetMenu(this.ctx.options, term.id);
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  async prepareItemForResponse(term: Term, request: RestRequest): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => this.isFieldIncluded(f, fields);
    const locations = await locationsOfMenu(this.ctx.options, term.id);
    const data: Record<string, unknown> = {};
    if (has('id')) data.id = term.id;
    if (has('description')) data.description = term.description;
    if (has('name')) data.name = term.name;
    if (has('slug')) data.slug = term.slug;
    if (has('meta')) data.meta = [];
    if (has('locations')) data.locations = locations;
    if (has('auto_add')) data.auto_add = (await autoAddMenus(this.ctx.options)).includes(term.id);
    const context = (request.get<string>('context') || 'view') as RestContext;
    const response = new RestResponse(this.filterResponseByContext(data, context));
    if (has('_links') || has('_embedded')) {
      const server = this.ctx.server;
      const base = `/${this.namespace}/${this.restBase}`;
      response.addLink('self', await server.url(`${base}/${term.id}`));
      response.addLink('collection', await server.url(base));
      response.addLink('about', await server.url(`/${this.namespace}/taxonomies/nav_menu`));
      response.addLink(
        'https://api.w.org/post_type',
        await server.url(`/${this.namespace}/menu-items?menus=${term.id}`),
      );
      for (const location of locations) {
        response.addLink(
          'https://api.w.org/menu-location',
          await server.url(`/${this.namespace}/menu-locations/${location}`),
          {
            embeddable: true,
          },
        );
      }
    }
    return response;
  }
}
