/**
 * Storage of posts, their meta and their terms (Kysely; SQLite and PostgreSQL). Plain data access: the
 * WordPress rules (slugs, dates, statuses, revisions) live in the content service, which calls this in
 * its transactions. Every method takes an optional executor so it can run inside one.
 */

import { arg, runShape } from '@svc/platform';
import { type Kysely, sql } from 'kysely';
import { checkColumnWidths } from '../db/column-widths.ts';
import { literalLimit, sqlOffset } from '../db/limit.ts';
import type { CmsDatabase } from '../db/schema.ts';
import {
  POST_KEY_COLUMNS,
  type Post,
  type PostFields,
  type PostKey,
  type PostRow,
  toPost,
  toPostKey,
  toRow,
} from './post.ts';
import { type PostListQuery, postListOrder, postListWhere } from './post-query.ts';
import type { PostsTable } from './schema.ts';

export type Db = Kysely<CmsDatabase>;

/** A term attached to a post. */
export interface PostTerm {
  postId: number;
  termId: number;
  taxonomy: string;
  name: string;
}

/** What a page of a list query returns. */
export interface PostPage {
  posts: Post[];
  total: number;
}

function parseMeta(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** What WordPress's messages call the post a write is about: "Could not insert attachment into the database." */
function subjectOf(fields: Partial<PostFields>): string {
  return fields.type === 'attachment' ? 'attachment' : 'post';
}

export class PostRepository {
  readonly db: Db;
  /** SQLite's LIKE ignores ASCII case, the same folding its lower() does, so searches skip lower(). */
  readonly #likeIgnoresCase: boolean;
  /**
   * SQLite only: results of hot reads (list counts, slug owners) by query, valid while the connection's
   * write generation (see #writeGeneration) is unchanged. Counting every matching post costs as much as
   * reading a page, and the same lists are asked for again and again between writes. PostgreSQL (several
   * nodes, no such generation) reads every time.
   */
  readonly #kept: Map<string, { generation: string; value: unknown }> | null;

  constructor(db: Db, dialect: 'sqlite' | 'postgres' = 'postgres') {
    this.db = db;
    this.#likeIgnoresCase = dialect === 'sqlite';
    this.#kept = dialect === 'sqlite' ? new Map() : null;
  }

  /**
   * On SQLite: a value that changes whenever the data may have changed — `total_changes()` counts every
   * row this connection (the process's only one) inserted, updated or deleted, triggers included, and
   * `data_version` changes when another connection (another worker, a CLI command) has committed.
   */
  async #writeGeneration(db: Db): Promise<string> {
    const rows = await runShape(
      db,
      'write-generation',
      () =>
        db.selectNoFrom([
          sql<number>`total_changes()`.as('c'),
          sql<number>`(select data_version from pragma_data_version)`.as('v'),
        ]),
      [],
    );
    const row = rows[0] as { c: number; v: number } | undefined;
    return `${row?.c}:${row?.v}`;
  }

  /**
   * The query as this database runs it fastest (same results): on SQLite, LIKE needs no lower() and the
   * trigram index (migration 0053) narrows a search's candidates.
   */
  #tuned(query: PostListQuery): PostListQuery {
    if (!query.search || !this.#likeIgnoresCase) return query;
    return { ...query, search: { ...query.search, likeIgnoresCase: true, trigramIndex: true } };
  }

  async findById(id: number, db: Db = this.db): Promise<Post | null> {
    if (!Number.isSafeInteger(id) || id <= 0) return null;
    const rows = await runShape(
      db,
      'posts-by-id',
      () =>
        db
          .selectFrom('posts')
          .selectAll()
          .where('id', '=', arg(0) as unknown as number),
      [id],
    );
    const row = rows[0];
    return row ? toPost(row as PostRow) : null;
  }

  /** Posts by id, in the order of `ids` (missing ones left out). */
  /** A post's version (its row's write counter), or null when there is no such post. */
  async versionOf(id: number, db: Db = this.db): Promise<number | null> {
    const rows = await runShape(
      db,
      'posts-version-by-id',
      () =>
        db
          .selectFrom('posts')
          .select('version')
          .where('id', '=', arg(0) as unknown as number),
      [id],
    );
    const row = rows[0];
    return row ? Number(row.version) : null;
  }

  async findByIds(ids: readonly number[], db: Db = this.db): Promise<Post[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('posts')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
    const byId = new Map(rows.map((r) => [Number(r.id), toPost(r as PostRow)]));
    return ids.map((id) => byId.get(id)).filter((p): p is Post => p !== undefined);
  }

  /** Inserts a post; returns its id. */
  async insert(fields: PostFields, db: Db = this.db): Promise<number> {
    // Compiled once per set of columns (the same for every insert in practice).
    const row = toRow(fields) as Record<string, unknown>;
    checkColumnWidths('posts', row, 'insert', subjectOf(fields));
    const columns = Object.keys(row);
    const rows = await runShape(
      db,
      `posts-insert|${columns.join(',')}`,
      () =>
        db
          .insertInto('posts')
          .values({
            ...(Object.fromEntries(columns.map((c, i) => [c, arg(i)])) as unknown as Required<
              ReturnType<typeof toRow>
            >),
            version: 1,
          })
          .returning('id'),
      columns.map((c) => row[c]),
    );
    const inserted = rows[0];
    if (!inserted) throw new Error('insert into posts returned no row');
    return Number(inserted.id);
  }

  /** Updates some fields of a post and bumps its version. */
  async update(id: number, fields: Partial<PostFields>, db: Db = this.db): Promise<void> {
    const row = toRow(fields) as Record<string, unknown>;
    checkColumnWidths('posts', row, 'update', subjectOf(fields));
    const columns = Object.keys(row);
    await runShape(
      db,
      `posts-update|${columns.join(',')}`,
      () =>
        db
          .updateTable('posts')
          .set({
            ...(Object.fromEntries(columns.map((c, i) => [c, arg(i + 1)])) as ReturnType<typeof toRow>),
            version: sql`version + 1`,
          })
          .where('id', '=', arg(0) as unknown as number),
      [id, ...columns.map((c) => row[c])],
    );
  }

  /** Deletes a post row (its meta and term relationships go with it). */
  async delete(id: number, db: Db = this.db): Promise<void> {
    await db.deleteFrom('postmeta').where('post_id', '=', id).execute();
    await db.deleteFrom('term_relationships').where('object_id', '=', id).execute();
    await db.deleteFrom('posts').where('id', '=', id).execute();
  }

  /**
   * The ids of the posts of a (non-hierarchical) type that use each of `slugs`: answers `slugTaken` for a
   * whole page of posts in one query.
   */
  async slugOwners(slugs: readonly string[], type: string, db: Db = this.db): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    if (slugs.length === 0) return out;
    const distinct = [...new Set(slugs)];
    // An edit-context list asks this for the same page on every request: kept like counts.
    const rows = await this.#keptUntilWrite(`slug-owners|${JSON.stringify([type, distinct])}`, db, () =>
      runShape(
        db,
        `posts-slug-owners|${distinct.length}`,
        () =>
          db
            .selectFrom('posts')
            .select(['id', 'slug'])
            .where('type', '=', arg(0) as unknown as string)
            .where(
              'slug',
              'in',
              distinct.map((_, i) => arg(i + 1) as unknown as string),
            ),
        [type, ...distinct],
      ),
    );
    for (const row of rows) {
      const ids = out.get(row.slug);
      if (ids) ids.push(Number(row.id));
      else out.set(row.slug, [Number(row.id)]);
    }
    return out;
  }

  /** Whether another post already uses the slug (the uniqueness scope of wp_unique_post_slug). */
  async slugTaken(
    slug: string,
    scope: { type: string; excludeId: number; hierarchical: boolean; parentId: number },
    db: Db = this.db,
  ): Promise<boolean> {
    const kind = scope.type === 'attachment' ? 'any' : scope.hierarchical ? 'hierarchical' : 'type';
    const rows = await runShape(
      db,
      `posts-slug-taken|${kind}`,
      () => {
        let q = db
          .selectFrom('posts')
          .select('id')
          .where('slug', '=', arg(0))
          .where('id', '!=', arg(1) as unknown as number);
        if (kind === 'any') {
          // Attachment slugs are unique across all types.
        } else if (kind === 'hierarchical') {
          q = q.where('type', 'in', [arg(2), 'attachment']).where('parent_id', '=', arg(3) as unknown as number);
        } else {
          q = q.where('type', '=', arg(2));
        }
        return q.limit(literalLimit(1));
      },
      [slug, scope.excludeId, scope.type, scope.parentId],
    );
    return rows.length > 0;
  }

  /** A page of a list query and the number of matching posts. */
  async list(listQuery: PostListQuery, page: { limit: number; offset: number }, db: Db = this.db): Promise<PostPage> {
    const { rows, total } = await this.#listRows(listQuery, page, db, null);
    return { posts: rows.map((r) => toPost(r as PostRow)), total };
  }

  /** list() reading only the PostKey columns of each post. */
  async listKeys(
    listQuery: PostListQuery,
    page: { limit: number; offset: number },
    db: Db = this.db,
  ): Promise<{ posts: PostKey[]; total: number }> {
    const { rows, total } = await this.#listRows(listQuery, page, db, POST_KEY_COLUMNS);
    return { posts: rows.map((r) => toPostKey(r as PostRow)), total };
  }

  async #listRows(
    listQuery: PostListQuery,
    page: { limit: number; offset: number },
    db: Db,
    columns: readonly (keyof PostsTable)[] | null,
  ): Promise<{ rows: Partial<PostRow>[]; total: number }> {
    const query = this.#tuned(listQuery);
    if (query.search) return this.#searchPage(query, page, db, columns);
    // The serialised query decides the whole statement but its page: compiled once per list shape.
    const queryKey = JSON.stringify(query);
    const rows = (await runShape(
      db,
      `posts-list|${columns ? columns.join(',') : '*'}|${page.limit}|${queryKey}`,
      () => {
        const from = db.selectFrom('posts');
        let q = (columns ? from.select(columns.map((c) => `posts.${c}` as const)) : from.selectAll('posts')).where(
          (eb) => postListWhere(eb, query),
        );
        for (const item of postListOrder(query)) q = q.orderBy(item.expr, item.direction);
        return q.limit(literalLimit(page.limit)).offset(arg(0) as unknown as number);
      },
      [sqlOffset(page.offset)],
    )) as Partial<PostRow>[];
    // A short page (or an empty first page) already tells the total; only a full page needs a count.
    const total =
      (rows.length > 0 && rows.length < page.limit) || (rows.length === 0 && page.offset === 0)
        ? page.offset + rows.length
        : await this.#count(query, queryKey, db);
    return { rows, total };
  }

  /**
   * A page of a search. Matching means a text scan of every candidate (`LIKE '%term%'`), which a count
   * would repeat; so the ids of all matches are read in one pass, in the list's order, and only the
   * page's rows are then fetched.
   */
  async #searchPage(
    query: PostListQuery,
    page: { limit: number; offset: number },
    db: Db,
    columns: readonly (keyof PostsTable)[] | null,
  ): Promise<{ rows: Partial<PostRow>[]; total: number }> {
    const queryKey = JSON.stringify(query);
    // The same searches come again between writes: their matches are kept like counts.
    const ids = await this.#keptUntilWrite(`search|${queryKey}`, db, async () => {
      const matches = await runShape(
        db,
        `posts-search|${queryKey}`,
        () => {
          let q = db
            .selectFrom('posts')
            .select('posts.id')
            .where((eb) => postListWhere(eb, query));
          for (const item of postListOrder(query)) q = q.orderBy(item.expr, item.direction);
          return q;
        },
        [],
      );
      return matches.map((r) => Number(r.id));
    });
    const pageIds = ids.slice(page.offset, page.offset + page.limit);
    if (pageIds.length === 0) return { rows: [], total: ids.length };
    const rows = (await runShape(
      db,
      `posts-by-ids|${columns ? columns.join(',') : '*'}|${pageIds.length}`,
      () => {
        const from = db.selectFrom('posts');
        return (columns ? from.select([...columns]) : from.selectAll()).where(
          'id',
          'in',
          pageIds.map((_, i) => arg(i) as unknown as number),
        );
      },
      pageIds,
    )) as Partial<PostRow>[];
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return {
      rows: pageIds.map((id) => byId.get(id)).filter((r): r is Partial<PostRow> => r !== undefined),
      total: ids.length,
    };
  }

  /** The number of posts a list query matches. */
  async count(listQuery: PostListQuery, db: Db = this.db): Promise<number> {
    const query = this.#tuned(listQuery);
    return this.#count(query, JSON.stringify(query), db);
  }

  async #count(query: PostListQuery, queryKey: string, db: Db): Promise<number> {
    return this.#keptUntilWrite(`count|${queryKey}`, db, async () => {
      const rows = await runShape(
        db,
        `posts-count|${queryKey}`,
        () =>
          db
            .selectFrom('posts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where((eb) => postListWhere(eb, query)),
        [],
      );
      return Number((rows[0] as { n: number } | undefined)?.n ?? 0);
    });
  }

  /**
   * The result of a read (which must not be changed by its callers), kept on SQLite under `key` until
   * anything is written (see #writeGeneration); read every time on PostgreSQL and inside transactions,
   * whose reads may see their own uncommitted rows.
   */
  async #keptUntilWrite<T>(key: string, db: Db, read: () => Promise<T>): Promise<T> {
    const kept = this.#kept;
    if (kept === null || db !== this.db) return read();
    const generation = await this.#writeGeneration(db);
    const hit = kept.get(key);
    if (hit && hit.generation === generation) return hit.value as T;
    const value = await read();
    // Kept only when nothing was written while it read (another request's write between the two reads).
    if ((await this.#writeGeneration(db)) === generation) {
      if (kept.size >= 1000) kept.clear();
      kept.set(key, { generation, value });
    }
    return value;
  }

  /** Children of a post of one type, newest first (revisions: by date then id, as WordPress lists them). */
  async children(parentId: number, type: string, db: Db = this.db): Promise<Post[]> {
    const rows = await db
      .selectFrom('posts')
      .selectAll()
      .where('parent_id', '=', parentId)
      .where('type', '=', type)
      .orderBy('date_local', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map((r) => toPost(r as PostRow));
  }

  /**
   * wp_get_latest_revision_id_and_total_count() for several posts: how many revisions (autosaves
   * included) each has, and the newest one's id.
   */
  async revisionSummaries(
    parentIds: readonly number[],
    db: Db = this.db,
  ): Promise<Map<number, { count: number; latestId: number }>> {
    const out = new Map<number, { count: number; latestId: number }>();
    if (parentIds.length === 0) return out;
    const rows = await runShape(
      db,
      `posts-revision-summaries|${parentIds.length}`,
      () =>
        db
          .selectFrom('posts')
          .select(['id', 'parent_id', 'date_local'])
          .where(
            'parent_id',
            'in',
            parentIds.map((_, i) => arg(i) as unknown as number),
          )
          .where('type', '=', 'revision')
          .where('status', '=', 'inherit'),
      parentIds,
    );
    const latestDate = new Map<number, string>();
    for (const r of rows) {
      const parent = Number(r.parent_id);
      const id = Number(r.id);
      const entry = out.get(parent) ?? { count: 0, latestId: 0 };
      entry.count++;
      const best = latestDate.get(parent);
      if (best === undefined || r.date_local > best || (r.date_local === best && id > entry.latestId)) {
        entry.latestId = id;
        latestDate.set(parent, r.date_local);
      }
      out.set(parent, entry);
    }
    return out;
  }

  // ---- meta ----

  /** Meta values of several posts for the given keys (the last value of a key wins). */
  async meta(
    postIds: readonly number[],
    keys: readonly string[],
    db: Db = this.db,
  ): Promise<Map<number, Map<string, unknown>>> {
    const out = new Map<number, Map<string, unknown>>();
    if (postIds.length === 0 || keys.length === 0) return out;
    const rows = await runShape(
      db,
      `postmeta-of|${postIds.length}|${keys.length}`,
      () =>
        db
          .selectFrom('postmeta')
          .select(['post_id', 'meta_key', 'meta_value'])
          .where(
            'post_id',
            'in',
            postIds.map((_, i) => arg(i) as unknown as number),
          )
          .where(
            'meta_key',
            'in',
            keys.map((_, i) => arg(postIds.length + i)),
          )
          .orderBy('id'),
      [...postIds, ...keys],
    );
    for (const r of rows) {
      const id = Number(r.post_id);
      let m = out.get(id);
      if (!m) {
        m = new Map();
        out.set(id, m);
      }
      m.set(r.meta_key, parseMeta(r.meta_value));
    }
    return out;
  }

  /** One meta value, or undefined. */
  async getMeta(postId: number, key: string, db: Db = this.db): Promise<unknown> {
    return (await this.meta([postId], [key], db)).get(postId)?.get(key);
  }

  /** update_post_meta(): replaces every value of the key. */
  async setMeta(postId: number, key: string, value: unknown, db: Db = this.db): Promise<void> {
    checkColumnWidths('postmeta', { meta_key: key }, 'update');
    await db.deleteFrom('postmeta').where('post_id', '=', postId).where('meta_key', '=', key).execute();
    await db
      .insertInto('postmeta')
      .values({ post_id: postId, meta_key: key, meta_value: JSON.stringify(value) })
      .execute();
  }

  /** delete_post_meta(). */
  async deleteMeta(postId: number, key: string, db: Db = this.db): Promise<void> {
    await db.deleteFrom('postmeta').where('post_id', '=', postId).where('meta_key', '=', key).execute();
  }

  // ---- terms ----

  /** The terms of several posts, by name within each taxonomy (get_the_terms order). */
  async terms(postIds: readonly number[], db: Db = this.db): Promise<PostTerm[]> {
    if (postIds.length === 0) return [];
    const rows = await runShape(
      db,
      `post-terms-of|${postIds.length}`,
      () =>
        db
          .selectFrom('term_relationships as tr')
          .innerJoin('terms as t', 't.id', 'tr.term_id')
          .select(['tr.object_id', 'tr.term_id', 't.taxonomy', 't.name'])
          .where(
            'tr.object_id',
            'in',
            postIds.map((_, i) => arg(i) as unknown as number),
          )
          // By name without regard to case or accents, as WordPress's collation orders a post's terms.
          .orderBy('t.name_sort')
          .orderBy('t.id'),
      [...postIds],
    );
    return rows.map((r) => ({
      postId: Number(r.object_id),
      termId: Number(r.term_id),
      taxonomy: r.taxonomy,
      name: r.name,
    }));
  }

  /**
   * wp_set_object_terms() with ids: the post's terms in `taxonomy` become `termIds` (ids that are not
   * terms of that taxonomy are ignored). Returns the ids whose membership changed.
   */
  async setTerms(postId: number, taxonomy: string, termIds: readonly number[], db: Db = this.db): Promise<number[]> {
    const { added, removed } = await this.replaceTerms(postId, taxonomy, termIds, db);
    return [...added, ...removed];
  }

  /** setTerms(), telling the ids added and the ids removed apart. */
  async replaceTerms(
    postId: number,
    taxonomy: string,
    termIds: readonly number[],
    db: Db = this.db,
  ): Promise<{ added: number[]; removed: number[] }> {
    const wanted = termIds.length
      ? (
          await runShape(
            db,
            `terms-of-taxonomy|${termIds.length}`,
            () =>
              db
                .selectFrom('terms')
                .select('id')
                .where('taxonomy', '=', arg(0))
                .where(
                  'id',
                  'in',
                  termIds.map((_, i) => arg(i + 1) as unknown as number),
                ),
            [taxonomy, ...termIds],
          )
        ).map((r) => Number(r.id))
      : [];
    const current = (
      await runShape(
        db,
        'post-term-ids-in-taxonomy',
        () =>
          db
            .selectFrom('term_relationships as tr')
            .innerJoin('terms as t', 't.id', 'tr.term_id')
            .select('tr.term_id')
            .where('tr.object_id', '=', arg(0) as unknown as number)
            .where('t.taxonomy', '=', arg(1)),
        [postId, taxonomy],
      )
    ).map((r) => Number(r.term_id));
    const add = wanted.filter((id) => !current.includes(id));
    const remove = current.filter((id) => !wanted.includes(id));
    if (remove.length > 0) {
      await db
        .deleteFrom('term_relationships')
        .where('object_id', '=', postId)
        .where('term_id', 'in', remove)
        .execute();
    }
    await this.#insertRelationships(postId, add, db);
    return { added: add, removed: remove };
  }

  /**
   * replaceTerms() for each [taxonomy, ids] of a post that has no terms yet (inserted in the same
   * transaction): the ids are checked against their taxonomies in one query and inserted in one
   * statement. Returns the terms added, in get_the_terms order (by name, then id, as `terms()` lists
   * them).
   */
  async addTermsToNewPost(
    postId: number,
    sets: ReadonlyArray<readonly [string, readonly number[]]>,
    db: Db = this.db,
  ): Promise<Array<{ id: number; taxonomy: string }>> {
    const ids = [...new Set(sets.flatMap(([, termIds]) => termIds))];
    if (ids.length === 0) return [];
    const rows = await runShape(
      db,
      `terms-taxonomies|${ids.length}`,
      () =>
        db
          .selectFrom('terms')
          .select(['id', 'taxonomy'])
          .where(
            'id',
            'in',
            ids.map((_, i) => arg(i) as unknown as number),
          )
          // By name without regard to case or accents, as WordPress's collation orders a post's terms.
          .orderBy('name_sort')
          .orderBy('id'),
      ids,
    );
    const added: Array<{ id: number; taxonomy: string }> = [];
    for (const row of rows) {
      const id = Number(row.id);
      if (sets.some(([taxonomy, termIds]) => row.taxonomy === taxonomy && termIds.includes(id))) {
        added.push({ id, taxonomy: row.taxonomy });
      }
    }
    await this.#insertRelationships(
      postId,
      added.map((t) => t.id),
      db,
    );
    return added;
  }

  /** Attaches terms to a post in one statement (nothing when `termIds` is empty). */
  async #insertRelationships(postId: number, termIds: readonly number[], db: Db): Promise<void> {
    if (termIds.length === 0) return;
    await runShape(
      db,
      `term-relationships-insert|${termIds.length}`,
      () =>
        db.insertInto('term_relationships').values(
          termIds.map((_, i) => ({
            object_id: arg(0) as unknown as number,
            term_id: arg(i + 1) as unknown as number,
            term_order: 0,
          })),
        ),
      [postId, ...termIds],
    );
  }

  /** Term ids attached to a post (any taxonomy). */
  async termIdsOf(postId: number, db: Db = this.db): Promise<number[]> {
    const rows = await db.selectFrom('term_relationships').select('term_id').where('object_id', '=', postId).execute();
    return rows.map((r) => Number(r.term_id));
  }

  /**
   * _update_post_term_count(): for each term, the number of published objects of the given types
   * (attachments count when their parent is published).
   */
  async countPublished(termIds: readonly number[], db: Db = this.db): Promise<Map<number, number>> {
    const out = new Map<number, number>(termIds.map((id) => [id, 0]));
    if (termIds.length === 0) return out;
    const rows = await db
      .selectFrom('term_relationships as tr')
      .innerJoin('posts as p', 'p.id', 'tr.object_id')
      .leftJoin('posts as parent', 'parent.id', 'p.parent_id')
      .select(['tr.term_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tr.term_id', 'in', [...termIds])
      .where((eb) =>
        eb.or([
          eb('p.status', '=', 'publish'),
          eb.and([
            eb('p.type', '=', 'attachment'),
            eb('p.status', '=', 'inherit'),
            eb('parent.status', '=', 'publish'),
          ]),
        ]),
      )
      .groupBy('tr.term_id')
      .execute();
    for (const r of rows) out.set(Number(r.term_id), Number(r.n));
    return out;
  }

  /** Ids of future posts due at `gmtNow` (inclusive). */
  async dueFuturePosts(gmtNow: string, db: Db = this.db): Promise<number[]> {
    const rows = await db
      .selectFrom('posts')
      .select('id')
      .where('status', '=', 'future')
      .where('date_gmt', '<=', gmtNow)
      .where('date_gmt', '!=', '0000-00-00 00:00:00')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** The earliest GMT date of a future post, or null. */
  async nextFutureDate(db: Db = this.db): Promise<string | null> {
    const row = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.min('date_gmt').as('d'))
      .where('status', '=', 'future')
      .executeTakeFirst();
    return (row?.d as string | null | undefined) ?? null;
  }
}
