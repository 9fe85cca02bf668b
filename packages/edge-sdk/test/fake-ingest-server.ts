import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { type TelemetryBatch, validateTelemetry } from '@svc/scoring';

/**
 * A small ingest server for tests, written from docs/ingest-protocol.md: bearer ingest keys, Idempotency-Key
 * (same key from the same owner = same trip, answered 200 "duplicate"), gzip or plain JSON, the scoring
 * package's own telemetry validation (400 naming the sample and field), 413 over the size limit. Faults can
 * be scripted per request to play a bad network and a struggling server.
 */

export type Fault =
  /** Answer this status without storing (500, 503, 429...), with an optional Retry-After. */
  | { status: number; retryAfter?: string; body?: string; contentType?: string }
  /** Drop the connection before looking at the request: the trip is not stored. */
  | { cut: 'before' }
  /** Store the trip, then drop the connection instead of answering: the client cannot know it arrived. */
  | { cut: 'after' }
  /** Hold the answer this long (slow link), then process normally. */
  | { delayMs: number };

export interface StoredTrip {
  tripId: string;
  owner: string;
  idempotencyKey: string;
  batch: TelemetryBatch;
  receivedAt: number;
}

export interface RequestRecord {
  method: string;
  path: string;
  idempotencyKey: string | null;
  contentEncoding: string | null;
  /** Body size as sent (compressed when gzip). */
  bodyBytes: number;
  status: number | 'cut';
}

export interface FakeIngestOptions {
  /** Ingest key → owner. Default `{ 'test-key-1': 'fleet-a' }`. */
  keys?: Record<string, string>;
  revokedKeys?: string[];
  /** Vehicles each owner may send for; an owner absent here may send any. */
  fleetVehicles?: Record<string, string[]>;
  maxBodyBytes?: number;
  port?: number;
}

const KEY_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

