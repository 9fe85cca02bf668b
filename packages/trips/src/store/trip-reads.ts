import { arg, runShape } from '@svc/platform';
import { type Kysely, sql } from 'kysely';
import { breakdownBytes, type Catalogue } from '../scoring/breakdown-codec.ts';
import { TOKENS_VERSION_COLUMN } from './api-tokens.ts';
import type { LocationDeletionReason, TripsSchema } from './schema.ts';

/** Catalogues never change once written (their id is a content hash), so they are cached for good. */
const catalogueCache = new Map<string, Catalogue>();

async function catalogue(db: Kysely<TripsSchema>, catalogueId: string): Promise<Catalogue | null> {
  const cached = catalogueCache.get(catalogueId);
  if (cached) return cached;
  const row = await db
    .selectFrom('score_catalogues')
    .select('body_json')
    .where('catalogue_id', '=', catalogueId)
    .executeTakeFirst();
  if (!row) return null;
  const parsed = JSON.parse(row.body_json) as Catalogue;
  if (catalogueCache.size > 1000) catalogueCache.clear();
  catalogueCache.set(catalogueId, parsed);
  return parsed;
}

/**
 * One scored trip with every stored field, if it is in one of `fleets`, and the id of the newest catalogue (whose
 * theme labels the trip's resource shows; see themeLabelsOf). One statement compiled once per number of fleets:
 * building and compiling the Kysely query cost more than running it, and the newest catalogue was a statement of
 * its own (on PostgreSQL a round trip).
 */
export async function findTrip(db: Kysely<TripsSchema>, fleets: readonly string[], tripId: string) {
  if (fleets.length === 0) return undefined;
  const [row] = await runShape(
    db,
    `trip-detail:${fleets.length}`,
    () =>
      db
        .selectFrom('trips')
        .innerJoin('trip_summaries', 'trip_summaries.trip_id', 'trips.trip_id')
        .leftJoin('trip_location_deletions', 'trip_location_deletions.trip_id', 'trips.trip_id')
        .selectAll('trips')
        .select((eb) => [
          'trip_summaries.summary_json',
          'trip_location_deletions.deleted_at_ms as locations_deleted_at_ms',
          'trip_location_deletions.reason as locations_deleted_reason',
          eb
            .selectFrom('score_catalogues')
            .select('catalogue_id')
            .orderBy('created_at_ms', 'desc')
            .limit(sql.lit(1))
            .as('newest_catalogue_id'),
          // The tokens' version in this read's snapshot (api/auth.ts, confirmScope).
          TOKENS_VERSION_COLUMN.as('token_version'),
        ])
        .where('trips.trip_id', '=', arg(0))
        .where(
          'trips.fleet_id',
          'in',
          fleets.map((_, i) => arg(1 + i)),
        ),
    [tripId, ...fleets],
  );
  return row;
}

/**
 * The score breakdown of a trip in one of `fleets` as UTF-8 JSON between `before` and `after` (the
 * response envelope), or null. One statement reads the trip's columns and, by correlated subqueries, its
 * stored values: on SQLite that took 20 µs against 32 µs for the same lookups written as a join (random
 * trips of the 1,000,000-trip bench store, bench/read-timings.ts).
 */
export async function findBreakdownBody(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  tripId: string,
  before = '',
  after = '',
): Promise<Buffer | null> {
  if (fleets.length === 0) return null;
  const row = await findBreakdownRow(db, fleets, tripId);
  return row ? breakdownBody(db, row, tripId, before, after) : null;
}

/**
 * The body of a breakdown row (findBreakdownRow) between `before` and `after`, or null for a trip row
 * without a breakdown: they are written in one transaction, and a join would not return it either.
 */
export async function breakdownBody(
  db: Kysely<TripsSchema>,
  row: NonNullable<Awaited<ReturnType<typeof findBreakdownRow>>>,
  tripId: string,
  before = '',
  after = '',
): Promise<Buffer | null> {
  if (row.catalogue_id === null || row.values_json === null) return null;
  const cat = await catalogue(db, row.catalogue_id);
  if (!cat) throw new Error(`score catalogue ${row.catalogue_id} of ${tripId} is missing`);
  return breakdownBytes(
    cat,
    row.values_json,
    {
      tripId,
      overallScore: row.overall_score,
      mapMatched: row.map_matched === 1,
      weakestTheme: row.weakest_theme,
    },
    before,
    after,
  );
}

