import {
  MACHINE_TYPES,
  PHONE_EVENT_TYPES,
  type Sample,
  TELEMETRY_SCHEMA_VERSION,
  type TelemetryBatch,
} from './telemetry.ts';

/** One problem found in a batch: the sample index (null for batch-level fields), the field and why. */
export interface TelemetryIssue {
  index: number | null;
  field: string;
  message: string;
}

export type ValidationResult =
  | { ok: true; batch: TelemetryBatch }
  | { ok: false; errors: TelemetryIssue[]; truncated: boolean };

export interface ValidateOptions {
  /** Stop collecting after this many issues (default 50); `truncated` says when more exist. */
  maxErrors?: number;
  /** Longest span a batch may cover, ms (default 7 days). */
  maxSpanMs?: number;
  /** How far a stream may step back in time and still be sorted (default 60 s; buffers flush out of order). */
  maxBackstepMs?: number;
}

// Epoch milliseconds between 2000-01-01 and 2100-01-01: anything else is a unit or clock error.
const MIN_TIME_MS = 946_684_800_000;
const MAX_TIME_MS = 4_102_444_800_000;
const SECONDS_LOOKALIKE_MAX = 100_000_000_000;
// Accelerometers on phones and dongles saturate at 16 g; a larger value is corrupt, not a crash.
const MAX_ACCEL_MPS2 = 200;
const MAX_GYRO_RADS = 50;
const MAX_GPS_SPEED_MPS = 150;
const MAX_OBD_SPEED_KMH = 400;
const MAX_RPM = 20_000;
const MAX_ACCURACY_M = 100_000;

const SAMPLE_TYPES = new Set(['gps', 'accel', 'gyro', 'phone', 'obd']);
const PHONE_EVENTS = new Set<string>(PHONE_EVENT_TYPES);
const MACHINES = new Set<string>(MACHINE_TYPES);
const META_STRINGS = ['clientTripId', 'deviceId', 'vehicle', 'driverId'] as const;