export class FakeIngestServer {
  readonly trips = new Map<string, StoredTrip>();
  readonly requests: RequestRecord[] = [];
  /** Faults consumed one per POST, in order. */
  readonly faults: Fault[] = [];
  /** While true every connection is dropped at once: the network is down. */
  down = false;
  /** Every POST gets this delay (a slow uplink), after any scripted fault. */
  delayMs = 0;
  /** When set, a POST is answered only after its body would have taken this long to arrive at this rate. */
  uplinkBytesPerS: number | undefined;
  /** Called when a trip upload arrives, before anything else happens to it. */
  onPost: ((record: RequestRecord) => void) | undefined;
  /** Called when a trip was stored, before the answer is written. */
  onStored: ((trip: StoredTrip) => void) | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly options: Required<Omit<FakeIngestOptions, 'port'>>,
  ) {}

  static async start(options: FakeIngestOptions = {}): Promise<FakeIngestServer> {
    const full = {
      keys: options.keys ?? { 'test-key-1': 'fleet-a' },
      revokedKeys: options.revokedKeys ?? [],
      fleetVehicles: options.fleetVehicles ?? {},
      maxBodyBytes: options.maxBodyBytes ?? 10 * 1024 * 1024,
    };
    let fake: FakeIngestServer | undefined;
    const server = createServer((req, res) => {
      void fake!.handle(req, res);
    });
    fake = new FakeIngestServer(server, full);
    server.on('connection', (socket) => {
      if (fake!.down) {
        socket.destroy();
        return;
      }
      fake!.sockets.add(socket);
      socket.on('close', () => fake!.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stored trips in arrival order. */
  storedTrips(): StoredTrip[] {
    return [...this.trips.values()].sort((a, b) => a.receivedAt - b.receivedAt);
  }

  /** Cuts the network: open connections die, new ones are dropped, until `restore()`. */
  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const record: RequestRecord = {
      method: req.method ?? '',
      path: url.pathname,
      idempotencyKey: header(req, 'idempotency-key'),
      contentEncoding: header(req, 'content-encoding'),
      bodyBytes: 0,
      status: 0,
    };
    this.requests.push(record);
    const send = (status: number, body: object, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const cutNow = () => {
      record.status = 'cut';
      req.socket.destroy();
    };

    const auth = header(req, 'authorization') ?? '';
    const key = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    const owner = this.options.keys[key];

    if (req.method === 'GET' && url.pathname.startsWith('/ingest/v1/trips/')) {
      if (!owner) return send(401, { ok: false, error: 'missing or unknown ingest key' });
      const tripId = decodeURIComponent(url.pathname.slice('/ingest/v1/trips/'.length));
      const trip = [...this.trips.values()].find((t) => t.tripId === tripId && t.owner === owner);
      if (!trip) return send(404, { ok: false, error: `no trip ${tripId}` });
      return send(200, { ok: true, tripId, status: 'queued' });
    }
    if (req.method !== 'POST' || url.pathname !== '/ingest/v1/trips') {
      return send(404, { ok: false, error: `no route ${req.method} ${url.pathname}` });
    }

    this.onPost?.(record);
    const fault = this.faults.shift();
    if (fault && 'cut' in fault && fault.cut === 'before') return cutNow();
    if (fault && 'delayMs' in fault) await sleep(fault.delayMs);
    if (this.delayMs > 0) await sleep(this.delayMs);
    if (fault && 'status' in fault) {
      record.status = fault.status;
      res.writeHead(fault.status, {
        'content-type': fault.contentType ?? 'application/json',
        ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}),
      });
      res.end(fault.body ?? JSON.stringify({ ok: false, error: `injected ${fault.status}` }));
      return;
    }

    if (!owner) return send(401, { ok: false, error: 'missing or unknown ingest key' });
    if (this.options.revokedKeys.includes(key)) return send(403, { ok: false, error: 'ingest key revoked' });
    const idempotencyKey = record.idempotencyKey;
    if (!idempotencyKey || !KEY_PATTERN.test(idempotencyKey)) {
      return send(400, { ok: false, error: 'Idempotency-Key header is required: 8-128 chars [A-Za-z0-9._:-]' });
    }

    let raw: Buffer;
    try {
      raw = await readBody(req, this.options.maxBodyBytes);
    } catch {
      return send(413, { ok: false, error: `body larger than ${this.options.maxBodyBytes} bytes` });
    }
    record.bodyBytes = raw.length;
    if (this.uplinkBytesPerS !== undefined) await sleep((raw.length / this.uplinkBytesPerS) * 1000);
    if (record.contentEncoding === 'gzip') {
      try {
        raw = gunzipSync(raw, { maxOutputLength: this.options.maxBodyBytes });
      } catch (error) {
        const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        return tooLarge
          ? send(413, { ok: false, error: `body larger than ${this.options.maxBodyBytes} bytes` })
          : send(400, { ok: false, error: 'body is not valid gzip' });
      }
    } else if (record.contentEncoding && record.contentEncoding !== 'identity') {
      return send(400, { ok: false, error: `unsupported Content-Encoding ${record.contentEncoding}` });
    }
    if (!(header(req, 'content-type') ?? '').startsWith('application/json')) {
      return send(400, { ok: false, error: 'Content-Type must be application/json' });
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      return send(400, { ok: false, error: 'body is not valid JSON' });
    }
    const result = validateTelemetry(json);
    if (!result.ok) return send(400, { ok: false, error: result.errors.map((e) => e.message).join('; ') });
    const batch = result.batch;
    if (batch.clientTripId !== undefined && batch.clientTripId !== idempotencyKey) {
      return send(400, { ok: false, error: 'clientTripId must equal the Idempotency-Key' });
    }
    const fleet = this.options.fleetVehicles[owner];
    if (fleet && batch.vehicle !== undefined && !fleet.includes(batch.vehicle)) {
      return send(403, { ok: false, error: `vehicle ${batch.vehicle} is outside this key's fleet` });
    }

    const storeKey = `${owner}\u0000${idempotencyKey}`;
    const existing = this.trips.get(storeKey);
    if (existing) {
      if (fault && 'cut' in fault) return cutNow();
      return send(200, { ok: true, tripId: existing.tripId, status: 'duplicate' });
    }
    const trip: StoredTrip = {
      tripId: `trip_${randomBytes(8).toString('hex')}`,
      owner,
      idempotencyKey,
      batch,
      receivedAt: performance.now(),
    };
    this.trips.set(storeKey, trip);
    this.onStored?.(trip);
    if (fault && 'cut' in fault) return cutNow();
    send(202, { ok: true, tripId: trip.tripId, status: 'queued' });
  }
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) throw new Error('too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