/**
 * The statement behind findBreakdownBody: a trip in one of `fleets` (non-empty) with its score columns and,
 * by correlated subqueries, its stored breakdown values.
 */
export async function findBreakdownRow(db: Kysely<TripsSchema>, fleets: readonly string[], tripId: string) {
  const [row] = await runShape(
    db,
    `breakdown:${fleets.length}`,
    () =>
      db
        .selectFrom('trips')
        .select((eb) => [
          'trips.overall_score',
          'trips.map_matched',
          'trips.weakest_theme',
          'trips.scored_at_ms',
          eb
            .selectFrom('trip_breakdowns')
            .select('trip_breakdowns.catalogue_id')
            .whereRef('trip_breakdowns.trip_id', '=', 'trips.trip_id')
            .as('catalogue_id'),
          eb
            .selectFrom('trip_breakdowns')
            .select('trip_breakdowns.values_json')
            .whereRef('trip_breakdowns.trip_id', '=', 'trips.trip_id')
            .as('values_json'),
          TOKENS_VERSION_COLUMN.as('token_version'),
        ])
        .where('trips.trip_id', '=', arg(0))
        .where(
          'trips.fleet_id',
          'in',
          fleets.map((_, i) => arg(i + 1)),
        ),
    [tripId, ...fleets],
  );
  return row;
}

/** Why a trip has no route any more (store/location-data.ts). */
export interface LocationDeletion {
  atMs: number;
  reason: LocationDeletionReason;
}

/**
 * The stored route GeoJSON of a trip in one of `fleets` and when the trip was scored; or, for a trip whose
 * location data was deleted, when and why; or null when no such trip is in reach. With it, the tokens' version
 * this read saw (api/auth.ts, confirmScope), when it found the trip.
 */
export async function findRoute(
  db: Kysely<TripsSchema>,
  fleets: readonly string[],
  tripId: string,
): Promise<{
  route: { geojson: string; scoredAtMs: number } | { deleted: LocationDeletion } | null;
  tokenVersion?: number;
}> {
  if (fleets.length === 0) return { route: null };
  const row = await db
    .selectFrom('trips')
    .leftJoin('trip_routes', 'trip_routes.trip_id', 'trips.trip_id')
    .leftJoin('trip_location_deletions', 'trip_location_deletions.trip_id', 'trips.trip_id')
    .select([
      'trip_routes.geojson',
      'trips.scored_at_ms',
      'trip_location_deletions.deleted_at_ms',
      'trip_location_deletions.reason',
      TOKENS_VERSION_COLUMN.as('token_version'),
    ])
    .where('trips.trip_id', '=', tripId)
    .where('trips.fleet_id', 'in', fleets)
    .executeTakeFirst();
  if (!row) return { route: null };
  const tokenVersion = Number(row.token_version);
  if (row.geojson !== null) {
    return { route: { geojson: row.geojson, scoredAtMs: Number(row.scored_at_ms) }, tokenVersion };
  }
  if (row.deleted_at_ms !== null && row.reason !== null) {
    return { route: { deleted: { atMs: Number(row.deleted_at_ms), reason: row.reason } }, tokenVersion };
  }
  // Written in one transaction with the trip: a trip row without either is not served as a route.
  return { route: null, tokenVersion };
}

/** Labels of the six themes from the newest catalogue (they belong to the scoring model). */
export async function themeLabels(db: Kysely<TripsSchema>): Promise<Map<string, string>> {
  const [row] = await runShape(
    db,
    'newest-catalogue',
    () => db.selectFrom('score_catalogues').select('catalogue_id').orderBy('created_at_ms', 'desc').limit(sql.lit(1)),
    [],
  );
  return themeLabelsOf(db, row?.catalogue_id ?? null);
}

/** Labels of the six themes from one catalogue (none for null or an unknown id). */
export async function themeLabelsOf(db: Kysely<TripsSchema>, catalogueId: string | null): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  if (catalogueId === null) return labels;
  const cat = await catalogue(db, catalogueId);
  for (const t of cat?.themes ?? []) labels.set(t.id, t.label);
  return labels;
}
