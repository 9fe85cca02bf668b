import { imuBinsPerSecond } from '../imu/imu-series.ts';
import { memo, type TripData } from '../score/trip-data.ts';

/** A factor's raw value with the events behind it, or why it could not be computed. */
export type Measurement = { value: number; eventIds?: string[] } | { unavailable: string };

export type Measurer = (d: TripData) => Measurement;

/**
 * Rates use at least 10 km and 15 min of driving as denominator: one event on a 2 km trip is weak
 * evidence, and should not read as 50 per 100 km. The floor keeps rates monotone in the event count.
 */
export const MIN_RATE_DISTANCE_KM = 10;
export const MIN_RATE_HOURS = 0.25;

export function per100km(d: TripData, count: number): number {
  return per100kmOf(d.distanceM, count);
}

/**
 * A rate per 100 km of the distance on which the events could happen at all: speeding needs a known limit,
 * so a trip's stretches without one are not compliant kilometres.
 */
export function per100kmOf(distanceM: number, count: number): number {
  return (count / Math.max(distanceM / 1000, MIN_RATE_DISTANCE_KM)) * 100;
}

export function perHour(d: TripData, amount: number): number {
  return amount / Math.max(d.movingS / 3600, MIN_RATE_HOURS);
}

export function sharePct(part: number, whole: number): number {
  return whole > 0 ? (100 * part) / whole : 0;
}

/** A growable list of numbers in a typed array: the percentile factors collect tens of thousands. */
export class Values {
  private data = new Float64Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** The live values (a view; valid until the next push). */
  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Rearranges a so that a[k] is the k-th smallest (Hoare's selection, expected linear time). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const tmp = a[i]!;
        a[i] = a[j]!;
        a[j] = tmp;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}

/** The p-th percentile (0-100) of values, by linear interpolation between ranks; 0 for no values. */
export function percentile(values: ArrayLike<number> | Values, p: number): number {
  const n = values.length;
  if (n === 0) return 0;
  const a = values instanceof Values ? values.view() : Float64Array.from(values);
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const low = select(a, lo);
  if (lo + 1 >= n || rank === lo) return low;
  // The next order statistic is the smallest value above position lo after selection.
  let high = Number.POSITIVE_INFINITY;
  for (let i = lo + 1; i < n; i++) if (a[i]! < high) high = a[i]!;
  return low + (high - low) * (rank - lo);
}

export function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return values.length > 0 ? s / values.length : 0;
}

/** The grid second of IMU bin k (bins 10 i .. 10 i + 9 belong to second i). */
export function secondOfBin(k: number): number {
  return Math.floor(k / 10);
}

/**
 * Longitudinal acceleration per grid second, m/s^2: the IMU's 1 s mean when it is usable, else the GPS
 * (or OBD) speed's central difference. NaN where unknown.
 */
export function accelPerSecond(d: TripData): Float64Array {
  return memo(d, 'accelPerSecond', () => computeAccelPerSecond(d));
}

function computeAccelPerSecond(d: TripData): Float64Array {
  const n = d.track.n;
  if (!d.imu?.available) return d.track.accelMps2;
  const out = new Float64Array(n).fill(Number.NaN);
  const long = d.imu.longMps2;
  for (let i = 0; i < n; i++) {
    let s = 0;
    let c = 0;
    for (let k = i * 10; k < i * 10 + 10; k++) {
      const v = long[k]!;
      if (Number.isNaN(v)) continue;
      s += v;
      c++;
    }
    out[i] = c >= 5 ? s / c : d.track.accelMps2[i]!;
  }
  return out;
}

export type ImuAxis = 'long' | 'lat' | 'yaw';

/**
 * How many of each grid second's ten IMU bins have data on an axis; all 0 without a usable IMU (without a
 * usable gyroscope for 'yaw'). A second with fewer than five is not covered by the IMU (`imuCoveredSeconds`,
 * the same rule the harsh events use): the stream stopped, a mount segment was not aligned, or the phone
 * was being handled there.
 */
export function imuBins(d: TripData, axis: ImuAxis): Uint8Array {
  return memo(d, `imuBins:${axis}`, () => {
    const imu = d.imu;
    const usable = axis === 'yaw' ? imu?.gyroAvailable : imu?.available;
    if (!imu || !usable) return new Uint8Array(d.track.n);
    const values = axis === 'long' ? imu.longMps2 : axis === 'lat' ? imu.latMps2 : imu.yawRateDps;
    return imuBinsPerSecond(values, d.track.n);
  });
}

/** Whether grid second i is covered by the IMU on an axis (at least half of its bins have data). */
export function imuCovers(bins: Uint8Array, i: number): boolean {
  return bins[i]! >= 5;
}

/**
 * The peak of a GPS (or OBD) series over the moving seconds the IMU does not cover on an axis (0 if none):
 * the IMU-based peak factors take the larger of this and their IMU peak, so a hard manoeuvre during an IMU
 * silence is not lost. A maximum cannot be pulled down by a source that reads a little low: GPS values are
 * means over 1-2 s, about level with the IMU's sustained 0.3-0.5 s peaks for braking and acceleration
 * (GPS-only / IMU peak on the simulated population: median 1.01 and 1.02) and some 9 % under them for
 * cornering (median 0.91), so no scaling (which would also scale GPS noise). Exactly the IMU peak when
 * the IMU covers every second.
 */
