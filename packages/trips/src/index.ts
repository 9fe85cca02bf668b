/**
 * @svc/trips: the trip-scoring service. Public read API (`buildApiApp`), private ingest endpoint
 * (`buildIngestApp`, docs/ingest-protocol.md), scoring pipeline (`ScoringWorker`, `rescore`), the
 * store and its operations (also used by the admin CLI `npx trips`), and `startEnvironment`, which runs
 * one environment (API + ingest + worker) as `npm start` and `trips serve` do.
 */
export { ApiError } from './api/api-error.ts';
export { type ApiAppOptions, buildApiApp, DEFAULT_RATE_LIMIT_PER_MIN } from './api/build-api-app.ts';
export { OPENAPI_FILE, openApiText } from './api/openapi-document.ts';
export {
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  PAGE_DEFAULT,
  WINDOW_DAYS_DEFAULT,
} from './api/query-params.ts';
export { environmentOfSecret, generateSecret, hashSecret } from './auth/secrets.ts';
export { type TripsConfig, tripsConfigSpec } from './config.ts';
export { type FileSummary, importFile, readImportFile } from './connectors/import-files.ts';
export { ENVIRONMENTS, type Environment, parseEnvironment } from './environment.ts';
export { ForbiddenError, InvalidInputError, UnauthenticatedError } from './errors.ts';
export {
  type AcceptedUpload,
  acceptUpload,
  IDEMPOTENCY_KEY_PATTERN,
  type UploadSender,
} from './ingest/accept-upload.ts';
export { buildIngestApp, type IngestAppOptions } from './ingest/build-ingest-app.ts';
export { retryDelayMs, ScoringWorker, type ScoringWorkerOptions } from './ingest/scoring-worker.ts';
export { prepareSandbox, type SandboxSetup } from './sandbox/seed-sandbox.ts';
export { type RescoreResult, rescore } from './scoring/rescore.ts';
export { createThreadPoolScorer } from './scoring/thread-pool-scorer.ts';
export { TIERS, tierOf } from './scoring/tiers.ts';
export {
  isPermanentScoringError,
  type PreviousTrip,
  type ScoringInput,
  type TripScorer,
  UnscorableTripError,
} from './scoring/trip-scorer.ts';
export {
  databaseOptionsFor,
  openEnvironmentDatabase,
  type RunningEnvironment,
  startEnvironment,
} from './service/environment-service.ts';
export { ensureRoadGraph } from './service/road-graph.ts';
export {
  type ApiTokenInfo,
  authenticateApiToken,
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from './store/api-tokens.ts';
export { createDriver, listDrivers } from './store/drivers.ts';
export { createFleet, listFleets } from './store/fleets.ts';
export { createIngestKey, type IngestKeyInfo, listIngestKeys, revokeIngestKey } from './store/ingest-keys.ts';
export { claimJobs, queueCounts, requeue } from './store/job-queue.ts';
export { TRIPS_MIGRATION_TABLE, tripsMigrations } from './store/migrations.ts';
export {
  EnvironmentMismatchError,
  type OpenTripsDatabaseOptions,
  openTripsDatabase,
  type TripsDatabase,
} from './store/open-trips-database.ts';
export type { TripsSchema } from './store/schema.ts';
export { createVehicle, listVehicles, VEHICLE_MACHINE_TYPES } from './store/vehicles.ts';
