import { withTransaction } from '@svc/platform';
import type { Kysely } from 'kysely';
import { requireFleet } from './fleets.ts';
import type { TripsSchema } from './schema.ts';
import { removeScoredTrips } from './scored-trips.ts';

export interface FleetDeletionCounts {
  trips: number;
  /** Uploads (scored or not), their telemetry with them. */
  uploads: number;
  vehicles: number;
  drivers: number;
  ingestKeys: number;
  /** Tokens that reached this fleet: they no longer do. */
  tokensNarrowed: number;
  /** Of those, tokens not revoked yet that reached no other fleet: revoked. */
  tokensRevoked: number;
}

/** What deleteFleet would delete, for a dry run. */
export async function fleetDeletionCounts(db: Kysely<TripsSchema>, fleetId: string): Promise<FleetDeletionCounts> {
  await requireFleet(db, fleetId);
  const count = async (table: 'trips' | 'trip_uploads' | 'vehicles' | 'drivers' | 'ingest_keys' | 'api_token_fleets') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('fleet_id', '=', fleetId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    trips: await count('trips'),
    uploads: await count('trip_uploads'),
    vehicles: await count('vehicles'),
    drivers: await count('drivers'),
    ingestKeys: await count('ingest_keys'),
    tokensNarrowed: await count('api_token_fleets'),
    tokensRevoked: (await tokensOnlyFor(db, fleetId)).length,
  };
}

/** Tokens not revoked whose only fleet is `fleetId`. */
async function tokensOnlyFor(db: Kysely<TripsSchema>, fleetId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('api_token_fleets as f')
    .innerJoin('api_tokens as t', 't.token_id', 'f.token_id')
    .select('f.token_id')
    .where('f.fleet_id', '=', fleetId)
    .where('t.revoked_at_ms', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('api_token_fleets as o')
            .select('o.token_id')
            .whereRef('o.token_id', '=', 'f.token_id')
            .where('o.fleet_id', '<>', fleetId),
        ),
      ),
    )
    .execute();
  return rows.map((r) => r.token_id);
}

/**
 * Deletes a fleet and everything of it: its trips (breakdowns, routes, summaries), its uploads and their
 * telemetry, its per-vehicle, per-fleet and per-driver sums, its day counts, vehicles, drivers and ingest keys,
 * and its place in every token (a token left with no fleet is revoked). For a customer who leaves.
 *
 * First, in one transaction, the fleet is closed: its ingest keys are revoked and no token reaches it any
 * more, so from then on no request reads any of it and no upload adds to it. Its data then goes in batches
 * of 500 trips, each one transaction (a trip never half-deleted, the day counts always exact), and last,
 * in one transaction, the fleet itself with its vehicles, drivers and keys. Interrupted, running it again
 * finishes it. A trip being scored meanwhile is dropped when its worker finds the upload gone.
 */
export async function deleteFleet(
  db: Kysely<TripsSchema>,
  fleetId: string,
  options: { nowMs: number; batchSize?: number },
): Promise<FleetDeletionCounts> {
  const counts = await fleetDeletionCounts(db, fleetId);
  const batchSize = options.batchSize ?? 500;
  await withTransaction(db, async (trx) => {
    await trx
      .updateTable('ingest_keys')
      .set({ revoked_at_ms: options.nowMs })
      .where('fleet_id', '=', fleetId)
      .where('revoked_at_ms', 'is', null)
      .execute();
    const alone = await tokensOnlyFor(trx, fleetId);
    if (alone.length > 0) {
      await trx
        .updateTable('api_tokens')
        .set({ revoked_at_ms: options.nowMs })
        .where('token_id', 'in', alone)
        .where('revoked_at_ms', 'is', null)
        .execute();
    }
    await trx.deleteFrom('api_token_fleets').where('fleet_id', '=', fleetId).execute();
  });
  // Scored trips with their uploads, then uploads that were never scored.
  for (const table of ['trips', 'trip_uploads'] as const) {
    for (;;) {
      const done = await withTransaction(db, async (trx) => {
        const ids = (
          await trx.selectFrom(table).select('trip_id').where('fleet_id', '=', fleetId).limit(batchSize).execute()
        ).map((r) => r.trip_id);
        if (ids.length === 0) return 0;
        await removeScoredTrips(trx, ids);
        await trx.deleteFrom('trip_uploads').where('trip_id', 'in', ids).execute();
        return ids.length;
      });
      if (done === 0) break;
    }
  }
  await withTransaction(db, async (trx) => {
    // What is left of the sums are zero rows (and rounding residue of the float sums): no trip is left.
    for (const table of ['vehicle_stats', 'fleet_stats', 'driver_stats', 'trip_day_counts'] as const) {
      await trx.deleteFrom(table).where('fleet_id', '=', fleetId).execute();
    }
    await trx.deleteFrom('ingest_keys').where('fleet_id', '=', fleetId).execute();
    await trx.deleteFrom('drivers').where('fleet_id', '=', fleetId).execute();
    await trx.deleteFrom('vehicles').where('fleet_id', '=', fleetId).execute();
    await trx.deleteFrom('fleets').where('fleet_id', '=', fleetId).execute();
  });
  return counts;
}
