/**
 * The collection query of the site module's post-type routes (media, menu items, blocks): the common
 * list parameters of the spec turned into one SQL query with the content module's WHERE and ORDER BY
 * builders, plus what these types add (MIME types, file names in searches, `menu_order`, taxonomy
 * filters in their object form). Readability is checked per item afterwards, as WordPress does.
 */
import type { Expression, SqlBool } from 'kysely';
import { dateQueryBound } from '../content/dates.ts';
import { type Post, toPost } from '../content/post.ts';
import {
  type PostListQuery,
  type PostOrderBy,
  postListOrder,
  postListWhere,
  type SearchColumn,
  type TaxClause,
} from '../content/post-query.ts';
import type { ContentRuntime } from '../content/runtime.ts';
import { sanitizeTitleForQuery } from '../content/slugs.ts';
import type { TaxonomyDef } from '../core/taxonomies.ts';
import { literalLimit, sqlOffset } from '../db/limit.ts';
import { RestError } from '../rest/errors.ts';
import { absint, isPlainObject, stripslashes, toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';

/** What a collection route asks of the list query. */
export interface RestListOptions {
  runtime: ContentRuntime;
  type: string;
  request: RestRequest;
  /** Taxonomies whose `{rest_base}` and `{rest_base}_exclude` parameters filter the list. */
  taxonomies?: readonly TaxonomyDef[];
  /** The `status` default of the route. */
  defaultStatuses: readonly string[];
  /** The route has `parent` / `parent_exclude`. */
  parents?: boolean;
  /** The route has `menu_order`. */
  menuOrder?: boolean;
  /** The route has `author` / `author_exclude`. */
  authors?: boolean;
  /** Only these MIME types (undefined: all). */
  mimeTypes?: readonly string[] | undefined;
  /** Also match searches against the attached file's name (attachments). */
  fileNameSearch?: boolean;
}

/** A page of posts and the number of posts the query matches. */
export interface RestListPage {
  posts: Post[];
  total: number;
  page: number;
  perPage: number;
}

/** prepare_tax_query() for one parameter: a list of term ids, or `{ terms, include_children, operator }`. */
export async function taxClauseFromParam(
  runtime: ContentRuntime,
  value: unknown,
  tax: TaxonomyDef,
  exclude: boolean,
): Promise<TaxClause | null> {
  if (value === undefined || value === null) return null;
  let terms: number[] = [];
  let includeChildren = false;
  let operator: TaxClause['operator'] = exclude ? 'NOT IN' : 'IN';
  if (Array.isArray(value)) terms = value.map(absint);
  else if (isPlainObject(value)) {
    terms = Array.isArray(value.terms) ? value.terms.map(absint) : [];
    includeChildren = Boolean(value.include_children);
    if (!exclude && value.operator === 'AND') operator = 'AND';
  }
  if (terms.length === 0) return null;
  if (includeChildren && tax.hierarchical) {
    terms = [...new Set([...terms, ...(await runtime.ctx.terms.descendantIds(tax.slug, terms))])];
  }
  return { termIds: terms, operator };
}

/** Runs a collection request's query; throws WordPress's errors for impossible orders and pages. */
export async function listForRest(options: RestListOptions): Promise<RestListPage> {
  const { runtime, request } = options;
  // WP_Query reads every id list through absint(): `include=-5` is post 5.
  const ints = (name: string) => (request.get<unknown[]>(name) ?? []).map(absint);
  const orderby = String(request.get('orderby') ?? 'date') as PostOrderBy;
  const search = String(request.get('search') ?? '');
  const include = ints('include');
  if (orderby === 'relevance' && search === '') {
    throw new RestError('rest_no_search_term_defined', 'You need to define a search term to order by relevance.', {
      status: 400,
    });
  }
  if (orderby === 'include' && include.length === 0) {
    throw new RestError(
      'rest_orderby_include_missing_include',
      'You need to define an include parameter to order by include.',
      {
        status: 400,
      },
    );
  }
  const settings = await runtime.service.settings();
  const query: PostListQuery = {
    type: options.type,
    statuses: (request.get<string[]>('status') ?? [...options.defaultStatuses]).map(String),
    include,
    exclude: ints('exclude'),
    orderby,
    order: request.get('order') === 'asc' ? 'asc' : request.get('order') === 'desc' ? 'desc' : 'desc',
  };
  if (options.authors) {
    query.authors = ints('author');
    query.authorsExclude = ints('author_exclude');
  }
  if (options.parents) {
    query.parents = ints('parent');
    query.parentsExclude = ints('parent_exclude');
  }
  if (options.menuOrder) {
    const menuOrder = request.get('menu_order');
    if (menuOrder !== undefined && menuOrder !== null) query.menuOrder = toInt(menuOrder);
  }
  for (const [param, key] of [
    ['after', 'after'],
    ['before', 'before'],
    ['modified_after', 'modifiedAfter'],
    ['modified_before', 'modifiedBefore'],
  ] as const) {
    const value = request.get(param);
    if (typeof value === 'string' && value !== '') {
      const bound = dateQueryBound(value, settings.zone);
      if (bound) query[key] = bound;
    }
  }
  const slugs = request.get<unknown[]>('slug');
  if (slugs && slugs.length > 0) query.slugs = slugs.map((s) => sanitizeTitleForQuery(String(s)));
  const clauses: TaxClause[] = [];
  for (const tax of options.taxonomies ?? []) {
    const inc = await taxClauseFromParam(runtime, request.get(tax.restBase), tax, false);
    if (inc) clauses.push(inc);
    const exc = await taxClauseFromParam(runtime, request.get(`${tax.restBase}_exclude`), tax, true);
    if (exc) clauses.push(exc);
  }
  if (clauses.length > 0) query.tax = { relation: request.get('tax_relation') === 'OR' ? 'OR' : 'AND', clauses };
  const searchClause =
    search !== ''
      ? {
          // WP_Query::parse_search() strips slashes first.
          text: stripslashes(search),
          columns: (request.get<string[]>('search_columns') ?? []) as SearchColumn[],
          exact: request.get('search_semantics') === 'exact',
          loggedIn: request.isLoggedIn,
        }
      : undefined;

  const perPage = toInt(request.get('per_page')) || 10;
  const page = Math.max(1, toInt(request.get('page')) || 1);
  const offsetParam = request.get('offset');
  const offset =
    offsetParam !== undefined && offsetParam !== null ? Math.abs(toInt(offsetParam)) : (page - 1) * perPage;

  // biome-ignore lint/suspicious/noExplicitAny: the posts expression builder is the content module's, typed loosely there too
  const where = (eb: any): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [postListWhere(eb, query)];
    const mimes = options.mimeTypes;
    if (mimes) parts.push(eb('posts.mime_type', 'in', mimes.length > 0 ? [...mimes] : ['']));
    if (searchClause) {
      const inColumns = postListWhere(eb, {
        type: options.type,
        statuses: query.statuses,
        search: searchClause,
        orderby,
        order: 'desc',
      });
      if (options.fileNameSearch) {
        // WordPress also finds attachments by file name (wp_allow_query_attachment_by_filename).
        const like = `%${searchClause.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        parts.push(
          eb.or([
            inColumns,
            eb.exists(
              eb
                .selectFrom('postmeta as fm')
                .select('fm.post_id')
                .whereRef('fm.post_id', '=', 'posts.id')
                .where('fm.meta_key', '=', '_wp_attached_file')
                .where('fm.meta_value', 'like', like),
            ),
          ]),
        );
      } else {
        parts.push(inColumns);
      }
    }
    return eb.and(parts);
  };
  const db = runtime.ctx.db;
  let q = db
    .selectFrom('posts')
    .selectAll('posts')
    .where(where as never);
  for (const item of postListOrder({ ...query, ...(searchClause ? { search: searchClause } : {}) })) {
    q = q.orderBy(item.expr as never, item.direction);
  }
  const rows = await q.limit(literalLimit(perPage)).offset(sqlOffset(offset)).execute();
  const count = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(where as never)
    .executeTakeFirstOrThrow();
  // WP_Query leaves found_posts at 0 when the page has no row; the REST controller counts again only for a
  // page past the first without an offset (the recount keeps the offset): an offset past the end reports 0.
  const offsetGiven = request.get('offset') !== undefined && request.get('offset') !== null;
  const total = rows.length === 0 && (offsetGiven || page === 1) ? 0 : Number(count.n);
  if (page > Math.ceil(total / perPage) && total > 0) {
    throw new RestError(
      'rest_post_invalid_page_number',
      'The page number requested is larger than the number of pages available.',
      {
        status: 400,
      },
    );
  }
  return { posts: rows.map((row) => toPost(row as never)), total, page, perPage };
}
