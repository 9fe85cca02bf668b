/**
 * The service as `serve` runs it with several workers on one SQLite file: one install, one port, and what
 * one worker writes (a setting, a revoked application password) is what every worker answers right away.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from './helpers/cms-test-app.ts';

interface Answer {
  status: number;
  body: string;
}

/** One request on a connection of its own (so the cluster hands it to any worker). */
function request(url: string, init: { method?: string; authorization?: string; body?: unknown } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req = http.request(
      url,
      {
        method: init.method ?? 'GET',
        agent: false,
        headers: {
          connection: 'close',
          ...(init.authorization ? { authorization: init.authorization } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The headers of a GET on a connection of its own. */
function headOf(url: string): Promise<http.IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve with two workers', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cms-cluster-'));
  let child: ChildProcess;
  let api = '';
  let admin = '';

  beforeAll(async () => {
    const entry = fileURLToPath(new URL('../src/server.ts', import.meta.url));
    child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        CMS_PORT: '0',
        CMS_WORKERS: '2',
        CMS_LOG_LEVEL: 'warn',
        CMS_SEED_SAMPLE: 'false',
        CMS_DATABASE_URL: '',
        DATABASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${out}`)), 60_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const url = /REST API at (\S+)/.exec(out)?.[1];
        const password = /application password ((?:\S{4} ){5}\S{4})/.exec(out)?.[1];
        if (url && password) {
          clearTimeout(timer);
          api = url;
          admin = basic('admin', password);
          resolve();
        }
      });
      child.on('exit', (code) => reject(new Error(`exited (${code}):\n${out}`)));
    });
    expect(out).toContain('2 workers');
  }, 70_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every request after a settings change with the new value', async () => {
    // Both workers read (and cache) the options first.
    for (let i = 0; i < 6; i++) expect(JSON.parse((await request(api)).body).name).toBe('My CMS Site');
    const changed = await request(`${api}cms/v2/settings`, {
      method: 'POST',
      authorization: admin,
      body: { title: 'Cluster site' },
    });
    expect(changed.status).toBe(200);
    for (let i = 0; i < 8; i++) {
      const index = await request(api);
      expect(JSON.parse(index.body).name).toBe('Cluster site');
    }
  });

  it('refuses a revoked application password on every worker at once', async () => {
    const created = await request(`${api}cms/v2/users/me/application-passwords`, {
      method: 'POST',
      authorization: admin,
      body: { name: 'short-lived' },
    });
    const { password, uuid } = JSON.parse(created.body) as { password: string; uuid: string };
    const temporary = basic('admin', password);
    // Used (and so remembered) by both workers.
    for (let i = 0; i < 6; i++)
      expect((await request(`${api}cms/v2/users/me`, { authorization: temporary })).status).toBe(200);
    const revoked = await request(`${api}cms/v2/users/me/application-passwords/${uuid}`, {
      method: 'DELETE',
      authorization: admin,
    });
    expect(revoked.status).toBe(200);
    for (let i = 0; i < 6; i++) {
      const res = await request(`${api}cms/v2/users/me`, { authorization: temporary });
      expect(res.status).toBe(401);
    }
  });

  it('serves an updated post from every worker at once, though each keeps its own item cache', async () => {
    const created = await request(`${api}cms/v2/posts`, {
      method: 'POST',
      authorization: admin,
      body: { title: 'Cached everywhere', content: 'First body.', status: 'publish' },
    });
    const { id } = JSON.parse(created.body) as { id: number };
    const title = async (path: string): Promise<string> => {
      const body = JSON.parse((await request(`${api}cms/v2/${path}`)).body) as
        | { id: number; title: { rendered: string } }
        | Array<{ id: number; title: { rendered: string } }>;
      const item = Array.isArray(body) ? body.find((p) => p.id === id) : body;
      return item?.title.rendered ?? '';
    };
    // Both workers prepare (and cache) the item, alone and in the list.
    for (let i = 0; i < 6; i++) {
      expect(await title(`posts/${id}`)).toBe('Cached everywhere');
      expect(await title('posts')).toBe('Cached everywhere');
    }
    const updated = await request(`${api}cms/v2/posts/${id}`, {
      method: 'POST',
      authorization: admin,
      body: { title: 'Changed everywhere' },
    });
    expect(updated.status).toBe(200);
    for (let i = 0; i < 8; i++) {
      expect(await title(`posts/${id}`)).toBe('Changed everywhere');
      expect(await title('posts')).toBe('Changed everywhere');
    }
  });

  it("counts a post created on another worker in every worker's list total at once", async () => {
    const total = async (): Promise<number> => Number((await headOf(`${api}cms/v2/posts?per_page=1`))['x-cms-total']);
    // Both workers answer (and may keep) the total of the same list first.
    const before = await total();
    for (let i = 0; i < 6; i++) expect(await total()).toBe(before);
    const created = await request(`${api}cms/v2/posts`, {
      method: 'POST',
      authorization: admin,
      body: { title: 'Counted everywhere', content: 'Body.', status: 'publish' },
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 8; i++) expect(await total()).toBe(before + 1);
  });

  it('creates posts sent at once to both workers without conflicts', async () => {
    const answers = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        request(`${api}cms/v2/posts`, {
          method: 'POST',
          authorization: admin,
          body: { title: `Concurrent ${i}`, content: 'Body.', status: 'publish' },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    const ids = new Set(answers.map((a) => (JSON.parse(a.body) as { id: number }).id));
    expect(ids.size).toBe(48);
  });

  it('copies what the workers commit into the database file itself (a WAL checkpoint) right away', async () => {
    const created = await request(`${api}cms/v2/posts`, {
      method: 'POST',
      authorization: admin,
      body: { title: 'Checkpointed soon', content: 'Body.', status: 'publish' },
    });
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.body) as { id: number };
    // A copy of the database file alone (without its write-ahead log) holds the post once a checkpoint
    // has copied it there; one create is far from the 1,000 logged pages SQLite would wait for.
    const copy = path.join(dataDir, 'file-only.db');
    const inFile = (): boolean => {
      copyFileSync(path.join(dataDir, 'cms.db'), copy);
      const db = new Database(copy, { readonly: true });
      try {
        return db.prepare('select id from posts where id = ?').get(id) !== undefined;
      } catch {
        return false; // copied while a checkpoint was writing it: look again
      } finally {
        db.close();
      }
    };
    let found = inFile();
    for (let i = 0; i < 100 && !found; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = inFile();
    }
    expect(found).toBe(true);
  });

  it('stops every worker on SIGTERM', async () => {
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
  });
});
