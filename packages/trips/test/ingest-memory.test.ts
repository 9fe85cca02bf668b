import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../src/ingest/build-ingest-app.ts';
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

describe('ingest memory bound', () => {
  let database: TripsDatabase;
  let app: FastifyInstance;
  let url: URL;
  let key: string;

  beforeAll(async () => {
    database = await sqlite.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    await claimEnvironment(database.db, 'production', database.location);
    await createFleet(database.db, { name: 'Acme', fleetId: 'fleet_mem' });
    await createVehicle(database.db, { fleetId: 'fleet_mem', plate: 'ME-100' });
    key = (await createIngestKey(database.db, { environment: 'production', fleetId: 'fleet_mem' })).secret;
    app = await buildIngestApp({
      environment: 'production',
      database,
      logger: quietLogger(),
      bodyLimitBytes: 256 * KIB,
      bodyBudgetBytes: 300 * KIB,
    });
    url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  /** An upload padded with white space (valid JSON) to about `bytes`. */
  const upload = (hour: number, bytes: number): Buffer => {
    const json = JSON.stringify(gpsTrip({ startMs: Date.UTC(2026, 10, 3, hour), vehicle: 'ME-100' }));
    return Buffer.from(json + ' '.repeat(Math.max(0, bytes - json.length)));
  };

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
