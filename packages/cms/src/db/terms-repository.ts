/**
 * Terms of every taxonomy. `count` holds the number of published objects in the term; the content
 * module keeps it current through `setCounts` when it changes relationships or post statuses.
 */

import { arg, runShape } from '@svc/platform';
import { type Kysely, type Selectable, sql } from 'kysely';
import { checkColumnWidths } from './column-widths.ts';
import { literalLimit, sqlOffset } from './limit.ts';
import type { CmsDatabase, TermsTable } from './schema.ts';
import { nameCompareKey, nameSortKey } from './sort-key.ts';

export type Term = Selectable<TermsTable>;

export interface TermQuery {
  taxonomy: string;
  include?: number[];
  exclude?: number[];
  search?: string;
  slugs?: string[];
  parent?: number;
  hideEmpty?: boolean;
  /** Only terms attached to this object (post) id — resolved through `objectTermIds` by the caller. */
  onlyIds?: number[];
  orderby?: 'id' | 'include' | 'name' | 'slug' | 'include_slugs' | 'term_group' | 'description' | 'count';
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

export class TermsRepository {
  constructor(private readonly db: Kysely<CmsDatabase>) {}

  async findById(id: number, db: Kysely<CmsDatabase> = this.db): Promise<Term | null> {
    return (await db.selectFrom('terms').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  /** Terms by ids (any taxonomy), in no particular order. */
  async findByIds(ids: readonly number[]): Promise<Term[]> {
    if (ids.length === 0) return [];
    const db = this.db;
    return runShape(
      db,
      `terms-by-ids|${ids.length}`,
      () =>
        db
          .selectFrom('terms')
          .selectAll()
          .where(
            'id',
            'in',
            ids.map((_, i) => arg(i) as unknown as number),
          ),
      [...ids],
    );
  }

  async findBySlug(taxonomy: string, slug: string, db: Kysely<CmsDatabase> = this.db): Promise<Term | null> {
    return (
      (await db
        .selectFrom('terms')
        .selectAll()
        .where('taxonomy', '=', taxonomy)
        .where('slug', '=', slug)
        .executeTakeFirst()) ?? null
    );
  }

  /**
   * The terms of a taxonomy (under `parent`, when given) whose name WordPress's database finds equal to `name`:
   * MySQL's collation ignores case and accents, so get_terms( [ 'name' => ... ] ) and get_term_by( 'name' ) match
   * "Café" for "CAFE". Compared through the stored sort key (same key, same name to the collation; see
   * sort-key.ts), on both stores alike; oldest first. Callers apply WordPress's own stricter checks on top.
   */
  async findByNameKey(taxonomy: string, name: string, parent?: number): Promise<Term[]> {
    let q = this.db
      .selectFrom('terms')
      .selectAll()
      .where('taxonomy', '=', taxonomy)
      .where('name_sort', '=', nameSortKey(name));
    if (parent !== undefined) q = q.where('parent', '=', parent);
    const key = nameCompareKey(name);
    // A stored key is cut at SORT_KEY_MAX characters: names equal that far but not after are told apart here.
    return (await q.orderBy('id', 'asc').execute()).filter((term) => nameCompareKey(term.name) === key);
  }

  /** Direct children of a term. */
  async children(taxonomy: string, parent: number): Promise<Term[]> {
    return this.db
      .selectFrom('terms')
      .selectAll()
      .where('taxonomy', '=', taxonomy)
      .where('parent', '=', parent)
      .execute();
  }

  /** Every descendant id of the given terms (for `include_children`). */
  async descendantIds(taxonomy: string, ids: readonly number[]): Promise<number[]> {
    const all = await this.db.selectFrom('terms').select(['id', 'parent']).where('taxonomy', '=', taxonomy).execute();
    const byParent = new Map<number, number[]>();
    for (const t of all) byParent.set(t.parent, [...(byParent.get(t.parent) ?? []), t.id]);
    const out = new Set<number>();
    const stack = [...ids];
    while (stack.length > 0) {
      const id = stack.pop()!;
      for (const child of byParent.get(id) ?? []) {
        if (!out.has(child)) {
          out.add(child);
          stack.push(child);
        }
      }
    }
    return [...out];
  }

  private filtered(q: TermQuery) {
    let query = this.db.selectFrom('terms').where('taxonomy', '=', q.taxonomy);
    if (q.include && q.include.length > 0) query = query.where('id', 'in', q.include);
    if (q.onlyIds) query = query.where('id', 'in', q.onlyIds.length > 0 ? q.onlyIds : [-1]);
    if (q.exclude && q.exclude.length > 0) query = query.where('id', 'not in', q.exclude);
    if (q.slugs && q.slugs.length > 0) query = query.where('slug', 'in', q.slugs);
    if (q.parent !== undefined) query = query.where('parent', '=', q.parent);
    if (q.hideEmpty) query = query.where('count', '>', 0);
    if (q.search) {
      const like = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) =>
        eb.or([
          eb(sql`lower(name)`, 'like', sql`lower(${like}) escape '\\'`),
          eb(sql`lower(slug)`, 'like', sql`lower(${like}) escape '\\'`),
        ]),
      );
    }
    return query;
  }

