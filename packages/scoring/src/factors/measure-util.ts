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
