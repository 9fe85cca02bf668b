/**
 * Keeps the per-process caches that are not keyed by a row version (site options, verified credentials with
 * the user's roles and capabilities) exact with several writers: other cluster workers on SQLite, other
 * nodes on PostgreSQL, the CLI, SQL by hand. Triggers of migration 0060 change a generation in the writing
 * transaction whenever what a cache is built from changes; each request reads the generations first (one
 * primary-key lookup), and a cache uses an entry only when it was read under the generation now current.
 *
 * On SQLite the read is a synchronous statement on the better-sqlite3 connection (~2 µs, cheaper than an
 * asynchronous Kysely round); on PostgreSQL it is one statement, one round trip.
 */
import { sqliteHandleOf } from '@svc/platform';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Kysely } from 'kysely';
import type { CmsDatabase } from './schema.ts';

/**
 * The read, without parameters: node-postgres sends a statement with none in one simple-protocol message,
 * where a parameter (even a constant id) costs a parse, bind and execute round (~150 against ~50 µs here).
 */
const SELECT = 'select options, credentials from cms_cache_generations where id = 1';
const READ = CompiledQuery.raw(SELECT);

/** Stands for the generations of a process that has served no request yet (the CLI, the first-run install). */
const UNREAD = Symbol('unread');

interface Row {
  options: number;
  credentials: number;
}

export class CacheGenerations {
  readonly #db: Kysely<CmsDatabase>;
  readonly #sqlite: SQLite.Statement<[], Row> | null;
  #options: unknown = UNREAD;
  #credentials: unknown = UNREAD;
  /** Reads started and the latest one whose answer was taken (on PostgreSQL answers can come out of order). */
  #started = 0;
  #taken = 0;

  constructor(db: Kysely<CmsDatabase>) {
    this.#db = db;
    const connection = sqliteHandleOf(db);
    this.#sqlite = connection ? connection.prepare<[], Row>(SELECT) : null;
  }

  /** The generation of the site options, as last read. Compare with `===` only. */
  get options(): unknown {
    return this.#options;
  }

  /** The generation of users and their application passwords, as last read. Compare with `===` only. */
  get credentials(): unknown {
    return this.#credentials;
  }

  /**
   * Reads the current generations: at once on SQLite (undefined is returned), else the promise of the read.
   * Never fails: an unreadable row (the database unreachable for the moment) gives generations no cached
   * entry has, so the caches read again and the request meets the database's error itself.
   */
  refresh(): Promise<void> | undefined {
    const read = ++this.#started;
    if (this.#sqlite) {
      let row: Row | undefined;
      try {
        row = this.#sqlite.get();
      } catch {
        row = undefined;
      }
      this.#take(read, row);
      return undefined;
    }
    return this.#db.executeQuery<Row>(READ).then(
      (result) => this.#take(read, result.rows[0]),
      () => this.#take(read, undefined),
    );
  }

  #take(read: number, row: Row | undefined): void {
    // An answer to a read started before one already taken is older: a request that started after a commit
    // must not go back to a generation from before it.
    if (read <= this.#taken) return;
    this.#taken = read;
    if (row) {
      this.#options = Number(row.options);
      this.#credentials = Number(row.credentials);
    } else {
      this.#options = {};
      this.#credentials = {};
    }
  }
}
