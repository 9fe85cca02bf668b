import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
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
