import { chmodSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, MigrationError, openDatabase, withTransaction } from '../src/index.ts';

describe('openDatabase', () => {
  it('opens SQLite under a missing folder with WAL, foreign keys and a busy timeout', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'open-'));
    const database = await openDatabase({ sqliteFile: path.join(dir, 'nested', 'app.db') });
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`pragma ${name}`).execute(database.db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBe(5000);
      expect(database.location).toBe(`sqlite:${path.join(dir, 'nested', 'app.db')}`);
    } finally {
      await database.close();
    }
  });

  it('keeps the SQLite files readable by their owner only, whatever the umask, also those of an older store', async () => {
    // The store holds everything the service keeps (the trip-scoring service: every driver's GPS history). SQLite
    // creates it 0644 and gives its -wal and -shm the same mode: with the usual umask 022, every user of the
    // machine could read it.
    const dir = mkdtempSync(path.join(tmpdir(), 'private-'));
    const mode = (file: string) => statSync(file).mode & 0o777;
    const before = process.umask(0o022);
    try {
      const file = path.join(dir, 'data', 'app.db');
      const database = await openDatabase({ sqliteFile: file });
      try {
        await sql`create table t (id integer)`.execute(database.db);
        for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
      } finally {
        await database.close();
      }
      // A store made before, open to every user, is closed to users outside its owner and group at its next open,
      // with its -wal and -shm; what its group may do is the deployment's choice, and stays.
      const older = path.join(dir, 'older.db');
      const made = new SQLite(older);
      made.pragma('journal_mode = WAL');
      made.exec('create table t (id integer); insert into t values (1)');
      for (const f of [older, `${older}-wal`, `${older}-shm`]) chmodSync(f, 0o664);
      const again = await openDatabase({ sqliteFile: older });
      try {
        for (const f of [older, `${older}-wal`, `${older}-shm`]) expect(mode(f), f).toBe(0o660);
        expect((await sql<{ n: number }>`select count(*) as n from t`.execute(again.db)).rows[0]!.n).toBe(1);
      } finally {
        await again.close();
        made.close();
      }
      // A folder found under the name is left as it is, for SQLite to refuse.
      const folder = path.join(dir, 'folder.db');
      mkdirSync(folder, { mode: 0o755 });
      await expect(openDatabase({ sqliteFile: folder })).rejects.toThrow(DatabaseUnavailableError);
      expect(mode(folder)).toBe(0o755);
    } finally {
      process.umask(before);
    }
  });

  it('fails fast, in one line and without the password, when PostgreSQL is unreachable', async () => {
    const t0 = Date.now();
    const err = await openDatabase({ url: 'postgres://nobody:pw123@127.0.0.1:1/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    const message = (err as Error).message;
    expect(message).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/nobody:\[Redacted\]@127\.0\.0\.1:1\/x: /);
    expect(message).not.toContain('pw123');
    expect(message).not.toContain('\n');
    expect(Date.now() - t0).toBeLessThan(6000);
  });

  it('names the migration that failed and keeps the earlier ones', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mig-'));
    const file = path.join(dir, 'app.db');
    const migrations = {
      '0001_ok': {
        up: async (db: import('kysely').Kysely<unknown>) => void (await sql`create table t (id integer)`.execute(db)),
      },
      '0002_broken': {
        up: async (db: import('kysely').Kysely<unknown>) => void (await sql`create tabel oops`.execute(db)),
      },
    };
    const err = await openDatabase({ sqliteFile: file, migrations }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as Error).message).toMatch(/^migration 0002_broken failed: /);
    const again = await openDatabase({ sqliteFile: file });
    try {
      const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(again.db);
      expect(tables.rows.map((r) => r.name)).toContain('t');
    } finally {
      await again.close();
    }
  });

  it('reports a full SQLite database as unavailable from a transaction SQLite ended itself, and keeps nothing of it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'full-'));
    const migrations = {
      '0001_t': {
        up: async (db: import('kysely').Kysely<unknown>) =>
          void (await sql`create table t (id integer primary key, body text not null)`.execute(db)),
      },
    };
    const database = await openDatabase({ sqliteFile: path.join(dir, 'app.db'), migrations });
    try {
      // Capped at its present size, the file has no room for a new page: the next one fails with SQLITE_FULL, a
      // real "database or disk is full" from SQLite, which then rolls the transaction back by itself.
      const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(database.db)).rows[0]!.page_count;
      await sql.raw(`pragma max_page_count = ${pages}`).execute(database.db);
      const write = withTransaction(database.db, async (trx) => {
        for (let i = 0; i < 20; i++) await sql`insert into t (body) values (${'x'.repeat(4000)})`.execute(trx);
      });
      // Before, Kysely's ROLLBACK failed ("cannot rollback - no transaction is active") and that error replaced
      // this one.
      await expect(write).rejects.toThrow(DatabaseUnavailableError);
      await expect(write).rejects.toThrow('database unavailable: database or disk is full');
      await sql.raw('pragma max_page_count = 1073741823').execute(database.db);
      expect((await sql<{ n: number }>`select count(*) as n from t`.execute(database.db)).rows[0]!.n).toBe(0);
      // The connection is not left inside a transaction: the next one commits.
      await withTransaction(database.db, (trx) => sql`insert into t (body) values ('after')`.execute(trx));
      expect((await sql<{ n: number }>`select count(*) as n from t`.execute(database.db)).rows[0]!.n).toBe(1);
    } finally {
      await database.close();
    }
  });
});
