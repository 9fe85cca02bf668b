/**
 * Site options (get_option / update_option). Values are JSON in the `options` table; reads go through a
 * per-instance cache of the whole table, used only under the options generation it was loaded at (see
 * cache-generations.ts): a change committed by any writer is seen from the next request on, and a busy node
 * does not query options on every request.
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

const NOT_LOADED = Symbol('not loaded');
const DELETED = Symbol('deleted');

export interface OptionsCacheSettings {
  /** False: every read loads the options (tests that write behind the repository's back). */
  cached?: boolean;
  /**
   * The options generation now current (CacheGenerations.options); the cache is loaded again when it
   * differs from the one it was loaded under. Without it the cache lives as long as the instance and sees
   * only its own writes.
   */
  generation?: () => unknown;
}

export class OptionsRepository {
  private readonly db: Kysely<CmsDatabase>;
  private readonly cached: boolean;
  private readonly generation: () => unknown;
  private cache = new Map<string, unknown>();
  private readonly defaults = new Map<string, unknown>();
  /** The generation `cache` was loaded under; NOT_LOADED before the first load. */
  private loadedUnder: unknown = NOT_LOADED;
  private loading: { generation: unknown; done: Promise<void> } | null = null;
  /**
   * This instance's own writes during each load in flight, applied over the rows it read (which may be from
   * before them), so a load cannot undo a write the cache already holds.
   */
  private readonly writesDuringLoads = new Set<Map<string, unknown>>();
  /** Loads started, and the latest one installed: a load that answers after a later one is dropped. */
  private loadsStarted = 0;
  private loadInstalled = 0;

  constructor(db: Kysely<CmsDatabase>, settings: OptionsCacheSettings = {}) {
    this.db = db;
    this.cached = settings.cached ?? true;
    this.generation = settings.generation ?? (() => 0);
  }

  private async refresh(): Promise<void> {
    // Uncached, every read has a generation of its own.
    const generation = this.currentGeneration();
    if (this.loadedUnder === generation) return;
    if (this.loading?.generation !== generation) {
      const written = new Map<string, unknown>();
      this.writesDuringLoads.add(written);
      const load = ++this.loadsStarted;
      const done = (async () => {
        try {
          const rows = await this.db.selectFrom('options').select(['name', 'value']).execute();
          if (load < this.loadInstalled) return;
          this.loadInstalled = load;
          const next = new Map<string, unknown>();
          for (const row of rows) {
            try {
              next.set(row.name, JSON.parse(row.value));
            } catch {
              next.set(row.name, row.value);
            }
          }
          for (const [name, value] of written) {
            if (value === DELETED) next.delete(name);
            else next.set(name, value);
          }
          this.cache = next;
          this.loadedUnder = generation;
        } finally {
          this.writesDuringLoads.delete(written);
        }
      })();
      const loading = { generation, done };
      this.loading = loading;
      void done.then(
        () => {
          if (this.loading === loading) this.loading = null;
        },
        () => {
          if (this.loading === loading) this.loading = null;
        },
      );
    }
    await this.loading!.done;
  }

  /**
   * The options generation this request reads under, for caches of things built from options (compare with
   * `===` only); a new value each call when the options are not cached.
   */
  currentGeneration(): unknown {
    return this.cached ? this.generation() : {};
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
   * writeTransaction() has no commit callback, so the value reaches the cache with its next reload (the write
   * changes the options generation, so that is the next request's); the cache is not dropped at once, since
   * reloading it from inside that transaction would wait for the transaction's own connection.
   */
  async set(name: string, value: unknown, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    const json = JSON.stringify(value);
    checkColumnWidths('options', { name }, 'update');
    await db
      .insertInto('options')
      .values({ name, value: json })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: json }))
      .execute();
    if (!db.isTransaction) this.remember(name, value);
    else afterCommit(db, () => this.remember(name, value));
  }

  /** delete_option(): back to the default. In a transaction (`db`), the cache forgets it once that commits. */
  async delete(name: string, db: Kysely<CmsDatabase> = this.db): Promise<void> {
    await db.deleteFrom('options').where('name', '=', name).execute();
    if (!db.isTransaction) this.forget(name);
    else afterCommit(db, () => this.forget(name));
  }

  private remember(name: string, value: unknown): void {
    this.cache.set(name, value);
    for (const written of this.writesDuringLoads) written.set(name, value);
  }

  private forget(name: string): void {
    this.cache.delete(name);
    for (const written of this.writesDuringLoads) written.set(name, DELETED);
  }

  /** Whether an option has been stored (not just defaulted). */
  async isStored(name: string): Promise<boolean> {
    const row = await this.db.selectFrom('options').select('name').where('name', '=', name).executeTakeFirst();
    return row !== undefined;
  }
}
