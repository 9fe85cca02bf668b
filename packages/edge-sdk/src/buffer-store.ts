import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { makeFolders } from '@svc/platform/folders';
import type { GpsSample, Sample, TelemetryMeta } from '@svc/scoring';
import { TELEMETRY_SCHEMA_VERSION } from '@svc/scoring';
import Database from 'better-sqlite3';
import { CorruptStorageError, EdgeSdkStateError } from './errors.ts';
import { haversineM } from './geo.ts';

/**
 * The durable buffer: one SQLite file in WAL mode. Every recording call is one transaction that holds the
 * sample and the recorder's state together, so after a kill at any instant the file holds either both or
 * neither: an acknowledged sample is never lost, and a half-recorded one never shows up later.
 *
 * `durability: 'full'` (default) runs `synchronous=FULL`: a commit is fsynced before the call returns and
 * survives power loss. `'normal'` fsyncs only at checkpoints: it survives any process kill but may lose the
 * last commits on power loss; it records several times faster. SQLite checksums every WAL frame, so a torn
 * write at a crash is detected and rolled back at the next open.
 */

export type Durability = 'full' | 'normal';
export type TripState = 'recording' | 'pending' | 'sending' | 'sent' | 'failed';

/** A trip row as stored. */
export interface TripRow {
  seq: number;
  id: string;
  state: TripState;
  start_ms: number;
  end_ms: number | null;
  end_reason: string | null;
  device_id: string;
  vehicle: string | null;
  driver_id: string | null;
  machine_type: string | null;
  imu_frame: string | null;
  time_zone: string | null;
  phone_monitored: number | null;
  sample_count: number;
  bytes: number;
  distance_m: number | null;
  attempts: number;
  last_error: string | null;
  failure_reason: string | null;
  http_status: number | null;
  server_trip_id: string | null;
  server_status: string | null;
  created_at: number;
  finished_at: number | null;
  sent_at: number | null;
  updated_at: number;
}

export interface ClosedTripStats {
  sampleCount: number;
  bytes: number;
  /** Time of the last sample kept. */
  lastT: number | null;
  distanceM: number;
}

