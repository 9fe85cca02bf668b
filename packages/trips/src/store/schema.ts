import type { ColumnType, Generated } from 'kysely';

/**
 * The trip store's tables as Kysely sees them. Conventions shared by both dialects: times are epoch
 * milliseconds (`*_ms`), booleans are 0/1 integers, JSON is text, binary is a blob/bytea.
 */
export interface TripsSchema {
  trips_meta: MetaTable;
  fleets: FleetsTable;
  vehicles: VehiclesTable;
  drivers: DriversTable;
  api_tokens: ApiTokensTable;
  api_token_fleets: ApiTokenFleetsTable;
  ingest_keys: IngestKeysTable;
  trip_uploads: TripUploadsTable;
  trips: TripsTable;
  split_uploads: SplitUploadsTable;
  trip_day_counts: TripDayCountsTable;
  trip_day_totals: TripDayTotalsTable;
  vehicle_stats: VehicleStatsTable;
  fleet_stats: FleetStatsTable;
  driver_stats: DriverStatsTable;
  trip_summaries: TripSummariesTable;
  trip_breakdowns: TripBreakdownsTable;
  score_catalogues: ScoreCataloguesTable;
  trip_routes: TripRoutesTable;
  trip_location_deletions: TripLocationDeletionsTable;
  rescore_runs: RescoreRunsTable;
  trips_version: TripsVersionTable;
  api_tokens_version: ApiTokensVersionTable;
}

/** One row (id 1): bumped with every change to scored trips, the key of readers' caches. */
export interface TripsVersionTable {
  id: number;
  version: number;
}

/**
 * One row (id 1): bumped by triggers with every change to api_tokens or api_token_fleets, whoever makes
 * it, in the same transaction; the key of the API's token cache (store/api-tokens.ts).
 */
export interface ApiTokensVersionTable {
  id: number;
  version: number;
}

/** Key/value facts about the database itself, e.g. which environment it belongs to. */
export interface MetaTable {
  key: string;
  value: string;
}

export interface FleetsTable {
  fleet_id: string;
  name: string;
  created_at_ms: number;
}

export interface VehiclesTable {
  vehicle_id: string;
  /** Canonical plate (trimmed, upper case); unique in an environment. */
  plate: string;
  fleet_id: string;
  machine_type: string;
  make: string | null;
  model: string | null;
  created_at_ms: number;
}

export interface DriversTable {
  fleet_id: string;
  driver_id: string;
  name: string | null;
  created_at_ms: number;
}

export interface ApiTokensTable {
  token_id: string;
  /** SHA-256 (hex) of the whole token string; the token itself is never stored. */
  token_hash: string;
  /** First characters of the secret part, so an operator can recognise a token in `tokens list`. */
  token_hint: string;
  environment: string;
  owner: string;
  is_admin: number;
  /** Requests per minute; null means the service default. */
  rate_limit_per_min: number | null;
  created_at_ms: number;
  expires_at_ms: number | null;
  revoked_at_ms: number | null;
}

export interface ApiTokenFleetsTable {
  token_id: string;
  fleet_id: string;
}

export interface IngestKeysTable {
  key_id: string;
  key_hash: string;
  key_hint: string;
  environment: string;
  fleet_id: string;
  /** Device keys are bound to one vehicle; connector keys (null) may send for any vehicle of the fleet. */
  vehicle_id: string | null;
  name: string;
  created_at_ms: number;
  revoked_at_ms: number | null;
}

export type UploadStatus = 'queued' | 'scoring' | 'scored' | 'failed';

/**
 * One accepted trip upload: the raw telemetry as received (gzip) and, at the same time, its scoring
 * job. Being one row is what makes "acknowledged" and "queued" the same commit.
 */
