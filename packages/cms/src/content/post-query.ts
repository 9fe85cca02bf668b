/**
 * The post list query (what WP_Query does for the REST collections), as SQL through Kysely on SQLite
 * and PostgreSQL alike. The REST layer turns request parameters into a {@link PostListQuery}; this
 * module turns that into WHERE and ORDER BY clauses with WordPress's rules and quirks:
 *
 * - `include` wins over `exclude`, `author_exclude` over `author`, `parent` over `parent_exclude`;
 * - search splits the text into terms (quoted phrases kept, stopwords and one-letter words dropped,
 *   `-word` excluded), matches each in the chosen columns case-insensitively, and hides
 *   password-protected posts from visitors;
 * - `include` and `include_slugs` order by the given order and ignore `order` (oldest first when
 *   there is no list to follow);
 * - `relevance` ranks title matches first, then by date.
 */
import { type Expression, type ExpressionBuilder, expressionBuilder, type SqlBool, sql } from 'kysely';
import { fitsInt32 } from '../db/limit.ts';
import type { CmsDatabase } from '../db/schema.ts';

export type SearchColumn = 'post_title' | 'post_excerpt' | 'post_content';

export const SEARCH_COLUMNS: readonly SearchColumn[] = ['post_title', 'post_excerpt', 'post_content'];

export type PostOrderBy =
  | 'author'
  | 'date'
  | 'id'
  | 'include'
  | 'modified'
  | 'parent'
  | 'relevance'
  | 'slug'
  | 'include_slugs'
  | 'title'
  | 'menu_order';

/** One taxonomy clause: terms (children already added when asked) and how they combine. */
export interface TaxClause {
  termIds: number[];
  operator: 'IN' | 'AND' | 'NOT IN';
}

/**
 * What the current user may see, as the primitive capabilities of the post type (decides which rows a
 * list can contain, like the per-item read or edit check of the REST controller).
 */
export interface PostAccess {
  userId: number;
  /** `edit` lists only what the user may edit; `read` what they may read. */
  mode: 'read' | 'edit';
  read: boolean;
  readPrivate: boolean;
  editPosts: boolean;
  editOthers: boolean;
  editPublished: boolean;
  editPrivate: boolean;
}

export interface PostListQuery {
  type: string;
  /** Statuses to include; `any` means every status not excluded from search. */
  statuses: readonly string[];
  search?:
    | {
        text: string;
        columns: readonly SearchColumn[];
        exact: boolean;
        loggedIn: boolean;
        /**
         * LIKE already ignores case (SQLite: ASCII, the only case its lower() folds too), so the columns
         * need no lower() — which saves a copy of every content scanned. Set by the repository.
         */
        likeIgnoresCase?: boolean | undefined;
        /**
         * A trigram full-text index (`posts_search`, SQLite) may narrow the candidates first: every
         * post whose text contains a term also contains its trigrams, so the exact LIKE checks then
         * run on the few candidates only, and on the posts queued for the index (changed since it was
         * last brought up to date, migration 0055). Set by the repository.
         */
        trigramIndex?: boolean | undefined;
      }
    | undefined;
  after?: string | undefined;
  before?: string | undefined;
  modifiedAfter?: string | undefined;
  modifiedBefore?: string | undefined;
  include?: readonly number[] | undefined;
  exclude?: readonly number[] | undefined;
  authors?: readonly number[] | undefined;
  authorsExclude?: readonly number[] | undefined;
  parents?: readonly number[] | undefined;
  parentsExclude?: readonly number[] | undefined;
  slugs?: readonly string[] | undefined;
  menuOrder?: number | undefined;
  tax?: { relation: 'AND' | 'OR'; clauses: TaxClause[] } | undefined;
  /** Post formats; `standard` matches posts without a format. */
  formats?: readonly string[] | undefined;
  orderby: PostOrderBy;
  order: 'asc' | 'desc';
  access?: PostAccess | undefined;
}

/** Statuses `any` leaves out (exclude_from_search: the internal ones). */
export const EXCLUDED_FROM_ANY = [
  'trash',
  'auto-draft',
  'inherit',
  'request-pending',
  'request-confirmed',
  'request-failed',
  'request-completed',
];

const STOPWORDS = new Set(
  'about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,when,where,who,will,with,www'.split(
    ',',
  ),
);