const SCHEMA_VERSION = '1';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS trips (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL CHECK (state IN ('recording', 'pending', 'sending', 'sent', 'failed')),
  start_ms REAL NOT NULL,
  end_ms REAL,
  end_reason TEXT,
  device_id TEXT NOT NULL,
  vehicle TEXT,
  driver_id TEXT,
  machine_type TEXT,
  imu_frame TEXT,
  time_zone TEXT,
  phone_monitored INTEGER,
  sample_count INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  distance_m REAL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  failure_reason TEXT,
  http_status INTEGER,
  server_trip_id TEXT,
  server_status TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER,
  sent_at INTEGER,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS trips_by_state ON trips (state, seq);
-- trip_seq is NULL for samples recorded while no trip is open: the lead-in a starting trip takes over.
CREATE TABLE IF NOT EXISTS samples (
  seq INTEGER PRIMARY KEY,
  trip_seq INTEGER,
  t REAL NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS samples_by_trip ON samples (trip_seq, t);
`;

export interface BufferStoreOptions {
  durability: Durability;
  now: () => number;
}

/** SQLite-backed storage of samples, trips and recorder state. Synchronous: better-sqlite3 blocks by design. */
export class BufferStore {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private used = 0;
  private readonly st: ReturnType<BufferStore['prepare']>;

  constructor(
    readonly file: string,
    options: BufferStoreOptions,
  ) {
    this.now = options.now;
    if (file !== ':memory:') {
      refuseFolder(file);
      const dir = path.dirname(path.resolve(file));
      try {
        if (!existsSync(dir)) makeFolders(dir);
      } catch (error) {
        // A file where a folder should be (ENOTDIR), no permission, a read-only disk: the host's mistake to fix.
        throw new EdgeSdkStateError(`cannot create the folder of storage ${file}: ${(error as Error).message}`);
      }
    }
    try {
      this.db = new Database(file, { timeout: 0 });
    } catch (error) {
      throw new EdgeSdkStateError(`cannot open storage ${file}: ${(error as Error).message}`);
    }
    try {
      // auto_vacuum only takes effect before the first table exists; harmless afterwards.
      this.db.pragma('auto_vacuum = INCREMENTAL');
      // One SDK per file: the exclusive lock is taken at the first write below and held until close, so a
      // second process fails fast instead of interleaving trips.
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
      this.db.pragma('journal_size_limit = 8388608');
      this.db.exec(SCHEMA);
      const version = this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get('schema') as
        | string
        | undefined;
      if (version === undefined) {
        this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('schema', SCHEMA_VERSION);
      } else if (version !== SCHEMA_VERSION) {
        throw new EdgeSdkStateError(`storage ${file} has schema ${version}; this SDK reads schema ${SCHEMA_VERSION}`);
      }
      this.st = this.prepare();
      // Reads every sample page: a page the disk damaged is found here, at open, as a corrupt file.
      this.used = this.db.prepare('SELECT total(length(body)) FROM samples').pluck().get() as number;
    } catch (error) {
      this.db.close();
      if (error instanceof EdgeSdkStateError) throw error;
      const message = (error as Error).message;
      if (/locked|busy/i.test(message)) {
        throw new EdgeSdkStateError(`storage ${file} is in use by another process (one SDK per storage file)`);
      }
      const code = (error as { code?: unknown }).code;
      if (code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))) {
        throw new CorruptStorageError(`storage ${file} is not a readable buffer: ${message}`);
      }
      throw new EdgeSdkStateError(`cannot open storage ${file}: ${message}`);
    }
  }

  private prepare() {
    const db = this.db;
    return {
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
      insertSample: db.prepare('INSERT INTO samples (trip_seq, t, type, body) VALUES (?, ?, ?, ?)'),
      pruneIdle: db.prepare('DELETE FROM samples WHERE trip_seq IS NULL AND t < ? RETURNING length(body)').pluck(),
      deleteIdle: db.prepare('DELETE FROM samples WHERE trip_seq IS NULL RETURNING length(body)').pluck(),
      deleteAfter: db.prepare('DELETE FROM samples WHERE trip_seq IS ? AND t > ? RETURNING length(body)').pluck(),
      adoptIdle: db.prepare('UPDATE samples SET trip_seq = ? WHERE trip_seq IS NULL AND t >= ?'),
      releaseAfter: db.prepare('UPDATE samples SET trip_seq = NULL WHERE trip_seq = ? AND t > ?'),
      deleteBefore: db.prepare('DELETE FROM samples WHERE trip_seq = ? AND t < ? RETURNING length(body)').pluck(),
      deleteTripSamples: db.prepare('DELETE FROM samples WHERE trip_seq = ? RETURNING length(body)').pluck(),
      tripSampleStats: db.prepare(
        'SELECT count(*) AS n, total(length(body)) AS bytes, min(t) AS firstT, max(t) AS lastT FROM samples WHERE trip_seq = ?',
      ),
      tripFixes: db.prepare("SELECT body FROM samples WHERE trip_seq = ? AND type = 'gps' ORDER BY t, seq").pluck(),
      tripMotion: db
        .prepare("SELECT body FROM samples WHERE trip_seq = ? AND type IN ('gps', 'obd') ORDER BY t, seq")
        .pluck(),
      tripBodies: db.prepare('SELECT body FROM samples WHERE trip_seq = ? ORDER BY t, seq').pluck(),
      insertTrip: db.prepare(
        `INSERT INTO trips (id, state, start_ms, device_id, vehicle, driver_id, machine_type, imu_frame, time_zone,
           phone_monitored, created_at, updated_at)
         VALUES (@id, 'recording', @startMs, @deviceId, @vehicle, @driverId, @machineType, @imuFrame, @timeZone,
           @phoneMonitored, @now, @now)`,
      ),
      tripBySeq: db.prepare('SELECT * FROM trips WHERE seq = ?'),
      tripById: db.prepare('SELECT * FROM trips WHERE id = ?'),
      deleteTrip: db.prepare('DELETE FROM trips WHERE seq = ?'),
      setIdentity: db.prepare(
        "UPDATE trips SET vehicle = ?, driver_id = ?, updated_at = ? WHERE seq = ? AND state = 'recording'",
      ),
      finishTrip: db.prepare(
        `UPDATE trips SET state = 'pending', end_ms = @endMs, end_reason = @reason, sample_count = @sampleCount,
           bytes = @bytes, distance_m = @distanceM, finished_at = @now, updated_at = @now WHERE seq = @seq`,
      ),
      nextToSend: db.prepare("SELECT * FROM trips WHERE state = 'pending' ORDER BY seq LIMIT 1"),
      countByState: db.prepare('SELECT state, count(*) AS n FROM trips GROUP BY state'),
      markSending: db.prepare(
        "UPDATE trips SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE seq = ? AND state = 'pending'",
      ),
      markPending: db.prepare(
        "UPDATE trips SET state = 'pending', last_error = ?, http_status = ?, updated_at = ? WHERE seq = ? AND state = 'sending'",
      ),
      markSent: db.prepare(
        `UPDATE trips SET state = 'sent', server_trip_id = ?, server_status = ?, http_status = ?, last_error = NULL,
           bytes = 0, sent_at = ?, updated_at = ? WHERE seq = ?`,
      ),
      markFailed: db.prepare(
        `UPDATE trips SET state = 'failed', failure_reason = ?, http_status = ?, updated_at = ? WHERE seq = ?`,
      ),
      markEvicted: db.prepare(
        `UPDATE trips SET state = 'failed', failure_reason = ?, bytes = 0, updated_at = ? WHERE seq = ?`,
      ),
      retry: db.prepare(
        `UPDATE trips SET state = 'pending', attempts = 0, failure_reason = NULL, last_error = NULL, http_status = NULL,
           updated_at = ? WHERE seq = ? AND state = 'failed' AND bytes > 0`,
      ),
      sendingToPending: db.prepare(
        "UPDATE trips SET state = 'pending', last_error = 'interrupted: the SDK stopped during the upload', updated_at = ? WHERE state = 'sending'",
      ),
      evictable: db.prepare(
        `SELECT * FROM trips WHERE bytes > 0 AND (state = 'pending' OR state = 'failed')
         ORDER BY CASE state WHEN 'failed' THEN 0 ELSE 1 END, seq LIMIT 1`,
      ),
      pruneSent: db.prepare(
        "DELETE FROM trips WHERE state = 'sent' AND seq NOT IN (SELECT seq FROM trips WHERE state = 'sent' ORDER BY seq DESC LIMIT ?)",
      ),
    };
  }

  /** Payload bytes of all buffered samples (the quantity `maxBufferBytes` bounds). */
  get usedBytes(): number {
    return this.used;
  }

  /** Runs `fn` in one write transaction; the byte counter follows a rollback. */
  transaction<T>(fn: () => T): T {
    const before = this.used;
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      this.used = before;
      throw error;
    }
  }

  getMeta(key: string): string | undefined {
    return this.st.getMeta.get(key) as string | undefined;
  }

  setMeta(key: string, value: string): void {
    this.st.setMeta.run(key, value);
  }

  insertSample(tripSeq: number | null, sample: Sample, body: string): void {
    this.st.insertSample.run(tripSeq, sample.t, sample.type, body);
    this.used += body.length;
  }

  /** Drops samples recorded outside any trip and older than `beforeT`: lead-in nobody will claim. */
  pruneIdle(beforeT: number): void {
    this.subtract(this.st.pruneIdle.all(beforeT) as number[]);
  }

  deleteIdle(): void {
    this.subtract(this.st.deleteIdle.all() as number[]);
  }

  /**
   * Deletes the samples dated after `afterT` of one trip, or of the idle pool (`tripSeq` null): samples found
   * to carry bad time stamps. Returns how many went.
   */
  deleteSamplesAfter(tripSeq: number | null, afterT: number): number {
    const lengths = this.st.deleteAfter.all(tripSeq, afterT) as number[];
    this.subtract(lengths);
    return lengths.length;
  }

  /** Creates the trip row for a trip that just started, taking over the lead-in samples from `fromT` on. */
  startTrip(trip: {
    id: string;
    startMs: number;
    leadInFromMs: number;
    deviceId: string;
    vehicle: string | null;
    driverId: string | null;
    machineType: string | null;
    imuFrame: string | null;
    timeZone: string | null;
    phoneMonitored: boolean | null;
  }): number {
    const { leadInFromMs, phoneMonitored, ...row } = trip;
    const seq = Number(
      this.st.insertTrip.run({
        ...row,
        phoneMonitored: phoneMonitored === null ? null : Number(phoneMonitored),
        now: this.now(),
      }).lastInsertRowid,
    );
    this.st.adoptIdle.run(seq, leadInFromMs);
    this.deleteIdle();
    return seq;
  }

  setTripIdentity(seq: number, vehicle: string | null, driverId: string | null): void {
    this.st.setIdentity.run(vehicle, driverId, this.now(), seq);
  }

  /**
   * Cuts a trip to `[fromMs, toMs]`: later samples go back to the idle pool (they may be the lead-in of the
   * next trip), earlier ones are dropped. Returns what remains.
   */
  closeTrip(seq: number, fromMs: number, toMs: number): ClosedTripStats {
    this.st.releaseAfter.run(seq, toMs);
    this.subtract(this.st.deleteBefore.all(seq, fromMs) as number[]);
    const stats = this.st.tripSampleStats.get(seq) as { n: number; bytes: number; lastT: number | null };
    return {
      sampleCount: stats.n,
      bytes: stats.bytes,
      lastT: stats.lastT,
      distanceM: this.tripDistanceM(seq),
    };
  }

  /** The GPS and OBD samples of a trip in time order: what segmentation looks at. */
  tripMotionSamples(seq: number): Sample[] {
    return (this.st.tripMotion.all(seq) as string[]).map((body) => JSON.parse(body) as Sample);
  }

  finishTrip(seq: number, endMs: number, reason: string, stats: ClosedTripStats): void {
    const { sampleCount, bytes, distanceM } = stats;
    this.st.finishTrip.run({ seq, endMs, reason, sampleCount, bytes, distanceM, now: this.now() });
  }

  discardTrip(seq: number): void {
    this.subtract(this.st.deleteTripSamples.all(seq) as number[]);
    this.st.deleteTrip.run(seq);
  }

  /** Distance along the trip's GPS fixes, as recorded (the scorer cleans them first). */
  private tripDistanceM(seq: number): number {
    let distanceM = 0;
    let prev: GpsSample | null = null;
    for (const body of this.st.tripFixes.all(seq) as string[]) {
      const fix = JSON.parse(body) as GpsSample;
      if (prev) distanceM += haversineM(prev.lon, prev.lat, fix.lon, fix.lat);
      prev = fix;
    }
    return distanceM;
  }

  /** Time of a trip's newest sample, or null when it holds none. */
  tripLastT(seq: number): number | null {
    return (this.st.tripSampleStats.get(seq) as { lastT: number | null }).lastT;
  }

  tripSampleCount(seq: number): number {
    return (this.st.tripSampleStats.get(seq) as { n: number }).n;
  }

  /** Payload bytes of a trip's samples, and the time of its oldest sample (null when it holds none). */
  tripSampleExtent(seq: number): { bytes: number; firstT: number | null } {
    const { bytes, firstT } = this.st.tripSampleStats.get(seq) as { bytes: number; firstT: number | null };
    return { bytes, firstT };
  }

  trip(id: string): TripRow | undefined {
    return this.st.tripById.get(id) as TripRow | undefined;
  }

  tripBySeq(seq: number): TripRow | undefined {
    return this.st.tripBySeq.get(seq) as TripRow | undefined;
  }

  /** Trips, oldest first, optionally in the given states. */
  trips(states?: readonly TripState[], limit = 1000): TripRow[] {
    if (states && states.length === 0) return [];
    const where = states ? `WHERE state IN (${states.map(() => '?').join(', ')})` : '';
    return this.db
      .prepare(`SELECT * FROM trips ${where} ORDER BY seq LIMIT ?`)
      .all(...(states ?? []), limit) as TripRow[];
  }

  countByState(): Record<TripState, number> {
    const counts: Record<TripState, number> = { recording: 0, pending: 0, sending: 0, sent: 0, failed: 0 };
    for (const row of this.st.countByState.all() as Array<{ state: TripState; n: number }>) counts[row.state] = row.n;
    return counts;
  }

  nextToSend(): TripRow | undefined {
    return this.st.nextToSend.get() as TripRow | undefined;
  }

  markSending(seq: number): boolean {
    return this.st.markSending.run(this.now(), seq).changes === 1;
  }

  markPending(seq: number, error: string, httpStatus: number | null): void {
    this.st.markPending.run(error, httpStatus, this.now(), seq);
  }

  /** The server acknowledged the trip: its samples go, a small receipt stays for the status API. */
  markSent(seq: number, serverTripId: string, serverStatus: string, httpStatus: number, keepSent: number): void {
    this.transaction(() => {
      this.subtract(this.st.deleteTripSamples.all(seq) as number[]);
      const now = this.now();
      this.st.markSent.run(serverTripId, serverStatus, httpStatus, now, now, seq);
      this.st.pruneSent.run(keepSent);
    });
  }

  /** A permanent failure: the samples stay (the host may fix the key and retry), the reason is recorded. */
  markFailed(seq: number, reason: string, httpStatus: number | null): void {
    this.st.markFailed.run(reason, httpStatus, this.now(), seq);
  }

  retry(seq: number): boolean {
    return this.st.retry.run(this.now(), seq).changes === 1;
  }

  /** After a restart nothing is in flight: an upload cut by the kill is simply sent again (same idempotency key). */
  resetInterruptedUploads(): number {
    return this.st.sendingToPending.run(this.now()).changes;
  }

  /**
   * Frees room by dropping the oldest finished trip that is not in flight (failed ones first: they are not
   * going anywhere). Returns the evicted trip, or undefined when nothing can go.
   */
  evictOne(reason: string): TripRow | undefined {
    const victim = this.st.evictable.get() as TripRow | undefined;
    if (!victim) return undefined;
    this.subtract(this.st.deleteTripSamples.all(victim.seq) as number[]);
    this.st.markEvicted.run(reason, this.now(), victim.seq);
    return victim;
  }

  /** The upload body of a finished trip: a TelemetryBatch with the samples in time order. */
  batchJson(seq: number, meta: TelemetryMeta): string {
    const bodies = this.st.tripBodies.all(seq) as string[];
    const head = JSON.stringify({ schemaVersion: TELEMETRY_SCHEMA_VERSION, ...meta });
    return `${head.slice(0, -1)},"samples":[${bodies.join(',')}]}`;
  }

  /** Gives freed pages back to the file system; cheap, called after deletions. */
  reclaimSpace(): void {
    this.db.pragma('incremental_vacuum');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  private subtract(lengths: number[]): void {
    for (const n of lengths) this.used -= n;
  }
}

/** What a buffer file holds, read without changing it (see inspectBuffer). */
export interface BufferInspection {
  deviceId: string | null;
  trips: Array<{ row: TripRow; liveSampleCount: number | undefined }>;
  counts: Record<TripState, number>;
  usedBytes: number;
}

/** SQLite's own words for a folder ("unable to open database file", "disk I/O error") do not say what is wrong. */
function refuseFolder(file: string): void {
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new EdgeSdkStateError(`cannot open storage ${file}: it is a folder, not a buffer file`);
  }
}

/**
 * Reads a buffer file as it is, for `edge-sdk status`: opened read-only, so nothing is created, migrated or
 * recovered (opening an SDK on it would turn any file into a buffer and close a trip left recording). A
 * file an SDK holds open is refused, as the SDK keeps an exclusive lock.
 */
export function inspectBuffer(file: string, limit = 1000): BufferInspection {
  let db: Database.Database;
  refuseFolder(file);
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch (error) {
    throw new EdgeSdkStateError(`cannot open storage ${file}: ${(error as Error).message}`);
  }
  try {
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    if (!tables.has('meta') || !tables.has('trips') || !tables.has('samples')) {
      throw new EdgeSdkStateError(`${file} is not an edge SDK buffer file`);
    }
    const meta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    const version = meta.get('schema') as string | undefined;
    if (version !== SCHEMA_VERSION) {
      throw new EdgeSdkStateError(
        `storage ${file} has schema ${version ?? 'none'}; this SDK reads schema ${SCHEMA_VERSION}`,
      );
    }
    let deviceId: string | null = null;
    const identity = meta.get('identity') as string | undefined;
    if (identity !== undefined) {
      try {
        const parsed = JSON.parse(identity) as { deviceId?: unknown };
        if (typeof parsed.deviceId === 'string') deviceId = parsed.deviceId;
      } catch {
        // An unreadable identity is reported as unknown; the SDK would replace it on open.
      }
    }
    const liveCount = db.prepare('SELECT count(*) FROM samples WHERE trip_seq = ?').pluck();
    const trips = (db.prepare('SELECT * FROM trips ORDER BY seq LIMIT ?').all(limit) as TripRow[]).map((row) => ({
      row,
      liveSampleCount: row.state === 'recording' ? (liveCount.get(row.seq) as number) : undefined,
    }));
    const counts: Record<TripState, number> = { recording: 0, pending: 0, sending: 0, sent: 0, failed: 0 };
    for (const r of db.prepare('SELECT state, count(*) AS n FROM trips GROUP BY state').all() as Array<{
      state: TripState;
      n: number;
    }>) {
      counts[r.state] = r.n;
    }
    const usedBytes = db.prepare('SELECT total(length(body)) FROM samples').pluck().get() as number;
    return { deviceId, trips, counts, usedBytes };
  } catch (error) {
    if (error instanceof EdgeSdkStateError) throw error;
    const message = (error as Error).message;
    if (/locked|busy/i.test(message)) {
      throw new EdgeSdkStateError(`storage ${file} is in use by a running SDK (it holds the file exclusively)`);
    }
    if (/not a database|malformed/i.test(message)) {
      throw new EdgeSdkStateError(`${file} is not an edge SDK buffer file (${message})`);
    }
    throw new EdgeSdkStateError(`cannot read storage ${file}: ${message}`);
  } finally {
    db.close();
  }
}
