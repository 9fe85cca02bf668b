import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DomainError } from './errors.ts';

/**
 * Why `dir` cannot be created or written, in words a user can act on: a file in the way, a parent that is
 * a file, no permission, a read-only file system. Falls back to the error's code.
 */
export function describeFolderProblem(dir: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? String(err);
  switch (code) {
    case 'EEXIST':
      return `${dir} is a file, not a folder`;
    case 'ENOTDIR': {
      const file = firstFileOnPath(dir);
      return file ? `${file} (part of ${dir}) is a file, not a folder` : `part of ${dir} is a file, not a folder`;
    }
    case 'EACCES':
    case 'EPERM':
      return `${dir} is not writable by this user (${code})`;
    case 'EROFS':
      return `${dir} is on a read-only file system (EROFS)`;
    case 'ENOSPC':
      return `no space left on the device of ${dir} (ENOSPC)`;
    default:
      return `${dir} cannot be created or written (${code})`;
  }
}

function firstFileOnPath(dir: string): string | undefined {
  const parts = path.resolve(dir).split(path.sep);
  for (let i = 2; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(path.sep) || path.sep;
    try {
      if (!statSync(prefix).isDirectory()) return prefix;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * `mkdir -p`: creates `dir` and its missing parents, one level at a time. Node's own `mkdirSync(dir, { recursive:
 * true })` never returns where the system answers ENOENT for a folder whose parent exists (a path under /proc or
 * /sys, as a mistyped DATA_DIR may name): it retries forever at full CPU. Level by level, that answer is an error.
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  while (!existsSync(at)) {
    missing.push(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (err) {
      // Made meanwhile by another process: as good as made here.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(folder).isDirectory()) throw err;
    }
  }
}

/**
 * Creates `dir` when missing and checks that it can be written; throws an Error whose message says what
 * is wrong with it (see describeFolderProblem), prefixed by `name` (e.g. `DATA_DIR`) when given.
 */
export function ensureWritableFolder(dir: string, name?: string): void {
  try {
    makeFolders(dir);
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'EEXIST' });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const problem = describeFolderProblem(dir, err);
    if (!name) throw new FolderError(problem);
    const code = (err as NodeJS.ErrnoException | null)?.code;
    const fix = code === 'EEXIST' || code === 'ENOTDIR' ? 'a folder' : 'a folder this user can write';
    throw new FolderError(`${name} ${problem}: point ${name} at ${fix}`);
  }
}

/** A folder the program needs cannot be created or written. */
export class FolderError extends DomainError {
  constructor(message: string) {
    super('folder_unusable', message);
  }
}
