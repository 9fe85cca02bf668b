import { arg, runShape } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleet } from './fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from './migrations.ts';
import type { TripsDatabase } from './open-trips-database.ts';
import type { TripsSchema } from './schema.ts';

describe.each(testDialects())('query shapes on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      for (const name of ['Alpha', 'Beta', 'Gamma']) {
        await createFleet(database.db, { name, fleetId: `fleet_${name.toLowerCase()}` });
      }
    });
    afterAll(async () => {
      await database?.close();
    });

    it('compiles a shape once, also across transactions, and runs it with each call’s values', async () => {
      const db = database.db;
      let builds = 0;
      const names = (ids: string[]) =>
        runShape(
          db,
          `test-fleet-names:${ids.length}`,
          () => {
            builds++;
            return db
              .selectFrom('fleets')
              .select('name')
              .where(
                'fleet_id',
                'in',
                ids.map((_, i) => arg(i)),
              )
              .orderBy('name');
          },
          ids,
        );
      expect((await names(['fleet_alpha', 'fleet_gamma'])).map((r) => r.name)).toEqual(['Alpha', 'Gamma']);
      expect((await names(['fleet_beta', 'fleet_gamma'])).map((r) => r.name)).toEqual(['Beta', 'Gamma']);
      for (let i = 0; i < 3; i++) {
        const inside = await db.transaction().execute((trx: Kysely<TripsSchema>) =>
          runShape(
            trx,
            'test-fleet-names:2',
            () => {
              builds++;
              return trx.selectFrom('fleets').select('name');
            },
            ['fleet_alpha', 'fleet_beta'],
          ),
        );
        expect(inside.map((r) => r.name)).toEqual(['Alpha', 'Beta']);
      }
      expect(builds).toBe(1);
      // Another structure is another key: it gets its own statement.
      expect((await names(['fleet_beta'])).map((r) => r.name)).toEqual(['Beta']);
      expect(builds).toBe(2);
    });

    it('refuses a call with fewer values than the shape uses', async () => {
      const db = database.db;
      await expect(
        runShape(db, 'test-missing-arg', () => db.selectFrom('fleets').select('name').where('fleet_id', '=', arg(1)), [
          'x',
        ]),
      ).rejects.toThrow(/uses argument 1 but gets 1/);
    });
  });
});
