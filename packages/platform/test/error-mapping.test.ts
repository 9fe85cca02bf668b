import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDomainError } from '../src/database/errors.ts';
import {
  type Database,
  DatabaseUnavailableError,
  openDatabase,
  TransientConflictError,
  UniqueViolationError,
  withTransaction,
} from '../src/index.ts';
import { TcpRelay, testDialects } from '../src/testing/index.ts';

/** A better-sqlite3 error as the driver throws it: an Error whose `code` is SQLite's extended result code. */
const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('SQLite extended result codes', () => {
  it('classes each by its primary code, as the primary codes themselves are', () => {
    // Only the primary codes were matched before, so these reached the services as unknown errors (a 500).
    for (const code of [
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR_FSYNC',
      'SQLITE_READONLY_DBMOVED',
      'SQLITE_CANTOPEN_ISDIR',
    ]) {
      const mapped = toDomainError(sqliteError(code, 'disk I/O error'));
      expect(mapped, code).toBeInstanceOf(DatabaseUnavailableError);
      expect((mapped as Error).message).toBe('database unavailable: disk I/O error');
    }
    for (const code of ['SQLITE_BUSY_TIMEOUT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED_SHAREDCACHE']) {
      expect(toDomainError(sqliteError(code, 'database is locked')), code).toBeInstanceOf(TransientConflictError);
    }
    expect(toDomainError(sqliteError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: t.a'))).toBeInstanceOf(
      UniqueViolationError,
    );
    // A damaged file, or a code no rule knows, stays the driver's error: logged whole, for an operator.
    const corrupt = sqliteError('SQLITE_CORRUPT_INDEX', 'database disk image is malformed');
    expect(toDomainError(corrupt)).toBe(corrupt);
  });
});

const postgres = testDialects().find((d) => d.name === 'postgres')!;

describe.skipIf(postgres.skip)(
  `PostgreSQL refusing work for want of resources or of a primary (${postgres.label})`,
  () => {
    let database: Database<unknown>;
    const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

    beforeAll(async () => {
      database = await postgres.open({
        '0001_t': { up: async (db) => void (await sql`create table t (id integer primary key)`.execute(db)) },
      });
    });
    afterAll(async () => {
      await database?.close();
    });

    it('a write reaching a server that takes none (a standby after a failover) is the database being unavailable', async () => {
      const write = withTransaction(database.db, async (trx) => {
        // What every transaction is on a hot standby.
        await sql`set transaction read only`.execute(trx);
        await sql`insert into t (id) values (1)`.execute(trx);
      });
      await expect(write).rejects.toThrow(DatabaseUnavailableError);
      await expect(write).rejects.toThrow('database unavailable: cannot execute INSERT in a read-only transaction');
    });

    it('a connection beyond the limit (too many connections) is the database being unavailable', async (ctx) => {
      const role = `limited_${randomBytes(4).toString('hex')}`;
      const refused = await sql
        .raw(`create role ${role} login connection limit 1`)
        .execute(database.db)
        .then(() => undefined)
        .catch((err: unknown) => err);
      // TEST_DATABASE_URL's user may not create roles (CI's, the superuser, may).
      if (refused) ctx.skip(`cannot create a role to limit: ${(refused as Error).message}`);
      const parsed = new URL(url);
      parsed.username = role;
      parsed.password = '';
      const limited = await openDatabase({ url: parsed.toString() });
      try {
        // One connection held in a transaction; a second statement at once needs a second connection.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let holding!: () => void;
        const isHolding = new Promise<void>((resolve) => (holding = resolve));
        const holder = limited.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          holding();
          await held;
        });
        await isHolding;
        const second = sql`select 1`.execute(limited.db).catch((e: unknown) => e);
        const err = await second;
        release();
        await holder;
        expect(err).toBeInstanceOf(DatabaseUnavailableError);
        expect((err as Error).message).toMatch(/^database unavailable: too many connections for role "limited_/);
      } finally {
        await limited.close();
        await sql.raw(`drop role ${role}`).execute(database.db);
      }
    });

    it('a connection cut inside a transaction is the database being unavailable, and the pool serves again after', async () => {
      const relay = TcpRelay.forUrl(url, 5432);
      await relay.up();
      const through = await openDatabase({ url: relay.urlThrough(url) });
      try {
        for (const cut of [
          // Refused outright: the statements after it, and the ROLLBACK, go to a client whose connection broke.
          () => relay.down(),
          // Held without an answer (a frozen server, a lost network) until the connection ends.
          async () => {
            relay.freeze();
            setTimeout(() => void relay.down(), 200);
          },
        ]) {
          const err = await withTransaction(through.db, async (trx) => {
            await sql`select 1`.execute(trx);
            await cut();
            await sql`select 2`.execute(trx);
          }).catch((e: unknown) => e);
          // Before: a plain Error "Client has encountered a connection error and is not queryable" (a 500, and a
          // trip's counted attempt).
          expect(err).toBeInstanceOf(DatabaseUnavailableError);
          expect((err as Error).message).toMatch(/^database connection failed: /);
          await relay.up();
          await withTransaction(through.db, (trx) => sql`select 3`.execute(trx));
        }
      } finally {
        await through.close();
        await relay.down();
      }
    });
  },
);
