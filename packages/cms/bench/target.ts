/** A server being measured: our CMS started in a child process, or the WordPress oracle. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchTarget {
  label: string;
  /** The API root without trailing slash, e.g. `http://127.0.0.1:41234/cms-json`. */
  apiRoot: string;
  authorization: string;
  /** Maps a `cms`-spelled path to this target's spelling. */
  mapPath(p: string): string;
  post(p: string, body: Record<string, unknown>): Promise<{ id: number }>;
  close(): Promise<void>;
}

function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

async function postJson(url: string, authorization: string, body: unknown): Promise<{ id: number }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return (await res.json()) as { id: number };
}

/** Starts the CMS (`src/server.ts`) on a fresh DATA_DIR and a free port; reads the first-run credentials. */
export async function startCms(): Promise<BenchTarget> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cms-bench-'));
  const entry = fileURLToPath(new URL('../src/server.ts', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      CMS_PORT: '0',
      CMS_LOG_LEVEL: 'warn',
      CMS_DATABASE_URL: '',
      DATABASE_URL: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = new Promise<{ url: string; appPassword: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the CMS did not start in 60 s:\n${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /REST API at (\S+)\/cms-json\//.exec(out)?.[1];
      const appPassword = /application password ((?:\S{4} ){5}\S{4})/.exec(out)?.[1];
      if (url && appPassword) {
        clearTimeout(timer);
        resolve({ url, appPassword });
      }
    });
    child.on('exit', (code) => reject(new Error(`the CMS exited (${code}) before it was ready:\n${out}`)));
  });
  const { url, appPassword } = await ready;
  const authorization = basic('admin', appPassword);
  const apiRoot = `${url}/cms-json`;
  return {
    label: 'cms',
    apiRoot,
    authorization,
    mapPath: (p) => p,
    post: (p, body) => postJson(`${apiRoot}${p}`, authorization, body),
    async close() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const ORACLE_DIR = fileURLToPath(new URL('../../../../shared/oracle/', import.meta.url));

/** The WordPress oracle when it answers on this machine, else null (with the reason). */
export async function findOracle(): Promise<BenchTarget | string> {
  const credentials = path.join(ORACLE_DIR, '.credentials');
  if (!existsSync(credentials)) return `no oracle credentials at ${credentials}`;
  const vars = Object.fromEntries(
    readFileSync(credentials, 'utf8')
      .split('\n')
      .filter((l) => /^\w+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/^['"]|['"]$/g, '')]),
  );
  const url = vars.WP_URL ?? 'http://127.0.0.1:8088';
  try {
    const res = await fetch(`${url}/wp-json/`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) return `the oracle at ${url} answered ${res.status}`;
  } catch {
    return `the oracle at ${url} is not running (sudo ../shared/oracle/start.sh)`;
  }
  const authorization = basic(vars.WP_ADMIN_USER ?? 'admin', vars.WP_APP_PASSWORD ?? '');
  const apiRoot = `${url}/wp-json`;
  return {
    label: 'wordpress',
    apiRoot,
    authorization,
    mapPath: (p) => p.replace(/^\/cms\//, '/wp/'),
    post: (p, body) => postJson(`${apiRoot}${p.replace(/^\/cms\//, '/wp/')}`, authorization, body),
    async close() {},
  };
}
