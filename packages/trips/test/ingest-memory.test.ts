import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { buildIngestApp, type IngestAppOptions } from '../src/ingest/build-ingest-app.ts';
import { createFleet } from '../src/store/fleets.ts';
import { createIngestKey } from '../src/store/ingest-keys.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

const KIB = 1024;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { ok: boolean; error?: string; status?: string };
}

/**
 * The bytes of upload bodies one ingest process holds at once are bounded (TRIPS_INGEST_MEMORY_MB): an upload that
 * would pass the bound is refused with 503 and Retry-After, and is taken once the others are done. The bound is per
 * process, whatever the store, so one dialect is enough.
 */
const sqlite = testDialects().find((d) => d.name === 'sqlite')!;

/** An ingest app on a fresh store with a 256 KiB body limit and a 300 KiB bound, one vehicle and its fleet's key. */
async function ingestServer(fleetId: string, extra: Partial<IngestAppOptions> = {}) {
  const database: TripsDatabase = await sqlite.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
  await claimEnvironment(database.db, 'production', database.location);
  await createFleet(database.db, { name: 'Acme', fleetId });
  await createVehicle(database.db, { fleetId, plate: 'ME-100' });
  const key = (await createIngestKey(database.db, { environment: 'production', fleetId })).secret;
  const app = await buildIngestApp({
    environment: 'production',
    database,
    logger: quietLogger(),
    bodyLimitBytes: 256 * KIB,
    bodyBudgetBytes: 300 * KIB,
    ...extra,
  });
  const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  return { database, app, url, key };
}

/** An upload padded with white space (valid JSON) to about `bytes`. */
const upload = (hour: number, bytes: number): Buffer => {
  const json = JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 3, hour), vehicle: 'ME-100' }));
  return Buffer.from(json + ' '.repeat(Math.max(0, bytes - json.length)));
};

