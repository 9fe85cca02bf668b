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

/**
 * An OFFSET the database can bind. A page or offset far past any table (PHP saturates such numbers at
 * PHP_INT_MAX) is a float beyond 2^63 here, which SQLite refuses ("datatype mismatch") and PostgreSQL
 * cannot hold in a bigint; clamped to the largest exact integer, it skips every row just the same.
 */
export function sqlOffset(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.min(Math.trunc(n), Number.MAX_SAFE_INTEGER) : 0;
}

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** Whether a 32-bit integer column (wp_posts.menu_order is an INT) can hold `n`. */
export function fitsInt32(n: number): boolean {
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX;
}

/**
 * A value for a 32-bit integer column. MySQL, in the SQL mode WordPress sets, stores an out-of-range
 * number at the nearest limit (a menu_order of 1e20 is read back as 2147483647); PostgreSQL's integer
 * would refuse it, and SQLite would keep it whole.
 */
export function int32Column(n: number): number {
  if (!Number.isFinite(n)) return 0;
  return Math.min(INT32_MAX, Math.max(INT32_MIN, Math.trunc(n)));
}
