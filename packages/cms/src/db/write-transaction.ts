/**
 * The CMS's write transactions. On SQLite a transaction starts as a reader and takes the write lock at
 * its first write; when another process (a cluster worker) committed in between, SQLite cannot upgrade
 * the stale snapshot and fails at once (SQLITE_BUSY, no busy wait), so concurrent creates on several
 * workers failed after their few retries. Taking the write lock first (as BEGIN IMMEDIATE would) makes
 * writers queue instead: a write statement that changes nothing does it.
 *
 * The queue is not SQLite's busy handler: that one sleeps inside the (synchronous) driver call, so the
 * whole worker stops for 1, 2, 5, 10... ms at a time while another worker holds the lock. The lock is
 * asked for without waiting (busy_timeout 0 for that one statement); when another process holds it, the
 * transaction is given up and asked for again shortly after, with the event loop free meanwhile.
 */
import { dialectOf, TransientConflictError, withTransaction } from '@svc/platform';
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';

/** How long a writer waits for the lock in all before failing (SQLite's busy timeout of the connection). */
const LOCK_WAIT_MS = 5000;

class WriteLockBusy extends Error {}

// The statements of every write transaction, compiled once.
const NO_BUSY_WAIT = CompiledQuery.raw('pragma busy_timeout = 0');
const TAKE_WRITE_LOCK = CompiledQuery.raw('delete from options where 0');
const restoreBusyWait = new Map<number, CompiledQuery>();
function restoreBusyWaitQuery(timeout: number): CompiledQuery {
  let query = restoreBusyWait.get(timeout);
  if (!query) {
    query = CompiledQuery.raw(`pragma busy_timeout = ${Math.trunc(timeout)}`);
    restoreBusyWait.set(timeout, query);
  }
  return query;
}

/** The connection's busy timeout, read once per database. */
const busyTimeouts = new WeakMap<object, number>();

async function busyTimeoutOf<DB>(db: Kysely<DB>, trx: Transaction<DB>): Promise<number> {
  let value = busyTimeouts.get(db);
  if (value === undefined) {
    const row = (await sql<{ timeout: number }>`pragma busy_timeout`.execute(trx)).rows[0];
    value = Number(row?.timeout ?? LOCK_WAIT_MS);
    busyTimeouts.set(db, value);
  }
  return value;
}

/** withTransaction(), holding SQLite's write lock from the start. */
export async function writeTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: dialectOf takes any schema
  if (dialectOf(db as Kysely<any>) !== 'sqlite') return withTransaction(db, work);
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await withTransaction(db, async (trx) => {
        const timeout = await busyTimeoutOf(db, trx);
        await trx.executeQuery(NO_BUSY_WAIT);
        try {
          await trx.executeQuery(TAKE_WRITE_LOCK);
        } catch (err) {
          if (err instanceof TransientConflictError) throw new WriteLockBusy();
          throw err;
        } finally {
          await trx.executeQuery(restoreBusyWaitQuery(timeout));
        }
        return work(trx);
      });
    } catch (err) {
      if (!(err instanceof WriteLockBusy)) throw err;
      if (Date.now() - started > LOCK_WAIT_MS) {
        throw new TransientConflictError('database is busy: the write lock was not free in time');
      }
      // The other worker's transaction lasts about a millisecond: look again at the next turn of the
      // event loop at first, then every millisecond.
      await new Promise((resolve) => (attempt < 2 ? setImmediate(resolve) : setTimeout(resolve, 1)));
    }
  }
}
