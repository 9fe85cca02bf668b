/**
 * Notices writes made by other processes to the same SQLite file (cluster workers, a CLI command), so
 * the per-process caches that are not keyed by a row version (options, verified credentials) are
 * dropped before the request that could see them stale. SQLite's `data_version` changes on a
 * connection exactly when another connection has committed since it last asked; this process's own
 * writes update those caches directly. Several nodes on PostgreSQL keep the caches' short TTLs instead.
 *
 * The check runs before every request, so it is a synchronous call on the better-sqlite3 connection
 * rather than a Kysely query (whose asynchronous round cost more than the pragma). Run while another
 * request's transaction holds the connection, it reads the same counter: only other connections change it.
 */
import type SQLite from 'better-sqlite3';

export class ForeignWriteWatcher {
  readonly #statement: SQLite.Statement<[], number>;
  readonly #onChange: () => void;
  #version: number | null = null;

  constructor(connection: SQLite.Database, onChange: () => void) {
    this.#statement = connection.prepare<[], number>('pragma data_version').pluck();
    this.#onChange = onChange;
  }

  /** Checks for writes by other connections since the last check; calls `onChange` when there were. */
  check(): void {
    let version: number;
    try {
      version = Number(this.#statement.get());
    } catch {
      // Unreadable for the moment (the file busy in a recovery): drop the caches, which is always safe.
      this.#version = null;
      this.#onChange();
      return;
    }
    if (this.#version !== null && version !== this.#version) this.#onChange();
    this.#version = version;
  }
}
