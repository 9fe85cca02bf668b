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
  headers: Record<string, string | string[]>;
  readonly links = new Map<string, RestLink[]>();
  /** The route pattern the request matched, for the `Allow` header. */
  matchedRoute: string | null = null;

  constructor(data: T, status = 200, headers: Record<string, string | string[]> = {}) {
    this.data = data;
    this.status = status;
    this.headers = { ...headers };
  }

  /** Sets (replaces) a header. */
  header(name: string, value: string | number): this {
    this.headers[name] = String(value);
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

  /** The links as they appear in `_links`: `{ rel: [{ ...attributes, href }] }`. */
  linksAsData(): Record<string, Array<Record<string, unknown>>> {
    const out: Record<string, Array<Record<string, unknown>>> = {};
    for (const [rel, items] of this.links) out[rel] = items.map((l) => ({ ...l.attributes, href: l.href }));
    return out;
  }
}

/** rest_ensure_response(): wraps plain data in a 200 response. */
export function ensureResponse(value: unknown): RestResponse {
  return value instanceof RestResponse ? value : new RestResponse(value);
}
