/**
 * Domain errors shared by both services. Driver-specific failures (SQLite result codes, PostgreSQL
 * SQLSTATEs, connection errors) are translated into these so that operations and handlers never
 * inspect a driver's error object.
 */
export class DomainError extends Error {
  /** Stable, machine-readable error code. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Start-up configuration is missing or invalid. The message is one line naming the variable. */
export class ConfigError extends DomainError {
  constructor(message: string) {
    super('config_invalid', message);
  }
}

/** The requested record does not exist (or is outside the caller's scope). */
export class NotFoundError extends DomainError {
  constructor(message = 'Not found', options?: { cause?: unknown }) {
    super('not_found', message, options);
  }
}

/** Base class of integrity violations reported by the database. */
export class ConstraintViolationError extends DomainError {
  /** The constraint's or column's name when the driver reports it. */
  readonly constraint: string | undefined;

  constructor(code: string, message: string, constraint: string | undefined, options?: { cause?: unknown }) {
    super(code, message, options);
    this.constraint = constraint;
  }
}

/** A row with the same unique key already exists. */
export class UniqueViolationError extends ConstraintViolationError {
  constructor(message: string, constraint?: string, options?: { cause?: unknown }) {
    super('unique_violation', message, constraint, options);
  }
}

/** A row refers to a row that does not exist, or is still referred to. */
export class ForeignKeyViolationError extends ConstraintViolationError {
  constructor(message: string, constraint?: string, options?: { cause?: unknown }) {
    super('foreign_key_violation', message, constraint, options);
  }
}

/** A required column was given no value. */
export class NotNullViolationError extends ConstraintViolationError {
  constructor(message: string, constraint?: string, options?: { cause?: unknown }) {
    super('not_null_violation', message, constraint, options);
  }
}

/** A CHECK constraint rejected the row. */
export class CheckViolationError extends ConstraintViolationError {
  constructor(message: string, constraint?: string, options?: { cause?: unknown }) {
    super('check_violation', message, constraint, options);
  }
}

/**
 * The database cannot hold a value it was given: too long for its column, a character its encoding cannot store
 * (PostgreSQL's text holds no U+0000), a number out of its column's range, text that is not of the column's type.
 * Such a value comes from a client, so it is bad input (a 400), not a fault. The message names the kind of
 * problem only, never the value (it may be a secret) or the statement; the driver's error is the `cause`.
 */
export class ValueNotStorableError extends DomainError {
  /** The driver's code: a PostgreSQL SQLSTATE (`22001`, `22021`, ...) or a SQLite result code. */
  readonly driverCode: string;

  constructor(message: string, driverCode: string, options?: { cause?: unknown }) {
    super('value_not_storable', message, options);
    this.driverCode = driverCode;
  }
}

/** Concurrent writers collided (serialization failure, deadlock, SQLite busy); the work may be retried. */
export class TransientConflictError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('transient_conflict', message, options);
  }
}

/** The database cannot be reached or refused the connection. */
export class DatabaseUnavailableError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('database_unavailable', message, options);
  }
}