export function gpsPeakWhereImuSilent(d: TripData, axis: ImuAxis, gps: (i: number) => number): number {
  const bins = imuBins(d, axis);
  let peak = 0;
  for (let i = 0; i < d.track.n; i++) {
    if (imuCovers(bins, i) || !d.moving[i]) continue;
    const v = gps(i);
    if (v > peak) peak = v;
  }
  return peak;
}

/**
 * Adds GPS (or OBD) values to an IMU percentile for the seconds the IMU does not cover on an axis, each
 * such second weighing as much as a covered one: its GPS value stands in for the bins that have no data
 * (10 minus the few it has), so the percentile stays one taken over moving time. `gps(i)` returns NaN
 * where the second does not qualify (not moving, too slow, no GPS value); nothing is added when the IMU
 * covers every second.
 */
export function addGpsWhereImuSilent(values: Values, d: TripData, axis: ImuAxis, gps: (i: number) => number): void {
  const bins = imuBins(d, axis);
  // Without a usable IMU every second is GPS and weighs the same anyway: one value each, as before.
  const imuUsable = axis === 'yaw' ? d.imu?.gyroAvailable === true : d.imu?.available === true;
  for (let i = 0; i < d.track.n; i++) {
    if (imuCovers(bins, i)) continue;
    const v = gps(i);
    if (!Number.isFinite(v)) continue;
    if (!imuUsable) values.push(v);
    else for (let c = bins[i]!; c < 10; c++) values.push(v);
  }
}

/**
 * Distance the IMU covers on an axis, metres: the trip's distance less that of the seconds it does not
 * cover. The IMU-only rate factors (combined g, swerving, accelerating in curves, braking in turns) count
 * events only the IMU can see, so a silent stretch is not event-free driving: like speeding per km with a
 * known limit, they are rates per 100 km the IMU watched. Exactly the trip's distance with full coverage.
 */
export function imuCoveredDistanceM(d: TripData, axis: ImuAxis): number {
  return memo(d, `imuCoveredDistanceM:${axis}`, () => {
    const bins = imuBins(d, axis);
    let silentM = 0;
    for (let i = 1; i < d.track.n; i++) if (!imuCovers(bins, i)) silentM += d.track.stepM[i]!;
    return silentM > 0 ? Math.max(0, d.distanceM - silentM) : d.distanceM;
  });
}

/** Largest value held for `bins` consecutive IMU bins (the minimum of the window), over moving bins. */
export function sustainedPeak(
  values: Float32Array | Float64Array,
  d: TripData,
  bins: number,
  sign: 1 | -1 | 0,
): number {
  let best = 0;
  for (let k = 0; k + bins <= values.length; k++) {
    // The window's minimum is at most its first value: most windows are skipped without a look inside.
    const first = sign === 0 ? Math.abs(values[k]!) : sign * values[k]!;
    if (!(first > best) || !d.moving[secondOfBin(k)]) continue;
    let m = Number.POSITIVE_INFINITY;
    for (let j = k; j < k + bins; j++) {
      const raw = values[j]!;
      const v = sign === 0 ? Math.abs(raw) : sign * raw;
      if (Number.isNaN(v)) {
        m = Number.NaN;
        break;
      }
      if (v < m) m = v;
    }
    if (m > best) best = m;
  }
  return best;
}

/** Episodes where `test(k)` holds for at least `minBins` consecutive bins, separated by `gapBins`. */
export function countBinEpisodes(n: number, test: (k: number) => boolean, minBins: number, gapBins: number): number {
  let count = 0;
  let run = 0;
  let lastEnd = -Infinity;
  for (let k = 0; k <= n; k++) {
    if (k < n && test(k)) {
      run++;
      continue;
    }
    if (run >= minBins) {
      if (k - run - lastEnd > gapBins) count++;
      lastEnd = k;
    }
    run = 0;
  }
  return count;
}

/** Whether grid second i is within `radiusM` metres (along the track) of any of the given seconds. */
export function nearSeconds(d: TripData, seconds: readonly number[], radiusBeforeM: number, radiusAfterM: number) {
  const mark = new Uint8Array(d.track.n);
  for (const s of seconds) {
    const at = d.cumM[s]!;
    for (let i = s; i >= 0 && at - d.cumM[i]! <= radiusBeforeM; i--) mark[i] = 1;
    for (let i = s; i < d.track.n && d.cumM[i]! - at <= radiusAfterM; i++) mark[i] = 1;
  }
  return mark;
}

/**
 * Severity-weighted count: an event counts 0 at `lo`, 1 at `hi` and linearly between, so a severity tier
 * does not make the score jump when a peak moves from just under to just over its nominal threshold
 * (the midpoint). Events with weight above 0 are returned as the ones behind the factor.
 */
export function softCount(d: TripData, type: string, lo: number, hi: number): { count: number; eventIds: string[] } {
  let count = 0;
  const eventIds: string[] = [];
  for (const e of d.events) {
    if (e.event.type !== type) continue;
    const w = Math.max(0, Math.min(1, (e.event.value - lo) / (hi - lo)));
    if (w <= 0) continue;
    count += w;
    eventIds.push(d.ids.get(e)!);
  }
  return { count, eventIds };
}
