import type { ScoredTrip, ThemeId } from '@svc/scoring';
import type { Kysely, Transaction } from 'kysely';
import { encodeBreakdown } from '../scoring/breakdown-codec.ts';
import { routeGeoJson } from '../scoring/route-geojson.ts';
import { tierOf } from '../scoring/tiers.ts';
import { requeueFatigueFollowers } from './fatigue-followers.ts';
import type { TripsSchema } from './schema.ts';
import { tripItemJson } from './trip-item.ts';

const DAY_MS = 86_400_000;

/** UTC day number of an epoch-millisecond time, the bucket key of trip_day_counts. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** The upload a scored result belongs to. */
export interface UploadRef {
  tripId: string;
  fleetId: string;
  vehicleId: string;
  plate: string;
  driverId: string | null;
}

/** The current job holder lost its lease: another worker took the job over; this result is dropped. */
export class LeaseLostError extends Error {
  constructor(tripId: string) {
    super(`lease on ${tripId} was lost to another worker`);
  }
}

/**
 * The trip was put back in the queue while this result was computed: an earlier trip of its driver arrived
 * and changes its fatigue context (store/fatigue-followers.ts). The result is dropped; the trip is scored
 * again with the full context.
 */
export class RequeuedWhileScoringError extends Error {
  constructor(tripId: string) {
    super(`${tripId} was queued again while it was being scored (an earlier trip of its driver arrived)`);
  }
}

/**
 * The upload's telemetry was deleted (retention, or its driver's erasure) while it was being scored: the
 * result, computed from that telemetry, is dropped rather than stored with a fresh route.
 */
export class LocationDataDeletedError extends Error {
  constructor(tripId: string) {
    super(`the location data of ${tripId} was deleted while it was being scored; the result is dropped`);
  }
}

type ThemeColumn = `theme_${ThemeId}`;

const THEME_COLUMN: Record<ThemeId, ThemeColumn> = {
  speeding: 'theme_speeding',
  braking: 'theme_braking',
  acceleration: 'theme_acceleration',
  cornering: 'theme_cornering',
  distraction: 'theme_distraction',
  exposure: 'theme_exposure',
};

/**
 * Stores a scored trip, its breakdown and its route, updates the day counts and marks the upload
 * scored, all inside the caller's transaction. Rescoring replaces the previous result (and moves its
 * count to the new day/tier bucket). With `leaseOwner` (the claim's lease token), the upload must still be
 * leased to it. A trip stored for the first time, or whose times changed, puts the later trips of its driver
 * whose fatigue context it joins back in the queue; their ids are returned.
 */
