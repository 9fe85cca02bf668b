/**
 * Notices writes made by other processes to the same SQLite file (cluster workers, a CLI command), so
 * the per-process caches that are not keyed by a row version (options, verified credentials) are
 * dropped before the request that could see them stale. SQLite's `data_version` changes on a
 * connection exactly when another connection has committed since it last asked; this process's own
 * writes update those caches directly. Several nodes on PostgreSQL keep the caches' short TTLs instead.
 */
import { CompiledQuery, type Kysely } from 'kysely';

/** Compiled once: the check runs before every request. */
const DATA_VERSION = CompiledQuery.raw('pragma data_version');

export class ForeignWriteWatcher {
  readonly #db: Kysely<unknown>;
  readonly #onChange: () => void;
  #version: number | null = null;

  constructor(db: Kysely<unknown>, onChange: () => void) {
    this.#db = db;
    this.#onChange = onChange;
  }

  /** Checks for writes by other connections since the last check; calls `onChange` when there were. */
  async check(): Promise<void> {
    const { rows } = await this.#db.executeQuery<{ data_version: number }>(DATA_VERSION);
    const version = Number(rows[0]?.data_version);
    if (this.#version !== null && version !== this.#version) this.#onChange();
    this.#version = version;
  }
}
