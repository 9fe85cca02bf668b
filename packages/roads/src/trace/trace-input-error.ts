/** Thrown for unreadable or invalid trace files; the message names the file and the record. */
export class TraceInputError extends Error {
  override name = 'TraceInputError';
}
