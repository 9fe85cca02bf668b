import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MediaError } from './errors.ts';

/**
 * Where uploaded files live. Paths are relative to the uploads root, `/`-separated, like WordPress's
 * `_wp_attached_file` (`2026/11/photo.jpg`). Implementations must refuse any path that would leave the root.
 */
export interface MediaStorage {
  /** Writes a new file; rejects with a `MediaError` whose code is `file_exists` when the path is taken. */
  create(relPath: string, data: Uint8Array): Promise<void>;
  /** The file's bytes; rejects with code `file_not_found` when absent. */
  read(relPath: string): Promise<Buffer>;
  /** A stream of the file's bytes, for serving it. */
  stream(relPath: string): ReadStream;
  /** The size in bytes, or undefined when the file is absent. */
  size(relPath: string): Promise<number | undefined>;
  /** The file names (not folders) directly inside a folder; empty when the folder does not exist. */
  list(relDir: string): Promise<string[]>;
  /** Deletes a file; true when something was deleted. */
  remove(relPath: string): Promise<boolean>;
  /** The public URL of a file. */
  url(relPath: string): string;
}

/** One path segment we are willing to write: no dot-only names, separators, control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the class exists to reject control characters
const SAFE_SEGMENT = /^(?!\.{1,2}$)[^/\\\0-\x1f\x7f]{1,255}$/;

/** Splits and checks a relative media path; throws `invalid_media_path` for anything unsafe. */
export function checkRelativePath(relPath: string): string[] {
  if (typeof relPath !== 'string' || relPath === '' || relPath.startsWith('/') || relPath.includes('\\')) {
    throw new MediaError('invalid_media_path', `Invalid media path "${String(relPath)}".`, 400);
  }
  const segments = relPath.split('/');
  for (const segment of segments) {
    if (!SAFE_SEGMENT.test(segment)) {
      throw new MediaError('invalid_media_path', `Invalid media path "${relPath}".`, 400);
    }
  }
  return segments;
}

/** Options of {@link LocalDiskStorage}. */
export interface LocalDiskStorageOptions {
  /** Absolute folder holding the uploads (created on first write). */
  root: string;
  /** Public URL of that folder, without a trailing slash (`https://example.org/cms-content/uploads`). */
  baseUrl: string;
}

/** The default storage: files on the local disk under one root folder. */
export class LocalDiskStorage implements MediaStorage {
  readonly root: string;
  readonly baseUrl: string;
  #realRoot: string | undefined;

  constructor(options: LocalDiskStorageOptions) {
    this.root = path.resolve(options.root);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** The absolute path of a relative media path, guaranteed to lie inside the root. */
  resolve(relPath: string): string {
    const segments = checkRelativePath(relPath);
    const absolute = path.resolve(this.root, ...segments);
    if (!absolute.startsWith(this.root + path.sep)) {
      throw new MediaError('invalid_media_path', `Invalid media path "${relPath}".`, 400);
    }
    return absolute;
  }

  async create(relPath: string, data: Uint8Array): Promise<void> {
    const absolute = this.resolve(relPath);
    const dir = path.dirname(absolute);
    await mkdir(dir, { recursive: true });
    await this.#assertInsideRoot(dir, relPath);
    try {
      // `wx`: never overwrite, so two uploads racing for one name cannot clobber each other.
      await writeFile(absolute, data, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new MediaError('file_exists', `The file "${relPath}" already exists.`, 409, { cause: error });
      }
      throw error;
    }
  }

  async read(relPath: string): Promise<Buffer> {
    const absolute = this.resolve(relPath);
    try {
      await this.#assertInsideRoot(path.dirname(absolute), relPath);
      return await readFile(absolute);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new MediaError('file_not_found', `The file "${relPath}" does not exist.`, 404, { cause: error });
      }
      throw error;
    }
  }

  stream(relPath: string): ReadStream {
    return createReadStream(this.resolve(relPath));
  }

  async size(relPath: string): Promise<number | undefined> {
    try {
      const info = await stat(this.resolve(relPath));
      return info.isFile() ? info.size : undefined;
    } catch {
      return undefined;
    }
  }

  async list(relDir: string): Promise<string[]> {
    const absolute = relDir === '' ? this.root : this.resolve(relDir);
    try {
      const entries = await readdir(absolute, { withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => e.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async remove(relPath: string): Promise<boolean> {
    const absolute = this.resolve(relPath);
    try {
      await this.#assertInsideRoot(path.dirname(absolute), relPath);
      const info = await stat(absolute);
      if (!info.isFile()) return false;
      await rm(absolute);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  url(relPath: string): string {
    checkRelativePath(relPath);
    return `${this.baseUrl}/${relPath.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** Refuses a folder that a symbolic link has taken outside the root. */
  async #assertInsideRoot(dir: string, relPath: string): Promise<void> {
    // Cached once the root exists; before that there is nothing a link could point into.
    this.#realRoot ??= await realpath(this.root).catch(() => undefined);
    const realRoot = this.#realRoot ?? this.root;
    const realDir = await realpath(dir);
    if (realDir !== realRoot && !realDir.startsWith(realRoot + path.sep)) {
      throw new MediaError('invalid_media_path', `Invalid media path "${relPath}".`, 400);
    }
  }
}
