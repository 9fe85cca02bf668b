/**
 * LIMIT values written into the SQL text. SQLite (3.47 and later, as better-sqlite3 bundles it) plans a
 * statement with the value bound to its LIMIT and marks it to be compiled again whenever that parameter
 * is bound: a cached statement with `limit ?` is recompiled on every run (3 µs for a slug check, 17 µs for
 * a list page). A literal keeps the compiled statement; the OFFSET does not matter and stays a parameter.
 */
import { type RawBuilder, sql } from 'kysely';

/** `n` as a literal for a LIMIT clause when it is a plain count; other values stay bound parameters. */
export function literalLimit(n: number): number | RawBuilder<number> {
  return Number.isSafeInteger(n) && n >= 0 ? sql.lit(n) : n;
}
