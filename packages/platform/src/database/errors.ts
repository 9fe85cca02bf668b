import {
  CheckViolationError,
  DatabaseUnavailableError,
  DomainError,
  ForeignKeyViolationError,
  NotFoundError,
  NotNullViolationError,
  TransientConflictError,
  UniqueViolationError,
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
    if (/timeout exceeded when trying to connect|Connection terminated/i.test(message)) {
      return new DatabaseUnavailableError(`database connection failed: ${message}`, { cause: err });
    }
    return err;
  }
  const constraint =
    typeof e.constraint === 'string' ? e.constraint : typeof e.column === 'string' ? e.column : undefined;
  const detail = typeof e.detail === 'string' ? ` (${e.detail})` : '';

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
    case 'SQLITE_BUSY':
    case 'SQLITE_BUSY_SNAPSHOT':
    case 'SQLITE_LOCKED':
      return new TransientConflictError(`database is busy: ${message}`, { cause: err });
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_FULL':
    case 'SQLITE_IOERR':
      return new DatabaseUnavailableError(`database unavailable: ${message}`, { cause: err });
    default:
      if (CONNECTION_CODES.has(code)) {
        return new DatabaseUnavailableError(`cannot reach the database (${code})`, { cause: err });
      }
      return err;
  }
}
