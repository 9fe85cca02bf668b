import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseConfigSpec, booleanSchema, configSource, env, loadConfig } from './config.ts';
import { ConfigError } from './errors.ts';

const spec = baseConfigSpec({ prefix: 'TRIPS_', defaultPort: 3000 });

describe('loadConfig', () => {
  it('works with no variables at all: embedded defaults, data under ./data', () => {
    const config = loadConfig(spec, { env: {} });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 3000, logLevel: 'info', shutdownTimeoutMs: 10_000 });
    expect(config.dataDir).toBe(path.resolve('data'));
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
  });

  it('reads the service-specific variable before the shared one', () => {
    const config = loadConfig(spec, { env: { TRIPS_LOG_LEVEL: 'debug', LOG_LEVEL: 'warn', DATA_DIR: '/tmp/x' } });
    expect(config.logLevel).toBe('debug');
    expect(config.dataDir).toBe('/tmp/x');
  });

  it('tells which variable each value came from, for messages that name it', () => {
    const shared = loadConfig(spec, { env: { HOST: '0.0.0.0' } });
    expect(configSource(shared, 'host', '?')).toBe('HOST');
    const own = loadConfig(spec, { env: { HOST: '0.0.0.0', TRIPS_HOST: '::' } });
    expect(configSource(own, 'host', '?')).toBe('TRIPS_HOST');
    // A default is named by the entry's most specific variable; a plain object by the fallback.
    expect(configSource(loadConfig(spec, { env: {} }), 'host', '?')).toBe('TRIPS_HOST');
    expect(configSource({ host: 'x' }, 'host', 'FALLBACK')).toBe('FALLBACK');
  });

  it('rejects a bad port with one line naming the variable and the value', () => {
    expect(() => loadConfig(spec, { env: { TRIPS_PORT: 'eighty' } })).toThrow(
      new ConfigError('Invalid configuration: TRIPS_PORT must be an integer between 0 and 65535 (got "eighty")'),
    );
    expect(() => loadConfig(spec, { env: { TRIPS_PORT: '70000' } })).toThrow(/TRIPS_PORT must be an integer/);
  });

  it('never echoes a secret value in the error', () => {
    let message = '';
    try {
      loadConfig(spec, { env: { DATABASE_URL: 'mysql://root:hunter2@db/x' } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      'Invalid configuration: DATABASE_URL must be a URL starting with postgres:// or postgresql://',
    );
    expect(message).not.toContain('hunter2');
    expect(message.split('\n')).toHaveLength(1);
  });

  it('names the variable of an unknown log level', () => {
    expect(() => loadConfig(spec, { env: { LOG_LEVEL: 'loud' } })).toThrow(
      /^Invalid configuration: LOG_LEVEL must be one of fatal, error/,
    );
  });

  it('reports a required variable that is missing', () => {
    const required = { apiKey: env('API_KEY', z.string().min(8), { secret: true }) };
    expect(() => loadConfig(required, { env: {} })).toThrow('Invalid configuration: API_KEY is required');
  });

  it('reads a JSON file, overridden by the environment', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ TRIPS_PORT: 4100, LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_MS: 2500 }));
    const config = loadConfig(spec, { env: { CONFIG_FILE: file, LOG_LEVEL: 'error' } });
    expect(config).toMatchObject({ port: 4100, logLevel: 'error', shutdownTimeoutMs: 2500 });
  });

  it('rejects an unreadable or malformed config file with one line', () => {
    expect(() => loadConfig(spec, { env: { CONFIG_FILE: '/nonexistent/config.json' } })).toThrow(
      'Invalid configuration: CONFIG_FILE /nonexistent/config.json does not exist (ENOENT)',
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, '{ "PORT": ');
    expect(() => loadConfig(spec, { file })).toThrow(/is not valid JSON/);
  });

  it('parses booleans strictly', () => {
    const s = { flag: env('FLAG', booleanSchema(false)) };
    expect(loadConfig(s, { env: {} }).flag).toBe(false);
    expect(loadConfig(s, { env: { FLAG: 'Yes' } }).flag).toBe(true);
    expect(() => loadConfig(s, { env: { FLAG: 'maybe' } })).toThrow(/FLAG must be one of true, false/);
  });
});
