import type { FoundEvent } from '../events/found-event.ts';
import type { PhoneUseAnalysis } from '../events/phone-use.ts';
import type { SpeedingAnalysis } from '../events/speeding.ts';
import type { Need } from '../factors/catalogue.ts';
import type { ImuSeries } from '../imu/imu-series.ts';
import type { PhoneTimeline } from '../phone/phone-state.ts';
import type { RoadContext } from '../roads/road-context.ts';
import type { MachineType, ObdSample } from '../telemetry.ts';
import { MOVING_KMH } from '../thresholds.ts';
import type { Track } from '../track/track.ts';

/** Driving before this trip that matters for fatigue (from the driver's earlier trips). */
export interface DrivingContext {
  /** Minutes driven in the current stint (since the last break of 15 min or more) before this trip. */
  priorStintMin: number;
  /** Minutes driven earlier the same local day. */
  priorDayDrivingMin: number;
}

/** A stop: the vehicle below 5 km/h for 3 s or more after moving. */
export interface Stop {
  /** First grid second below 5 km/h. */
  second: number;
}

/** Everything the factor measures read: the prepared trip. */
export interface TripData {
  track: Track;
  imu: ImuSeries | null;
  road: RoadContext;
  phone: PhoneTimeline;
  speeding: SpeedingAnalysis;
  phoneUse: PhoneUseAnalysis;
  events: FoundEvent[];
  ids: Map<FoundEvent, string>;
  localHour: Float64Array;
  weekday: Uint8Array;
  /** Sun elevation per grid second, degrees. */
  sunElevationDeg: Float64Array;
  obd: ObdSample[];
  machineType: MachineType | undefined;
  context: DrivingContext;
  speedKmh: Float64Array;
  /** 1 where speed >= MOVING_KMH and the second is not inside a broken stretch. */
  moving: Uint8Array;
  movingS: number;
  /** Cumulative distance at each grid second, metres. */
  cumM: Float64Array;
  distanceM: number;
  stops: Stop[];
  sensors: Record<Need, boolean>;
  /** Derived series several factors share, computed once on first use (see `memo`). */
  memo: Map<string, unknown>;
}

/** Computes a derived value once per trip. */
export function memo<T>(d: TripData, key: string, compute: () => T): T {
  let value = d.memo.get(key) as T | undefined;
  if (value === undefined) {
    value = compute();
    d.memo.set(key, value);
  }
  return value;
}

/** Ids of the events of given types (optionally filtered). */
export function eventIdsOf(
  d: TripData,
  types: readonly string[],
  keep: (e: FoundEvent) => boolean = () => true,
): string[] {
  const out: string[] = [];
  for (const e of d.events) if (types.includes(e.event.type) && keep(e)) out.push(d.ids.get(e)!);
  return out;
}

/** Events of a type, in time order. */
export function eventsOf(d: TripData, type: string): FoundEvent[] {
  return d.events.filter((e) => e.event.type === type);
}

const STOP_KMH = 5;
const STOP_MIN_S = 3;
const STOP_AFTER_KMH = 10;

/** Speed in km/h, moving mask, cumulative distance and stops of a track. */
export function motionOf(
  track: Track,
): Pick<TripData, 'speedKmh' | 'moving' | 'movingS' | 'cumM' | 'distanceM' | 'stops'> {
  const n = track.n;
  const speedKmh = new Float64Array(n);
  const moving = new Uint8Array(n);
  const cumM = new Float64Array(n);
  let movingS = 0;
  for (let i = 0; i < n; i++) {
    const v = track.speedMps[i]! * 3.6;
    speedKmh[i] = v;
    if (v >= MOVING_KMH && !track.broken[i]) {
      moving[i] = 1;
      movingS++;
    }
    cumM[i] = (i > 0 ? cumM[i - 1]! : 0) + (i > 0 ? track.stepM[i]! : 0);
  }
  const stops: Stop[] = [];
  let armed = false;
  for (let i = 0; i < n; i++) {
    const v = speedKmh[i]!;
    if (v >= STOP_AFTER_KMH) armed = true;
    if (!armed || !(v < STOP_KMH)) continue;
    let k = i;
    while (k < n && speedKmh[k]! < STOP_KMH) k++;
    if (k - i >= STOP_MIN_S || k === n) {
      stops.push({ second: i });
      armed = false;
    }
    i = k - 1;
  }
  return { speedKmh, moving, movingS, cumM, distanceM: n > 0 ? cumM[n - 1]! : 0, stops };
}
