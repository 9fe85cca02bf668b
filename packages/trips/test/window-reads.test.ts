import path from 'node:path';
import { createLogger } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { inlineWindowReads, threadWindowReads, type WindowReads } from '../src/store/window-reads.ts';
import { buildWorld, quietLogger, type World } from './fixtures/world.ts';

// The reader threads serve SQLite files only: on PostgreSQL the reads run on the pool and wait without holding
// the event loop, so there is nothing to compare there.
const sqlite = testDialects().find((d) => d.name === 'sqlite')!;

describe('window reads on a reader thread (SQLite file)', () => {
  let database: TripsDatabase;
  let world: World;
  let threads: WindowReads;
  let inline: WindowReads;
  const nowMs = Date.now();
  const fleetsOf = () => world.fleets.map((f) => f.fleetId);

  beforeAll(async () => {
    database = await sqlite.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
    await claimEnvironment(database.db, 'sandbox', database.location);
    world = await buildWorld(database, { tripsPerFleet: 30, nowMs });
    threads = await threadWindowReads({
      file: database.sqliteFile!,
      threads: 1,
      fallback: database.db,
      logger: quietLogger(),
    });
    inline = inlineWindowReads(database.db);
  });
  afterAll(async () => {
    await threads?.close();
    await database?.close();
  });

  it('answers every read exactly as the main connection does', async () => {
    const all = fleetsOf();
    for (const windowDays of [1, 7, 30, 90, 365]) {
      const listOptions = { nowMs, windowDays, offset: 0, limit: 100 } as const;
      const reads = [
        ['vehicleList', all, { ...listOptions, sort: '-score' }],
        ['vehicleList', [all[1]!], { ...listOptions, sort: 'plate', tiers: ['Good', 'Safe'], offset: 1, limit: 2 }],
        ['driverList', all, { ...listOptions, sort: 'score' }],
        ['fleetList', all, { nowMs, windowDays }],
        ['fleetProfile', all, all[2]!, { nowMs, windowDays }],
        ['fleetProfile', [all[0]!], all[2]!, { nowMs, windowDays }],
        ['vehicleProfile', all, world.fleets[0]!.plates[1]!, { nowMs, windowDays }],
        ['vehicleProfile', [all[1]!], world.fleets[0]!.plates[1]!, { nowMs, windowDays }],
        ['driverProfile', all[1]!, world.fleets[1]!.drivers[0]!, { nowMs, windowDays }],
        ['driverProfile', all[1]!, 'drv-nobody', { nowMs, windowDays }],
      ] as const;
      for (const [name, ...args] of reads) {
        // biome-ignore lint/suspicious/noExplicitAny: each row's arguments are those of its read
        const onThread = await (threads.read as any)(name, ...args);
        // biome-ignore lint/suspicious/noExplicitAny: as above
        const onMain = await (inline.read as any)(name, ...args);
        expect(onThread, `${name} over ${windowDays} days`).toEqual(onMain);
      }
    }
    // Scope is the caller's: a fleet out of the list given is not summed, and a profile outside it is null.
    const outside = await threads.read('fleetProfile', [all[0]!], all[2]!, { nowMs, windowDays: 30 });
    expect(outside).toBeNull();
    const list = await threads.read('vehicleList', [all[0]!], {
      nowMs,
      windowDays: 90,
      sort: 'plate',
      offset: 0,
      limit: 100,
    });
    expect(new Set(list.vehicles.map((v) => v.fleetId))).toEqual(new Set([all[0]!]));
  });

  it('sees what the main connection committed before the read', async () => {
    const fleetId = world.fleets[0]!.fleetId;
    const options = { nowMs, windowDays: 30, sort: 'plate', offset: 0, limit: 100 } as const;
    const before = await threads.read('vehicleList', [fleetId], options);
    await createVehicle(database.db, { fleetId, plate: 'ZZ-NEW-1' });
    const after = await threads.read('vehicleList', [fleetId], options);
    expect(after.total).toBe(before.total + 1);
    expect(after.vehicles.map((v) => v.plate)).toContain('ZZ-NEW-1');
  });

  it('answers reads sent together as it answers them one by one', async () => {
    const all = fleetsOf();
    const options = (windowDays: number) => ({ nowMs, windowDays, sort: '-score', offset: 0, limit: 100 }) as const;
    const days = [1, 3, 7, 14, 30, 60, 90, 180, 365, 30, 7, 1];
    const together = await Promise.all(days.map((d) => threads.read('vehicleList', all, options(d))));
    for (const [i, d] of days.entries()) {
      expect(together[i]).toEqual(await inline.read('vehicleList', all, options(d)));
    }
  });

  it('makes a read whose thread died on the main connection, and the reads after it too', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(line) } });
    const warnings = () => lines.map((line) => JSON.parse(line).msg);
    const dying = await threadWindowReads({
      file: database.sqliteFile!,
      threads: 1,
      fallback: database.db,
      logger,
      module: new URL('./fixtures/dying-reader-thread.ts', import.meta.url),
    });
    try {
      const options = { nowMs, windowDays: 30, sort: 'plate', offset: 0, limit: 100 } as const;
      const expected = await inline.read('vehicleList', fleetsOf(), options);
      expect(await dying.read('vehicleList', fleetsOf(), options)).toEqual(expected);
      expect(warnings()).toEqual(['a reader thread failed; the read was made on the main connection']);
      // The replacement thread dies too (it is the same module); each read is still answered.
      expect(await dying.read('fleetList', fleetsOf(), { nowMs, windowDays: 30 })).toEqual(
        await inline.read('fleetList', fleetsOf(), { nowMs, windowDays: 30 }),
      );
    } finally {
      await dying.close();
    }
  });

  it('does not start on a file that is not there, saying why', async () => {
    await expect(
      threadWindowReads({
        file: path.join(path.dirname(database.sqliteFile!), 'missing.db'),
        threads: 1,
        fallback: database.db,
        logger: quietLogger(),
      }),
    ).rejects.toThrow(/missing\.db/);
  });
});
