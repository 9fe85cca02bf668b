import type { Kysely } from 'kysely';
import type { TripsSchema } from './schema.ts';

/**
 * Runs the statements of one answer in one snapshot: a transaction, REPEATABLE READ on PostgreSQL (where the
 * default READ COMMITTED lets each statement see what committed since the one before). A profile adds up its
 * window, its lifetime and its roster in separate statements; read apart, a trip stored or rescored between
 * them could make a roster's trips differ from the profile's count in the same answer. Within a transaction
 * already (one profile built from another's parts), the statements are in its snapshot.
 */
export function inSnapshot<T>(db: Kysely<TripsSchema>, read: (db: Kysely<TripsSchema>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return read(db);
  return db.transaction().setIsolationLevel('repeatable read').execute(read);
}
