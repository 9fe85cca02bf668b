import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** An environment's SQLite store file. */
export interface StoreFile {
  environment: string;
  file: string;
}

// The store and what SQLite keeps beside it (its write-ahead log, shared memory, rollback journal): SQLite
// reads all of them as the store, so writing over any of them damages it.
const SQLITE_SIDE_FILES = ['', '-wal', '-shm', '-journal'];

/** The path with its folder's symbolic links resolved (the folder may not exist: then as given). */
function canonical(file: string): string {
  const absolute = path.resolve(file);
  try {
    return path.join(realpathSync(path.dirname(absolute)), path.basename(absolute));
  } catch {
    return absolute;
  }
}

function sameFile(a: string, b: string): boolean {
  if (canonical(a) === canonical(b)) return true;
  // A symbolic or hard link to the file: the same file under another name.
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * Refuses an output file (`--out` of backup, drivers export, roads build) that is a file of a store, of
 * either environment, whatever path names it: `--force` replaces a file, never a database.
 */
export function refuseStoreFile(target: string, stores: StoreFile[]): void {
  for (const store of stores) {
    for (const suffix of SQLITE_SIDE_FILES) {
      const file = `${store.file}${suffix}`;
      if (sameFile(target, file)) {
        throw new Error(
          `${path.resolve(target)} is ${suffix === '' ? 'the' : 'a file of the'} ${store.environment} store ${suffix === '' ? 'itself' : `(${store.file})`}: give another file`,
        );
      }
    }
  }
}
