/**
 * Site options (get_option / update_option). Values are JSON in the `options` table; reads go through a
 * per-instance cache that expires after `ttlMs`, so several nodes sharing PostgreSQL converge quickly
 * while a busy node does not query options on every request.
 */
import type { Kysely } from 'kysely';
import { checkColumnWidths } from './column-widths.ts';
import type { CmsDatabase } from './schema.ts';
import { afterCommit } from './write-transaction.ts';

/** Defaults of a fresh site (populate_options in wp-admin/includes/schema.php), for the options we serve. */
export const DEFAULT_OPTIONS: Readonly<Record<string, unknown>> = {
  blogname: 'My CMS Site',
  blogdescription: '',
  siteurl: 'http://127.0.0.1:8080',
  home: 'http://127.0.0.1:8080',
  admin_email: '',
  timezone_string: '',
  gmt_offset: 0,
  date_format: 'F j, Y',
  time_format: 'g:i a',
  start_of_week: 1,
  WPLANG: '',
  use_smilies: true,
  default_category: 1,
  default_post_format: '0',
  posts_per_page: 10,
  show_on_front: 'posts',
  page_on_front: 0,
  page_for_posts: 0,
  default_ping_status: 'open',
  default_comment_status: 'open',
  site_icon: 0,
  permalink_structure: '/%postname%/',
  blog_charset: 'UTF-8',
};

export class OptionsRepository {
  private readonly db: Kysely<CmsDatabase>;
  private readonly ttlMs: number;
  private cache = new Map<string, unknown>();
  private readonly defaults = new Map<string, unknown>();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;

  constructor(db: Kysely<CmsDatabase>, options: { ttlMs?: number } = {}) {
    this.db = db;
    this.ttlMs = options.ttlMs ?? 2000;
  }

  private async refresh(): Promise<void> {
    if (Date.now() - this.loadedAt < this.ttlMs) return;
    this.loading ??= (async () => {
      try {
        const rows = await this.db.selectFrom('options').select(['name', 'value']).execute();
        const next = new Map<string, unknown>();
        for (const row of rows) {
          try {
            next.set(row.name, JSON.parse(row.value));
          } catch {
            next.set(row.name, row.value);
          }
        }
        this.cache = next;
        this.loadedAt = Date.now();
      } finally {
        this.loading = null;
      }
    })();
    await this.loading;
  }

  /** get_option(): the stored value, else the site default, else `fallback`. */
  async get<T = unknown>(name: string, fallback?: T): Promise<T> {
    await this.refresh();
    return this.lookup(name, fallback);
  }

  private lookup<T>(name: string, fallback?: T): T {
    if (this.cache.has(name)) return this.cache.get(name) as T;
    if (this.defaults.has(name)) return this.defaults.get(name) as T;
    if (Object.hasOwn(DEFAULT_OPTIONS, name)) return DEFAULT_OPTIONS[name] as T;
    return fallback as T;
  }

  /** Several options at once (from one state of the cache). */
  async getMany(names: readonly string[]): Promise<Record<string, unknown>> {
    await this.refresh();
    const out: Record<string, unknown> = {};
    for (const name of names) out[name] = this.lookup(name);
    return out;
  }

  /** Overrides a built-in default for this instance (e.g. siteurl from the listening address). */
  setDefault(name: string, value: unknown): void {
    this.defaults.set(name, value);
  }

  /**
   * update_option(). Given a transaction (`db`), the cache takes the value once it has committed: set
   * before, a rollback would leave the cache ahead of the database. A transaction not opened by
   * writeTransaction() has no commit callback, so the value reaches the cache with its next reload (within
   * `ttlMs`); the cache is not dropped at once, since reloading it from inside that transaction would wait
   * for the transaction's own connection.
   */
  async set(name: string, value: unknown, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    const json = JSON.stringify(value);
    checkColumnWidths('options', { name }, 'update');
    await db
      .insertInto('options')
      .values({ name, value: json })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: json }))
      .execute();
    if (!db.isTransaction) this.cache.set(name, value);
    else afterCommit(db, () => this.cache.set(name, value));
  }

  /** delete_option(): back to the default. In a transaction (`db`), the cache forgets it once that commits. */
  async delete(name: string, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    await db.deleteFrom('options').where('name', '=', name).execute();
    if (!db.isTransaction) this.cache.delete(name);
    else afterCommit(db, () => this.cache.delete(name));
  }

  /** Whether an option has been stored (not just defaulted). */
  async isStored(name: string): Promise<boolean> {
    const row = await this.db.selectFrom('options').select('name').where('name', '=', name).executeTakeFirst();
    return row !== undefined;
  }

  /** Forgets cached values (tests, and after writes by another process). */
  invalidate(): void {
    this.loadedAt = 0;
  }
}
