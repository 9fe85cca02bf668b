import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { servicesRequired } from '@svc/platform/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { ScoringWorker } from '../src/ingest/scoring-worker.ts';
import { createFleet } from '../src/store/fleets.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { removeScoredTrip } from '../src/store/scored-trips.ts';
import type { TripItem } from '../src/store/trip-item.ts';
import { listTrips, type TripListPage } from '../src/store/trip-list.ts';
import { createVehicle } from '../src/store/vehicles.ts';
import { fakeScorer } from './fixtures/fake-scorer.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

/**
 * A list page is one snapshot while another node writes. The reader holds the scope's per-day counts and reads
 * a cached page in one statement checked against the data version (trip-list.ts, listFromCachedCounts); a
 * second connection to the same store (another node) meanwhile removes scored trips and scores new ones. The
 * scope holds fewer trips than a page, so every answer must list exactly `total` trips, newest first, each once:
 * counts of one moment with the rows of another would show as a page longer or shorter than its total.
 */

const pgUrl = process.env.TEST_DATABASE_URL?.trim();
if (!pgUrl && servicesRequired()) throw new Error('REQUIRE_TEST_SERVICES is set but TEST_DATABASE_URL is not');
const legs = [
  { name: 'sqlite', skip: false as const },
  { name: 'postgres', skip: pgUrl ? (false as const) : 'TEST_DATABASE_URL is not set' },
];

const T0 = Date.UTC(2026, 10, 2, 6);
const HOUR_MS = 3_600_000;

describe.each(legs)('a list page while another node writes, on $name', (leg) => {
  describe.skipIf(leg.skip)(leg.skip ? `skipped: ${leg.skip}` : 'run', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'trips-list-race-'));
    const schema = `list_race_${process.pid}_${randomBytes(3).toString('hex')}`;
    let reader: TripsDatabase;
    let writer: TripsDatabase;
    const now = T0 + 30 * 24 * HOUR_MS;
    const sender = { fleetId: 'fleet_race', vehicleId: null, keyId: null, source: 'test' };
    const open = () =>
      leg.name === 'sqlite'
        ? openTripsDatabase({ environment: 'production', sqliteFile: path.join(dir, 'trips.db') })
        : openTripsDatabase({ environment: 'production', url: pgUrl!, pgSchema: schema });

    /** Uploads trip `i` (one an hour over three days, in two tiers by speed) and scores what is queued. */
    const addTrip = async (i: number) => {
      const body = gpsTrip({ startMs: T0 + i * HOUR_MS, vehicle: 'RACE-1', speedKmh: i % 3 === 0 ? 140 : 40 });
      await acceptUpload(writer.db, sender, `race-trip-${String(i).padStart(4, '0')}`, body, now);
      await new ScoringWorker({ db: writer, scorer: fakeScorer(), logger: quietLogger(), clock: () => now }).drain();
    };

    beforeAll(async () => {
      writer = await open();
      await createFleet(writer.db, { name: 'Race', fleetId: 'fleet_race' });
      await createVehicle(writer.db, { fleetId: 'fleet_race', plate: 'RACE-1' });
      for (let i = 0; i < 40; i++) await addTrip(i);
      reader = await open();
    });
    afterAll(async () => {
      await reader?.close();
      if (leg.name === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(writer.db);
      await writer?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('lists exactly the trips it counts in every answer, for the scope and a tier filter', async () => {
      const itemsOf = (page: TripListPage) => JSON.parse(`[${page.itemsJson.toString()}]`) as TripItem[];
      const tiers = [undefined, ['Critical', 'Fair']];
      const answers: Array<{ tiers: string; total: number; ids: string[]; starts: string[] }> = [];
      let writing = true;
      const readLoop = async () => {
        while (writing) {
          for (const t of tiers) {
            const page = await listTrips(reader.db, ['fleet_race'], t ? { tiers: t } : {}, { offset: 0, limit: 100 });
            const items = itemsOf(page);
            answers.push({
              tiers: t?.join(',') ?? '*',
              total: page.total,
              ids: items.map((x) => x.tripId),
              starts: items.map((x) => x.startDate),
            });
          }
          // Lets the writer's statements in between on SQLite, where both connections share this thread.
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      const writeLoop = async () => {
        try {
          for (let k = 0; k < 15; k++) {
            const [oldest] = await writer.db
              .selectFrom('trips')
              .select('trip_id')
              .orderBy('start_ms', 'asc')
              .limit(1)
              .execute();
            await writer.db.transaction().execute((trx) => removeScoredTrip(trx, oldest!.trip_id));
            await addTrip(40 + k);
            // Reads run between writes (on SQLite the two connections share this thread).
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
        } finally {
          writing = false;
        }
      };
      await Promise.all([readLoop(), writeLoop()]);

      expect(answers.length).toBeGreaterThan(15);
      for (const a of answers) {
        expect(a.ids.length, `tiers ${a.tiers}: total ${a.total}`).toBe(a.total);
        expect(new Set(a.ids).size).toBe(a.ids.length);
        expect([...a.starts].sort().reverse()).toEqual(a.starts);
      }
      // The reads saw the store change: more than one set of trips was listed.
      expect(new Set(answers.filter((a) => a.tiers === '*').map((a) => a.ids.join())).size).toBeGreaterThan(1);
      // And the last answer is the store as it ended.
      const final = await listTrips(reader.db, ['fleet_race'], {}, { offset: 0, limit: 100 });
      const stored = await writer.db.selectFrom('trips').select('trip_id').execute();
      expect(final.total).toBe(stored.length);
    });
  });
});
