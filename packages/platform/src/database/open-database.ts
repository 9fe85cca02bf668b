import { accessSync, chmodSync, closeSync, constants, existsSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type Dialect, Kysely, type Migration, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { DatabaseUnavailableError } from '../errors.ts';
import { describeFolderProblem, makeFolders } from '../folders.ts';
import { redactUrl } from '../logger.ts';
import { ErrorMappingDialect } from './error-mapping-dialect.ts';
import { migrateToLatest } from './migrations.ts';
import { withStatementCache } from './statement-cache.ts';

export type DialectName = 'sqlite' | 'postgres';

/** An open database: the Kysely instance plus what callers need to know about it. */
export interface Database<DB> {
  db: Kysely<DB>;
  dialect: DialectName;
  /** Where it lives, safe to log (no password). */
  location: string;
  /** The SQLite file (absolute), when the store is a SQLite file; undefined on PostgreSQL and for `:memory:`. */
  sqliteFile?: string;
  /** Migrations this open applied, in order (empty when the store was up to date or none were given). */
  migrationsApplied: readonly string[];
  /** Throws a DatabaseUnavailableError when the database does not answer. Used by readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The better-sqlite3 connection behind each SQLite Kysely instance opened here, and behind its adapter. */
const sqliteHandles = new WeakMap<object, SQLite.Database>();
const sqliteHandlesByAdapter = new WeakMap<object, SQLite.Database>();

/**
 * The better-sqlite3 connection behind a Kysely dialect adapter (which a database handle shares with
 * every transaction opened on it), or undefined when it is not a SQLite database opened here.
 */
export function sqliteHandleOfAdapter(adapter: object): SQLite.Database | undefined {
  return sqliteHandlesByAdapter.get(adapter);
}

/**
 * The better-sqlite3 connection behind `db` (a root instance from openDatabase), or undefined on
 * PostgreSQL. For the few hot statements whose cost is mostly Kysely's asynchronous round (a pragma, a
 * lock probe): a call on it runs at once and synchronously, on the same connection Kysely uses, so
 * inside a transaction Kysely holds it is part of that transaction. Everything else goes through Kysely.
 */
// biome-ignore lint/suspicious/noExplicitAny: works for any schema
export function sqliteHandleOf(db: Kysely<any>): SQLite.Database | undefined {
  return sqliteHandles.get(db);
}

export interface OpenDatabaseOptions {
  /** `postgres://...`; when absent, SQLite at `sqliteFile`. */
  url?: string | undefined;
  /** SQLite file; `:memory:` for a private in-memory database. Its folder is created when missing. */
  sqliteFile?: string;
  /** Applied to the latest version before the database is returned. */
  migrations?: Record<string, Migration>;
  /** Name of the table recording applied migrations (one per service, so services may share a database). */
  migrationTable?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** PostgreSQL schema to use (created when missing); the test kit gives each test file its own. */
  pgSchema?: string;
  /** Milliseconds SQLite waits on a locked database before giving up. */
  busyTimeoutMs?: number;
  /** SQLite page cache per connection, in KiB (default 64 MiB). */
  sqliteCacheKb?: number;
  /** Bytes of the SQLite file read through a memory map (default 1 GiB; 0 turns it off). */
  sqliteMmapBytes?: number;
  /**
   * Open an existing SQLite file for reading only (a second connection beside the one that writes, e.g. on a
   * worker thread): no folder is created, no pragma that writes is run, and migrations may not be given.
   */
  sqliteReadOnly?: boolean;
}

/**
 * Opens SQLite (default) or PostgreSQL, checks that it answers, and applies the migrations.
 * Fails fast with a one-line {@link DatabaseUnavailableError} when the server cannot be reached.
 */
export async function openDatabase<DB>(options: OpenDatabaseOptions): Promise<Database<DB>> {
  if (options.sqliteReadOnly && (options.url || options.migrations)) {
    throw new Error('sqliteReadOnly opens an existing SQLite file: give neither a URL nor migrations');
  }
  const database = options.url ? openPostgres<DB>(options.url, options) : openSqlite<DB>(options);
  try {
    await database.ping();
    if (options.migrations) {
      database.migrationsApplied = await migrateToLatest(database.db, options.migrations, options.migrationTable);
    }
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
  return database;
}

function openSqlite<DB>(options: OpenDatabaseOptions): Database<DB> {
  const file = options.sqliteFile ?? path.resolve('data', 'app.db');
  const readOnly = options.sqliteReadOnly === true;
  if (readOnly && file === ':memory:') throw new Error('an in-memory SQLite database cannot be opened read-only');
  if (file !== ':memory:' && !readOnly) {
    try {
      makeFolders(path.dirname(file));
    } catch (err) {
      throw new DatabaseUnavailableError(
        `cannot create SQLite database ${file}: ${describeFolderProblem(path.dirname(file), err)}`,
      );
    }
    keepSqliteFilesPrivate(file);
  }
  let handle: SQLite.Database;
  try {
    handle = readOnly ? new SQLite(file, { readonly: true, fileMustExist: true }) : new SQLite(file);
    if (!readOnly) {
      handle.pragma('journal_mode = WAL');
      // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
      handle.pragma('synchronous = NORMAL');
      handle.pragma('foreign_keys = ON');
    }
    handle.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    // Reads of a large store are random page lookups: a bigger page cache and memory-mapped reads
    // (no read() system call per page) make them several times cheaper. Both are upper bounds; the OS
    // still decides what stays resident.
    handle.pragma(`cache_size = -${Math.trunc(options.sqliteCacheKb ?? 64 * 1024)}`);
    handle.pragma(`mmap_size = ${Math.trunc(options.sqliteMmapBytes ?? 2 ** 30)}`);
  } catch (err) {
    throw new DatabaseUnavailableError(`cannot open SQLite database ${file}: ${whySqliteCannotOpen(file, err)}`);
  }
  const db = new Kysely<DB>({
    dialect: new ErrorMappingDialect(new SqliteDialect({ database: withStatementCache(handle) }), {
      transactionOpen: () => handle.inTransaction,
    }),
  });
  sqliteHandles.set(db, handle);
  sqliteHandlesByAdapter.set(db.getExecutor().adapter, handle);
  let closed = false;
  return {
    db,
    dialect: 'sqlite',
    location: `sqlite:${file}`,
    ...(file === ':memory:' ? {} : { sqliteFile: path.resolve(file) }),
    migrationsApplied: [],
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/**
 * Keeps a store's files from users other than its owner, whatever the umask. A store holds everything its service
 * keeps (the trip-scoring service: every driver's GPS history), and SQLite creates a database 0644 and gives its
 * -wal, -shm and -journal the database's mode, so with the usual umask 022 every user of the machine could read it.
 * A new store is created here, empty (SQLite takes an empty file as an empty database), with mode 0600. The files of
 * an existing one (made before this, or copied into place) lose what they grant users outside their owner and group:
 * the group's bits are left, as a deployment may share a store with a backup agent's group on purpose (PostgreSQL's
 * data folder may be group-readable too). Files of another user, and anything but a file under the name, are left
 * as they are: the open that follows says what is wrong, if anything is.
 */
function keepSqliteFilesPrivate(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    try {
      const stat = statSync(`${file}${suffix}`);
      if (stat.isFile() && (stat.mode & 0o007) !== 0) chmodSync(`${file}${suffix}`, stat.mode & 0o770);
    } catch {
      // Not there, or not this user's to change.
    }
  }
}

/**
 * SQLite says "unable to open database file" whatever the cause; a folder or file this user cannot write is
 * the common one (SQLite writes its WAL beside the file), and says what to change.
 */
function whySqliteCannotOpen(file: string, err: unknown): string {
  const dir = path.dirname(file);
  try {
    if (existsSync(file) && statSync(file).isDirectory()) return 'it is a folder, not a file';
    accessSync(dir, constants.W_OK);
    if (existsSync(file)) accessSync(file, constants.R_OK | constants.W_OK);
  } catch (problem) {
    const code = (problem as NodeJS.ErrnoException).code;
    return (problem as NodeJS.ErrnoException).path === dir || !existsSync(file)
      ? describeFolderProblem(dir, problem)
      : `the file is not readable and writable by this user (${code})`;
  }
  return (err as Error).message;
}

// Counts and bigint ids come back from pg as strings; every value we store fits in 2^53.
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads are not expressible without any
    return (pg.types.getTypeParser as any)(oid, format);
  },
};

function openPostgres<DB>(url: string, options: OpenDatabaseOptions): Database<DB> {
  const schema = options.pgSchema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new DatabaseUnavailableError(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    types: pgTypes,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Nor a checked-out one: the pool listens only to its idle clients, and a client whose connection ends
  // (PostgreSQL restarted, failed over, a network cut) emits 'error' besides failing its query. Unheard, that
  // event killed the process of every service with a request in flight at that moment. The query still fails
  // (answered 503), and the pool drops the broken client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const dialect: Dialect = new ErrorMappingDialect(new PostgresDialect({ pool }));
  const db = new Kysely<DB>({ dialect });
  const location = redactUrl(url);
  let closed = false;
  return {
    db,
    dialect: 'postgres',
    location,
    migrationsApplied: [],
    async ping() {
      try {
        if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
        await sql`select 1`.execute(db);
      } catch (err) {
        const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
        throw new DatabaseUnavailableError(`cannot connect to PostgreSQL at ${location}: ${reason}`, { cause: err });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
