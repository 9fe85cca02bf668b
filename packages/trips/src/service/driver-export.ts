import { gunzipSync } from 'node:zlib';
import { NotFoundError } from '@svc/platform';
import type { Kysely } from 'kysely';
import { tripDetail } from '../api/present.ts';
import { checkDriverId } from '../store/drivers.ts';
import { requireFleet } from '../store/fleets.ts';
import type { TripsSchema } from '../store/schema.ts';
import { findBreakdownBody, findRoute, findTrip, themeLabels } from '../store/trip-reads.ts';

export interface DriverExportResult {
  /** Uploads naming the driver, scored or not: one line each after the driver's. */
  trips: number;
  /** Of those, scored trips. */
  scored: number;
}

/**
 * Everything the store holds about one driver of a fleet, for a subject access request: a first JSON line
 * with the driver's registration, then one line per upload naming them, oldest first, with what the API
 * shows of it (the trip, its score breakdown and its route, as `GET /v1/trips/{id}`, `.../score-breakdown`
 * and `.../route` answer them) and the raw telemetry as it was received, or when those were deleted. JSON
 * Lines, written through `write` one trip at a time, so a driver with thousands of trips is never held in
 * memory at once.
 */
export async function exportDriverData(
  db: Kysely<TripsSchema>,
  input: { fleetId: string; driverId: string; nowMs: number },
  write: (line: string) => Promise<void>,
): Promise<DriverExportResult> {
  checkDriverId(input.driverId);
  await requireFleet(db, input.fleetId);
  const registration = await db
    .selectFrom('drivers')
    .selectAll()
    .where('fleet_id', '=', input.fleetId)
    .where('driver_id', '=', input.driverId)
    .executeTakeFirst();
  const uploads = await db
    .selectFrom('trip_uploads')
    .select(['trip_id'])
    .where('fleet_id', '=', input.fleetId)
    .where('driver_id', '=', input.driverId)
    .orderBy('first_sample_ms')
    .orderBy('trip_id')
    .execute();
  if (!registration && uploads.length === 0) {
    throw new NotFoundError(`driver ${input.driverId} not found in fleet ${input.fleetId}`);
  }
  await write(
    JSON.stringify({
      type: 'driver',
      fleetId: input.fleetId,
      driverId: input.driverId,
      name: registration?.name ?? null,
      registeredAt: registration ? new Date(Number(registration.created_at_ms)).toISOString() : null,
      exportedAt: new Date(input.nowMs).toISOString(),
      trips: uploads.length,
    }),
  );
  const labels = await themeLabels(db);
  const label = (id: string) => labels.get(id) ?? id;
  const fleets = [input.fleetId];
  let scored = 0;
  for (const { trip_id: tripId } of uploads) {
    const upload = await db
      .selectFrom('trip_uploads')
      .select([
        'status',
        'source',
        'received_at_ms',
        'first_sample_ms',
        'last_error',
        'telemetry_gz',
        'telemetry_deleted_at_ms',
      ])
      .where('trip_id', '=', tripId)
      .executeTakeFirstOrThrow();
    const row = await findTrip(db, fleets, tripId);
    if (row) scored++;
    const breakdown = row ? await findBreakdownBody(db, fleets, tripId) : null;
    const route = row ? (await findRoute(db, fleets, tripId)).route : null;
    const telemetryKept = upload.telemetry_deleted_at_ms === null && upload.telemetry_gz.length > 0;
    await write(
      JSON.stringify({
        type: 'trip',
        tripId,
        status: upload.status,
        source: upload.source,
        startedAt: new Date(Number(upload.first_sample_ms)).toISOString(),
        receivedAt: new Date(Number(upload.received_at_ms)).toISOString(),
        ...(upload.status === 'failed' ? { reason: upload.last_error } : {}),
        trip: row ? tripDetail(row, label) : null,
        breakdown: breakdown ? JSON.parse(breakdown.toString('utf8')) : null,
        route: route && 'geojson' in route ? JSON.parse(route.geojson) : null,
        telemetry: telemetryKept ? JSON.parse(gunzipSync(upload.telemetry_gz).toString('utf8')) : null,
        locationDataDeletedAt:
          upload.telemetry_deleted_at_ms === null
            ? null
            : new Date(Number(upload.telemetry_deleted_at_ms)).toISOString(),
      }),
    );
  }
  return { trips: uploads.length, scored };
}
