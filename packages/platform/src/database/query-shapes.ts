import type SQLite from 'better-sqlite3';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { toDomainError } from './errors.ts';
import { sqliteHandleOfAdapter } from './open-database.ts';
import { compileResolvingValues, WideIntegerComparisonsPlugin, wideCastType } from './wide-integer-comparisons.ts';

/**
 * Hot queries compiled once per shape instead of once per request.
 *
 * Building and compiling a Kysely query costs 20-80 µs (immutable builder nodes, a visitor pass), as much
 * as SQLite takes to run an indexed lookup; a service's hot statements (a token lookup, a list page, a
 * count) run thousands of times a second with only their values changing. A shape is built once with
 * {@link arg} markers where the values go; the compiled SQL is kept and each call substitutes the values
 * into the parameter list. It goes through `executeQuery`, so it works on every dialect, inside
 * transactions too, and the driver's prepared-statement cache still applies.
 */
const MARK = '\u0000shape-arg:';

/** The placeholder for argument `i` when building a shape. */
export function arg(i: number): string {
  return `${MARK}${i}`;
}

interface Shape {
  compiled: CompiledQuery;
  /** Per parameter: the index of the argument it takes, or -1 for a constant of the shape. */
  slots: number[];
  /** On SQLite: the statement prepared on the connection, once it has run there directly. */
  statement?: SQLite.Statement;
}

const shapesByAdapter = new WeakMap<object, Map<string, Shape>>();
const MAX_SHAPES = 500;

/**
 * Runs the query of shape `key` (built by `build` the first time, with {@link arg} markers) with
 * `args` as its values. The key must determine the query's structure and every value that is not an
 * argument (e.g. the length of an `in` list, or the whole query serialised).
 */
export async function runShape<DB, R>(
  db: Kysely<DB>,
  key: string,
  build: () => Compilable<R>,
  args: readonly unknown[],
): Promise<R[]> {
  // Keyed by the dialect's adapter, which a database handle shares with every transaction opened on it
  // (a Transaction object is new each time), and which alone decides how a shape compiles.
  const adapter = db.getExecutor().adapter;
  let shapes = shapesByAdapter.get(adapter);
  if (!shapes) {
    shapes = new Map();
    shapesByAdapter.set(adapter, shapes);
  }
  // Under WideIntegerComparisonsPlugin an integer argument wider than 32 bits compiles differently (cast in
  // comparisons), so which arguments are that wide is part of the shape: its own compiled statement.
  const wide = hasWidePlugin(db) ? wideArguments(args) : '';
  const cacheKey = wide ? `${key}\u0000wide:${wide}` : key;
  let shape = shapes.get(cacheKey);
  if (!shape) {
    const compiled = wide
      ? compileResolvingValues(
          (p) => (typeof p === 'string' && p.startsWith(MARK) ? args[Number(p.slice(MARK.length))] : p),
          () => build().compile(),
        )
      : build().compile();
    const slots = compiled.parameters.map((p) =>
      typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : -1,
    );
    for (const slot of slots) {
      if (slot >= args.length) throw new Error(`query shape ${key} uses argument ${slot} but gets ${args.length}`);
    }
    shape = { compiled, slots };
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(cacheKey, shape);
  }
  const { compiled, slots } = shape;
  const parameters = new Array<unknown>(slots.length);
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    parameters[i] = slot === -1 ? compiled.parameters[i] : args[slot];
  }
  // On SQLite the statement runs on the connection directly when that is what Kysely would do at this
  // moment: inside the transaction `db` is (the connection is that transaction's), or outside any
  // transaction (a statement Kysely would queue behind a transaction still open is left to Kysely).
  // Kysely's asynchronous round (connection mutex, driver, error mapping) cost ~3 µs a statement, more
  // than most of these statements take to run; the result and the errors are the same.
  const connection = sqliteHandleOfAdapter(adapter);
  if (connection && (db.isTransaction || !connection.inTransaction)) {
    try {
      shape.statement ??= connection.prepare(compiled.sql);
      const statement = shape.statement;
      if (statement.reader) return statement.all(parameters) as R[];
      statement.run(parameters);
      return [];
    } catch (err) {
      throw toDomainError(err);
    }
  }
  const result = await db.executeQuery<R>({ ...compiled, parameters } as CompiledQuery<R>);
  return result.rows;
}

function hasWidePlugin<DB>(db: Kysely<DB>): boolean {
  const plugins = db.getExecutor().plugins;
  for (let i = 0; i < plugins.length; i++) if (plugins[i] instanceof WideIntegerComparisonsPlugin) return true;
  return false;
}

/**
 * The integer arguments wider than 32 bits, by index and the type they compare as (`1:bigint,3:numeric`), or ''
 * when there are none.
 */
function wideArguments(args: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const type = wideCastType(args[i]);
    if (type) out += `${out ? ',' : ''}${i}:${type}`;
  }
  return out;
}
