/** Users (wp_users with the profile meta we keep in columns). */
import { type Kysely, type Selectable, sql } from 'kysely';
import { isNumeric } from '../rest/php.ts';
import { checkColumnWidths } from './column-widths.ts';
import { literalLimit, sqlOffset } from './limit.ts';
import type { CmsDatabase, UsersTable } from './schema.ts';
import { nameSortKey } from './sort-key.ts';

export type UserRow = Selectable<UsersTable>;

/** A user as the rest of the code sees it: roles and caps decoded. */
export interface User extends Omit<UserRow, 'roles' | 'caps'> {
  roles: string[];
  caps: Record<string, boolean>;
}

export interface UserQuery {
  include?: number[];
  exclude?: number[];
  search?: string;
  /** Columns the search looks in (WP_User_Query search_columns). */
  searchColumns?: Array<'login' | 'url' | 'email' | 'nicename' | 'display_name' | 'id'>;
  slugs?: string[];
  roles?: string[];
  /** Users holding any of these capabilities through their roles (capabilities__in is resolved by the caller). */
  rolesAnyOf?: string[];
  onlyIds?: number[];
  orderby?: 'id' | 'include' | 'name' | 'registered_date' | 'slug' | 'include_slugs' | 'email' | 'url';
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

/** Decodes the JSON columns of a row. */
export function toUser(row: UserRow): User {
  return { ...row, roles: parseJson(row.roles, []), caps: parseJson(row.caps, {}) };
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export class UsersRepository {
  constructor(private readonly db: Kysely<CmsDatabase>) {}

  async findById(id: number, db: Kysely<CmsDatabase> = this.db): Promise<User | null> {
    const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findByLogin(login: string): Promise<User | null> {
    const row = await this.db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findByEmail(email: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findBySlug(slug: string): Promise<User | null> {
    const row = await this.db.selectFrom('users').selectAll().where('nicename', '=', slug).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  /** Number of users. */
  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private filtered(q: UserQuery) {
    let query = this.db.selectFrom('users');
    if (q.include && q.include.length > 0) query = query.where('id', 'in', q.include);
    if (q.onlyIds) query = query.where('id', 'in', q.onlyIds.length > 0 ? q.onlyIds : [-1]);
    if (q.exclude && q.exclude.length > 0) query = query.where('id', 'not in', q.exclude);
    if (q.slugs && q.slugs.length > 0) query = query.where('nicename', 'in', q.slugs);
    if (q.roles && q.roles.length > 0) {
      // roles is a JSON array of names; every listed role must be held (WP_User_Query role__and semantics for `roles`).
      for (const role of q.roles) query = query.where('roles', 'like', `%${JSON.stringify(role)}%`);
    }
    if (q.rolesAnyOf) {
      const list = q.rolesAnyOf;
      query = query.where((eb) =>
        list.length === 0 ? eb.val(false) : eb.or(list.map((role) => eb('roles', 'like', `%${JSON.stringify(role)}%`))),
      );
    }
    if (q.search) {
      const term = q.search.trim();
      // WP_User_Query: leading/trailing `*` (any number of them) are wildcards; without them the term must
      // match whole (the REST route always adds both).
      const leading = term.startsWith('*');
      const trailing = term.endsWith('*');
      const text = term.replace(/^\*+|\*+$/g, '');
      const bare = text.replace(/[\\%_]/g, (c) => `\\${c}`);
      // Without search_columns the text picks them: an email, an id or a login, a URL, else all five.
      const columns =
        q.searchColumns ??
        (text.includes('@')
          ? ['email']
          : isNumeric(text)
            ? ['login', 'id']
            : /^https?:\/\//.test(text)
              ? ['url']
              : ['login', 'url', 'email', 'nicename', 'display_name']);
      const pattern = `${leading ? '%' : ''}${bare}${trailing ? '%' : ''}`;
      query = query.where((eb) =>
        eb.or(
          columns.map((c) =>
            c === 'id'
              ? eb(sql`cast(id as text)`, '=', bare)
              : eb(sql`lower(${sql.ref(c)})`, 'like', sql`lower(${pattern}) escape '\\'`),
          ),
        ),
      );
    }
    return query;
  }

  /** Lists users with WP_User_Query-like filters and ordering. */
  async list(q: UserQuery): Promise<User[]> {
    let query = this.filtered(q).selectAll();
    const dir = q.order === 'desc' ? 'desc' : 'asc';
    switch (q.orderby) {
      case 'id':
        query = query.orderBy('id', dir);
        break;
      case 'registered_date':
        query = query.orderBy('registered', dir).orderBy('id', dir);
        break;
      case 'slug':
        query = query.orderBy('nicename', dir);
        break;
      case 'email':
        query = query.orderBy('email', dir);
        break;
      case 'url':
        query = query.orderBy('url', dir).orderBy('id', dir);
        break;
      case 'include':
      case 'include_slugs':
        query = query.orderBy('id', 'asc');
        break;
      default:
        // Without regard to case or accents, as WordPress's database collation compares names.
        query = query.orderBy('display_name_sort', dir).orderBy('id', dir);
    }
    if (q.limit !== undefined) query = query.limit(literalLimit(q.limit));
    if (q.offset) query = query.offset(sqlOffset(q.offset)).limit(literalLimit(q.limit ?? 1_000_000_000));
    const rows = await query.execute();
    const users = rows.map(toUser);
    if (q.orderby === 'include' && q.include) {
      const order = new Map(q.include.map((id, i) => [id, i]));
      users.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    }
    if (q.orderby === 'include_slugs' && q.slugs) {
      const order = new Map(q.slugs.map((s, i) => [s, i]));
      users.sort((a, b) => (order.get(a.nicename) ?? 0) - (order.get(b.nicename) ?? 0));
    }
    return users;
  }

  /** How many users match (for X-CMS-Total). */
  async countMatching(q: UserQuery): Promise<number> {
    const row = await this.filtered(q)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(
    values: Omit<UserRow, 'id' | 'roles' | 'caps' | 'display_name_sort'> & {
      roles: string[];
      caps?: Record<string, boolean>;
    },
    db: Kysely<CmsDatabase> = this.db,
  ): Promise<number> {
    const row = {
      ...values,
      display_name_sort: nameSortKey(values.display_name),
      roles: JSON.stringify(values.roles),
      caps: JSON.stringify(values.caps ?? {}),
    };
    checkColumnWidths('users', row, 'insert');
    const inserted = await db.insertInto('users').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  async update(
    id: number,
    values: Partial<Omit<UserRow, 'id' | 'roles' | 'caps' | 'display_name_sort'>> & {
      roles?: string[];
      caps?: Record<string, boolean>;
    },
    db: Kysely<CmsDatabase> = this.db,
  ): Promise<void> {
    const { roles, caps, ...rest } = values;
    const set: Record<string, unknown> = { ...rest };
    if (roles) set.roles = JSON.stringify(roles);
    if (caps) set.caps = JSON.stringify(caps);
    if (typeof rest.display_name === 'string') set.display_name_sort = nameSortKey(rest.display_name);
    if (Object.keys(set).length === 0) return;
    checkColumnWidths('users', set, 'update');
    await db.updateTable('users').set(set).where('id', '=', id).execute();
  }

  async delete(id: number, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    await db.deleteFrom('users').where('id', '=', id).execute();
  }
}
