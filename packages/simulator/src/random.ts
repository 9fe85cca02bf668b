/**
 * Seeded pseudo-random numbers. Every random choice in the simulator comes from an `Rng` derived from the caller's
 * seed and a label naming its purpose, so one behaviour (say phone use) draws from its own stream and changing it
 * never shifts the numbers another behaviour sees. No `Math.random`, no clock: same seed, same bytes.
 */

/** A seed as given by callers: any integer or string. */
export type Seed = number | string;

/** 128-bit string hash (cyrb128) used to turn a seed key into generator state. */
function hash128(key: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < key.length; i++) {
    const k = key.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** A small, fast generator (sfc32) with the distributions the simulator needs. */
export class Rng {
  /** The key this generator was derived from; `fork` appends to it. */
  readonly key: string;
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | null = null;

  private constructor(key: string) {
    this.key = key;
    [this.a, this.b, this.c, this.d] = hash128(key);
    // Discard the first outputs: sfc32 state from a hash needs a few rounds to mix.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** A generator for `seed` and a purpose path, e.g. `Rng.from(7, 'trip', 3, 'gps')`. */
  static from(seed: Seed, ...labels: Array<string | number>): Rng {
    if (typeof seed === 'number' && !Number.isFinite(seed)) throw new TypeError(`seed must be finite (got ${seed})`);
    return new Rng([String(seed), ...labels.map(String)].join('/'));
  }

  /** An independent generator for a sub-purpose; does not advance this one. */
  fork(...labels: Array<string | number>): Rng {
    return new Rng([this.key, ...labels.map(String)].join('/'));
  }

  /** Next unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal (Box-Muller, both values used). */
  normal(): number {
    if (this.spareNormal !== null) {
      const spare = this.spareNormal;
      this.spareNormal = null;
      return spare;
    }
    let u = this.next();
    while (u <= Number.EPSILON) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Normal with the given mean and standard deviation. */
  gaussian(mean: number, sd: number): number {
    return mean + sd * this.normal();
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    let u = this.next();
    while (u <= Number.EPSILON) u = this.next();
    return -Math.log(u) * mean;
  }

  /** Log-normal with the given median and log-space standard deviation. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One element chosen with the given non-negative weights. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    if (items.length === 0 || total <= 0) throw new RangeError('weighted pick needs items with positive weight');
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i]!;
      if (r < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }
}
