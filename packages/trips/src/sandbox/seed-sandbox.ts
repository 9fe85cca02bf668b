import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '@svc/platform';
import { loadGraph } from '@svc/roads';
import { createApiToken } from '../store/api-tokens.ts';
import { createDriver } from '../store/drivers.ts';
import { createFleet } from '../store/fleets.ts';
import { createIngestKey, revokeIngestKey } from '../store/ingest-keys.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import { createVehicle } from '../store/vehicles.ts';
import { startThread } from '../threads/start-thread.ts';
import { SANDBOX_FLEETS, sandboxFleet } from './sandbox-fleet.ts';
import type { SeedProgress, SeedThreadData } from './seed-thread.ts';

const SEED_STATE_KEY = 'sandbox_seed';
// The time the seeding's four weeks end at, fixed by the first start: a seeding resumed on a later day
// must plan the same trips, or its client trip ids (driver, day of the window, count) would name other
// trips than those already sent (the ingest answers such a reused key with 409).
const SEED_CLOCK_KEY = 'sandbox_seed_now_ms';
// Tokens are stored only as hashes, so a start cannot print an earlier token: each start issues one.
const START_TOKEN_LIFETIME_MS = 30 * 86_400_000;
const DAY_MS = 86_400_000;
// Several nodes may start on one empty sandbox store at once: the node that seeds holds this lease (owner
// and expiry, renewed while it runs), so the others do not send the same 300 trips again; a seeding whose
// node died is resumed by the next start after the lease ran out.
const SEED_LEASE_KEY = 'sandbox_seed_lease';
const SEED_LEASE_MS = 60_000;

export interface SandboxSetup {
  fleets: string[];
  /** Resolves when the background seeding ends (immediately when there is nothing to seed). */
  seeding: Promise<SeedProgress | null>;
  /** True when this start launched the seeding. */
  seedingStarted: boolean;
  /** True when the seeding launched was begun by an earlier start that stopped before it finished. */
  resumed: boolean;
  /** True when an earlier start finished seeding (false with `tripCount` 0 on a sandbox never seeded). */
  seeded: boolean;
  /** Stops a seeding in progress (it resumes at the next start). */
  stop(): Promise<void>;
}

/**
 * First start of the sandbox: registers the simulated fleet (two fleets, their vehicles and drivers) and
 * sends `tripCount` simulated trips through the real ingest endpoint from a background thread; an
 * interrupted seeding resumes at the next start (uploads are idempotent per trip).
 */
export async function prepareSandbox(options: {
  database: TripsDatabase;
  dataDir: string;
  graphFile: string;
  ingestUrl: string;
  tripCount: number;
  logger: Logger;
  nowMs?: number;
  imuHz?: number;
}): Promise<SandboxSetup> {
  const db = options.database.db;
  const nowMs = options.nowMs ?? Date.now();
  const state = await db.selectFrom('trips_meta').select('value').where('key', '=', SEED_STATE_KEY).executeTakeFirst();
  const fleets = SANDBOX_FLEETS.map((f) => f.fleetId);

  if (!state) {
    const { fleet, fleetOfPlate } = sandboxFleet(loadGraph(options.graphFile));
    await db.transaction().execute(async (trx) => {
      // The state row is written first: a node starting at the same moment waits on it (PostgreSQL's unique
      // index, SQLite's write lock), then finds it taken and leaves the registration to this one.
      const claimed = await trx
        .insertInto('trips_meta')
        .values({ key: SEED_STATE_KEY, value: 'seeding' })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) return;
      for (const f of SANDBOX_FLEETS) await createFleet(trx, f, nowMs);
      for (const v of fleet.vehicles) {
        await createVehicle(
          trx,
          {
            fleetId: fleetOfPlate.get(v.plate)!,
            plate: v.plate,
            machineType: v.machineType,
            make: v.make,
            model: v.model,
          },
          nowMs,
        );
      }
      const plateOf = new Map(fleet.vehicles.map((v) => [v.id, v.plate]));
      for (const d of fleet.drivers) {
        const fleetId = fleetOfPlate.get(plateOf.get(d.vehicleIds[0]!)!)!;
        await createDriver(trx, { fleetId, driverId: d.id, name: d.name }, nowMs);
      }
      await trx
        .insertInto('trips_meta')
        .values({ key: SEED_CLOCK_KEY, value: String(nowMs) })
        .execute();
    });
  }

  const seedState = state?.value ?? 'seeding';
  if (seedState === 'done' || options.tripCount === 0) {
    return {
      fleets,
      seeding: Promise.resolve(null),
      seedingStarted: false,
      resumed: false,
      seeded: seedState === 'done',
      stop: async () => {},
    };
  }

  const lease = await claimSeedLease(db);
  if (!lease) {
    options.logger.info('sandbox seeding runs on another node; this one does not seed');
    return {
      fleets,
      seeding: Promise.resolve(null),
      seedingStarted: false,
      resumed: false,
      seeded: false,
      stop: async () => {},
    };
  }
  // Keys for this seeding run only; revoked when it ends.
  const keys: Record<string, string> = {};
  const keyIds: string[] = [];
  for (const fleetId of fleets) {
    const k = await createIngestKey(db, { environment: 'sandbox', fleetId, name: 'sandbox seeder (npm start)' }, nowMs);
    keys[fleetId] = k.secret;
    keyIds.push(k.key.keyId);
  }
  const days = 28;
  const seedNowMs = await seedClock(db, nowMs);
  const data: SeedThreadData = {
    graphFile: options.graphFile,
    ingestUrl: options.ingestUrl,
    keys,
    tripCount: options.tripCount,
    days,
    startDate: new Date(seedNowMs - days * DAY_MS).toISOString().slice(0, 10),
    nowMs: seedNowMs,
    imuHz: options.imuHz ?? 10,
  };
  const thread = startThread(new URL('./seed-thread.ts', import.meta.url), data as unknown as Record<string, unknown>);
  const renewal = setInterval(() => {
    void lease.renew().then(
      (held) => {
        if (held) return;
        options.logger.warn('sandbox seeding: another node took the seeding over; this one stops seeding');
        void thread.terminate();
      },
      (err) => options.logger.warn({ err }, 'sandbox seeding: the lease could not be renewed'),
    );
  }, SEED_LEASE_MS / 3);
  renewal.unref();
  let last: SeedProgress | null = null;
  const seeding = new Promise<SeedProgress | null>((resolve) => {
    let reported = 0;
    thread.on('message', (p: SeedProgress) => {
      last = p;
      if (p.type === 'progress' && p.sent - reported >= 25) {
        reported = p.sent;
        options.logger.info({ sent: p.sent, planned: p.planned }, 'sandbox seeding: trips sent through ingest');
      }
      if (p.type !== 'progress') resolve(p);
    });
    thread.on('error', (err) => resolve({ ...(last ?? emptyProgress()), type: 'error', lastError: err.message }));
    thread.on('exit', () => resolve(last));
  }).then(async (final) => {
    clearInterval(renewal);
    for (const keyId of keyIds) await revokeIngestKey(db, keyId).catch(() => {});
    if (final?.type === 'done') {
      await db.updateTable('trips_meta').set({ value: 'done' }).where('key', '=', SEED_STATE_KEY).execute();
      options.logger.info({ ...final }, 'sandbox seeding finished; trips are scored as the queue drains');
    } else if (final?.type === 'error') {
      options.logger.error({ ...final }, 'sandbox seeding stopped; it resumes at the next start');
    }
    await lease.release().catch(() => {});
    return final;
  });
  return {
    fleets,
    seeding,
    seedingStarted: true,
    resumed: state !== undefined,
    seeded: false,
    async stop() {
      await thread.terminate();
      await seeding;
    },
  };
}

