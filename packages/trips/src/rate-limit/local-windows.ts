/** One key's fixed window: how many requests it counted and when it ends (epoch ms). */
interface Window {
  count: number;
  endsAtMs: number;
}

/** What a rate-limit store answers @fastify/rate-limit: the count so far and the ms left in the window. */
export interface WindowCount {
  current: number;
  ttl: number;
}

/**
 * Fixed-window counters kept in this process, used while Redis cannot be asked. Bounded: past `maxKeys` the key
 * used least recently is dropped (a dropped key starts its window again, which errs on the side of serving).
 */
export class LocalWindows {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly maxKeys = 10_000) {}

  /** Counts one request under `key`, starting a window of `windowMs` when none is running. */
  incr(key: string, windowMs: number, nowMs: number): WindowCount {
    let window = this.windows.get(key);
    if (!window || window.endsAtMs <= nowMs) {
      window = { count: 1, endsAtMs: nowMs + windowMs };
    } else {
      window.count++;
    }
    this.touch(key, window);
    return { current: window.count, ttl: window.endsAtMs - nowMs };
  }

  /**
   * Remembers what Redis answered for `key`, so that a fallback in the middle of a window goes on from the
   * shared count this node last saw instead of from zero (which would give every token a fresh budget on
   * every node at each Redis failure).
   */
  remember(key: string, count: number, ttlMs: number, nowMs: number): void {
    if (!(ttlMs > 0)) return;
    const window = this.windows.get(key);
    if (window) {
      window.count = count;
      window.endsAtMs = nowMs + ttlMs;
      this.touch(key, window);
    } else {
      this.touch(key, { count, endsAtMs: nowMs + ttlMs });
    }
  }

  /** Moves `key` to the most recently used end (a Map keeps insertion order) and drops the oldest past the cap. */
  private touch(key: string, window: Window): void {
    this.windows.delete(key);
    this.windows.set(key, window);
    if (this.windows.size > this.maxKeys) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
  }
}
