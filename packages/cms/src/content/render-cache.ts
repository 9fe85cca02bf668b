/**
 * Rendered titles, contents and excerpts are cached per post version: rendering (blocks, typography,
 * paragraphs) is the costliest part of a post response, and a post's rendering only changes when the
 * post does (its `version` is bumped by every write) or when the site's rendering settings change
 * (they are part of the key). Each node keeps its own cache, so several nodes stay correct.
 */
import type { Post } from './post.ts';
import type { BlockRenderState, ContentRenderer } from './render/index.ts';

/**
 * A bounded map: when full, the oldest entries go first. (Reads do not refresh an entry: an entry is
 * keyed by a post version, so a popular post's entry is simply made again after eviction.)
 */
export class LruCache<V> {
  readonly #max: number;
  readonly #map = new Map<string, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string): V | undefined {
    return this.#map.get(key);
  }

  set(key: string, value: V): void {
    this.#map.set(key, value);
    if (this.#map.size > this.#max) {
      const oldest = this.#map.keys().next().value;
      if (oldest !== undefined) this.#map.delete(oldest);
    }
  }

  get size(): number {
    return this.#map.size;
  }

  clear(): void {
    this.#map.clear();
  }
}

/** A rendered text and how many unique ids (layout containers, galleries) rendering it took. */
interface Rendered {
  text: string;
  ids: number;
}

/**
 * A renderer that remembers its output per post version. Block rendering numbers layout containers from the
 * response's counter (WordPress's wp_unique_id()), so the same post renders differently after other posts of
 * the same response: the counter at the start is part of the key, and a hit moves the counter on as rendering
 * would have. (Before, a post first rendered third in a feed kept that feed's numbers on its own page.)
 */
export class CachedRenderer {
  readonly inner: ContentRenderer;
  readonly #cache: LruCache<Rendered>;
  /** Part of every key: what else the output depends on (smilies on/off, site URL). */
  readonly #flavour: string;

  constructor(inner: ContentRenderer, flavour: string, maxEntries = 20_000) {
    this.inner = inner;
    this.#flavour = flavour;
    this.#cache = new LruCache(maxEntries);
  }

  #memo(post: Post, kind: string, render: () => string, state?: BlockRenderState): string {
    // Posts without an id (previews) are never cached.
    if (!post.id) return render();
    const start = state?.containerCounter ?? 0;
    const key = `${post.id}:${post.version}:${kind}:${this.#flavour}:${start}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      if (state) state.containerCounter += cached.ids;
      return cached.text;
    }
    const text = render();
    this.#cache.set(key, { text, ids: (state?.containerCounter ?? 0) - start });
    return text;
  }

  title(post: Post): string {
    return this.#memo(post, `t${post.status === 'private' ? 'p' : ''}`, () => this.inner.title(post));
  }

  content(post: Post, state?: BlockRenderState): string {
    return this.#memo(post, 'c', () => this.inner.content(post.content, state), state);
  }

  excerpt(post: Post, excerptLength?: number, state?: BlockRenderState): string {
    return this.#memo(post, `e${excerptLength ?? ''}`, () => this.inner.excerpt(post, excerptLength, state), state);
  }
}
