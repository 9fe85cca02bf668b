/**
 * Upgrades of a store that already holds data: migrations that derive new tables from existing rows.
 */
import { migrateToLatest } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import type { TripsDatabase } from '../src/store/open-trips-database.ts';

const upTo = (last: string) =>
  Object.fromEntries(Object.entries(tripsMigrations).filter(([name]) => name.slice(0, 4) <= last));
const before0006 = upTo('0005');

describe.each(testDialects())('trip store upgrades on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    beforeAll(async () => {
      database = await dialect.open(before0006, { migrationTable: TRIPS_MIGRATION_TABLE });
    });
    afterAll(async () => {
      await database?.close();
    });

    it('0006 derives the per-day totals from the day counts already stored, then keeps them', async () => {
      const db = database.db;
      await db
        .insertInto('trip_day_counts')
        .values([
          { fleet_id: 'fleet_a', day: 20_000, tier: 'Safe', trip_count: 3, version: 4 },
          { fleet_id: 'fleet_a', day: 20_000, tier: 'Fair', trip_count: 2, version: 7 },
          { fleet_id: 'fleet_b', day: 20_000, tier: 'Safe', trip_count: 5, version: 2 },
          { fleet_id: 'fleet_b', day: 20_001, tier: 'Good', trip_count: 1, version: 9 },
        ])
        .execute();
      expect(await migrateToLatest(db, upTo('0007'), TRIPS_MIGRATION_TABLE)).toEqual([
        '0006_day_totals',
        '0007_api_tokens_version',
      ]);
      const totals = async () =>
        (await db.selectFrom('trip_day_totals').select(['day', 'trip_count', 'version']).orderBy('day').execute()).map(
          (r) => [Number(r.day), Number(r.trip_count), Number(r.version)],
        );
      expect(await totals()).toEqual([
        [20_000, 10, 7],
        [20_001, 1, 9],
      ]);
      // From here the triggers keep them: a count moves, another is removed.
      await db
        .updateTable('trip_day_counts')
        .set({ trip_count: 6, version: 10 })
        .where('fleet_id', '=', 'fleet_b')
        .where('day', '=', 20_000)
        .execute();
      await db.deleteFrom('trip_day_counts').where('day', '=', 20_001).execute();
      const after = await totals();
      expect(after[0]).toEqual([20_000, 11, 10]);
      expect(after[1]?.[1]).toBe(0);
    });
  });
});

describe.each(testDialects())('rescore runs upgrade on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    beforeAll(async () => {
      database = await dialect.open(upTo('0015'), { migrationTable: TRIPS_MIGRATION_TABLE });
    });
    afterAll(async () => {
      await database?.close();
    });

    it('0016 keeps the earliest of the open runs two simultaneous rescores left, then allows one open run', async () => {
      const db = database.db;
      const run = (model_version: string, all_trips: number, finished_at_ms: number | null, cursor: string) => ({
        started_at_ms: 1,
        finished_at_ms,
        model_version,
        all_trips,
        cursor,
        rescored: 0,
        failed: 0,
      });
      await db
        .insertInto('rescore_runs')
        .values([
          run('1.1.3', 0, 5, 'trip_a'), // finished: kept
          run('1.1.3', 0, null, 'trip_b'), // the earliest open one: kept
          run('1.1.3', 0, null, 'trip_c'), // its duplicate: removed
          run('1.1.3', 1, null, 'trip_d'), // another scope: kept
          run('1.1.2', 0, null, 'trip_e'), // another model: kept
        ])
        .execute();
      expect(await migrateToLatest(db, upTo('0016'), TRIPS_MIGRATION_TABLE)).toEqual(['0016_one_open_rescore_run']);
      const left = await db.selectFrom('rescore_runs').select('cursor').orderBy('run_id').execute();
      expect(left.map((r) => r.cursor)).toEqual(['trip_a', 'trip_b', 'trip_d', 'trip_e']);
      await expect(
        db
          .insertInto('rescore_runs')
          .values(run('1.1.3', 0, null, 'trip_f'))
          .execute(),
      ).rejects.toThrow(/duplicate key/);
      await db
        .insertInto('rescore_runs')
        .values(run('1.1.3', 0, 9, 'trip_g'))
        .execute();
    });
  });
});
