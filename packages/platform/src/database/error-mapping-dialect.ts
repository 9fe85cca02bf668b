import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { DatabaseUnavailableError } from '../errors.ts';
import { toDomainError } from './errors.ts';

/**
 * Wraps a Kysely dialect so that every driver error surfaces as a domain error. Kysely plugins can only
 * transform queries and results, not errors, so this sits at the driver boundary instead; repositories
 * then never need their own try/catch for constraint violations.
 */
export class ErrorMappingDialect implements Dialect {
  readonly #inner: Dialect;
  readonly #transactionOpen: (() => boolean) | undefined;

  /**
   * `transactionOpen` (SQLite: the connection's `inTransaction`) tells whether a transaction is still open when
   * one is to be rolled back. SQLite ends a transaction by itself when a statement in it fails with SQLITE_FULL,
   * SQLITE_IOERR, SQLITE_NOMEM, SQLITE_BUSY or SQLITE_INTERRUPT; Kysely's ROLLBACK then fails with "cannot
   * rollback - no transaction is active", and that error would replace the statement's own (a full disk
   * reported as a bug instead of the database being unavailable).
   */
  constructor(inner: Dialect, options: { transactionOpen?: () => boolean } = {}) {
    this.#inner = inner;
    this.#transactionOpen = options.transactionOpen;
  }

  createDriver(): Driver {
    return new ErrorMappingDriver(this.#inner.createDriver(), this.#transactionOpen);
  }

  createQueryCompiler(): QueryCompiler {
    return this.#inner.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return this.#inner.createAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.#inner.createIntrospector(db);
  }
}

class ErrorMappingDriver implements Driver {
  readonly #inner: Driver;
  readonly #wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  readonly #transactionOpen: (() => boolean) | undefined;

  constructor(inner: Driver, transactionOpen: (() => boolean) | undefined) {
    this.#inner = inner;
    this.#transactionOpen = transactionOpen;
  }

  async init(): Promise<void> {
    await rethrowMapped(() => this.#inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const conn = await rethrowMapped(() => this.#inner.acquireConnection());
    let wrapped = this.#wrapped.get(conn);
    if (!wrapped) {
      wrapped = wrapConnection(conn);
      this.#wrapped.set(conn, wrapped);
    }
    return wrapped;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await rethrowMapped(() => this.#inner.beginTransaction(unwrap(conn), settings));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await rethrowMapped(() => this.#inner.commitTransaction(unwrap(conn)));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    // Already rolled back by the database itself (see ErrorMappingDialect): Kysely then re-throws the error
    // that ended the transaction.
    if (this.#transactionOpen?.() === false) return;
    try {
      await rethrowMapped(() => this.#inner.rollbackTransaction(unwrap(conn)));
    } catch (err) {
      // The connection is gone, and the transaction with it (the server rolls back a transaction whose connection
      // ends): Kysely re-throws the error that ended the transaction, which says more than the ROLLBACK's. The pool
      // drops the broken connection when it is released.
      if (err instanceof DatabaseUnavailableError) return;
      throw err;
    }
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    await this.#inner.releaseConnection(unwrap(conn));
  }

  async destroy(): Promise<void> {
    await this.#inner.destroy();
  }
}

const INNER = Symbol('inner connection');
type Wrapped = DatabaseConnection & { [INNER]: DatabaseConnection };

function wrapConnection(conn: DatabaseConnection): DatabaseConnection {
  const wrapped: Wrapped = {
    [INNER]: conn,
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      return rethrowMapped(() => conn.executeQuery<R>(query));
    },
    async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
      try {
        yield* conn.streamQuery<R>(query, chunkSize);
      } catch (err) {
        throw toDomainError(err);
      }
    },
  };
  return wrapped;
}

function unwrap(conn: DatabaseConnection): DatabaseConnection {
  return (conn as Partial<Wrapped>)[INNER] ?? conn;
}

async function rethrowMapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toDomainError(err);
  }
}