/** WP_Query::parse_search's term split: quoted phrases, then words, stopwords and single letters dropped. */
export function searchTerms(text: string): { terms: string[]; count: number } {
  const s = text.replace(/[\r\n]/g, '');
  const matches = s.match(/".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g);
  if (!matches) return { terms: [s], count: 1 };
  const checked: string[] = [];
  for (const raw of matches) {
    const term = /^".+"$/.test(raw) ? raw.replace(/^["']+|["']+$/g, '') : raw.replace(/^["' ]+|["' ]+$/g, '');
    if (term === '' || (term.length === 1 && /^[a-z-]$/i.test(term))) continue;
    if (STOPWORDS.has(term.toLowerCase())) continue;
    checked.push(term);
  }
  if (checked.length === 0 || checked.length > 9) return { terms: [s], count: matches.length };
  return { terms: checked, count: matches.length };
}

function likeEscape(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const COLUMN: Record<SearchColumn, 'title' | 'excerpt' | 'content'> = {
  post_title: 'title',
  post_excerpt: 'excerpt',
  post_content: 'content',
};

type Eb = ExpressionBuilder<CmsDatabase, 'posts'>;

function likeExpr(column: string, pattern: string, negate: boolean, likeIgnoresCase = false): Expression<SqlBool> {
  const op = negate ? sql`not like` : sql`like`;
  if (likeIgnoresCase) return sql<SqlBool>`${sql.ref(`posts.${column}`)} ${op} ${pattern} escape '\\'`;
  return sql<SqlBool>`lower(${sql.ref(`posts.${column}`)}) ${op} lower(${pattern}) escape '\\'`;
}

function searchWhere(eb: Eb, search: NonNullable<PostListQuery['search']>): Expression<SqlBool> {
  const { terms } = searchTerms(search.text);
  const columns = search.columns.length > 0 ? SEARCH_COLUMNS.filter((c) => search.columns.includes(c)) : SEARCH_COLUMNS;
  const wild = search.exact ? '' : '%';
  const parts: Expression<SqlBool>[] = [];
  if (search.trigramIndex) {
    // Terms of three characters or more (a trigram index cannot look up shorter ones); the columns as an
    // FTS5 column filter, the term as a quoted string (its `"` doubled).
    const filter = `{${columns.map((c) => COLUMN[c]).join(' ')}}`;
    for (const raw of terms) {
      if (raw.startsWith('-') || [...raw].length < 3) continue;
      const match = `${filter} : "${raw.replaceAll('"', '""')}"`;
      // The index's candidates and every post queued for it (changed since the indexer last ran, see
      // search-indexer.ts): the index may not hold a queued post's current text yet.
      parts.push(
        sql<SqlBool>`posts.id in (select rowid from posts_search where posts_search match ${match} union all select id from posts_search_queue)`,
      );
    }
  }
  for (const raw of terms) {
    const exclude = raw.startsWith('-');
    const term = exclude ? raw.slice(1) : raw;
    const pattern = `${wild}${likeEscape(term)}${wild}`;
    const each = columns.map((c) => likeExpr(COLUMN[c], pattern, exclude, search.likeIgnoresCase));
    parts.push(exclude ? eb.and(each) : eb.or(each));
  }
  const clauses = [eb.and(parts)];
  // WordPress leaves password-protected posts out of visitors' searches.
  if (!search.loggedIn) clauses.push(eb('posts.password', '=', ''));
  return eb.and(clauses);
}

function accessWhere(eb: Eb, a: PostAccess): Expression<SqlBool> {
  const own = a.userId > 0 ? eb('posts.author_id', '=', a.userId) : sql<SqlBool>`1 = 0`;
  const others = a.userId > 0 ? eb('posts.author_id', '!=', a.userId) : sql<SqlBool>`1 = 1`;
  const ors: Expression<SqlBool>[] = [];
  if (a.mode === 'read') {
    ors.push(eb('posts.status', '=', 'publish'));
    if (a.read) ors.push(own);
    if (a.readPrivate) ors.push(eb('posts.status', '=', 'private'));
  }
  // What the user may edit (a readable post too, for drafts and the like of others).
  if (a.editPublished) ors.push(eb.and([own, eb('posts.status', 'in', ['publish', 'future'])]));
  if (a.editPosts) ors.push(eb.and([own, eb('posts.status', 'not in', ['publish', 'future'])]));
  if (a.editOthers) {
    const allowed: string[] = [];
    if (a.editPublished) allowed.push('publish', 'future');
    if (a.editPrivate) allowed.push('private');
    ors.push(
      eb.and([
        others,
        eb.or([
          eb('posts.status', 'not in', ['publish', 'future', 'private']),
          eb('posts.status', 'in', allowed.length > 0 ? allowed : ['']),
        ]),
      ]),
    );
  }
  return ors.length > 0 ? eb.or(ors) : sql<SqlBool>`1 = 0`;
}

function taxWhere(eb: Eb, clause: TaxClause): Expression<SqlBool> {
  const ids = clause.termIds.length > 0 ? clause.termIds : [0];
  const related = eb
    .selectFrom('term_relationships as tr')
    .select('tr.object_id')
    .whereRef('tr.object_id', '=', 'posts.id')
    .where('tr.term_id', 'in', ids);
  if (clause.operator === 'NOT IN') return eb.not(eb.exists(related));
  if (clause.operator === 'IN') return eb.exists(related);
  const distinct = new Set(ids).size;
  return eb(
    eb
      .selectFrom('term_relationships as tr')
      .select((e) => e.fn.countAll<number>().as('n'))
      .whereRef('tr.object_id', '=', 'posts.id')
      .where('tr.term_id', 'in', ids),
    '=',
    distinct,
  );
}

/**
 * Whether the access clause can only repeat the status filter: in the read mode published posts are
 * readable by everyone, so a list of published posts needs no per-row access check (and SQLite then
 * counts from the index alone).
 */
function publishedOnlyRead(q: PostListQuery, a: PostAccess): boolean {
  if (a.mode !== 'read') return false;
  return q.statuses.length === 0 || q.statuses.every((s) => s === 'publish');
}

/**
 * Whether the access clause holds for every row: a user who may edit their own posts in every status
 * (`edit_posts`, `edit_published_posts`) and others' in every status (`edit_others_posts`, also
 * published and private) may see every post, whoever wrote it (author and status are never null). An
 * administrator's or editor's edit-context list then reads the index in order like a public one.
 */
function editsEverything(a: PostAccess): boolean {
  return a.editPosts && a.editPublished && a.editOthers && a.editPrivate;
}

/** The WHERE clause of a list query. */
export function postListWhere(eb: Eb, q: PostListQuery): Expression<SqlBool> {
  const and: Expression<SqlBool>[] = [eb('posts.type', '=', q.type)];
  if (q.statuses.includes('any')) {
    const excluded = EXCLUDED_FROM_ANY.filter((s) => !q.statuses.includes(s));
    and.push(eb('posts.status', 'not in', excluded));
  } else {
    and.push(eb('posts.status', 'in', q.statuses.length > 0 ? [...q.statuses] : ['publish']));
  }
  if (q.include && q.include.length > 0) and.push(eb('posts.id', 'in', [...q.include]));
  else if (q.exclude && q.exclude.length > 0) and.push(eb('posts.id', 'not in', [...q.exclude]));
  if (q.authorsExclude && q.authorsExclude.length > 0) and.push(eb('posts.author_id', 'not in', [...q.authorsExclude]));
  else if (q.authors && q.authors.length > 0) and.push(eb('posts.author_id', 'in', [...q.authors]));
  if (q.parents && q.parents.length > 0) and.push(eb('posts.parent_id', 'in', [...q.parents]));
  else if (q.parentsExclude && q.parentsExclude.length > 0)
    and.push(eb('posts.parent_id', 'not in', [...q.parentsExclude]));
  if (q.slugs && q.slugs.length > 0) and.push(eb('posts.slug', 'in', [...q.slugs]));
  // No stored menu_order lies outside the column's 32-bit range (see int32Column), so such a filter
  // matches nothing, as in WordPress; PostgreSQL would refuse the number as a parameter.
  if (q.menuOrder !== undefined) {
    and.push(fitsInt32(q.menuOrder) ? eb('posts.menu_order', '=', q.menuOrder) : sql<SqlBool>`1 = 0`);
  }
  if (q.after) and.push(eb('posts.date_local', '>', q.after));
  if (q.before) and.push(eb('posts.date_local', '<', q.before));
  if (q.modifiedAfter) and.push(eb('posts.modified_local', '>', q.modifiedAfter));
  if (q.modifiedBefore) and.push(eb('posts.modified_local', '<', q.modifiedBefore));
  // A search whose text is empty once slashes are stripped (`\`) still applies: `LIKE '%%'` matches every
  // post, and visitors do not see protected ones.
  if (q.search) and.push(searchWhere(eb, q.search));
  const taxParts: Expression<SqlBool>[] = [];
  if (q.tax && q.tax.clauses.length > 0) {
    const clauses = q.tax.clauses.map((c) => taxWhere(eb, c));
    taxParts.push(q.tax.relation === 'OR' ? eb.or(clauses) : eb.and(clauses));
  }
  if (q.formats && q.formats.length > 0) {
    const named = q.formats.filter((f) => f !== 'standard');
    const ors: Expression<SqlBool>[] = [];
    if (q.formats.includes('standard')) ors.push(eb('posts.format', '=', ''));
    if (named.length > 0) ors.push(eb('posts.format', 'in', named));
    taxParts.push(eb.or(ors));
  }
  if (taxParts.length > 0) and.push(eb.and(taxParts));
  if (q.access && !publishedOnlyRead(q, q.access) && !editsEverything(q.access)) and.push(accessWhere(eb, q.access));
  return eb.and(and);
}

/** An ORDER BY item: an expression and its direction. */
export interface OrderItem {
  expr: Expression<unknown>;
  direction: 'asc' | 'desc';
}

/** The ORDER BY of a list query, with the id as the final tie-breaker. */
export function postListOrder(q: PostListQuery): OrderItem[] {
  const dir = q.order;
  const ref = (c: string) => sql.ref(`posts.${c}`);
  switch (q.orderby) {
    case 'include': {
      const ids = q.include ?? [];
      // Without ids WP_Query falls back to post_date with the order it forced away: ascending.
      if (ids.length === 0)
        return [
          { expr: ref('date_local'), direction: 'asc' },
          { expr: ref('id'), direction: 'asc' },
        ];
      // Each `when` a comparison, not `case posts.id when <id>`: PostgreSQL's plugin for ids past its 32-bit
      // columns (WideIntegerComparisonsPlugin) sees comparisons only.
      const eb = expressionBuilder<CmsDatabase, 'posts'>();
      const cases = sql.join(
        ids.map((id, i) => sql`when ${eb('posts.id', '=', id)} then ${i}`),
        sql` `,
      );
      return [{ expr: sql`case ${cases} else ${ids.length} end`, direction: 'asc' }];
    }
    case 'include_slugs': {
      const slugs = q.slugs ?? [];
      if (slugs.length === 0)
        return [
          { expr: ref('date_local'), direction: 'asc' },
          { expr: ref('id'), direction: 'asc' },
        ];
      const cases = sql.join(
        slugs.map((s, i) => sql`when ${s} then ${i}`),
        sql` `,
      );
      return [
        { expr: sql`case posts.slug ${cases} else ${slugs.length} end`, direction: 'asc' },
        { expr: ref('id'), direction: 'asc' },
      ];
    }
    case 'relevance':
      return [...relevanceOrder(q), { expr: ref('date_local'), direction: dir }, { expr: ref('id'), direction: dir }];
    case 'author':
      return [
        { expr: ref('author_id'), direction: dir },
        { expr: ref('id'), direction: dir },
      ];
    case 'id':
      return [{ expr: ref('id'), direction: dir }];
    case 'modified':
      return [
        { expr: ref('modified_local'), direction: dir },
        { expr: ref('id'), direction: dir },
      ];
    case 'parent':
      return [
        { expr: ref('parent_id'), direction: dir },
        { expr: ref('id'), direction: dir },
      ];
    case 'slug':
      return [
        { expr: ref('slug'), direction: dir },
        { expr: ref('id'), direction: dir },
      ];
    case 'title':
      return [
        // The raw title's key (case and accents ignored, as MySQL's collation orders post_title).
        { expr: ref('title_sort'), direction: dir },
        { expr: ref('id'), direction: dir },
      ];
    case 'menu_order':
      return [
        { expr: ref('menu_order'), direction: dir },
        { expr: ref('id'), direction: dir },
      ];
    default:
      return [
        { expr: ref('date_local'), direction: dir },
        { expr: ref('id'), direction: dir },
      ];
  }
}

/** WP_Query::parse_search_order(): sentence and word matches in the title first. */
function relevanceOrder(q: PostListQuery): OrderItem[] {
  if (!q.search || q.search.text === '') return [];
  const { terms, count } = searchTerms(q.search.text);
  const titleTerms = q.search.exact ? [] : terms.filter((t) => !t.startsWith('-'));
  const ci = q.search.likeIgnoresCase;
  const like = (column: string, pattern: string) => likeExpr(column, pattern, false, ci);
  const titleLikes = titleTerms.map((t) => like('title', `%${likeEscape(t)}%`));
  if (count <= 1) {
    if (titleLikes.length === 0) return [];
    return [{ expr: sql`case when ${titleLikes[0]} then 1 else 0 end`, direction: 'desc' }];
  }
  const sentence = /(?:\s|^)-/.test(q.search.text) ? null : `%${likeEscape(q.search.text)}%`;
  const whens: ReturnType<typeof sql>[] = [];
  if (sentence) whens.push(sql`when ${like('title', sentence)} then 1`);
  if (titleLikes.length > 0 && titleLikes.length < 7) {
    whens.push(sql`when ${sql.join(titleLikes, sql` and `)} then 2`);
    if (titleLikes.length > 1) whens.push(sql`when ${sql.join(titleLikes, sql` or `)} then 3`);
  }
  if (sentence) {
    whens.push(sql`when ${like('excerpt', sentence)} then 4`);
    whens.push(sql`when ${like('content', sentence)} then 5`);
  }
  if (whens.length === 0) return [];
  return [{ expr: sql`case ${sql.join(whens, sql` `)} else 6 end`, direction: 'asc' }];
}
