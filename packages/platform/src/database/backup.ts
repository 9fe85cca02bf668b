import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import { sqliteHandleOf } from './open-database.ts';

/** A backup could not be made as asked (target, store); the message says why and what to do. */
export class BackupError extends DomainError {
  constructor(message: string) {
    super('backup_failed', message);
  }
}

export interface BackupResult {
  /** The backup file, absolute. */
  file: string;
  bytes: number;
  ms: number;
}

/**
 * Copies a live SQLite store into `target` with SQLite's online backup API: a consistent snapshot of the
 * committed data (the WAL included) taken while the services keep reading and writing, which copying the
 * file is not (the WAL and a write in progress would be missed or torn). The copy is written beside the
 * target under a temporary name, checked (`PRAGMA quick_check`) and only then renamed into place, so an
 * interrupted backup never leaves a partial file under the target's name. The target's folder must exist;
 * an existing target is replaced only with `overwrite`, and the live store's own files are refused. The copy is
 * readable and writable by its owner only (0600).
 * PostgreSQL stores are backed up with the server's tools (pg_dump), not here.
 */
export async function backupSqlite(
  // biome-ignore lint/suspicious/noExplicitAny: works for any schema
  db: Kysely<any>,
  target: string,
  options: { overwrite?: boolean } = {},
): Promise<BackupResult> {
  const handle = sqliteHandleOf(db);
  if (!handle) {
    throw new BackupError(
      'this store is on PostgreSQL: back it up with pg_dump (see the README), not with this command',
    );
  }
  if (handle.memory) throw new BackupError('an in-memory store cannot be backed up to a file');
  const file = path.resolve(target);
  const live = path.resolve(handle.name);
  if ([live, `${live}-wal`, `${live}-shm`, `${live}-journal`].includes(file)) {
    throw new BackupError(`${file} is the live store itself: give another file`);
  }
  const folder = path.dirname(file);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new BackupError(`folder ${folder} does not exist: create it first`);
  }
  if (existsSync(file)) {
    if (!statSync(file).isFile()) throw new BackupError(`${file} exists and is not a file`);
    if (!options.overwrite)
      throw new BackupError(`${file} already exists: give another file, or --force to replace it`);
  }
  const partial = path.join(folder, `.${path.basename(file)}.partial-${process.pid}`);
  const started = performance.now();
  // The copy holds everything the store does (for the trip-scoring service: every driver's GPS history), so it
  // is readable by its owner only, whatever the umask, as `trips drivers export` writes its file. Created here,
  // empty (SQLite takes an empty file as an empty database, and gives its journal the file's mode), and only if
  // nothing has that name: a file or link someone else put there beforehand is not written through.
  try {
    closeSync(openSync(partial, 'wx', 0o600));
  } catch (err) {
    throw new BackupError(`cannot create ${partial} beside the backup: ${(err as Error).message}`);
  }
  try {
    // After a first step of 100 pages, the rest goes in one step. SQLite restarts a stepped backup whenever
    // another connection writes between two steps, so on a store that ingests all the time small steps might
    // never finish; one step holds a read snapshot, which in WAL mode blocks no writer. It also holds this
    // process's event loop, which is why the command-line tools call this and the servers do not.
    await handle.backup(partial, { progress: ({ remainingPages }) => Math.max(100, remainingPages) });
    const copy = new SQLite(partial, { fileMustExist: true });
    try {
      // A backup is one self-contained file: rollback journal mode, no -wal/-shm beside it. The service
      // that opens a restored copy switches it back to WAL.
      copy.pragma('journal_mode = DELETE');
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`the copy failed its integrity check (${String(check)}); nothing kept`);
    } finally {
      copy.close();
    }
    renameSync(partial, file);
  } catch (err) {
    rmSync(partial, { force: true });
    rmSync(`${partial}-wal`, { force: true });
    rmSync(`${partial}-shm`, { force: true });
    if (err instanceof BackupError) throw err;
    throw new BackupError(`backup to ${file} failed: ${(err as Error).message}`);
  }
  return { file, bytes: statSync(file).size, ms: performance.now() - started };
}
