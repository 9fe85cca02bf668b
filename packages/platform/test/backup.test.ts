import { chmodSync, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupError, backupSqlite, type Database, openDatabase } from '../src/index.ts';

describe('backupSqlite', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'backup-'));
  const liveFile = path.join(dir, 'live.db');
  let database: Database<{ items: { id: number; body: string } }>;

  beforeAll(async () => {
    database = await openDatabase({ sqliteFile: liveFile });
    await sql`create table items (id integer primary key, body text not null)`.execute(database.db);
    for (let i = 0; i < 2000; i++) {
      await database.db
        .insertInto('items')
        .values({ id: i, body: `item ${i} `.repeat(20) })
        .execute();
    }
  });
  afterAll(async () => {
    await database?.close();
  });

  it('copies every committed row, WAL included, into one checked file while the store stays open', async () => {
    // The rows above are still in the WAL (no checkpoint yet): a file copy of live.db alone would miss them.
    expect(existsSync(`${liveFile}-wal`)).toBe(true);
    const target = path.join(dir, 'copy.db');
    const result = await backupSqlite(database.db, target);
    expect(result.file).toBe(target);
    expect(result.bytes).toBeGreaterThan(300_000);
    // The store keeps working, and the copy is a snapshot of before this write.
    await database.db.insertInto('items').values({ id: 5000, body: 'after' }).execute();
    const copy = await openDatabase<{ items: { id: number; body: string } }>({ sqliteFile: target });
    try {
      const rows = await copy.db.selectFrom('items').select(['id']).orderBy('id').execute();
      expect(rows.length).toBe(2000);
      expect(rows.at(-1)).toEqual({ id: 1999 });
    } finally {
      await copy.close();
    }
    // Only the backup itself is left beside the store: no partial file, no journal of the copy.
    expect(readdirSync(dir).filter((f) => f.startsWith('copy') || f.startsWith('.copy'))).toEqual(['copy.db']);
  });

  it('writes a copy only its owner can read, whatever the umask, and never through a file put in its way', async () => {
    // The copy holds every row of the store (for the trip-scoring service, every driver's GPS history and the
    // token hashes): with the usual umask 022 it was created 0644, readable by every user of the machine.
    const before = process.umask(0o022);
    try {
      const target = path.join(dir, 'private.db');
      await backupSqlite(database.db, target);
      expect(statSync(target).mode & 0o777).toBe(0o600);
      // Replacing an older, world-readable backup gives the new copy the same mode.
      const older = path.join(dir, 'older.db');
      writeFileSync(older, 'old backup', { mode: 0o644 });
      await backupSqlite(database.db, older, { overwrite: true });
      expect(statSync(older).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(before);
    }
    // A file put under the temporary name beforehand (in a shared folder another user may create it first, open
    // to all) is not written through: the copy would have gone into it, keeping its owner and its mode.
    const target = path.join(dir, 'planted.db');
    const planted = path.join(dir, `.planted.db.partial-${process.pid}`);
    writeFileSync(planted, '');
    chmodSync(planted, 0o666);
    await expect(backupSqlite(database.db, target)).rejects.toThrow(`cannot create ${planted} beside the backup`);
    expect(existsSync(target)).toBe(false);
    expect(statSync(planted).size).toBe(0);
  });

  it('refuses the live files, a missing folder and an existing file unless told to replace it', async () => {
    for (const target of [liveFile, `${liveFile}-wal`]) {
      await expect(backupSqlite(database.db, target)).rejects.toThrow(`${target} is the live store itself`);
    }
    const missing = path.join(dir, 'nope', 'x.db');
    await expect(backupSqlite(database.db, missing)).rejects.toThrow(
      `folder ${path.join(dir, 'nope')} does not exist: create it first`,
    );
    const existing = path.join(dir, 'existing.db');
    writeFileSync(existing, 'not a database');
    const refused = await backupSqlite(database.db, existing).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BackupError);
    expect((refused as Error).message).toBe(`${existing} already exists: give another file, or --force to replace it`);
    const replaced = await backupSqlite(database.db, existing, { overwrite: true });
    expect(replaced.bytes).toBeGreaterThan(300_000);
    await expect(backupSqlite(database.db, dir, { overwrite: true })).rejects.toThrow(
      `${dir} exists and is not a file`,
    );
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('says to use pg_dump for a PostgreSQL store', async () => {
    const pg = await openDatabase({ url: process.env.TEST_DATABASE_URL });
    try {
      await expect(backupSqlite(pg.db, path.join(dir, 'pg.db'))).rejects.toThrow(/PostgreSQL: back it up with pg_dump/);
    } finally {
      await pg.close();
    }
  });
});
