import {
  CheckViolationError,
  DatabaseUnavailableError,
  DomainError,
  ForeignKeyViolationError,
  NotFoundError,
  NotNullViolationError,
  TransientConflictError,
  UniqueViolationError,
  ValueNotStorableError,
} from '../errors.ts';

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  column?: unknown;
  detail?: unknown;
  message?: unknown;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * The data exceptions (SQLSTATE class 22) a value sent by a client can cause, with what they say about it.
 * Left out on purpose, because they mean a bug in a statement rather than a bad value: division by zero
 * (22012), invalid arguments to functions (22023, 2201E-2201G, 22014, 22016), LIMIT/OFFSET counts (2201W,
 * 2201X), LIKE escapes (22019, 22025, 2200B, 2200C, 22P06), regular expressions (2201B), JSON path and XML
 * errors, and the bare class code 22000; they stay driver errors (a 500, logged).
 */
const NOT_STORABLE: ReadonlyMap<string, string> = new Map(
  Object.entries({
    // string_data_right_truncation (varchar(n)), string_data_length_mismatch (char(n))
    '22001': 'a value is too long for its column',
    '22026': 'a value is too long for its column',
    // character_not_in_repertoire (also "invalid byte sequence": U+0000 in text), untranslatable_character
    // (a character the server encoding lacks, or \u0000 in jsonb)
    '22021': 'a value holds a character the database cannot store',
    '22P05': 'a value holds a character the database cannot store',
    // numeric_value_out_of_range: e.g. 99999999999 bound to an integer column
    '22003': 'a number is out of range for its column',
    // invalid_text_representation, invalid_binary_representation, invalid_datetime_format, datetime_field_overflow
    '22P02': "a value is not valid for its column's type",
    '22P03': "a value is not valid for its column's type",
    '22007': "a value is not valid for its column's type",
    '22008': "a value is not valid for its column's type",
    // SQLite: a string or blob past SQLITE_MAX_LENGTH; a value of the wrong type for a rowid or a STRICT column
    SQLITE_TOOBIG: 'a value is too long for the database',
    SQLITE_MISMATCH: "a value is not valid for its column's type",
    SQLITE_CONSTRAINT_DATATYPE: "a value is not valid for its column's type",
  }),
);

/**
 * Translates a better-sqlite3 or pg error into a {@link DomainError}. Errors that are not about data
 * integrity or availability are returned unchanged.
 */
export function toDomainError(err: unknown): unknown {
  if (err instanceof DomainError || err === null || typeof err !== 'object') return err;
  if ((err as Error).name === 'NoResultError') return new NotFoundError('No matching row', { cause: err });
  const e = err as DriverError;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (code === undefined) {
    // node-postgres's own words for a connection that is gone: not connected in time, cut (the server restarted, a
    // network cut), or a statement sent on a client whose connection already broke (inside a transaction, the
    // statements after the cut and the ROLLBACK all get this one).
    if (/timeout exceeded when trying to connect|Connection terminated|is not queryable/i.test(message)) {
      return new DatabaseUnavailableError(`database connection failed: ${message}`, { cause: err });
    }
    return err;
  }
  const constraint =
    typeof e.constraint === 'string' ? e.constraint : typeof e.column === 'string' ? e.column : undefined;
  const detail = typeof e.detail === 'string' ? ` (${e.detail})` : '';

  const notStorable = NOT_STORABLE.get(code);
  if (notStorable !== undefined) return new ValueNotStorableError(notStorable, code, { cause: err });

  switch (code) {
    // PostgreSQL SQLSTATEs
    case '23505':
      return new UniqueViolationError(`duplicate key${detail}`, constraint, { cause: err });
    case '23503':
      return new ForeignKeyViolationError(`foreign key violation${detail}`, constraint, { cause: err });
    case '23502':
      return new NotNullViolationError(`missing value for ${constraint ?? 'a required column'}`, constraint, {
        cause: err,
      });
    case '23514':
      return new CheckViolationError(`check constraint ${constraint ?? ''} failed`.trim(), constraint, { cause: err });
    case '40001':
    case '40P01':
    case '55P03':
      return new TransientConflictError(`concurrent update conflict: ${message}`, { cause: err });
    case '57P01':
    case '57P02':
    case '57P03':
    case '08000':
    case '08001':
    case '08003':
    case '08004':
    case '08006':
    case '28000':
    case '28P01':
    case '3D000':
      return new DatabaseUnavailableError(`database unavailable: ${message}`, { cause: err });
    // SQLite extended result codes (better-sqlite3 exposes them as strings)
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return new UniqueViolationError(message.replace(/^UNIQUE constraint failed: /, 'duplicate key: '), constraint, {
        cause: err,
      });
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return new ForeignKeyViolationError('foreign key violation', constraint, { cause: err });
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return new NotNullViolationError(
        message.replace(/^NOT NULL constraint failed: /, 'missing value for '),
        constraint,
        {
          cause: err,
        },
      );
    case 'SQLITE_CONSTRAINT_CHECK':
      return new CheckViolationError(message, constraint, { cause: err });
    // 25006 read_only_sql_transaction: a write reaching a server that takes none, as a standby does when a
    // failover left the connection on the wrong side; the write is for the primary, once it is back in reach.
    case '25006':
      return new DatabaseUnavailableError(`database unavailable: ${message}`, { cause: err });
    default: {
      if (CONNECTION_CODES.has(code)) {
        return new DatabaseUnavailableError(`cannot reach the database (${code})`, { cause: err });
      }
      // Class 53, insufficient resources: disk full (53100), out of memory (53200), too many connections (53300,
      // e.g. more nodes' pools than max_connections), a configuration limit (53400).
      if (/^53[0-9A-Z]{3}$/.test(code)) {
        return new DatabaseUnavailableError(`database unavailable: ${message}`, { cause: err });
      }
      // better-sqlite3 reports SQLite's extended result codes (SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED,
      // SQLITE_BUSY_TIMEOUT, ...): each is its primary code and a detail, and is classed by the primary code.
      const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0];
      if (primary === 'SQLITE_BUSY' || primary === 'SQLITE_LOCKED') {
        return new TransientConflictError(`database is busy: ${message}`, { cause: err });
      }
      if (
        primary === 'SQLITE_CANTOPEN' ||
        primary === 'SQLITE_READONLY' ||
        primary === 'SQLITE_FULL' ||
        primary === 'SQLITE_IOERR'
      ) {
        return new DatabaseUnavailableError(`database unavailable: ${message}`, { cause: err });
      }
      return err;
    }
  }
}
