import { DatabaseUnavailableError, TransientConflictError } from '@svc/platform';

/**
 * A failure of the store rather than of a trip: the database out of reach, full or failing to write
 * (DatabaseUnavailableError), or a conflict that outlasted its retries (TransientConflictError). Scoring treats
 * it as no verdict on the trip: the trip's attempt is given back and it is tried again once the store answers.
 */
export function isStoreFault(err: unknown): err is Error {
  return err instanceof DatabaseUnavailableError || err instanceof TransientConflictError;
}
