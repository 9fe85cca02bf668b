/**
 * Link relations are WordPress's (`https://api.w.org/term`, ...): clients such as wpapi and api-fetch
 * look for that relation namespace, so it is kept; only the curie's name follows the brand (`cms:`).
 */
export const CURIE_PREFIX = 'https://api.w.org/';
export const CURIE_NAME = 'cms';

/** One link of a response's `_links`, with attributes such as `embeddable` or `taxonomy`. */
export interface RestLink {
  href: string;
  attributes: Record<string, unknown>;
}

/**
 * A REST response, like WP_REST_Response: data, status, headers and links. Links are kept apart from the
 * data and merged in as `_links` when the response is serialised (so `_embed` can follow them).
 */
export class RestResponse<T = unknown> {
  data: T;
  status: number;
  /** Header values as set: a number stays a number in `_envelope` and batch bodies, as in WordPress. */
  headers: Record<string, string | number | string[]>;
  readonly links = new Map<string, RestLink[]>();
  /** The route pattern the request matched, for the `Allow` header. */
  matchedRoute: string | null = null;
  /**
   * A body served as is instead of JSON (what WordPress's `rest_pre_serve_request` filter does for the
   * oEmbed XML format).
   */
  raw: { contentType: string; body: string } | undefined = undefined;

  constructor(data: T, status = 200, headers: Record<string, string | number | string[]> = {}) {
    this.data = data;
    this.status = status;
    this.headers = { ...headers };
  }

  /** Sets (replaces) a header. */
  header(name: string, value: string | number): this {
    this.headers[name] = value;
    return this;
  }

  /** Appends a `Link` header value (`<href>; rel="next"`), comma-joined as WordPress does. */
  linkHeader(rel: string, href: string): this {
    const value = `<${href}>; rel="${rel}"`;
    const existing = this.headers.Link;
    this.headers.Link = existing === undefined ? value : `${existing}, ${value}`;
    return this;
  }

  /** Adds a link relation (`add_link`). */
  addLink(rel: string, href: string, attributes: Record<string, unknown> = {}): this {
    const list = this.links.get(rel) ?? [];
    list.push({ href, attributes });
    this.links.set(rel, list);
    return this;
  }

  /** Adds several relations at once, as returned by a controller's prepareLinks. */
  addLinks(links: Record<string, Array<{ href: string } & Record<string, unknown>>>): this {
    for (const [rel, items] of Object.entries(links)) {
      for (const { href, ...attributes } of items) this.addLink(rel, href, attributes);
    }
    return this;
  }

  /**
   * The links as they appear in `_links` (get_compact_response_links): `{ rel: [{ ...attributes, href }] }`,
   * with relations under `https://api.w.org/` shortened to the `cms:` curie and a `curies` entry added.
   */
  linksAsData(): Record<string, Array<Record<string, unknown>>> {
    const out: Record<string, Array<Record<string, unknown>>> = {};
    let usedCurie = false;
    for (const [rel, items] of this.links) {
      let name = rel;
      if (rel.startsWith(CURIE_PREFIX) && rel.length > CURIE_PREFIX.length) {
        name = `${CURIE_NAME}:${rel.slice(CURIE_PREFIX.length)}`;
        usedCurie = true;
      }
      out[name] = items.map((l) => ({ ...l.attributes, href: l.href }));
    }
    if (usedCurie) out.curies = [{ name: CURIE_NAME, href: `${CURIE_PREFIX}{rel}`, templated: true }];
    return out;
  }
}

/** rest_ensure_response(): wraps plain data in a 200 response. */
export function ensureResponse(value: unknown): RestResponse {
  return value instanceof RestResponse ? value : new RestResponse(value);
}