describe('ingest memory bound', () => {
  let database: TripsDatabase;
  let app: FastifyInstance;
  let url: URL;
  let key: string;

  beforeAll(async () => {
    ({ database, app, url, key } = await ingestServer('fleet_mem'));
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  /** Starts a POST and writes `first` bytes of `body`; `finish` sends the rest and resolves with the answer. */
  const begin = (tripKey: string, body: Buffer, first: number, extra: Record<string, string> = {}) => {
    let resolve!: (a: Answer) => void;
    let reject!: (e: Error) => void;
    const answer = new Promise<Answer>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const req = http.request(
      url,
      {
        method: 'POST',
        path: '/ingest/v1/trips',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'idempotency-key': tripKey,
          ...extra,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, first));
    return {
      answer,
      finish: () => {
        req.end(body.subarray(first));
        return answer;
      },
      cut: () => {
        answer.catch(() => {});
        req.destroy();
      },
    };
  };
  const send = (tripKey: string, body: Buffer, extra: Record<string, string> = {}) =>
    begin(tripKey, body, body.length, extra).finish();

  /**
   * Waits until the server holds the bytes of an upload in progress: a probe of `bytes` that is not telemetry
   * is refused for that (400, nothing stored) while it fits, and with 503 once it does not.
   */
  const untilHeld = async (bytes: number): Promise<void> => {
    const probe = Buffer.from(`"${'x'.repeat(bytes - 2)}"`);
    for (let attempt = 0; attempt < 500; attempt++) {
      const a = await send('mem-probe-0001', probe);
      if (a.status === 503) return;
      expect(a.status).toBe(400);
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the server never held the upload in progress');
  };

  /** Sends until the upload is taken (each refusal a 503), as a client honouring Retry-After would. */
  const untilTaken = async (tripKey: string, body: Buffer): Promise<Answer> => {
    for (let attempt = 0; attempt < 500; attempt++) {
      const a = await send(tripKey, body);
      if (a.status !== 503) return a;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the upload was never taken');
  };

  it('refuses an upload past the bound with 503 and Retry-After, and takes it once the others are done', async () => {
    const big = upload(8, 200 * KIB);
    const held = begin('mem-big-0001', big, 190 * KIB);
    await untilHeld(150 * KIB);

    const second = upload(9, 150 * KIB);
    const refused = await send('mem-second-0001', second);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.body).toEqual({ ok: false, error: expect.stringMatching(/TRIPS_INGEST_MEMORY_MB.*[Rr]etry/) });
    // The same upload gzip-compressed declares a small length, and is refused as it expands past the bound.
    const zipped = await send('mem-second-0001', gzipSync(second), { 'content-encoding': 'gzip' });
    expect(zipped.status).toBe(503);

    // The first upload completes; what it held goes back, and the refused upload is taken.
    expect((await held.finish()).status).toBe(202);
    expect((await send('mem-second-0001', second)).status).toBe(202);
    // Nothing was stored for the refused attempts: one trip per key.
    const rows = await database.db.selectFrom('trip_uploads').select('idempotency_key').execute();
    expect(rows.map((r) => r.idempotency_key).sort()).toEqual(['mem-big-0001', 'mem-second-0001']);
  });

  it('gives back what an upload held when its client goes away mid-body', async () => {
    const gone = begin('mem-gone-0001', upload(10, 250 * KIB), 240 * KIB);
    await untilHeld(150 * KIB);
    gone.cut();
    // 240 KiB held and 250 KiB more would pass the 300 KiB bound: taken, it shows the 240 KiB went back.
    expect((await untilTaken('mem-after-0001', upload(11, 250 * KIB))).status).toBe(202);
  });
});

/**
 * A device whose network drops mid-upload may never close its connection (no FIN reaches the server): without a
 * bound on how long an upload may take to arrive, the connection and the bytes it sent would be held for good, and
 * each such drop would keep a file descriptor and part of the memory bound until the process ran out of either.
 */
describe('an upload that stops arriving', () => {
  let database: TripsDatabase;
  let app: FastifyInstance;
  let url: URL;
  let key: string;

  beforeAll(async () => {
    ({ database, app, url, key } = await ingestServer('fleet_stall', { requestTimeoutMs: 1500 }));
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const headers = (length: number, tripKey: string) =>
    `POST /ingest/v1/trips HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\nIdempotency-Key: ${tripKey}\r\n\r\n`;
  const post = async (tripKey: string, payload: Buffer) => {
    const res = await fetch(new URL('/ingest/v1/trips', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': tripKey },
      body: payload,
    });
    return { status: res.status, body: (await res.json()) as { ok: boolean; error?: string } };
  };

  it('is cut with 408 in the ingest error shape once the bound passes, and what it held goes back', async () => {
    const stalled = upload(8, 250 * KIB);
    const socket = net.connect(Number(url.port), url.hostname);
    let received = '';
    socket.on('data', (c: Buffer) => {
      received += c.toString('utf8');
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(headers(stalled.length, 'stall-0001'));
    socket.write(stalled.subarray(0, 240 * KIB));
    onTestFinished(() => {
      socket.destroy();
    });
    // While it hangs (well within the 1.5 s bound, so a slow machine does not reach it first), its 240 KiB count:
    // another 250 KiB upload does not fit the 300 KiB bound.
    await new Promise((r) => setTimeout(r, 150));
    const meanwhile = await post('stall-other-0001', upload(9, 250 * KIB));
    expect(meanwhile.status).toBe(503);

    // The server cuts the upload (the client never sends the rest nor closes), telling it why.
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toEqual({
      ok: false,
      error: 'the request was not received in time',
    });
    // The bytes it held went back, and nothing of it was stored.
    expect((await post('stall-other-0001', upload(9, 250 * KIB))).status).toBe(202);
    const rows = await database.db.selectFrom('trip_uploads').select('idempotency_key').execute();
    expect(rows.map((r) => r.idempotency_key)).toEqual(['stall-other-0001']);
  });
});
