import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { BackupError, backupSqlite, type Database } from '@svc/platform';
import type { CmsConfig } from './config.ts';
import type { CmsDatabase } from './db/schema.ts';
import { siteEnvironment } from './site/site-runtime.ts';

export interface CmsBackupResult {
  folder: string;
  /** Bytes of the database copy; null on PostgreSQL (pg_dump's job). */
  databaseBytes: number | null;
  /** Whether the secret key file was copied; false when the secret comes from CMS_SECRET. */
  secretCopied: boolean;
  uploads: { files: number; bytes: number };
}

/**
 * A backup of the site into a new folder: the SQLite store (a consistent online copy, see backupSqlite), the
 * secret key that application passwords are hashed with (without it, restored passwords no longer match),
 * and the uploaded media. The database is copied first, so every upload it refers to was written before the
 * copy of the uploads starts. The folder must not exist yet (its parent must); it is created readable by its
 * owner only, as it holds the secret. A failure removes what was written.
 */
export async function backupCms(
  config: CmsConfig,
  database: Database<CmsDatabase>,
  target: string,
): Promise<CmsBackupResult> {
  const folder = path.resolve(target);
  const parent = path.dirname(folder);
  if (!existsSync(parent) || !statSync(parent).isDirectory()) {
    throw new BackupError(`folder ${parent} does not exist: create it first`);
  }
  if (existsSync(folder)) throw new BackupError(`${folder} already exists: a backup goes into a new folder`);
  const uploadsDir = path.resolve(siteEnvironment(config).uploadsDir);
  if (folder === uploadsDir || folder.startsWith(`${uploadsDir}${path.sep}`)) {
    throw new BackupError(`${folder} is inside the uploads folder ${uploadsDir}: give a folder outside it`);
  }
  mkdirSync(folder, { mode: 0o700 });
  try {
    const databaseBytes =
      database.dialect === 'sqlite' ? (await backupSqlite(database.db, path.join(folder, 'cms.db'))).bytes : null;
    const keyFile = path.join(config.dataDir, 'cms-secret.key');
    const secretCopied = !config.secret && existsSync(keyFile);
    if (secretCopied) copyFileSync(keyFile, path.join(folder, 'cms-secret.key'));
    const uploads = { files: 0, bytes: 0 };
    if (existsSync(uploadsDir)) {
      // Links are copied as links, never followed: an upload folder holds files the CMS wrote itself.
      cpSync(uploadsDir, path.join(folder, 'uploads'), { recursive: true, verbatimSymlinks: true, errorOnExist: true });
      countFiles(path.join(folder, 'uploads'), uploads);
    }
    return { folder, databaseBytes, secretCopied, uploads };
  } catch (err) {
    rmSync(folder, { recursive: true, force: true });
    if (err instanceof BackupError) throw err;
    throw new BackupError(`backup to ${folder} failed: ${(err as Error).message}`);
  }
}

function countFiles(dir: string, into: { files: number; bytes: number }): void {
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    const info = lstatSync(file);
    if (info.isDirectory()) countFiles(file, into);
    else if (info.isFile()) {
      into.files++;
      into.bytes += info.size;
    }
  }
}
