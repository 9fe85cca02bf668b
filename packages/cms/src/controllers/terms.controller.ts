/**
 * /cms/v2/categories and /cms/v2/tags — after WP_REST_Terms_Controller (WordPress 6.1).
 * @wp 6.1
 */

import { ksesData, sanitizeNameField } from '../content/render/kses.ts';
import { sanitizeTitle } from '../content/slugs.ts';
import { getPostStatus } from '../core/post-statuses.ts';
import { getPostType } from '../core/post-types.ts';
import { getTaxonomy, type TaxonomyDef } from '../core/taxonomies.ts';
import type { Term, TermQuery } from '../db/terms-repository.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import type { CmsContext } from '../module.ts';
import { RestController, sanitizeTextArg } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import { absint, strtolower, toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import type { JsonSchema, RestArg } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { emptyMetaSchema } from './meta-field.ts';

export class TermsController extends RestController {
  readonly namespace: string;
  readonly restBase: string;
  private readonly taxonomy: TaxonomyDef;

  constructor(
    private readonly ctx: CmsContext,
    taxonomySlug: string,
  ) {
    super();
    const taxonomy = getTaxonomy(taxonomySlug);
    if (!taxonomy) throw new Error(`Unknown taxonomy ${taxonomySlug}`);
    this.taxonomy = taxonomy;
    this.namespace = taxonomy.restNamespace;
    this.restBase = taxonomy.restBase;
  }

  protected buildItemSchema(): JsonSchema {
    const properties: Record<string, JsonSchema> = {
      id: {
        description: 'Unique identifier for the term.',
        type: 'integer',
        context: ['view', 'embed', 'edit'],
        readonly: true,
      },
      count: {
        description: 'Number of published posts for the term.',
        type: 'integer',
        context: ['view', 'edit'],
        readonly: true,
      },
      description: { description: 'HTML description of the term.', type: 'string', context: ['view', 'edit'] },
      link: {
        description: 'URL of the term.',
        type: 'string',
        format: 'uri',
        context: ['view', 'embed', 'edit'],
        readonly: true,
      },
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
      taxonomy: {
        description: 'Type attribution for the term.',
        type: 'string',
        enum: [this.taxonomy.slug],
        context: ['view', 'embed', 'edit'],
        readonly: true,
      },
    };
    if (this.taxonomy.hierarchical) {
      properties.parent = { description: 'The parent term ID.', type: 'integer', context: ['view', 'edit'] };
    }
    properties.meta = emptyMetaSchema();
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: this.taxonomy.slug === 'post_tag' ? 'tag' : this.taxonomy.slug,
      type: 'object',
      properties,
    };
  }

  override collectionParams(): Record<string, RestArg> {
    const base = super.collectionParams();
    const params: Record<string, RestArg> = {
      ...base,
      context: { ...base.context!, default: 'view' },
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
    };
    if (!this.taxonomy.hierarchical) {
      params.offset = { description: 'Offset the result set by a specific number of items.', type: 'integer' };
    }
    params.order = {
      description: 'Order sort attribute ascending or descending.',
      type: 'string',
      default: 'asc',
      enum: ['asc', 'desc'],
    };
    params.orderby = {
      description: 'Sort collection by term attribute.',
      type: 'string',
      default: 'name',
      enum: ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'],
    };
    params.hide_empty = {
      description: 'Whether to hide terms not assigned to any posts.',
      type: 'boolean',
      default: false,
    };
    if (this.taxonomy.hierarchical) {
      params.parent = { description: 'Limit result set to terms assigned to a specific parent.', type: 'integer' };
    }
    params.post = {
      description: 'Limit result set to terms assigned to a specific post.',
      type: 'integer',
      default: null,
    };
    params.slug = {
      description: 'Limit result set to terms with one or more specific slugs.',
      type: 'array',
      items: { type: 'string' },
    };
    return params;
  }

  registerRoutes(server: RestServer): void {
    this.registerCrudRoutes(server, {
      itemReadArgs: { context: this.contextParam({ default: 'view' }) },
      deleteArgs: {
        force: {
          type: 'boolean',
          default: false,
          description: 'Required to be true, as terms do not support trashing.',
        },
      },
      idDescription: 'Unique identifier for the term.',
    });
  }

  private async getTerm(id: unknown): Promise<Term> {
    const n = toInt(id);
    const term = n > 0 ? await this.ctx.terms.findById(n) : null;
    if (!term || term.taxonomy !== this.taxonomy.slug) {
      throw new RestError('rest_term_invalid', 'Term does not exist.', { status: 404 });
    }
    return term;
  }

  private forbidden(code: string, message: string, request: RestRequest): RestError {
    return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
  }

  /** check_read_terms_permission_for_post(). */
  private async canReadTermsOfPost(postId: number, request: RestRequest): Promise<boolean | 'missing'> {
    const post = await this.ctx.content.getPostForCaps(postId);
    if (!post) return 'missing';
    if (!this.taxonomy.objectTypes.includes(post.type)) return false;
    const type = getPostType(post.type);
    const status = getPostStatus(post.status === 'inherit' ? 'publish' : post.status);
    if (type?.viewable && status?.publiclyQueryable) return true;
    return request.can('read_post', post.id);
  }

  async getItemsPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (request.get('context') === 'edit' && !(await request.can(this.taxonomy.cap.edit_terms))) {
      return this.forbidden(
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit terms in this taxonomy.',
        request,
      );
    }
    // Any non-empty value is looked up, also one validation refused (`post=abc` is no post, so the
    // Allow header of that 400 lists no GET, as in WordPress).
    const rawPost = request.get('post');
    if (rawPost !== undefined && rawPost !== null && rawPost !== '' && rawPost !== '0' && rawPost !== 0) {
      const readable = await this.canReadTermsOfPost(toInt(rawPost), request);
      if (readable === 'missing') throw new RestError('rest_post_invalid_id', 'Invalid post ID.', { status: 400 });
      if (!readable) {
        return this.forbidden(
          'rest_forbidden_context',
          'Sorry, you are not allowed to view terms for this post.',
          request,
        );
      }
    }
    return true;
  }

  async getItems(request: RestRequest): Promise<RestResponse> {
    const perPage = toInt(request.get('per_page'));
    const page = toInt(request.get('page'));
    const offsetParam = toInt(request.get('offset'));
    const offset = offsetParam && !this.taxonomy.hierarchical ? offsetParam : (page - 1) * perPage;
    const query: TermQuery = {
      taxonomy: this.taxonomy.slug,
      // wp_parse_id_list(): absint() of each id.
      include: (request.get<unknown[]>('include') ?? []).map(absint),
      exclude: (request.get<unknown[]>('exclude') ?? []).map(absint),
      order: request.get('order') === 'desc' ? 'desc' : 'asc',
      orderby: String(request.get('orderby') ?? 'name') as TermQuery['orderby'],
      hideEmpty: Boolean(request.get('hide_empty')),
    };
    const search = request.get<string>('search');
    if (search) query.search = search;
    const slugs = request.get<unknown[]>('slug');
    if (slugs && slugs.length > 0) query.slugs = slugs.map(String);
    if (this.taxonomy.hierarchical) {
      const parent = request.get('parent');
      if (parent !== undefined && parent !== null) {
        const p = toInt(parent);
        if (p === 0 || p) query.parent = p;
      }
    }
    const post = toInt(request.get('post'));
    if (post) query.onlyIds = await this.ctx.content.termIdsOfPost(post, this.taxonomy.slug);
    const total = await this.ctx.terms.countMatching(query);
    // The paging links count from the offset actually used, so an offset moves them like a page.
    const linkPage = perPage > 0 ? Math.ceil(offset / perPage + 1) : page;
    const terms = await this.ctx.terms.list({ ...query, limit: perPage, offset });
    const items: unknown[] = [];
    for (const term of terms)
      items.push(this.prepareResponseForCollection(await this.prepareItemForResponse(term, request)));
    const response = new RestResponse(items);
    setPaginationHeaders(
      response,
      request,
      {
        total,
        perPage,
        page: linkPage,
        baseUrl: await this.ctx.server.url(`/${this.namespace}/${this.restBase}`),
      },
      this.ctx.server.headerPrefix,
    );
    return response;
  }

  async getItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const term = await this.getTerm(request.get('id'));
    if (request.get('context') === 'edit' && !(await request.can('edit_term', term.id))) {
      return this.forbidden('rest_forbidden_context', 'Sorry, you are not allowed to edit this term.', request);
    }
    return true;
  }

  async getItem(request: RestRequest): Promise<RestResponse> {
    return this.prepareItemForResponse(await this.getTerm(request.get('id')), request);
  }

  async createItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    // A flat taxonomy's terms are created while tagging a post, so assigning them is enough there.
    const cap = this.taxonomy.hierarchical ? this.taxonomy.cap.edit_terms : this.taxonomy.cap.assign_terms;
    if (!(await request.can(cap))) {
      return this.forbidden(
        'rest_cannot_create',
        'Sorry, you are not allowed to create terms in this taxonomy.',
        request,
      );
    }
    return true;
  }

  private async checkParent(request: RestRequest): Promise<number | undefined> {
    const parentParam = request.get('parent');
    if (parentParam === undefined || parentParam === null) return undefined;
    if (!this.taxonomy.hierarchical) {
      throw new RestError('rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.', {
        status: 400,
      });
    }
    const parent = toInt(parentParam);
    if (parent === 0) return 0;
    const term = await this.ctx.terms.findById(parent);
    if (!term || term.taxonomy !== this.taxonomy.slug) {
      throw new RestError('rest_term_invalid', 'Parent term does not exist.', { status: 400 });
    }
    return parent;
  }

  /**
   * wp_check_term_hierarchy_for_loops(): a parent that is the term itself or one of its descendants would make
   * a loop, so the term moves to the top level instead (parent 0), as wp_update_term() does.
   */
  private async parentWithoutLoop(termId: number, parent: number): Promise<number> {
    const seen = new Set<number>();
    for (let id = parent; id > 0 && !seen.has(id); ) {
      if (id === termId) return 0;
      seen.add(id);
      id = (await this.ctx.terms.findById(id))?.parent ?? 0;
    }
    return parent;
  }

  /** A slug not used in this taxonomy (wp_unique_term_slug, simplified to numeric suffixes). */
  private async uniqueSlug(base: string, exceptId?: number): Promise<string> {
    let candidate = base;
    for (let n = 2; ; n++) {
      const other = await this.ctx.terms.findBySlug(this.taxonomy.slug, candidate);
      if (!other || other.id === exceptId) return candidate;
      candidate = `${base}-${n}`;
    }
  }

  /**
   * wp_insert_term()'s duplicate check (WordPress 6.1), for the sanitized `name` under `parent`: the term it
   * answers `term_exists` with, or null when the term may be created.
   *
   * 1. get_terms( name, parent ) finds the terms at that level whose name the database's collation finds equal,
   *    without regard to case or accents (findByNameKey); of those, the first whose name is equal once
   *    lower-cased by PHP's strtolower(), which lowers ASCII letters only, is the name match: "javascript"
   *    matches "JavaScript", but "Cafe" does not match "Café", nor "CAFÉ" "café" (WordPress's comment: the
   *    collation "doesn't differentiate accented characters, so we do a stricter comparison here").
   * 2. With a name match, a slug given that is neither the match's nor any term's lets the term be created with
   *    the same name. Otherwise a tag (any non-hierarchical taxonomy) exists already, the name match; in a
   *    hierarchical taxonomy the match counts only when a sibling has exactly this name (case included) and no
   *    other slug was given, else a sibling that has the slug is the existing term, else none is: "TECHNOLOGY"
   *    is created beside "Technology" when the latter's slug is not "technology".
   */
  private async existingTerm(name: string, parent: number, requestedSlug: string | undefined): Promise<Term | null> {
    const taxonomy = this.taxonomy.slug;
    const lowered = strtolower(name);
    const nameMatch = (await this.ctx.terms.findByNameKey(taxonomy, name, parent)).find(
      (term) => strtolower(term.name) === lowered,
    );
    if (!nameMatch) return null;
    const slugProvided = Boolean(requestedSlug);
    const slug = requestedSlug || sanitizeTitle(name);
    const slugMatch = await this.ctx.terms.findBySlug(taxonomy, slug);
    if (slugProvided && nameMatch.slug !== slug && !slugMatch) return null;
    if (!this.taxonomy.hierarchical) return nameMatch;
    const siblings = await this.ctx.terms.children(taxonomy, parent);
    if ((!slugProvided || nameMatch.slug === slug) && siblings.some((term) => term.name === name)) return nameMatch;
    if (slugMatch && siblings.some((term) => term.slug === slug)) return slugMatch;
    return null;
  }

  async createItem(request: RestRequest): Promise<RestResponse> {
    const parent = (await this.checkParent(request)) ?? 0;
    // sanitize_term() in the 'db' context: the name is stored (and compared, and slugged) escaped.
    const name = sanitizeNameField(request.get('name') ?? '');
    if (name === '') throw new RestError('empty_term_name', 'A name is required for this term.', { status: 400 });
    const requestedSlug = request.get<string>('slug');
    const existing = await this.existingTerm(name, parent, requestedSlug);
    if (existing) {
      const error = new RestError(
        'term_exists',
        this.taxonomy.hierarchical
          ? 'A term with the name provided already exists with this parent.'
          : 'A term with the name provided already exists in this taxonomy.',
        { status: 400, term_id: existing.id },
      );
      error.additionalData = [existing.id, existing.id];
      throw error;
    }
    let slug = requestedSlug || sanitizeTitle(name);
    if (slug === '') slug = sanitizeTitle(name, String(Date.now()));
    // wp_insert_term() makes a slug another term has unique, given or not (only wp_update_term() refuses it).
    slug = await this.uniqueSlug(slug);
    const id = await writeTransaction(this.ctx.db, (trx) =>
      this.ctx.terms.insert(
        {
          taxonomy: this.taxonomy.slug,
          name,
          slug,
          description: ksesData(String(request.get('description') ?? '')),
          parent,
        },
        trx,
      ),
    );
    request.set('context', 'edit');
    const response = await this.prepareItemForResponse(await this.getTerm(id), request);
    response.status = 201;
    response.header('Location', await this.ctx.server.url(`/${this.namespace}/${this.restBase}/${id}`));
    return response;
  }

  async updateItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const term = await this.getTerm(request.get('id'));
    if (!(await request.can('edit_term', term.id))) {
      return this.forbidden('rest_cannot_update', 'Sorry, you are not allowed to edit this term.', request);
    }
    return true;
  }

  async updateItem(request: RestRequest): Promise<RestResponse> {
    const term = await this.getTerm(request.get('id'));
    const parent = await this.checkParent(request);
    const changes: Partial<Term> = {};
    const name = request.get('name');
    if (typeof name === 'string') {
      // wp_update_term() refuses a name that is empty once sanitized (WordPress sends it without a status, so
      // 500; bad input answers 400 here, as on create).
      changes.name = sanitizeNameField(name);
      if (changes.name === '') {
        throw new RestError('empty_term_name', 'A name is required for this term.', { status: 400 });
      }
    }
    const description = request.get('description');
    if (typeof description === 'string') changes.description = ksesData(description);
    if (parent !== undefined) changes.parent = await this.parentWithoutLoop(term.id, parent);
    const slug = request.get('slug');
    if (typeof slug === 'string' && slug !== '' && slug !== term.slug) {
      const other = await this.ctx.terms.findBySlug(this.taxonomy.slug, slug);
      if (other && other.id !== term.id) {
        throw new RestError('duplicate_term_slug', `The slug “${slug}” is already in use by another term.`, {
          status: 400,
        });
      }
      changes.slug = slug;
    }
    // wp_update_term() checks no name: only a slug another term has (above).
    await this.ctx.terms.update(term.id, changes);
    request.set('context', 'edit');
    return this.prepareItemForResponse(await this.getTerm(term.id), request);
  }

  async deleteItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const term = await this.getTerm(request.get('id'));
    if (!(await request.can('delete_term', term.id))) {
      return this.forbidden('rest_cannot_delete', 'Sorry, you are not allowed to delete this term.', request);
    }
    return true;
  }

  async deleteItem(request: RestRequest): Promise<RestResponse> {
    const term = await this.getTerm(request.get('id'));
    if (!request.get('force')) {
      throw new RestError('rest_trash_not_supported', "Terms do not support trashing. Set 'force=true' to delete.", {
        status: 501,
      });
    }
    request.set('context', 'view');
    const previous = await this.prepareItemForResponse(term, request);
    await writeTransaction(this.ctx.db, async (trx) => {
      await this.ctx.content.removeTermFromObjects(trx, term.id);
      await this.ctx.terms.delete(term, trx);
    });
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  /** The public archive URL of a term (get_term_link with pretty permalinks). */
  private async termLink(term: Term): Promise<string> {
    const home = String(await this.ctx.options.get('home')).replace(/\/+$/, '');
    const base =
      this.taxonomy.slug === 'category' ? 'category' : this.taxonomy.slug === 'post_tag' ? 'tag' : this.taxonomy.slug;
    const path: string[] = [term.slug];
    if (this.taxonomy.hierarchical) {
      let parentId = term.parent;
      const seen = new Set<number>([term.id]);
      while (parentId > 0 && !seen.has(parentId)) {
        seen.add(parentId);
        const parent = await this.ctx.terms.findById(parentId);
        if (!parent) break;
        path.unshift(parent.slug);
        parentId = parent.parent;
      }
    }
    return `${home}/${base}/${path.join('/')}/`;
  }

  async prepareItemForResponse(term: Term, request: RestRequest): Promise<RestResponse> {
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => fields.includes(f);
    const data: Record<string, unknown> = {};
    if (has('id')) data.id = term.id;
    if (has('count')) data.count = term.count;
    if (has('description')) data.description = term.description;
    if (has('link')) data.link = await this.termLink(term);
    if (has('name')) data.name = term.name;
    if (has('slug')) data.slug = term.slug;
    if (has('taxonomy')) data.taxonomy = term.taxonomy;
    if (has('parent') && this.taxonomy.hierarchical) data.parent = term.parent;
    if (has('meta')) data.meta = [];
    const context = (request.get<string>('context') || 'view') as 'view' | 'embed' | 'edit';
    const response = new RestResponse(this.filterResponseByContext(data, context));
    if (this.isFieldIncluded('_links', fields) || this.isFieldIncluded('_embedded', fields)) {
      const server = this.ctx.server;
      const base = `/${this.namespace}/${this.restBase}`;
      response.addLink('self', await server.url(`${base}/${term.id}`));
      response.addLink('collection', await server.url(base));
      response.addLink('about', await server.url(`/${this.namespace}/taxonomies/${this.taxonomy.slug}`));
      if (this.taxonomy.hierarchical && term.parent > 0) {
        response.addLink('up', await server.url(`${base}/${term.parent}`), { embeddable: true });
      }
      for (const typeSlug of this.taxonomy.objectTypes) {
        const type = getPostType(typeSlug);
        if (!type) continue;
        response.addLink(
          'https://api.w.org/post_type',
          await server.url(`/${type.restNamespace}/${type.restBase}?${this.restBase}=${term.id}`),
        );
      }
    }
    return response;
  }
}