export interface TripUploadsTable {
  trip_id: string;
  fleet_id: string;
  vehicle_id: string;
  plate: string;
  driver_id: string | null;
  idempotency_key: string;
  ingest_key_id: string | null;
  /** `ingest` or `import:<file name>`. */
  source: string;
  received_at_ms: number;
  sample_count: number;
  /** Time of the earliest sample: where the trip's fatigue context (earlier driving) is looked up. */
  first_sample_ms: number;
  telemetry_gz: Buffer;
  /** SHA-256 (hex) of the uncompressed telemetry JSON, to prove it is stored whole. */
  telemetry_sha256: string;
  status: UploadStatus;
  attempts: number;
  /** When a queued job may run next; for a job being scored, when its lease expires. */
  next_attempt_at_ms: number;
  lease_owner: string | null;
  last_error: string | null;
  scored_at_ms: number | null;
  /**
   * The model that scored the trip, or that found it unscorable (a failed upload); null while it is queued, and
   * on an upload that failed for another reason (attempts exhausted).
   */
  model_version: string | null;
  /**
   * When the raw telemetry was deleted (retention or a driver's erasure; `telemetry_gz` is then empty and
   * the upload can no longer be scored); null while it is kept. The SHA-256 stays, for duplicate detection.
   */
  telemetry_deleted_at_ms: number | null;
  /**
   * For a trip stored from an upload that held more than one movement (split into drives, or its one drive kept
   * without the short movements; ingest/accept-upload.ts): the trip id of the upload's first drive, which has
   * the `split_uploads` row. Null for an upload stored whole.
   */
  upload_trip_id: string | null;
  /**
   * The rescore run that last rescored (or failed) the trip, written in the same transaction (migration 0017):
   * a run resumed after its process was killed neither scores such a trip again nor counts it twice.
   */
  rescore_run_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/**
 * An upload stored as its drives rather than whole (ingest/accept-upload.ts), beside its first drive's upload
 * row: what a repeat under its key is compared with, and what the answer to it says.
 */
export interface SplitUploadsTable {
  /** The first drive's trip id (the trip stored under the upload's key). */
  trip_id: string;
  /** SHA-256 (hex) of the upload whole, as it would have been stored (the JSON of the validated batch). */
  upload_sha256: string;
  /** The canonical fingerprint of the upload whole (ingest/trip-fingerprint.ts). */
  upload_fingerprint: string;
  /** JSON array of the trip ids of its drives, in time order. */
  trip_ids: string;
  /** JSON array of the short movements left out (SkippedMovement). */
  skipped: string;
}

/** A scored trip, as listed and served by `/v1`. */
export interface TripsTable {
  trip_id: string;
  fleet_id: string;
  vehicle_id: string;
  plate: string;
  driver_id: string | null;
  start_ms: number;
  end_ms: number;
  /** UTC day number of start_ms (start_ms / 86 400 000), the key of trip_day_counts. */
  start_day: number;
  overall_score: number;
  tier: string;
  map_matched: number;
  matched_share: number;
  distance_km: number;
  duration_min: number;
  machine_type: string | null;
  model_version: string;
  scored_at_ms: number;
  theme_speeding: number | null;
  theme_braking: number | null;
  theme_acceleration: number | null;
  theme_cornering: number | null;
  theme_distraction: number | null;
  theme_exposure: number | null;
  weakest_theme: string;
  /**
   * The trip's list item as JSON (see store/trip-item.ts), written with the row; null only on a row
   * written by a version older than migration 0003 while it runs.
   */
  item_json: string | null;
}

/** The scoring engine's TripSummary of a scored trip, as JSON (kept out of the narrow trips rows). */
export interface TripSummariesTable {
  trip_id: string;
  summary_json: string;
}

/** Scored trips per UTC day over every fleet and tier, kept from trip_day_counts by triggers (migration 0006). */
export interface TripDayTotalsTable {
  day: number;
  /** A bigint: PostgreSQL returns it as a string. */
  trip_count: number | string;
  version: number | string;
}

/**
 * Sums of a vehicle's scored trips per UTC day (`span` 1, `bucket` the day number) and per week
 * (`span` 7, `bucket` the day number of its Monday), kept from `trips` by triggers (migration 0008): a
 * window's scores add up a few rows per vehicle instead of every trip (see vehicle-window.ts). Theme
 * columns sum over the trips where the theme was measured. Sums are doubles; counts are bigints
 * (strings on PostgreSQL).
 */
export interface VehicleStatsTable {
  fleet_id: string;
  plate: string;
  span: number;
  bucket: number;
  trip_count: number | string;
  distance_km: number;
  duration_min: number;
  score_x_distance: number;
  score_sum: number;
  speeding_x_distance: number;
  speeding_distance: number;
  speeding_sum: number;
  speeding_count: number | string;
  braking_x_distance: number;
  braking_distance: number;
  braking_sum: number;
  braking_count: number | string;
  acceleration_x_distance: number;
  acceleration_distance: number;
  acceleration_sum: number;
  acceleration_count: number | string;
  cornering_x_distance: number;
  cornering_distance: number;
  cornering_sum: number;
  cornering_count: number | string;
  distraction_x_distance: number;
  distraction_distance: number;
  distraction_sum: number;
  distraction_count: number | string;
  exposure_x_distance: number;
  exposure_distance: number;
  exposure_sum: number;
  exposure_count: number | string;
}

/** Scored trips per fleet, UTC day and tier: totals and deep pages without counting rows. */
export interface TripDayCountsTable {
  fleet_id: string;
  day: number;
  tier: string;
  trip_count: number;
  /** The data version (trips_version) of the last change to this row; 0 for rows older than migration 0004. */
  version: Generated<number>;
}

export interface TripBreakdownsTable {
  trip_id: string;
  catalogue_id: string;
  /** Per-trip values only (see breakdown-codec.ts); labels and weights live in the catalogue. */
  values_json: string;
}

/** The static part of a breakdown (themes, factor keys, labels, units, weights) of one model version. */
export interface ScoreCataloguesTable {
  catalogue_id: string;
  model_version: string;
  body_json: string;
  created_at_ms: number;
}

export interface TripRoutesTable {
  trip_id: string;
  /** The route resource's GeoJSON FeatureCollection, as served. */
  geojson: string;
}

export type LocationDeletionReason = 'retention' | 'driver-erased';

/** A scored trip whose route and telemetry were deleted, while its scores stay (store/location-data.ts). */
export interface TripLocationDeletionsTable {
  trip_id: string;
  deleted_at_ms: number;
  reason: LocationDeletionReason;
}

export interface RescoreRunsTable {
  run_id: Generated<number>;
  started_at_ms: number;
  finished_at_ms: number | null;
  model_version: string;
  /** 1: every trip; 0: only trips scored by another model version (and failed ones). */
  all_trips: number;
  /** Last trip id done, in trip id order; the run resumes after it. */
  cursor: string;
  rescored: number;
  failed: number;
  /** The process working through the run, while it holds it (migration 0012). */
  lease_owner: string | null;
  /** Until when it holds it unless renewed; after that another process may take the run over. */
  lease_until_ms: number | null;
}

/** Per-fleet sums by day and week (migration 0009): the value columns of `vehicle_stats`, without the plate. */
export type FleetStatsTable = Omit<VehicleStatsTable, 'plate'>;

/** Per-driver sums by day and week (migration 0010), trips with a driver only. */
export type DriverStatsTable = FleetStatsTable & { driver_id: string };
