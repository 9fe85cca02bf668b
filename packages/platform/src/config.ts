import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './errors.ts';

/** One configuration entry: the environment variable(s) it is read from and the schema it must satisfy. */
export interface ConfigEntry<T extends z.ZodType = z.ZodType> {
  /** Variable names, most specific first (e.g. `['TRIPS_PORT', 'PORT']`): the first one set wins. */
  env: readonly string[];
  schema: T;
  /** A secret is never echoed back in an error message. */
  secret?: boolean;
  /** One-line description, shown by `describeConfig`. */
  doc?: string;
}

export type ConfigSpec = Record<string, ConfigEntry>;
export type ConfigOf<S extends ConfigSpec> = { [K in keyof S]: z.output<S[K]['schema']> };

/** Declares a configuration entry read from one or more environment variables. */
export function env<T extends z.ZodType>(
  names: string | readonly string[],
  schema: T,
  options: { secret?: boolean; doc?: string } = {},
): ConfigEntry<T> {
  return { env: typeof names === 'string' ? [names] : names, schema, ...options };
}

export interface LoadConfigOptions {
  /** Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * A JSON file whose keys are variable names. Environment variables override it. Defaults to the
   * `CONFIG_FILE` variable when set.
   */
  file?: string;
}

/**
 * Builds one typed, validated configuration object from environment variables (and optionally a JSON
 * file). Throws a {@link ConfigError} whose message is a single line naming the variable and the problem.
 */
export function loadConfig<S extends ConfigSpec>(spec: S, options: LoadConfigOptions = {}): ConfigOf<S> {
  const vars = options.env ?? process.env;
  const filePath = options.file ?? nonEmpty(vars.CONFIG_FILE);
  const fromFile = filePath ? readConfigFile(filePath) : {};
  const out: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const [key, entry] of Object.entries(spec)) {
    let name = entry.env[0] ?? key;
    let raw: unknown;
    for (const candidate of entry.env) {
      const value = nonEmpty(vars[candidate]) ?? fromFile[candidate];
      if (value !== undefined) {
        name = candidate;
        raw = value;
        break;
      }
    }
    if (raw !== undefined && typeof raw !== 'string') {
      // Only a CONFIG_FILE can hold such a value (an object, an array): the schemas read text.
      const shown = entry.secret ? '' : ` (got ${truncate(JSON.stringify(raw))})`;
      throw new ConfigError(`Invalid configuration: ${name} must be text or a number in CONFIG_FILE${shown}`);
    }
    const result = entry.schema.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      const problem = raw === undefined ? 'is required' : (issue?.message ?? 'is invalid');
      const shown = raw === undefined || entry.secret ? '' : ` (got ${JSON.stringify(truncate(String(raw)))})`;
      throw new ConfigError(`Invalid configuration: ${name} ${lowerFirst(problem)}${shown}`);
    }
    out[key] = result.data;
    sources[key] = name;
  }
  configSources.set(out, sources);
  return out as ConfigOf<S>;
}

/** Per loaded configuration, the variable each entry was read from (kept apart: a config stays plain data). */
const configSources = new WeakMap<object, Record<string, string>>();

/**
 * The variable a loaded configuration's entry came from (e.g. `HOST` when it was set and `TRIPS_HOST` was not),
 * or, for a default, the entry's most specific name; `fallback` for an object `loadConfig` did not make.
 * Messages about a value name the variable the user actually set.
 */
export function configSource(config: object, key: string, fallback: string): string {
  return configSources.get(config)?.[key] ?? fallback;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why =
      { ENOENT: 'does not exist', EISDIR: 'is a folder, not a JSON file', EACCES: 'cannot be read by this user' }[
        code
      ] ?? 'cannot be read';
    throw new ConfigError(`Invalid configuration: CONFIG_FILE ${file} ${why} (${code})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`Invalid configuration: CONFIG_FILE ${file} is not valid JSON (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`Invalid configuration: CONFIG_FILE ${file} must hold a JSON object of variable names`);
  }
  // File values may be numbers or booleans; the schemas coerce from strings, so normalise. A null is a
  // variable left unset, as an empty one in the environment.
  return Object.fromEntries(
    Object.entries(parsed)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, typeof v === 'number' || typeof v === 'boolean' ? String(v) : v]),
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function truncate(value: string): string {
  return value.length > 60 ? `${value.slice(0, 57)}...` : value;
}