export async function writeScoredTrip(
  trx: Transaction<TripsSchema>,
  upload: UploadRef,
  scored: ScoredTrip,
  options: { nowMs: number; leaseOwner?: string },
): Promise<{ requeued: string[] }> {
  // Later trips whose fatigue context this one joins (or, with new times, leaves) go back in the queue first:
  // on PostgreSQL every writer then takes the uploads' row locks before its own row and before the version
  // row (bumpDayCount), so two drivers' consecutive trips written at once wait for each other instead of
  // deadlocking. Not every order is covered: a chain of one driver's trips A, B, C written at once can still
  // deadlock (A's writer holds B and waits for C, which B's writer holds while it waits for its own row B): seen
  // once in ~140,000 transactions of an upgrade on PostgreSQL, and absorbed by the write's retry.
  const previous = await trx
    .selectFrom('trips')
    .select(['start_ms', 'end_ms'])
    .where('trip_id', '=', upload.tripId)
    .executeTakeFirst();
  const requeued: string[] = [];
  const startMs = previous ? Number(previous.start_ms) : null;
  const endMs = previous ? Number(previous.end_ms) : null;
  if (startMs !== scored.startMs || endMs !== scored.endMs) {
    const source = { ...upload, startMs: scored.startMs, endMs: scored.endMs };
    requeued.push(...(await requeueFatigueFollowers(trx, source, options.nowMs)));
    if (startMs !== null && endMs !== null) {
      // Later trips that counted the old times.
      requeued.push(...(await requeueFatigueFollowers(trx, { ...source, startMs, endMs }, options.nowMs)));
    }
  }

  const finished = trx
    .updateTable('trip_uploads')
    .set({
      status: 'scored',
      scored_at_ms: options.nowMs,
      model_version: scored.modelVersion,
      lease_owner: null,
      last_error: null,
    })
    .where('trip_id', '=', upload.tripId)
    .where('telemetry_deleted_at_ms', 'is', null)
    // The plate as the upload has it now: the vehicle may have been renamed while the trip was scored
    // (store/vehicle-changes.ts), and the trip is listed under the plate its vehicle has.
    .returning('plate');
  const updated = await (options.leaseOwner
    ? finished.where('lease_owner', '=', options.leaseOwner)
    : finished
  ).executeTakeFirst();
  if (!updated) {
    const stored = await trx
      .selectFrom('trip_uploads')
      .select(['telemetry_deleted_at_ms', 'status', 'lease_owner'])
      .where('trip_id', '=', upload.tripId)
      .executeTakeFirst();
    if (stored && stored.telemetry_deleted_at_ms !== null) throw new LocationDataDeletedError(upload.tripId);
    if (stored?.status === 'queued' && stored.lease_owner === null) throw new RequeuedWhileScoringError(upload.tripId);
    throw new LeaseLostError(upload.tripId);
  }

  await removeScoredTrip(trx, upload.tripId);

  const { catalogueId, catalogueJson, valuesJson } = encodeBreakdown(scored);
  // Written with the trip (not cached as "known"): a rolled-back transaction must not leave the
  // process believing a catalogue row exists.
  await trx
    .insertInto('score_catalogues')
    .values({
      catalogue_id: catalogueId,
      model_version: scored.modelVersion,
      body_json: catalogueJson,
      created_at_ms: options.nowMs,
    })
    .onConflict((oc) => oc.column('catalogue_id').doNothing())
    .execute();

  const tier = tierOf(scored.overallScore);
  const startDay = dayOf(scored.startMs);
  const themeValues: Partial<Record<ThemeColumn, number | null>> = {};
  for (const theme of scored.themes) {
    const column = THEME_COLUMN[theme.id];
    if (column) themeValues[column] = theme.available ? theme.themeScore : null;
  }
  const row = {
    trip_id: upload.tripId,
    fleet_id: upload.fleetId,
    vehicle_id: upload.vehicleId,
    plate: updated.plate,
    driver_id: upload.driverId,
    start_ms: scored.startMs,
    end_ms: scored.endMs,
    start_day: startDay,
    overall_score: scored.overallScore,
    tier,
    map_matched: scored.mapMatched ? 1 : 0,
    matched_share: scored.matchedShare,
    distance_km: scored.distanceKm,
    duration_min: scored.durationMin,
    machine_type: scored.machineType ?? null,
    model_version: scored.modelVersion,
    scored_at_ms: options.nowMs,
    theme_speeding: null,
    theme_braking: null,
    theme_acceleration: null,
    theme_cornering: null,
    theme_distraction: null,
    theme_exposure: null,
    ...themeValues,
    weakest_theme: scored.weakestTheme.id,
  };
  await trx
    .insertInto('trips')
    .values({ ...row, item_json: tripItemJson(row) })
    .execute();
  await trx
    .insertInto('trip_summaries')
    .values({ trip_id: upload.tripId, summary_json: JSON.stringify(scored.summary) })
    .execute();
  await trx
    .insertInto('trip_breakdowns')
    .values({ trip_id: upload.tripId, catalogue_id: catalogueId, values_json: valuesJson })
    .execute();
  await trx
    .insertInto('trip_routes')
    .values({ trip_id: upload.tripId, geojson: routeGeoJson(upload.tripId, scored) })
    .execute();
  await bumpDayCount(trx, upload.fleetId, startDay, tier, 1);
  return { requeued: [...new Set(requeued)] };
}

/**
 * Deletes a scored trip (breakdown and route with it) and takes it out of the day counts. Returns the
 * removed trip's times, or null when it was not scored.
 */
