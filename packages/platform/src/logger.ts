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

/** Removes credentials from a URL or path before it is logged (query secrets and `user:password@`). */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[Redacted]').replace(/\/\/([^/@:]*):([^/@]*)@/, '//$1:[Redacted]@');
}

export interface CreateLoggerOptions {
  level?: LoggerOptions['level'];
  /** Service name, written as `service` on every line. */
  name?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
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
    options.destination,
  );
}
