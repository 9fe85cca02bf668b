import { isMainThread } from 'node:worker_threads';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

/** Field paths whose values are replaced by `[Redacted]` in every log line. */
export const REDACTED_PATHS = [
  'authorization',
  'password',
  'token',
  'secret',
  'apiKey',
  'api_key',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  '*.authorization',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.api_key',
  '*.databaseUrl',
  '*.redisUrl',
];

const SECRET_QUERY_PARAMS = /([?&](?:token|access_token|api_key|apikey|key|password|pass|secret|signature)=)[^&#]*/gi;

/**
 * A credential that names its environment (`trips_live_...`, `ingest_sandbox_...`: a prefix, then 43 base64url
 * characters, docs/DESIGN.md), wherever a client put it: pasted into a path instead of the Authorization header,
 * it was logged as it came. A percent-escape before it may itself be escaped (`%2520`, a `%20` encoded twice by a
 * client that escapes what it built from escaped parts): such a credential was logged as it came too.
 */
const ENVIRONMENT_CREDENTIAL =
  /(?<=^|[^A-Za-z0-9_-]|%(?:25)*[0-9A-Fa-f]{2})([a-z]+_(?:live|sandbox)_)[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

/** A percent-escape of a character a credential is written with (letters, digits, `_`, `-`): `%5F`, `%41`. */
const ESCAPED_CREDENTIAL_CHARACTER = /%(?:2[Dd]|3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|5[Ff]|6[1-9A-Fa-f]|7[0-9Aa])/g;

const holdsMarker = (text: string) => text.includes('_live_') || text.includes('_sandbox_');

/**
 * `text` with its environment credentials redacted. One right after a percent-escape (`?auth=Bearer%20trips_live_...`,
 * `%22trips_live_...%22`) was missed, the escape's last hex digit taken for a character of a longer word, and so was
 * one with an escaped character of its own (`trips%5Flive_...`): such a text is compared with its escapes of
 * credential characters decoded, and logged that way when that shows a credential.
 */
function redactCredentials(text: string): string {
  // Runs on every access line: the pattern only where its marker is (a third of the line's redaction cost otherwise).
  if (text.includes('%')) {
    const decoded = text.replace(ESCAPED_CREDENTIAL_CHARACTER, (escaped) =>
      String.fromCharCode(Number.parseInt(escaped.slice(1), 16)),
    );
    if (decoded !== text && holdsMarker(decoded)) {
      const redacted = decoded.replace(ENVIRONMENT_CREDENTIAL, '$1[Redacted]');
      if (redacted !== decoded) return redacted;
    }
  }
  return holdsMarker(text) ? text.replace(ENVIRONMENT_CREDENTIAL, '$1[Redacted]') : text;
}

/** Whether `text` holds an environment credential (`trips_live_...`, `ingest_sandbox_...`), escaped or not. */
export function holdsCredential(text: string): boolean {
  return redactCredentials(text) !== text;
}

/** Removes credentials from a URL or path before it is logged (query secrets, credentials, `user:password@`). */
export function redactUrl(url: string): string {
  // The credentials end at the authority's last `@`: a password may hold an unescaped `@` of its own.
  const out = redactCredentials(url.replace(SECRET_QUERY_PARAMS, '$1[Redacted]'));
  return out.replace(/\/\/([^/?#@:]*):([^/?#]*)@/, '//$1:[Redacted]@');
}

export interface CreateLoggerOptions {
  level?: LoggerOptions['level'];
  /** Service name, written as `service` on every line. */
  name?: string;
  /**
   * Where lines go; by default stdout, buffered (see stdoutDestination). Tests pass a stream to read
   * them back.
   */
  destination?: DestinationStream;
}

/** Bytes of log lines gathered before they are written, and the longest a line waits, in ms. */
export const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_MS = 250;

/**
 * Standard output for log lines, written in batches: a write system call for every line (one line per
 * request) cost a bare route through createHttpApp ~35 µs of its ~75 µs of server CPU (measured on the
 * bench machine, log to a file). Lines are gathered up to LOG_BUFFER_BYTES and written at least every LOG_FLUSH_MS, and
 * pino writes what is left synchronously when the process exits, also on an uncaught exception or
 * process.exit(); only a SIGKILL or a power cut can lose the last quarter second. A worker thread writes
 * each line at once, since pino cannot flush a thread's buffer when the thread ends.
 */
function stdoutDestination(): DestinationStream {
  if (!isMainThread) return pino.destination({ dest: 1, sync: true });
  return pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
}

/** A pino JSON logger with the project's redaction rules. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.name ? { service: options.name } : {},
      redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? stdoutDestination(),
  );
}
