import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { otherModelsLeftNotice, otherModelsNotice, tripsScoredByOtherModels } from '../src/store/model-versions.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { buildWorld } from './fixtures/world.ts';

describe.each(testDialects())('trips scored by other model versions on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let current: string;

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      await buildWorld(database, { tripsPerFleet: 6 });
      const versions = await database.db.selectFrom('trips').select('model_version').distinct().execute();
      expect(versions).toHaveLength(1);
      current = versions[0]!.model_version;
    });
    afterAll(async () => {
      await database?.close();
    });

    it('finds nothing when every trip is current, and counts the others per version, below and above it', async () => {
      expect(await tripsScoredByOtherModels(database.db, current)).toEqual([]);
      expect(await otherModelsLeftNotice(database.db, current)).toBeNull();
      expect(otherModelsNotice([], current, 'sandbox')).toBeNull();

      const ids = (await database.db.selectFrom('trips').select('trip_id').orderBy('trip_id').execute()).map(
        (r) => r.trip_id,
      );
      expect(ids.length).toBe(18);
      // An older release's scores on five trips, and a restored store from a newer one on two.
      await database.db
        .updateTable('trips')
        .set({ model_version: '0.9.0' })
        .where('trip_id', 'in', ids.slice(0, 5))
        .execute();
      await database.db
        .updateTable('trips')
        .set({ model_version: 'zz-9' })
        .where('trip_id', 'in', ids.slice(5, 7))
        .execute();

      const counts = await tripsScoredByOtherModels(database.db, current);
      expect(counts).toEqual([
        { modelVersion: '0.9.0', trips: 5 },
        { modelVersion: 'zz-9', trips: 2 },
      ]);
      expect(await otherModelsLeftNotice(database.db, current)).toBe(
        '7 trips scored by another model (5 by 0.9.0, 2 by zz-9) after this run: a node of another release scored them while it ran; run the command again once every node runs this release',
      );
      // An upload an old node found unscorable is named too; one that failed for another reason has no model.
      await database.db
        .updateTable('trip_uploads')
        .set({ status: 'failed', model_version: '0.9.0' })
        .where('trip_id', '=', ids[0]!)
        .execute();
      await database.db
        .updateTable('trip_uploads')
        .set({ status: 'failed', model_version: null })
        .where('trip_id', '=', ids[1]!)
        .execute();
      expect(await otherModelsLeftNotice(database.db, current)).toMatch(
        /^7 trips scored by another model \(5 by 0\.9\.0, 2 by zz-9\) and 1 upload found unscorable by another model after this run/,
      );
      expect(otherModelsNotice(counts, current, 'production')).toBe(
        `7 stored trips were scored by another model than the current ${current} (5 by 0.9.0, 2 by zz-9); they are served with those scores until \`npx trips rescore --env production\` recomputes them`,
      );
    });
  });
});
