/** Where proxied oEmbed responses are kept between requests (WordPress: transients). */
export interface OEmbedCache {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, value: unknown, ttlS: number): Promise<void>;
}

/** An in-process cache bounded in entries; the oldest entry is evicted first. */
export class MemoryOEmbedCache implements OEmbedCache {
  readonly #entries = new Map<string, { value: unknown; expiresAtMs: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  async get(key: string): Promise<unknown | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: unknown, ttlS: number): Promise<void> {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAtMs: this.#now() + ttlS * 1000 });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /** Number of live and expired entries held (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }
}
