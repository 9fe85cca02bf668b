import { dialectOf } from '@svc/platform';
import type { Kysely } from 'kysely';

/** The column type of an auto-increment primary key on either dialect. */
// biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
export function idColumn(db: Kysely<any>): 'serial' | 'integer' {
  return dialectOf(db) === 'postgres' ? 'serial' : 'integer';
}

/** Whether the dialect needs `autoIncrement()` on the id column (SQLite) or gets it from `serial` (PostgreSQL). */
// biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
export function needsAutoIncrement(db: Kysely<any>): boolean {
  return dialectOf(db) !== 'postgres';
}
