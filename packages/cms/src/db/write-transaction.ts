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
 *
 * Group commit: the write transactions a process asks for while it waits for the lock, or while its
 * previous ones run, are run together in one SQLite transaction, each in a savepoint of its own (one that
 * fails is rolled back alone and fails alone), and are all settled once that transaction has committed.
 * The first of a batch runs without a savepoint (a failure then rolls the whole transaction back, which
 * holds nothing else yet), so a transaction that runs alone costs what it did before.
 * Each commit appends every page it changed to the write-ahead log (two writes per page), and each lock
 * taken from another worker makes SQLite drop this connection's page cache: with creates arriving on
 * two workers at once, one commit and one lock handover per batch instead of per create.
 */
import { dialectOf, sqliteHandleOf, TransientConflictError, toDomainError, withTransaction } from '@svc/platform';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';

/** How long a writer waits for the lock in all before failing (SQLite's busy timeout of the connection). */
const LOCK_WAIT_MS = 5000;

/**
 * At most this many transactions run in one batch (the rest wait for the next), so another worker waiting
 * for the lock gets it between batches.
 */
export const MAX_BATCH = 16;

class WriteLockBusy extends Error {}

/** The first transaction of a batch failed (and the SQLite transaction was rolled back for it). */
class FirstFailed<DB> extends Error {
  readonly job: Job<DB>;
  readonly error: unknown;
  constructor(job: Job<DB>, error: unknown) {
    super('the first transaction of the batch failed');
    this.job = job;
    this.error = error;
  }
}

// The savepoint statements of a batch, compiled once.
const SAVEPOINT = CompiledQuery.raw('savepoint cms_write');
const RELEASE = CompiledQuery.raw('release cms_write');
const ROLLBACK_TO = CompiledQuery.raw('rollback to cms_write');

/**
 * Takes the write lock of the transaction open on a connection without waiting, as three synchronous
 * statements on the better-sqlite3 connection itself: through Kysely each is an asynchronous round that
 * cost several times the statement (26 against ~5 µs for the three, measured in a worker).
 */
class WriteLockProbe {
  readonly #noWait: SQLite.Statement;
  readonly #take: SQLite.Statement;
  readonly #restore: SQLite.Statement;

  constructor(connection: SQLite.Database) {
    const timeout = Math.trunc(Number(connection.pragma('busy_timeout', { simple: true }) ?? LOCK_WAIT_MS));
    this.#noWait = connection.prepare('pragma busy_timeout = 0');
    // A write statement that changes nothing: SQLite takes the write lock for it all the same.
    this.#take = connection.prepare('delete from options where 0');
    this.#restore = connection.prepare(`pragma busy_timeout = ${timeout}`);
  }

  /** Takes the lock inside the open transaction; WriteLockBusy when another process holds it. */
  take(): void {
    this.#noWait.get();
    try {
      this.#take.run();
    } catch (err) {
      const mapped = toDomainError(err);
      throw mapped instanceof TransientConflictError ? new WriteLockBusy() : mapped;
    } finally {
      this.#restore.get();
    }
  }
}

/**
 * Callbacks to run once the work that registered them has committed, by transaction object. In a batch
 * all jobs share one transaction object, and the jobs run one after another: the entry holds the
 * callbacks of the job running now.
 */
const commitCallbacks = new WeakMap<object, Array<() => void>>();

/**
 * Runs `callback` once the work of the write transaction `trx` has committed, and never when it is rolled
 * back (in a batch: when its own savepoint is rolled back, or the whole transaction). For in-process
 * caches of what the transaction writes: updated before the commit, a rollback would leave them ahead of
 * the database. Returns false, registering nothing, when `trx` is not the transaction of a running
 * writeTransaction(). The callback must not throw.
 */
export function afterCommit(trx: object, callback: () => void): boolean {
  const callbacks = commitCallbacks.get(trx);
  if (!callbacks) return false;
  callbacks.push(callback);
  return true;
}

/** Runs `work`, gathering the callbacks it registers with afterCommit(). */
async function gatheringCallbacks<DB>(
  trx: Transaction<DB>,
  work: (trx: Transaction<DB>) => Promise<unknown>,
): Promise<{ value: unknown; callbacks: Array<() => void> }> {
  const callbacks: Array<() => void> = [];
  commitCallbacks.set(trx, callbacks);
  try {
    return { value: await work(trx), callbacks };
  } finally {
    commitCallbacks.delete(trx);
  }
}