function lowerFirst(text: string): string {
  return text.length > 0 ? text[0]!.toLowerCase() + text.slice(1) : text;
}

// --- Reusable schemas -------------------------------------------------------------------------------

/** A TCP port, 0-65535 (0 lets the OS choose). */
export const portSchema = (defaultPort: number) =>
  z.coerce
    .number({ error: 'must be an integer between 0 and 65535' })
    .int({ error: 'must be an integer between 0 and 65535' })
    .min(0, { error: 'must be an integer between 0 and 65535' })
    .max(65535, { error: 'must be an integer between 0 and 65535' })
    .default(defaultPort);

/** A positive integer with a default, for timeouts and sizes. */
export const positiveIntSchema = (defaultValue: number) =>
  z.coerce
    .number({ error: 'must be a positive integer' })
    .int({ error: 'must be a positive integer' })
    .positive({ error: 'must be a positive integer' })
    .default(defaultValue);

/** `true/false/1/0/yes/no/on/off`, case-insensitive. */
export const booleanSchema = (defaultValue: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return defaultValue;
      const s = v.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      ctx.addIssue({ code: 'custom', message: 'must be one of true, false, 1, 0, yes, no, on, off' });
      return z.NEVER;
    });

/** A URL whose scheme is one of `protocols` (without the colon). */
export const urlSchema = (protocols: readonly string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { error: `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}` },
  );

export const logLevelSchema = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    error: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  .default('info');

/** The entries every service shares. `prefix` (e.g. `TRIPS_`) lets two services in one environment differ. */
export function baseConfigSpec(service: { prefix: string; defaultPort: number }) {
  const p = service.prefix;
  return {
    host: env([`${p}HOST`, 'HOST'], z.string().min(1).default('127.0.0.1'), { doc: 'Interface to listen on' }),
    port: env([`${p}PORT`], portSchema(service.defaultPort), { doc: 'Port of the public API' }),
    dataDir: env(
      'DATA_DIR',
      z
        .string()
        .default('./data')
        .transform((d) => path.resolve(d)),
      { doc: 'Folder for the embedded database and other files' },
    ),
    databaseUrl: env([`${p}DATABASE_URL`, 'DATABASE_URL'], urlSchema(['postgres', 'postgresql']).optional(), {
      secret: true,
      doc: 'PostgreSQL connection URL; the embedded SQLite file under DATA_DIR is used when unset',
    }),
    redisUrl: env([`${p}REDIS_URL`, 'REDIS_URL'], urlSchema(['redis', 'rediss']).optional(), {
      secret: true,
      doc: 'Redis URL for state several nodes share; in-memory when unset',
    }),
    logLevel: env([`${p}LOG_LEVEL`, 'LOG_LEVEL'], logLevelSchema, { doc: 'pino log level' }),
    metricsToken: env('METRICS_TOKEN', z.string().min(16, { error: 'must be at least 16 characters' }).optional(), {
      secret: true,
      doc: 'Bearer token GET /metrics requires; without it metrics are served to loopback clients only',
    }),
    shutdownTimeoutMs: env('SHUTDOWN_TIMEOUT_MS', positiveIntSchema(10_000), {
      doc: 'How long in-flight requests may take to finish on SIGTERM/SIGINT',
    }),
    requestTimeoutMs: env('REQUEST_TIMEOUT_MS', positiveIntSchema(300_000), {
      doc: 'How long a client may take to send a whole request, headers and body (uploads included); then the connection is cut with 408',
    }),
    responseIdleTimeoutMs: env('RESPONSE_IDLE_TIMEOUT_MS', positiveIntSchema(60_000), {
      doc: 'How long the writing of a large answer (over 64 KiB) may make no progress, the client not reading, before the connection is cut',
    }),
  } as const;
}

/** Lists a spec's variables with their descriptions, for `--help` texts and the README. */
export function describeConfig(spec: ConfigSpec): string {
  return Object.values(spec)
    .map((e) => `  ${e.env.join(' | ')}${e.doc ? `  ${e.doc}` : ''}`)
    .join('\n');
}
