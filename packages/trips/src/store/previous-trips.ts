import type { Kysely } from 'kysely';
import type { PreviousTrip } from '../scoring/trip-scorer.ts';
import type { TripsSchema } from './schema.ts';

const DAY_MS = 86_400_000;

/**
 * The scored trips that ended in the 24 hours before an upload's first sample: the same driver's when
 * the driver is known, else the same vehicle's. The engine derives continuous and daily driving time
 * (fatigue) from them.
 */
export async function previousTripsOf(
  db: Kysely<TripsSchema>,
  upload: { trip_id: string; fleet_id: string; plate: string; driver_id: string | null; first_sample_ms: number },
): Promise<PreviousTrip[]> {
  let q = db
    .selectFrom('trips')
    .select(['start_ms', 'end_ms'])
    .where('fleet_id', '=', upload.fleet_id)
    .where('start_ms', '>=', upload.first_sample_ms - 2 * DAY_MS)
    .where('start_ms', '<', upload.first_sample_ms)
    .where('end_ms', '>', upload.first_sample_ms - DAY_MS)
    .where('end_ms', '<=', upload.first_sample_ms)
    .where('trip_id', '<>', upload.trip_id);
  q = upload.driver_id !== null ? q.where('driver_id', '=', upload.driver_id) : q.where('plate', '=', upload.plate);
  const rows = await q.orderBy('start_ms').limit(200).execute();
  return rows.map((r) => ({ startMs: Number(r.start_ms), endMs: Number(r.end_ms) }));
}
