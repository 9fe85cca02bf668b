/**
 * @svc/edge-sdk: the in-vehicle SDK. Record telemetry as it happens, cut it into trips with the scoring
 * engine's rule, keep it durably in SQLite and deliver each finished trip exactly once to the private
 * ingest endpoint (docs/ingest-protocol.md). See the package README for examples.
 */

export { DEFAULT_RETRY_POLICY, parseRetryAfterMs, type RetryPolicy, retryDelayMs } from './backoff.ts';
export type { Durability, TripState } from './buffer-store.ts';
export { type Clock, systemClock } from './clock.ts';
export {
  type AccelReading,
  type BufferStats,
  EDGE_SDK_VERSION,
  EdgeSdk,
  type EdgeSdkEvent,
  type EdgeSdkOptions,
  type FlushResult,
  type GpsFix,
  type GyroReading,
  type ObdReading,
  type PhoneEvent,
} from './edge-sdk.ts';
export {
  BufferFullError,
  CorruptStorageError,
  EdgeSdkConfigError,
  EdgeSdkStateError,
  type InputErrorCode,
  SampleRejectedError,
} from './errors.ts';
export { type FetchLike, ingestTripsUrl, type ServerTripStatus, type UploadOutcome } from './ingest-client.ts';
export type { RecorderEvent, TripEndReason, WhenFull } from './recorder.ts';
export { type ReplayOptions, type ReplayResult, replayTraces } from './replay.ts';
export { readTelemetryTrace, type TelemetryTrace } from './trace-reader.ts';
export { DEFAULT_TRIP_RULES, type TripRules } from './trip-rules.ts';
export type { TripStatus } from './trip-status.ts';
export type { UploaderEvent } from './uploader.ts';
export { validateSample } from './validate-sample.ts';
