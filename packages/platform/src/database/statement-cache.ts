import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * A better-sqlite3 handle whose `prepare` reuses compiled statements. Kysely's SQLite driver prepares
 * every query afresh, and compiling SQL costs as much as running a typical indexed lookup; services
 * issue the same few hundred query shapes over and over, so a bounded LRU of statements removes that
 * cost. Streaming (`iterate`) still gets its own statement, so a half-read cursor never blocks the
 * cached one.
 */
export function withStatementCache(db: SQLite.Database, maxStatements = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const hit = cache.get(sql);
      if (hit) {
        // Refresh its place in the LRU order.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = db.prepare(sql);
      const entry: SqliteStatement = {
        reader: stmt.reader,
        // Parameters are passed as one array, exactly as Kysely's driver passes them to better-sqlite3.
        all: (parameters) => stmt.all(parameters),
        run: (parameters) => stmt.run(parameters),
        iterate: (parameters) => db.prepare(sql).iterate(parameters) as IterableIterator<unknown>,
      };
      cache.set(sql, entry);
      if (cache.size > maxStatements) cache.delete(cache.keys().next().value as string);
      return entry;
    },
  };
}
