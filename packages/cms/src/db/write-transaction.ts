/**
 * The CMS's write transactions. On SQLite a transaction starts as a reader and takes the write lock at
 * its first write; when another process (a cluster worker) committed in between, SQLite cannot upgrade
 * the stale snapshot and fails at once (SQLITE_BUSY, no busy wait), so concurrent creates on several
 * workers failed after their few retries. Taking the write lock first (as BEGIN IMMEDIATE would) makes
 * writers queue on the busy timeout instead: a write statement that changes nothing does it.
 */
import { dialectOf, withTransaction } from '@svc/platform';
import { type Kysely, sql, type Transaction } from 'kysely';

/** withTransaction(), holding SQLite's write lock from the start. */
export function writeTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  // biome-ignore lint/suspicious/noExplicitAny: dialectOf takes any schema
  if (dialectOf(db as Kysely<any>) !== 'sqlite') return withTransaction(db, work);
  return withTransaction(db, async (trx) => {
    await sql`delete from options where 0`.execute(trx);
    return work(trx);
  });
}