export async function removeScoredTrip(
  trx: Kysely<TripsSchema>,
  tripId: string,
): Promise<{ startMs: number; endMs: number } | null> {
  const previous = await trx
    .selectFrom('trips')
    .select(['fleet_id', 'start_day', 'tier', 'start_ms', 'end_ms'])
    .where('trip_id', '=', tripId)
    .executeTakeFirst();
  if (!previous) return null;
  await trx.deleteFrom('trip_breakdowns').where('trip_id', '=', tripId).execute();
  await trx.deleteFrom('trip_routes').where('trip_id', '=', tripId).execute();
  await trx.deleteFrom('trip_summaries').where('trip_id', '=', tripId).execute();
  await trx.deleteFrom('trip_location_deletions').where('trip_id', '=', tripId).execute();
  await trx.deleteFrom('trips').where('trip_id', '=', tripId).execute();
  await bumpDayCount(trx, previous.fleet_id, previous.start_day, previous.tier, -1);
  return { startMs: Number(previous.start_ms), endMs: Number(previous.end_ms) };
}

/**
 * Takes a trip that can no longer be scored out of the scored list, inside the caller's transaction: the later
 * trips whose fatigue context counted its driving go back in the queue (their rows locked first, as
 * writeScoredTrip does), its result is removed (removeScoredTrip) and its upload no longer says when or by
 * which model it was scored, so `/v1` and the upload's status agree (a failed upload is never served). Used
 * by rescore and by the worker when a trip already scored (queued again) fails for good. Returns whether a
 * scored trip was removed.
 */
export async function withdrawScoredTrip(trx: Kysely<TripsSchema>, tripId: string, nowMs: number): Promise<boolean> {
  const stored = await trx
    .selectFrom('trips')
    .select(['fleet_id', 'plate', 'driver_id', 'start_ms', 'end_ms'])
    .where('trip_id', '=', tripId)
    .executeTakeFirst();
  if (!stored) return false;
  const source = {
    tripId,
    fleetId: stored.fleet_id,
    plate: stored.plate,
    driverId: stored.driver_id,
    startMs: Number(stored.start_ms),
    endMs: Number(stored.end_ms),
  };
  await requeueFatigueFollowers(trx, source, nowMs);
  await removeScoredTrip(trx, tripId);
  await trx
    .updateTable('trip_uploads')
    .set({ model_version: null, scored_at_ms: null })
    .where('trip_id', '=', tripId)
    .execute();
  return true;
}

/**
 * Deletes the scored trips among `ids` (breakdowns, routes, summaries and deletion records with them) and
 * takes them out of the day counts, one count change per (fleet, day, tier): the bulk form of
 * removeScoredTrip, for deleting a fleet. Returns how many trips there were.
 */
export async function removeScoredTrips(trx: Kysely<TripsSchema>, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const buckets = await trx
    .selectFrom('trips')
    .select(['fleet_id', 'start_day', 'tier', (eb) => eb.fn.countAll<number>().as('n')])
    .where('trip_id', 'in', ids)
    .groupBy(['fleet_id', 'start_day', 'tier'])
    .execute();
  if (buckets.length === 0) return 0;
  for (const table of ['trip_breakdowns', 'trip_routes', 'trip_summaries', 'trip_location_deletions'] as const) {
    await trx.deleteFrom(table).where('trip_id', 'in', ids).execute();
  }
  await trx.deleteFrom('trips').where('trip_id', 'in', ids).execute();
  let removed = 0;
  for (const b of buckets) {
    await bumpDayCount(trx, b.fleet_id, Number(b.start_day), b.tier, -Number(b.n));
    removed += Number(b.n);
  }
  return removed;
}

/** Marks the scored trips as changed (see the trips_version migration); returns the new version. */
async function bumpVersion(trx: Kysely<TripsSchema>): Promise<number> {
  const row = await trx
    .updateTable('trips_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(row.version);
}

/**
 * Adds `delta` to a (fleet, day, tier) count and stamps the row with the new data version, so readers
 * holding the counts of an older version fetch just this row (see trip-list.ts). The version row's lock
 * orders concurrent writers, so versions become visible in the order they were taken.
 */
async function bumpDayCount(trx: Kysely<TripsSchema>, fleetId: string, day: number, tier: string, delta: number) {
  const version = await bumpVersion(trx);
  await trx
    .insertInto('trip_day_counts')
    .values({ fleet_id: fleetId, day, tier, trip_count: delta, version })
    .onConflict((oc) =>
      oc.columns(['fleet_id', 'day', 'tier']).doUpdateSet((eb) => ({
        trip_count: eb('trip_day_counts.trip_count', '+', delta),
        version,
      })),
    )
    .execute();
}