  async list(q: TermQuery): Promise<Term[]> {
    let query = this.filtered(q).selectAll();
    const dir = q.order === 'desc' ? 'desc' : 'asc';
    switch (q.orderby) {
      case 'id':
        query = query.orderBy('id', dir);
        break;
      case 'slug':
        query = query.orderBy('slug', dir);
        break;
      case 'description':
        query = query.orderBy('description', dir);
        break;
      case 'count':
        query = query.orderBy('count', dir).orderBy('id', 'asc');
        break;
      case 'term_group':
      case 'include':
      case 'include_slugs':
        query = query.orderBy('id', 'asc');
        break;
      default:
        // Without regard to case or accents, as WordPress's database collation compares names.
        query = query.orderBy('name_sort', dir).orderBy('id', 'asc');
    }
    if (q.limit !== undefined) query = query.limit(literalLimit(q.limit));
    if (q.offset) query = query.offset(sqlOffset(q.offset)).limit(literalLimit(q.limit ?? 1_000_000_000));
    const rows = await query.execute();
    if (q.orderby === 'include' && q.include) {
      const order = new Map(q.include.map((id, i) => [id, i]));
      rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    }
    if (q.orderby === 'include_slugs' && q.slugs) {
      const order = new Map(q.slugs.map((s, i) => [s, i]));
      rows.sort((a, b) => (order.get(a.slug) ?? 0) - (order.get(b.slug) ?? 0));
    }
    return rows;
  }

  async countMatching(q: TermQuery): Promise<number> {
    const row = await this.filtered(q)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(
    values: Omit<Term, 'id' | 'count' | 'name_sort'> & { count?: number },
    db: Kysely<CmsDatabase> = this.db,
  ): Promise<number> {
    const row = { ...values, name_sort: nameSortKey(values.name), count: values.count ?? 0 };
    checkColumnWidths('terms', row, 'insert');
    const inserted = await db.insertInto('terms').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  async update(
    id: number,
    values: Partial<Omit<Term, 'id' | 'name_sort'>>,
    db: Kysely<CmsDatabase> = this.db,
  ): Promise<void> {
    if (Object.keys(values).length === 0) return;
    const set = values.name === undefined ? values : { ...values, name_sort: nameSortKey(values.name) };
    checkColumnWidths('terms', set, 'update');
    await db.updateTable('terms').set(set).where('id', '=', id).execute();
  }

  /** Deletes a term; its children move up to its parent (wp_delete_term). */
  async delete(term: Term, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    await db
      .updateTable('terms')
      .set({ parent: term.parent })
      .where('taxonomy', '=', term.taxonomy)
      .where('parent', '=', term.id)
      .execute();
    await db.deleteFrom('terms').where('id', '=', term.id).execute();
  }

  /** Sets the published-object counts of terms (called by the content module). */
  async setCounts(counts: ReadonlyMap<number, number>, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    for (const [id, count] of counts) await db.updateTable('terms').set({ count }).where('id', '=', id).execute();
  }

  /**
   * Adds a difference to terms' counts, one statement per distinct difference (in place, so concurrent
   * writers on PostgreSQL do not overwrite each other's counts).
   */
  async addToCounts(deltas: ReadonlyMap<number, number>, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    const byDelta = new Map<number, number[]>();
    for (const [id, delta] of deltas) {
      if (delta === 0) continue;
      const ids = byDelta.get(delta);
      if (ids) ids.push(id);
      else byDelta.set(delta, [id]);
    }
    for (const [delta, ids] of byDelta) {
      await runShape(
        db,
        `terms-add-to-counts|${ids.length}`,
        () =>
          db
            .updateTable('terms')
            .set({ count: sql`count + ${arg(0)}` })
            .where(
              'id',
              'in',
              ids.map((_, i) => arg(i + 1) as unknown as number),
            ),
        [delta, ...ids],
      );
    }
  }
}
