/** `npx cms ...` as a user runs it: separate processes on a temporary DATA_DIR. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/cms.js', import.meta.url));
const dataDir = mkdtempSync(path.join(tmpdir(), 'cms-cli-'));

function cms(...args: string[]) {
  const res = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: dataDir, CMS_DATABASE_URL: '', DATABASE_URL: '', CMS_SECRET: '' },
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('cms CLI', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints help and exits 0', () => {
    const res = cms('--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('users');
    expect(res.stdout).toContain('app-passwords');
    expect(res.stdout).toContain('CMS_PORT');
  });

  it('migrates, creates users and application passwords, and fails in one line', { timeout: 180_000 }, () => {
    const migrate = cms('migrate');
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain('applied 0001-users');
    expect(cms('migrate').stdout).not.toContain('applied');

    const created = cms('users', 'create', 'ada', '--role', 'editor', '--email', 'ada@example.test');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/created user ada \(id \d+, role editor\)/);
    expect(created.stdout).toMatch(/password: \S{24}/);

    const dup = cms('users', 'create', 'ada', '--email', 'other@example.test', '--password', 'pw');
    expect(dup.code).toBe(1);
    expect(dup.stderr.trim().split('\n')).toEqual(['cms: Sorry, that username already exists! (existing_user_login)']);

    const app = cms('app-passwords', 'create', 'ada', 'laptop');
    expect(app.code).toBe(0);
    expect(app.stdout).toMatch(/^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/m);

    const missing = cms('app-passwords', 'create', 'nobody', 'x');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('cms: no user with login "nobody"');

    const badRole = cms('users', 'create', 'x', '--role', 'king', '--email', 'x@example.test');
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr.trim().split('\n')).toHaveLength(1);
  });
});