/** Runs committed work's callbacks; one that throws (a bug) is reported without keeping the others from running. */
function runCallbacks(callbacks: Array<() => void>): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch (err) {
      process.emitWarning(`an after-commit callback failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** One transaction waiting to run in a batch. */
interface Job<DB> {
  work: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The write transactions of one SQLite database, run in batches (see the file comment). */
class WriteBatcher<DB> {
  readonly #db: Kysely<DB>;
  readonly #lock: WriteLockProbe;
  readonly #queue: Job<DB>[] = [];
  #running = false;

  constructor(db: Kysely<DB>, connection: SQLite.Database) {
    this.#db = db;
    this.#lock = new WriteLockProbe(connection);
  }

  run<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#running) {
        this.#running = true;
        // After the callbacks already due (other requests reaching their write), so they join the batch;
        // at once when this process serves no other request that could (waiting cost ~25 µs a write).
        if ((concurrencyHints.get(this.#db) ?? always)()) setImmediate(() => void this.#drain());
        else void this.#drain();
      }
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#batch();
    } finally {
      this.#running = false;
    }
  }

  /** Takes the lock, runs the waiting transactions (those that arrive meanwhile too), commits, settles. */
  async #batch(): Promise<void> {
    const db = this.#db;
    const done: Array<{ job: Job<DB>; ok: boolean; value: unknown; callbacks: Array<() => void> }> = [];
    const started = Date.now();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          // Not withTransaction(): it would run the whole batch again on a transient conflict.
          await db.transaction().execute(async (trx) => {
            this.#lock.take();
            // The first needs no savepoint: when it fails, nothing else has run in the transaction yet.
            const first = this.#queue.shift() as Job<DB>;
            try {
              done.push({ job: first, ok: true, ...(await gatheringCallbacks(trx, first.work)) });
            } catch (err) {
              throw new FirstFailed(first, err);
            }
            while (this.#queue.length > 0 && done.length < MAX_BATCH) {
              const job = this.#queue.shift() as Job<DB>;
              done.push({ job, ...(await runInSavepoint(trx, job.work)) });
            }
          });
          break;
        } catch (err) {
          if (err instanceof FirstFailed) {
            // Rolled back with the transaction, which held nothing else: it fails alone.
            err.job.reject(err.error);
            return;
          }
          if (!(err instanceof WriteLockBusy)) throw err;
          if (Date.now() - started > LOCK_WAIT_MS) {
            throw new TransientConflictError('database is busy: the write lock was not free in time');
          }
          // The other worker's transaction lasts about a millisecond: look again at the next turn of the
          // event loop at first, then every millisecond.
          await new Promise((resolve) => (attempt < 2 ? setImmediate(resolve) : setTimeout(resolve, 1)));
        }
      }
    } catch (err) {
      // Nothing was committed: every transaction of the batch fails with the error (those not started
      // yet included, when the lock never came).
      for (const { job } of done) job.reject(err);
      if (done.length === 0) for (const job of this.#queue.splice(0, MAX_BATCH)) job.reject(err);
      return;
    }
    // Committed: the caches learn of the writes before their callers see them settled.
    for (const { ok, callbacks } of done) if (ok) runCallbacks(callbacks);
    for (const { job, ok, value } of done) {
      if (ok) job.resolve(value);
      else job.reject(value);
    }
  }
}

/**
 * Runs one transaction's work in a savepoint: kept when it returns, rolled back (alone) when it throws.
 * A transient conflict is tried again, as withTransaction() would.
 */
async function runInSavepoint<DB>(
  trx: Transaction<DB>,
  work: (trx: Transaction<DB>) => Promise<unknown>,
): Promise<{ ok: boolean; value: unknown; callbacks: Array<() => void> }> {
  for (let attempt = 0; ; attempt++) {
    await trx.executeQuery(SAVEPOINT);
    try {
      const { value, callbacks } = await gatheringCallbacks(trx, work);
      await trx.executeQuery(RELEASE);
      return { ok: true, value, callbacks };
    } catch (err) {
      // The callbacks of a rolled-back attempt are dropped with it.
      await trx.executeQuery(ROLLBACK_TO);
      await trx.executeQuery(RELEASE);
      if (!(err instanceof TransientConflictError) || attempt >= 2) return { ok: false, value: err, callbacks: [] };
    }
  }
}

const batchers = new WeakMap<object, WriteBatcher<never>>();

const always = () => true;
const concurrencyHints = new WeakMap<object, () => boolean>();

/**
 * Tells the batching of `db`'s write transactions whether another transaction may be about to join: the
 * app answers whether it serves more than one request. Without a hint, a batch always waits for the
 * callbacks already due.
 */
export function setWriteConcurrencyHint(db: Kysely<unknown>, othersInFlight: () => boolean): void {
  concurrencyHints.set(db, othersInFlight);
}

/**
 * withTransaction(), holding SQLite's write lock from the start (in a batch, see the file comment), with
 * afterCommit() callbacks. On PostgreSQL, or a SQLite Kysely instance not opened by openDatabase (no
 * connection to probe), it is withTransaction() with the callbacks.
 */
export async function writeTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  let batcher = batchers.get(db) as WriteBatcher<DB> | undefined;
  if (!batcher) {
    // biome-ignore lint/suspicious/noExplicitAny: dialectOf and sqliteHandleOf take any schema
    const connection = dialectOf(db as Kysely<any>) === 'sqlite' ? sqliteHandleOf(db as Kysely<any>) : undefined;
    if (!connection) return withCallbacks(db, work);
    batcher = new WriteBatcher(db, connection);
    batchers.set(db, batcher as unknown as WriteBatcher<never>);
  }
  return batcher.run(work);
}

/** withTransaction() with afterCommit() callbacks: those of an attempt that failed (and was retried) are dropped. */
async function withCallbacks<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  let committed: Array<() => void> = [];
  const value = await withTransaction(db, async (trx) => {
    const { value, callbacks } = await gatheringCallbacks(trx, work);
    committed = callbacks;
    return value as T;
  });
  runCallbacks(committed);
  return value;
}
