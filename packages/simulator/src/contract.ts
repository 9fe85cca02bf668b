/** The telemetry contract (owned by `@svc/scoring`), re-exported from one place for the rest of the package. */
export type {
  AccelSample,
  GpsSample,
  GyroSample,
  MachineType,
  ObdSample,
  PhoneEventType,
  PhoneSample,
  Sample,
  TelemetryBatch,
  TelemetryMeta,
} from '@svc/scoring';
export { MACHINE_TYPES, TELEMETRY_SCHEMA_VERSION } from '@svc/scoring';