function emptyProgress(): SeedProgress {
  return { type: 'progress', planned: 0, sent: 0, accepted: 0, duplicates: 0, rejected: 0 };
}

/**
 * Issues an admin token over the sandbox fleets for `npm start` to print, valid for 30 days. Tokens are
 * stored only as hashes, so an earlier start's token cannot be shown again: each start issues its own
 * (a lasting token comes from `npx trips tokens create`).
 */
export async function issueSandboxStartToken(
  database: TripsDatabase,
  nowMs = Date.now(),
): Promise<{ token: string; expiresAtMs: number; fleets: string[] }> {
  const fleets = SANDBOX_FLEETS.map((f) => f.fleetId);
  const expiresAtMs = nowMs + START_TOKEN_LIFETIME_MS;
  const { secret } = await createApiToken(
    database.db,
    { environment: 'sandbox', fleets, admin: true, owner: 'sandbox (npm start)', expiresAtMs },
    nowMs,
  );
  return { token: secret, expiresAtMs, fleets };
}

/**
 * Takes the seeding lease when no node holds it (or its holder let it run out); null when another node
 * holds it. Compare-and-set on the row's value (owner and expiry), so two nodes cannot both take it.
 */
async function claimSeedLease(db: TripsDatabase['db']) {
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const value = () => `${owner} ${Date.now() + SEED_LEASE_MS}`;
  let current = value();
  const inserted = await db
    .insertInto('trips_meta')
    .values({ key: SEED_LEASE_KEY, value: current })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
    const held = await db.selectFrom('trips_meta').select('value').where('key', '=', SEED_LEASE_KEY).executeTakeFirst();
    if (held && Number(held.value.split(' ').pop()) > Date.now()) return null;
    const taken = await db
      .updateTable('trips_meta')
      .set({ value: current })
      .where('key', '=', SEED_LEASE_KEY)
      .where('value', '=', held?.value ?? '')
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) return null;
  }
  return {
    /** Extends the lease; false when it is no longer this node's. */
    async renew(): Promise<boolean> {
      const next = value();
      const res = await db
        .updateTable('trips_meta')
        .set({ value: next })
        .where('key', '=', SEED_LEASE_KEY)
        .where('value', '=', current)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      current = next;
      return true;
    },
    async release(): Promise<void> {
      await db.deleteFrom('trips_meta').where('key', '=', SEED_LEASE_KEY).where('value', '=', current).execute();
    },
  };
}

/**
 * The end of the seeded window: the first start's time, stored with the seeding state. A sandbox store
 * whose seeding began before that was recorded gets this start's time, kept from now on.
 */
async function seedClock(db: TripsDatabase['db'], nowMs: number): Promise<number> {
  const row = await db.selectFrom('trips_meta').select('value').where('key', '=', SEED_CLOCK_KEY).executeTakeFirst();
  const stored = Number(row?.value);
  if (row && Number.isSafeInteger(stored)) return stored;
  await db
    .insertInto('trips_meta')
    .values({ key: SEED_CLOCK_KEY, value: String(nowMs) })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(nowMs) }))
    .execute();
  return nowMs;
}
