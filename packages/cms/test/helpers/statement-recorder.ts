/**
 * Records the SQL statements better-sqlite3 runs in this test process (each test file runs in its own
 * worker): every prepared statement's runs are counted, so a test can tell which statements an API call
 * ran on SQLite. Install before the database is opened (statements are wrapped when prepared).
 */
import SQLite from 'better-sqlite3';

export interface StatementRecorder {
  /** The statements run since the last `clear()`, in order (one entry per run). */
  readonly runs: string[];
  clear(): void;
}

let recorder: { runs: string[]; clear(): void } | null = null;

export function recordStatements(): StatementRecorder {
  if (recorder) return recorder;
  const runs: string[] = [];
  recorder = {
    runs,
    clear() {
      runs.length = 0;
    },
  };
  const prepare = SQLite.prototype.prepare;
  SQLite.prototype.prepare = function (this: SQLite.Database, source: string) {
    const stmt = prepare.call(this, source);
    for (const method of ['all', 'run', 'get', 'iterate'] as const) {
      const inner = stmt[method].bind(stmt) as (...args: unknown[]) => unknown;
      (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        runs.push(source);
        return inner(...args);
      };
    }
    return stmt;
  } as typeof prepare;
  return recorder;
}
