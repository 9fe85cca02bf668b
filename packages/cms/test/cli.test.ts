/** `npx cms ...` as a user runs it: separate processes on a temporary DATA_DIR. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@svc/platform';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadCmsConfig, resolveSecret } from '../src/config.ts';
import { openCmsDatabase } from '../src/db/connection.ts';

const bin = fileURLToPath(new URL('../bin/cms.js', import.meta.url));
const dataDir = mkdtempSync(path.join(tmpdir(), 'cms-cli-'));
// For the tests of mistakes, so that the store of the others starts empty whatever the order.
const otherDataDir = mkdtempSync(path.join(tmpdir(), 'cms-cli-other-'));

function cms(...args: string[]) {
  return cmsWith({}, ...args);
}

function cmsWith(env: Record<string, string>, ...args: string[]) {
  const res = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: dataDir, CMS_DATABASE_URL: '', DATABASE_URL: '', CMS_SECRET: '', ...env },
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Runs the CLI without blocking this process (a server the test holds open must keep answering). */
function cmsAsync(env: Record<string, string>, ...args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, DATA_DIR: dataDir, CMS_DATABASE_URL: '', DATABASE_URL: '', CMS_SECRET: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `serve` on a free port until it prints its start line, reads `/cms-json/` from it, then stops it
 * (SIGTERM) and waits for it to exit.
 */
function serveOnce(env: Record<string, string>) {
  return new Promise<{ startLine: string; index: { url: string; home: string } }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve'], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        CMS_DATABASE_URL: '',
        DATABASE_URL: '',
        CMS_SECRET: '',
        CMS_PORT: '0',
        CMS_WORKERS: '1',
        CMS_SITE_URL: '',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    let result: { startLine: string; index: { url: string; home: string } } | undefined;
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const line = /^cms: listening on (http:\S+) .*$/m.exec(stdout);
      if (!line || result) return;
      result = { startLine: line[0], index: { url: '', home: '' } };
      fetch(`${line[1]}/cms-json/`)
        .then((res) => res.json() as Promise<{ url: string; home: string }>)
        .then((index) => {
          result!.index = { url: index.url, home: index.home };
        })
        .catch(reject)
        .finally(() => child.kill('SIGTERM'));
    });
    child.on('close', (code) => {
      if (result && code === 0) resolve(result);
      else reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
}

describe('cms CLI', () => {
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(otherDataDir, { recursive: true, force: true });
  });

  it('prints help and exits 0', () => {
    const res = cms('--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('users');
    expect(res.stdout).toContain('app-passwords');
    expect(res.stdout).toContain('CMS_PORT');
    // The CMS uses no Redis: the variable is not listed, nor read.
    expect(res.stdout).not.toContain('REDIS_URL');
  });

  it('reads no Redis variable: a value set for another service does not stop it', () => {
    const own = mkdtempSync(path.join(tmpdir(), 'cms-cli-redis-'));
    try {
      const res = cmsWith({ DATA_DIR: own, REDIS_URL: 'not a url', CMS_REDIS_URL: 'http://example.com' }, 'migrate');
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('says which setting to change when the port is taken or the host is not an address of this machine', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      // One process, or a primary and its workers: one line either way, never one per worker or a stack.
      for (const workers of ['1', '2']) {
        const busy = await cmsAsync({ DATA_DIR: otherDataDir, CMS_PORT: String(port), CMS_WORKERS: workers }, 'serve');
        expect(busy.code, workers).toBe(1);
        expect(busy.stderr, workers).toBe(
          `cms: port ${port} of 127.0.0.1 is already in use (CMS_PORT): stop what uses it, or set CMS_PORT to a free port\n`,
        );
      }
    } finally {
      taken.close();
    }
    for (const workers of ['1', '2']) {
      const badHost = await cmsAsync(
        { DATA_DIR: otherDataDir, CMS_HOST: '256.0.0.1', CMS_PORT: '0', CMS_WORKERS: workers },
        'serve',
      );
      expect(badHost.code, workers).toBe(1);
      expect(badHost.stderr, workers).toBe(
        'cms: cannot listen on 256.0.0.1 (CMS_HOST): not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses\n',
      );
    }
    // Set through the shared HOST, the message names HOST: the variable the user can find in their set-up.
    const sharedHost = await cmsAsync(
      { DATA_DIR: otherDataDir, HOST: '256.0.0.1', CMS_HOST: '', CMS_PORT: '0', CMS_WORKERS: '1' },
      'serve',
    );
    expect(sharedHost.stderr).toBe(
      'cms: cannot listen on 256.0.0.1 (HOST): not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses\n',
    );
  });

  it('says at start when CMS_UPLOADS_DIR cannot hold uploads, instead of failing the first upload', async () => {
    const file = path.join(otherDataDir, 'uploads-is-a-file');
    writeFileSync(file, 'not a folder');
    for (const workers of ['1', '2']) {
      const res = await cmsAsync(
        { DATA_DIR: otherDataDir, CMS_UPLOADS_DIR: file, CMS_PORT: '0', CMS_WORKERS: workers },
        'serve',
      );
      expect(res.code, workers).toBe(1);
      expect(res.stderr, workers).toBe(
        `cms: CMS_UPLOADS_DIR ${file} is a file, not a folder: point CMS_UPLOADS_DIR at a folder\n`,
      );
    }
  });

  it('serves the URL of CMS_SITE_URL from every start on, and says the URL it serves', {
    timeout: 120_000,
  }, async () => {
    const own = mkdtempSync(path.join(tmpdir(), 'cms-cli-site-url-'));
    try {
      const first = await serveOnce({ DATA_DIR: own, CMS_SITE_URL: 'https://old.example.com' });
      expect(first.startLine).toMatch(/REST API at https:\/\/old\.example\.com\/cms-json\/ /);
      expect(first.index).toEqual({ url: 'https://old.example.com', home: 'https://old.example.com' });
      const moved = await serveOnce({ DATA_DIR: own, CMS_SITE_URL: 'https://new.example.com' });
      expect(moved.startLine).toMatch(/REST API at https:\/\/new\.example\.com\/cms-json\/ /);
      expect(moved.index).toEqual({ url: 'https://new.example.com', home: 'https://new.example.com' });
      // Unset, the stored URL stays, and the start line says so rather than the listening address.
      const unset = await serveOnce({ DATA_DIR: own });
      expect(unset.startLine).toMatch(/REST API at https:\/\/new\.example\.com\/cms-json\/ /);
      expect(unset.index.home).toBe('https://new.example.com');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('refuses an empty --password instead of creating a user without one', () => {
    const env = { DATA_DIR: otherDataDir };
    const res = cmsWith(env, 'users', 'create', 'nopass', '--email', 'nopass@example.test', '--password', '');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'cms: --password is empty: give a password, or leave the option out to have one generated\n',
    );
    expect(cmsWith(env, 'app-passwords', 'create', 'nopass', 'x').stderr.trim()).toBe(
      'cms: no user with login "nopass"',
    );
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

    const longEmail = cms('users', 'create', 'long', '--email', `${'e'.repeat(94)}@x.test`, '--password', 'pw');
    expect(longEmail.code).toBe(1);
    expect(longEmail.stderr.trim().split('\n')).toEqual([
      'cms: Could not insert user into the database. (db_insert_error: email is longer than 100 characters)',
    ]);

    const badRole = cms('users', 'create', 'x', '--role', 'king', '--email', 'x@example.test');
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses to back up a DATA_DIR that holds no site, creating nothing there', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'cms-cli-nosite-'));
    const out = path.join(empty, 'backup-1');
    const res = cmsWith({ DATA_DIR: path.join(empty, 'typo') }, 'backup', '--out', out);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(`cms: no site in ${path.join(empty, 'typo')} (no cms.db there): is DATA_DIR right?`);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('backs up the store, the secret key and the uploads into a new folder that restores as it was', {
    timeout: 120_000,
  }, async () => {
    expect(cms('users', 'create', 'bea', '--role', 'author', '--email', 'bea@example.test').code).toBe(0);
    const password = cms('app-passwords', 'create', 'bea', 'phone').stdout.trim().split('\n').at(-1)!;
    mkdirSync(path.join(dataDir, 'uploads', '2026', '11'), { recursive: true });
    writeFileSync(path.join(dataDir, 'uploads', '2026', '11', 'photo.jpg'), Buffer.alloc(2048, 7));

    const out = path.join(dataDir, 'backups', 'site-1');
    const noParent = cms('backup', '--out', out);
    expect(noParent.code).toBe(1);
    expect(noParent.stderr.trim()).toBe(`cms: folder ${path.dirname(out)} does not exist: create it first`);
    mkdirSync(path.dirname(out));
    const res = cms('backup', '--out', out);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      new RegExp(
        `^backed up the site to ${out.replaceAll('.', '\\.')}:\n  database   cms\\.db, [\\d.]+ MB, integrity checked\n  secret     cms-secret\\.key\n  uploads    1 file, 0\\.0 MB\n$`,
      ),
    );
    expect(readdirSync(out).sort()).toEqual(['cms-secret.key', 'cms.db', 'uploads']);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(readFileSync(path.join(out, 'uploads', '2026', '11', 'photo.jpg'))).toEqual(Buffer.alloc(2048, 7));
    const again = cms('backup', '--out', out);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`cms: ${out} already exists: a backup goes into a new folder`);

    // Restored as DATA_DIR, the copy has the user, and the application password still signs in.
    const config = loadCmsConfig({ env: { DATA_DIR: out } });
    const database = await openCmsDatabase(config);
    try {
      const restored = await buildApp({
        config,
        database,
        logger: createLogger({ level: 'silent' }),
        secret: resolveSecret(config),
      });
      const me = await restored.app.inject({
        url: '/cms-json/cms/v2/users/me',
        headers: { authorization: `Basic ${Buffer.from(`bea:${password}`).toString('base64')}` },
      });
      expect(me.statusCode).toBe(200);
      expect(me.json().slug).toBe('bea');
      await restored.app.close();
    } finally {
      await database.close();
    }
  });
});