class IssueList {
  readonly items: TelemetryIssue[] = [];
  truncated = false;
  constructor(private readonly max: number) {}
  add(index: number | null, field: string, message: string): void {
    if (this.items.length >= this.max) {
      this.truncated = true;
      return;
    }
    const where = index === null ? field : `samples[${index}].${field}`;
    this.items.push({ index, field, message: `${where} ${message}` });
  }
  get full(): boolean {
    return this.items.length >= this.max;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks an optional or required number field against its range, reporting what is wrong. */
function checkNumber(
  issues: IssueList,
  index: number,
  sample: Record<string, unknown>,
  field: string,
  required: boolean,
  min: number,
  max: number,
  unit: string,
): void {
  const value = sample[field];
  if (value === undefined) {
    if (required) issues.add(index, field, 'is required');
    return;
  }
  if (typeof value !== 'number') {
    issues.add(index, field, `must be a number${unit ? ` in ${unit}` : ''} (got ${describe(value)})`);
    return;
  }
  if (!Number.isFinite(value)) {
    issues.add(index, field, `must be a finite number (got ${describe(value)})`);
    return;
  }
  if (value < min || value > max) {
    issues.add(index, field, `must be between ${min} and ${max}${unit ? ` ${unit}` : ''} (got ${value})`);
  }
}

function checkTime(issues: IssueList, index: number, sample: Record<string, unknown>): number | null {
  const t = sample.t;
  if (t === undefined) {
    issues.add(index, 't', 'is required (epoch milliseconds)');
    return null;
  }
  if (typeof t !== 'number' || !Number.isFinite(t)) {
    issues.add(index, 't', `must be a finite number of epoch milliseconds (got ${describe(t)})`);
    return null;
  }
  if (t > 0 && t < SECONDS_LOOKALIKE_MAX) {
    issues.add(index, 't', `looks like seconds or a relative time (got ${t}); it must be epoch milliseconds`);
    return null;
  }
  if (t < MIN_TIME_MS || t > MAX_TIME_MS) {
    issues.add(index, 't', `must be epoch milliseconds between 2000 and 2100 (got ${t})`);
    return null;
  }
  return t;
}

function checkSample(issues: IssueList, index: number, raw: unknown): { type: string; t: number } | null {
  if (!isRecord(raw)) {
    issues.add(index, 'type', `must be an object (got ${describe(raw)})`);
    return null;
  }
  const type = raw.type;
  if (typeof type !== 'string' || !SAMPLE_TYPES.has(type)) {
    issues.add(index, 'type', `must be one of gps, accel, gyro, phone, obd (got ${describe(type)})`);
    return null;
  }
  const t = checkTime(issues, index, raw);
  switch (type) {
    case 'gps':
      checkNumber(issues, index, raw, 'lon', true, -180, 180, 'degrees');
      checkNumber(issues, index, raw, 'lat', true, -90, 90, 'degrees');
      checkNumber(issues, index, raw, 'speedMps', false, 0, MAX_GPS_SPEED_MPS, 'm/s');
      checkNumber(issues, index, raw, 'headingDeg', false, 0, 360, 'degrees');
      checkNumber(issues, index, raw, 'accuracyM', false, 0, MAX_ACCURACY_M, 'm');
      checkNumber(issues, index, raw, 'altitudeM', false, -1000, 20_000, 'm');
      break;
    case 'accel':
      for (const axis of ['x', 'y', 'z'])
        checkNumber(issues, index, raw, axis, true, -MAX_ACCEL_MPS2, MAX_ACCEL_MPS2, 'm/s^2');
      break;
    case 'gyro':
      for (const axis of ['x', 'y', 'z'])
        checkNumber(issues, index, raw, axis, true, -MAX_GYRO_RADS, MAX_GYRO_RADS, 'rad/s');
      break;
    case 'phone': {
      const event = raw.event;
      if (typeof event !== 'string' || !PHONE_EVENTS.has(event)) {
        issues.add(index, 'event', `must be one of ${PHONE_EVENT_TYPES.join(', ')} (got ${describe(event)})`);
      }
      if (raw.handsFree !== undefined && typeof raw.handsFree !== 'boolean') {
        issues.add(index, 'handsFree', `must be a boolean (got ${describe(raw.handsFree)})`);
      }
      break;
    }
    case 'obd':
      checkNumber(issues, index, raw, 'speedKmh', false, 0, MAX_OBD_SPEED_KMH, 'km/h');
      checkNumber(issues, index, raw, 'rpm', false, 0, MAX_RPM, 'rpm');
      checkNumber(issues, index, raw, 'throttlePct', false, 0, 100, '%');
      if (raw.speedKmh === undefined && raw.rpm === undefined && raw.throttlePct === undefined) {
        issues.add(index, 'speedKmh', 'is missing: an obd sample needs at least one of speedKmh, rpm, throttlePct');
      }
      break;
  }
  return t === null ? null : { type, t };
}

function checkMeta(issues: IssueList, batch: Record<string, unknown>): void {
  if (batch.schemaVersion !== undefined && batch.schemaVersion !== TELEMETRY_SCHEMA_VERSION) {
    issues.add(null, 'schemaVersion', `must be ${TELEMETRY_SCHEMA_VERSION} (got ${describe(batch.schemaVersion)})`);
  }
  for (const field of META_STRINGS) {
    const value = batch[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length === 0 || value.length > 200) {
      issues.add(null, field, `must be a non-empty string of at most 200 characters (got ${describe(value)})`);
    }
  }
  if (batch.machineType !== undefined && (typeof batch.machineType !== 'string' || !MACHINES.has(batch.machineType))) {
    issues.add(null, 'machineType', `must be one of ${MACHINE_TYPES.join(', ')} (got ${describe(batch.machineType)})`);
  }
  if (batch.imuFrame !== undefined && batch.imuFrame !== 'vehicle' && batch.imuFrame !== 'device') {
    issues.add(null, 'imuFrame', `must be "vehicle" or "device" (got ${describe(batch.imuFrame)})`);
  }
  if (batch.phoneMonitored !== undefined && typeof batch.phoneMonitored !== 'boolean') {
    issues.add(null, 'phoneMonitored', `must be a boolean (got ${describe(batch.phoneMonitored)})`);
  }
  if (batch.timeZone !== undefined) {
    if (typeof batch.timeZone !== 'string' || !isValidTimeZone(batch.timeZone)) {
      issues.add(
        null,
        'timeZone',
        `must be an IANA time zone such as "Europe/Berlin" (got ${describe(batch.timeZone)})`,
      );
    }
  }
}

/** True when `zone` is an IANA time zone the runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates an uploaded telemetry batch: names the sample index and field of every problem (up to
 * `maxErrors`). On success returns the batch with its samples in time order (stable; streams may be
 * interleaved or flushed slightly out of order, which is not an error).
 */
export function validateTelemetry(batch: unknown, options: ValidateOptions = {}): ValidationResult {
  const issues = new IssueList(options.maxErrors ?? 50);
  const maxSpanMs = options.maxSpanMs ?? 7 * 24 * 3_600_000;
  const maxBackstepMs = options.maxBackstepMs ?? 60_000;
  if (!isRecord(batch)) {
    issues.add(null, 'batch', `must be an object with a samples array (got ${describe(batch)})`);
    return { ok: false, errors: issues.items, truncated: false };
  }
  checkMeta(issues, batch);
  const samples = batch.samples;
  if (!Array.isArray(samples)) {
    issues.add(null, 'samples', `must be an array of samples (got ${describe(samples)})`);
    return { ok: false, errors: issues.items, truncated: issues.truncated };
  }
  if (samples.length === 0) {
    issues.add(null, 'samples', 'is empty: a batch needs at least one gps sample');
    return { ok: false, errors: issues.items, truncated: issues.truncated };
  }
  // Running maximum time per stream: a small step back is a flush-order artefact and sorts fine; a large
  // one is a clock reset, and sorting would splice unrelated driving together.
  const streamMax = new Map<string, { t: number; index: number }>();
  let minT = Number.POSITIVE_INFINITY;
  let maxT = Number.NEGATIVE_INFINITY;
  let sorted = true;
  let previousT = Number.NEGATIVE_INFINITY;
  let gpsCount = 0;
  for (let i = 0; i < samples.length; i++) {
    if (issues.full) {
      issues.truncated = true;
      break;
    }
    const checked = checkSample(issues, i, samples[i]);
    if (checked === null) continue;
    const { type, t } = checked;
    if (type === 'gps') gpsCount++;
    if (t < previousT) sorted = false;
    previousT = t;
    if (t < minT) minT = t;
    if (t > maxT) maxT = t;
    const stream = type;
    const seen = streamMax.get(stream);
    if (seen === undefined || t > seen.t) {
      streamMax.set(stream, { t, index: i });
    } else if (seen.t - t > maxBackstepMs) {
      issues.add(
        i,
        't',
        `goes back ${Math.round((seen.t - t) / 1000)} s behind ${stream} sample ${seen.index} (clock reset?); ` +
          `a stream may step back at most ${Math.round(maxBackstepMs / 1000)} s`,
      );
    }
  }
  if (issues.items.length === 0 && gpsCount === 0) {
    issues.add(null, 'samples', 'has no gps sample: a trip needs positions');
  }
  if (issues.items.length === 0 && maxT - minT > maxSpanMs) {
    issues.add(
      null,
      'samples',
      `span ${((maxT - minT) / 3_600_000).toFixed(1)} h, more than the ${(maxSpanMs / 3_600_000).toFixed(0)} h a batch may cover`,
    );
  }
  if (issues.items.length > 0) return { ok: false, errors: issues.items, truncated: issues.truncated };
  const typed = samples as Sample[];
  const ordered = sorted ? typed : sortSamples(typed);
  return {
    ok: true,
    batch: { ...(batch as unknown as TelemetryBatch), schemaVersion: TELEMETRY_SCHEMA_VERSION, samples: ordered },
  };
}

/** Returns the samples in time order; stable, so same-time samples keep their upload order. */
export function sortSamples(samples: readonly Sample[]): Sample[] {
  const order = new Uint32Array(samples.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  const sortedOrder = Array.from(order).sort((a, b) => samples[a]!.t - samples[b]!.t || a - b);
  return sortedOrder.map((i) => samples[i]!);
}
