import { sqliteHandleOf, TransientConflictError, toDomainError, withTransaction } from '@svc/platform';
import type { Kysely, Transaction } from 'kysely';
import type { TripsSchema } from './schema.ts';

/**
 * The write transactions of the service and its commands (a trip scored, an upload stored, a rescore's trip).
 *
 * On SQLite a transaction starts as a reader and takes the write lock at its first write. When another process
 * holds that lock then (`trips rescore` beside `trips serve`, each writing scored trips), SQLite cannot wait for it:
 * the reader's snapshot may be stale by the time the lock is free, so it fails at once with SQLITE_BUSY and the busy
 * timeout (5 s) is never used. withTransaction's two retries come within ~40 ms, shorter than the other's write, so
 * a rescore run beside the service stopped with "database is busy" after a few seconds, and the service's scoring
 * worker paused with "the store is failing" as often. Taking the write lock first, before any read, makes writers
 * queue instead.
 *
 * The lock is asked for without waiting (busy timeout 0 for that one statement: SQLite's own wait sleeps inside the
 * synchronous driver call, holding the event loop and every request the process serves); when another process holds
 * it, the transaction is given up and asked for again shortly after, with the event loop free, for as long as the
 * connection's busy timeout. Past it the conflict is a TransientConflictError, a store fault as before. On
 * PostgreSQL, whose writers wait on row locks, it is withTransaction().
 */
export async function withWriteTransaction<T>(
  db: Kysely<TripsSchema>,
  work: (trx: Transaction<TripsSchema>) => Promise<T>,
): Promise<T> {
  const connection = sqliteHandleOf(db);
  if (!connection) return withTransaction(db, work);
  const waitMs = Number(connection.pragma('busy_timeout', { simple: true }) ?? 5000);
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await withTransaction(db, async (trx) => {
        takeWriteLock(connection);
        return work(trx);
      });
    } catch (err) {
      if (!(err instanceof WriteLockBusy)) throw err;
      if (Date.now() - started >= waitMs) {
        throw new TransientConflictError('database is busy: the write lock was not free in time');
      }
      // Another process's write lasts milliseconds: look again soon, then every 20 ms at most.
      await new Promise((resolve) => setTimeout(resolve, Math.min(20, 2 ** attempt)));
    }
  }
}

type SqliteConnection = NonNullable<ReturnType<typeof sqliteHandleOf>>;

/** Another process holds SQLite's write lock. */
class WriteLockBusy extends Error {}

/**
 * Takes the write lock in the transaction open on `connection`, without waiting: a write statement that changes
 * nothing takes it all the same. Run on the connection itself, which is the one Kysely's transaction uses.
 */
function takeWriteLock(connection: SqliteConnection): void {
  const timeout = Number(connection.pragma('busy_timeout', { simple: true }));
  connection.pragma('busy_timeout = 0');
  try {
    connection.prepare('delete from trips_version where 0').run();
  } catch (err) {
    const mapped = toDomainError(err);
    throw mapped instanceof TransientConflictError ? new WriteLockBusy() : mapped;
  } finally {
    connection.pragma(`busy_timeout = ${Math.trunc(timeout)}`);
  }
}
