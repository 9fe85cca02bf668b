/**
 * `trips serve` with TRIPS_API_WORKERS=2: the public API served by two worker processes on one port
 * (node:cluster) while the main process keeps ingest and scoring. Run as a real process on SQLite, and on
 * PostgreSQL with Redis when TEST_DATABASE_URL and TEST_REDIS_URL are set.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, revokeApiToken } from '../src/store/api-tokens.ts';
import { createFleet } from '../src/store/fleets.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { type ServiceNode, startServiceNode, stopServiceNode } from './fixtures/service-node.ts';

const pgUrl = process.env.TEST_DATABASE_URL?.trim() ?? '';
const redisUrl = process.env.TEST_REDIS_URL?.trim() ?? '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A GET on a connection of its own: a worker's kept-alive connections die with it, so each request here
 * is a new connection, which the cluster hands to a live worker.
 */
function request(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { error?: string; pagination?: { total: number } } }> {
  return new Promise((resolve, reject) => {
    get(url, { headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    })
      .on('error', reject)
      .setTimeout(10_000, function (this: { destroy(err: Error): void }) {
        this.destroy(new Error(`no answer in 10 s from ${url}`));
      });
  });
}

/** The worker pids named by the node's request log lines so far. */
function workersInLog(node: ServiceNode): Set<number> {
  const pids = new Set<number>();
  for (const line of node.output().split('\n')) {
    if (!line.includes('"msg":"request"')) continue;
    const pid = (JSON.parse(line) as { apiWorker?: number }).apiWorker;
    if (pid !== undefined) pids.add(pid);
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const legs = [
  { name: 'sqlite', skip: false as const },
  {
    name: 'postgres and redis',
    skip: !pgUrl || !redisUrl ? 'TEST_DATABASE_URL and TEST_REDIS_URL are needed' : (false as const),
  },
];

describe.each(legs)('API worker processes on $name', (leg) => {
  describe.skipIf(leg.skip)(leg.skip ? `skipped: ${leg.skip}` : 'run', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'trips-workers-'));
    const schema = `workers_${process.pid}_${randomBytes(3).toString('hex')}`;
    let database: TripsDatabase;
    let env: Record<string, string>;
    let node: ServiceNode;
    let token: string;
    let tokenId: string;

    beforeAll(async () => {
      database =
        leg.name === 'sqlite'
          ? await openTripsDatabase({
              environment: 'production',
              sqliteFile: path.join(dataDir, 'trips-production.db'),
            })
          : await openTripsDatabase({ environment: 'production', url: pgUrl, pgSchema: schema });
      await createFleet(database.db, { name: 'Workers', fleetId: 'fleet_workers' });
      const created = await createApiToken(database.db, { environment: 'production', fleets: ['fleet_workers'] });
      token = created.secret;
      tokenId = created.token.tokenId;
      env = {
        DATA_DIR: dataDir,
        TRIPS_API_WORKERS: '2',
        TRIPS_SCORING_WORKER: 'off',
        // Named in the OpenAPI document the workers serve (behind a proxy at a path prefix; the slash dropped).
        TRIPS_PUBLIC_URL: 'https://trips.example.com/api/',
        TRIPS_SANDBOX_PUBLIC_URL: 'https://sandbox.trips.example.com',
        ...(leg.name === 'sqlite'
          ? {}
          : {
              TRIPS_DATABASE_URL: `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`,
              REDIS_URL: redisUrl,
            }),
      };
      node = await startServiceNode(env);
    }, 120_000);
    afterAll(async () => {
      if (node) await stopServiceNode(node);
      if (leg.name !== 'sqlite') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
      await database?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const list = () => request(`${node.apiUrl}/v1/trips`, { authorization: `Bearer ${token}` });

    it('serves an OpenAPI document naming where clients reach each environment (TRIPS_PUBLIC_URL)', async () => {
      const res = await new Promise<string>((resolve, reject) => {
        get(`${node.apiUrl}/openapi.json`, { agent: false }, (r) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (chunk: string) => {
            text += chunk;
          });
          r.on('end', () => resolve(text));
        }).on('error', reject);
      });
      const servers = (JSON.parse(res) as { servers: { variables: Record<string, { default: string }> }[] }).servers;
      expect(servers.map((s) => Object.values(s.variables)[0]!.default)).toEqual([
        'https://trips.example.com/api',
        'https://sandbox.trips.example.com',
      ]);
    });

    it('serves the API from two worker processes on one port, and replaces a worker that dies', async () => {
      for (let i = 0; i < 40; i++) {
        const res = await list();
        expect(res.status).toBe(200);
        expect(res.body.pagination?.total).toBe(0);
      }
      const workers = workersInLog(node);
      expect(workers.size).toBe(2);
      expect(workers.has(node.child.pid!)).toBe(false);

      const [victim] = workers;
      process.kill(victim!, 'SIGKILL');
      // A connection handed to the worker in the instant it died is lost with it (as with any crashed
      // server); once the main process has seen the death, the surviving worker takes every connection.
      const deadline = Date.now() + 30_000;
      while (!node.output().includes('API worker died; starting another') && Date.now() < deadline) await sleep(20);
      for (let i = 0; i < 10; i++) expect((await list()).status).toBe(200);
      while (workersInLog(node).size < 3 && Date.now() < deadline) {
        expect((await list()).status).toBe(200);
        await sleep(50);
      }
      expect(workersInLog(node).size).toBe(3);
    }, 60_000);

    it('applies a token revocation in every worker from the next request on', async () => {
      for (let i = 0; i < 10; i++) expect((await list()).status).toBe(200);
      await revokeApiToken(database.db, tokenId);
      for (let i = 0; i < 10; i++) {
        const res = await list();
        expect(res.status).toBe(401);
        expect(res.body.error).toContain('revoked');
      }
    });

    it('stops the workers and itself gracefully on SIGTERM', async () => {
      const workers = [...workersInLog(node)].filter(alive);
      expect(workers.length).toBe(2);
      await stopServiceNode(node);
      expect(await node.exited).toBe(0);
      for (const pid of workers) expect(alive(pid)).toBe(false);
    }, 30_000);

    it('fails to start, saying why, when the API port is taken', async () => {
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const port = (blocker.address() as { port: number }).port;
      try {
        const started = await startServiceNode({ ...env, TRIPS_PORT: String(port) }).catch((err: Error) => err);
        expect(started).toBeInstanceOf(Error);
        // One line from the main process, which checks the port before it starts the API workers.
        expect((started as Error).message).toMatch(/exited with 1 before listening/);
        expect((started as Error).message).toContain(`port ${port} of 127.0.0.1 is already in use (TRIPS_PORT)`);
        expect((started as Error).message).not.toMatch(/API worker \d+ exited/);
      } finally {
        blocker.close();
      }
    }, 60_000);
  });
});
