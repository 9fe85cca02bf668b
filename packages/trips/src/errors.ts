import { DomainError } from '@svc/platform';

/** Input given to an operation is invalid; the message names the field and what is expected. */
export class InvalidInputError extends DomainError {
  constructor(message: string) {
    super('invalid_input', message);
  }
}

/** A credential is valid but may not do what was asked (e.g. another environment's token). */
export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** A credential is missing, malformed, unknown, expired or revoked. */
export class UnauthenticatedError extends DomainError {
  constructor(message: string) {
    super('unauthenticated', message);
  }
}

/** Something with the same identity already exists. */
export class AlreadyExistsError extends DomainError {
  constructor(message: string) {
    super('already_exists', message);
  }
}

/** An idempotency key already names another request's data (e.g. the same trip key sent with another trip). */
export class IdempotencyConflictError extends DomainError {
  constructor(message: string) {
    super('idempotency_conflict', message);
  }
}
