import type { Kysely, Transaction } from 'kysely';
import { TransientConflictError } from '../errors.ts';

export interface TransactionOptions {
  /** Extra attempts when the database reports a transient conflict (deadlock, serialization, busy). */
  retries?: number;
}

/**
 * Runs `work` in one transaction: committed when it returns, rolled back when it throws (the error is
 * re-thrown, translated into a domain error). Transient conflicts are retried with a short back-off.
 */
export async function withTransaction<DB, T>(
  db: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const retries = options.retries ?? 2;
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (err instanceof TransientConflictError && attempt < retries) {
        await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt + Math.random() * 10));
        continue;
      }
      throw err;
    }
  }
}
