/**
 * The JSON of prepared REST items of posts, kept per process and reused across requests. A key holds
 * everything the item is built from: the post's id and `version` (read with the row; the database bumps
 * it on every change of the row, its meta or its terms — migration 0054), a scope for what the request
 * shares with all its items (route, context, API root, settings, excerpt length, the user's action
 * links) and the per-item facts that depend on other rows or on the user (stickiness, revisions,
 * ancestors, password access, private links, the generated slug). A changed input is a new key, so an
 * entry is never stale, only unused; old entries age out.
 */

/** A map bounded by the total length of its strings; when over, the oldest entries go first. */
export class ItemJsonCache {
  readonly #maxChars: number;
  readonly #map = new Map<string, string>();
  #chars = 0;
  readonly #scopes = new Map<string, number>();

  constructor(maxChars = 24_000_000) {
    this.#maxChars = maxChars;
  }

  get(key: string): string | undefined {
    return this.#map.get(key);
  }

  set(key: string, json: string): void {
    const previous = this.#map.get(key);
    if (previous !== undefined) {
      this.#chars -= previous.length;
      this.#map.delete(key);
    }
    this.#map.set(key, json);
    this.#chars += json.length;
    while (this.#chars > this.#maxChars && this.#map.size > 0) {
      const oldest = this.#map.entries().next().value;
      if (!oldest) break;
      this.#map.delete(oldest[0]);
      this.#chars -= oldest[1].length;
    }
  }

  /** A short number standing for a (long) scope string, so item keys stay small. */
  scopeId(scope: string): number {
    let id = this.#scopes.get(scope);
    if (id === undefined) {
      // Scopes change only with settings, users' rights and parameters: a few in practice.
      if (this.#scopes.size >= 1000) {
        this.#scopes.clear();
        this.clear();
      }
      id = this.#scopes.size + 1;
      this.#scopes.set(scope, id);
    }
    return id;
  }

  get size(): number {
    return this.#map.size;
  }

  clear(): void {
    this.#map.clear();
    this.#chars = 0;
  }
}
