import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleet } from '../src/store/fleets.ts';
import { openTripsDatabase, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { listTrips, scopeCountsCached, setScopeCountsRowLimit } from '../src/store/trip-list.ts';

/**
 * What a long-running node keeps for trip lists: each scope's per-day counts (trip-list.ts, scopeCounts) hold one
 * entry per (fleet, day, tier) of its history. A soak of `trips serve` saw that cache grow with every tier order
 * a client sent and every day of history; at two years of ten fleets, 256 entries were 976 MB of heap.
 */

const TIERS = ['Safe', 'Good', 'Fair', 'Critical'];
const FLEETS = ['fleet_cache_a', 'fleet_cache_b', 'fleet_cache_c', 'fleet_cache_d'];
const DAYS = 400;

/** Every order of every non-empty subset of the tiers: 64 lists. */
function tierOrders(): string[][] {
  const out: string[][] = [];
  const grow = (prefix: string[]) => {
    for (const t of TIERS) {
      if (prefix.includes(t)) continue;
      const next = [...prefix, t];
      out.push(next);
      grow(next);
    }
  };
  grow([]);
  return out;
}

describe('the trip list cache of a long-running node', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'trips-list-cache-'));
  let database: TripsDatabase;
  const today = Math.floor(Date.now() / 86_400_000);

  beforeAll(async () => {
    database = await openTripsDatabase({ environment: 'production', sqliteFile: path.join(dir, 'trips.db') });
    for (const fleetId of FLEETS) await createFleet(database.db, { name: fleetId, fleetId });
    // The counts alone: what the cache reads (a trip per tier and day in each fleet, over 400 days).
    await database.db.transaction().execute(async (trx) => {
      for (const fleet of FLEETS) {
        for (let d = 0; d < DAYS; d++) {
          for (const tier of TIERS) {
            await sql`insert into trip_day_counts (fleet_id, day, tier, trip_count, version)
                      values (${fleet}, ${today - d}, ${tier}, 1, 1)`.execute(trx);
          }
        }
      }
    });
  });

  afterAll(async () => {
    setScopeCountsRowLimit();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps one entry per set of tiers, whatever order a client lists them in', async () => {
    const orders = tierOrders();
    expect(orders).toHaveLength(64);
    for (const tiers of orders) {
      const page = await listTrips(database.db, [FLEETS[0]!], { tiers }, { offset: 0, limit: 20 });
      expect(page.total).toBe(DAYS * tiers.length);
    }
    // 15 sets of tiers, plus the store's own counts.
    expect(scopeCountsCached(database.db).entries).toBeLessThanOrEqual(16);
  });

  it('holds a bounded number of count rows however many scopes are listed, each still answered right', async () => {
    const previous = setScopeCountsRowLimit(5_000);
    try {
      const scopes = [...FLEETS.map((f) => [f]), [FLEETS[0]!, FLEETS[1]!], [FLEETS[2]!, FLEETS[3]!], [...FLEETS]];
      for (let round = 0; round < 2; round++) {
        for (const fleets of scopes) {
          const page = await listTrips(database.db, fleets, {}, { offset: 0, limit: 20 });
          expect(page.total).toBe(fleets.length * DAYS * TIERS.length);
          // The entry in use is kept even when it alone is over the bound (all four fleets: 6,400 rows).
          const held = scopeCountsCached(database.db);
          expect(held.rows).toBeLessThanOrEqual(Math.max(5_000, fleets.length * DAYS * TIERS.length + DAYS));
        }
      }
    } finally {
      setScopeCountsRowLimit(previous);
    }
  });
});
