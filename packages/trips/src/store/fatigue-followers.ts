import type { Kysely } from 'kysely';
import type { TripsSchema } from './schema.ts';

const DAY_MS = 86_400_000;

/** A scored trip whose driving time counts in later trips' fatigue factors. */
export interface FatigueSource {
  tripId: string;
  fleetId: string;
  plate: string;
  driverId: string | null;
  startMs: number;
  endMs: number;
}

/**
 * The fatigue factors (continuous driving, break deficit, daily driving hours) of a trip read the trips of
 * the same driver, or of the same vehicle when the driver is unknown, that ended in the 24 hours before it
 * (store/previous-trips.ts). Trips do not always arrive in the order they were driven: a device offline for a
 * day uploads its backlog, an import reads files in any order, and two scoring threads take consecutive
 * trips at once. So when a trip is stored for the first time, or its times change, the later trips whose
 * context it falls into are scored again, and the result no longer depends on the order of arrival.
 *
 * Called inside the transaction that writes (or removes) `source`. Takes the uploads that are scored or
 * being scored (queued ones will read the context when they run; failed ones have no score to correct), puts
 * them back in the queue due now, and returns their ids. A worker scoring one of them meanwhile loses its
 * lease, so its result, computed without `source`, is dropped (store/scored-trips.ts). A trip scored again
 * keeps its times, so this does not cascade. Uploads whose telemetry was deleted cannot be scored again.
 */
export async function requeueFatigueFollowers(
  trx: Kysely<TripsSchema>,
  source: FatigueSource,
  nowMs: number,
): Promise<string[]> {
  // The windows of store/previous-trips.ts, solved for the later upload's first sample.
  const from = source.endMs;
  const until = Math.min(source.endMs + DAY_MS, source.startMs + 2 * DAY_MS + 1);
  if (until <= from) return [];
  // One statement, so that on PostgreSQL an upload claimed by another node after this statement's snapshot
  // (queued then, being scored now) is still caught: the status is checked again on the row's newest version.
  const rows = await trx
    .updateTable('trip_uploads')
    .set({ status: 'queued', attempts: 0, next_attempt_at_ms: nowMs, lease_owner: null, last_error: null })
    .where('trip_id', 'in', (eb) =>
      eb
        .selectFrom('trip_uploads as later')
        .select('later.trip_id')
        .where('later.fleet_id', '=', source.fleetId)
        .where('later.first_sample_ms', '>=', from)
        .where('later.first_sample_ms', '<', until)
        .where('later.first_sample_ms', '>', source.startMs)
        .where('later.trip_id', '<>', source.tripId)
        .where('later.telemetry_deleted_at_ms', 'is', null)
        .where((w) => {
          // Trips without a driver read the vehicle's trips (any driver's); a driver's trips read only theirs.
          const ofVehicle = w.and([w('later.driver_id', 'is', null), w('later.plate', '=', source.plate)]);
          return source.driverId === null ? ofVehicle : w.or([ofVehicle, w('later.driver_id', '=', source.driverId)]);
        }),
    )
    .where('status', 'in', ['scored', 'scoring'])
    .returning('trip_id')
    .execute();
  return rows.map((r) => r.trip_id);
}
