/** `npx platform check` as a user runs it: a separate process, its configuration in the environment. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/platform.js', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'platform-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function platform(env: Record<string, string>, ...args: string[]) {
  return platformWithin(60_000, env, ...args);
}

function platformWithin(timeoutMs: number, env: Record<string, string>, ...args: string[]) {
  const res = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: '',
      REDIS_URL: '',
      CONFIG_FILE: '',
      ...env,
    },
    timeout: timeoutMs,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('platform check', () => {
  it('never prints a password, even one holding an unescaped @', () => {
    for (const [name, url] of [
      ['DATABASE_URL', 'postgres://app:hunter@2secret@127.0.0.1:1/app'],
      ['REDIS_URL', 'redis://app:hunter@2secret@127.0.0.1:1'],
    ] as const) {
      const res = platform({ [name]: url }, 'check');
      expect(res.code, name).toBe(1);
      expect(res.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(res.stderr, name).toContain('[Redacted]@127.0.0.1:1');
      expect(res.stderr, name).not.toMatch(/hunter|2secret/);
    }
  });

  it('says why Redis cannot be reached', () => {
    const res = platform({ REDIS_URL: 'redis://127.0.0.1:1' }, 'check');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'platform: cannot connect to Redis at redis://127.0.0.1:1: connection refused (ECONNREFUSED)\n',
    );
  });

  it('says DATA_DIR is a file rather than a folder', () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'x');
    const res = platform({ DATA_DIR: file }, 'check');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`platform: DATA_DIR ${file} is a file, not a folder: point DATA_DIR at a folder\n`);
  });

  it('creates a missing DATA_DIR with its parents', () => {
    const nested = path.join(dir, 'new', 'nested', 'data');
    const res = platform({ DATA_DIR: nested }, 'check');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(statSync(nested).isDirectory()).toBe(true);
  });

  // Node's recursive mkdirSync retries forever where the system answers ENOENT under an existing parent (/proc).
  it.skipIf(!existsSync('/proc/self'))('says a DATA_DIR under /proc cannot be created, instead of spinning', () => {
    for (const dataDir of ['/proc/no-such-data', '/proc/no-such-data/deeper']) {
      const res = platformWithin(20_000, { DATA_DIR: dataDir }, 'check');
      expect(res.code, dataDir).toBe(1);
      expect(res.stderr, dataDir).toMatch(
        /^platform: DATA_DIR \/proc\/no-such-data.* cannot be created or written \(ENOENT\)/,
      );
    }
  });

  it('says a CONFIG_FILE does not exist, or is a folder', () => {
    const missing = path.join(dir, 'no-config.json');
    expect(platform({ CONFIG_FILE: missing }, 'check').stderr).toBe(
      `platform: Invalid configuration: CONFIG_FILE ${missing} does not exist (ENOENT)\n`,
    );
    expect(platform({ CONFIG_FILE: dir }, 'check').stderr).toBe(
      `platform: Invalid configuration: CONFIG_FILE ${dir} is a folder, not a JSON file (EISDIR)\n`,
    );
  });

  it('shows a CONFIG_FILE value that is not text as JSON', () => {
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ LOG_LEVEL: { level: 'debug' } }));
    const res = platform({ CONFIG_FILE: file }, 'check');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'platform: Invalid configuration: LOG_LEVEL must be text or a number in CONFIG_FILE (got {"level":"debug"})\n',
    );
  });
});
