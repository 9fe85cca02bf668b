import { createHash } from 'node:crypto';
import { AddressPolicy } from './address-policy.ts';
import { MemoryOEmbedCache, type OEmbedCache } from './cache.ts';
import { findDiscoveryLink } from './discovery.ts';
import { dataToHtml, filterUntrustedEmbed, type OEmbedData } from './embed-html.ts';
import { FetchRefusedError } from './errors.ts';
import { defaultProviders, findProvider, type OEmbedProvider } from './providers.ts';
import { safeFetch } from './safe-fetch.ts';
import { parseOEmbedXml } from './xml.ts';

/** Parameters of a proxied oEmbed lookup (the `/oembed/1.0/proxy` arguments). */
export interface ProxyRequest {
  url: string;
  maxwidth?: number;
  maxheight?: number;
  discover?: boolean;
  format?: 'json' | 'xml';
}

/** Settings of {@link OEmbedProxy}. */
export interface OEmbedProxyOptions {
  /** Which addresses remote requests may reach; private and loopback networks are refused by default. */
  policy?: AddressPolicy;
  providers?: readonly OEmbedProvider[];
  cache?: OEmbedCache;
  /** How long a successful lookup is cached (WordPress: one day). */
  ttlS?: number;
  /** Time allowed per remote exchange, redirects included. */
  timeoutMs?: number;
  /** Largest provider response accepted. */
  maxBytes?: number;
  /** How much of a page is read when looking for a discovery link (WordPress: 150 KB). */
  discoveryMaxBytes?: number;
  /** Answers for this site's own URLs without a network round trip. */
  local?: (url: string, size: { width: number; height: number }) => Promise<OEmbedData | undefined>;
  /** DNS resolution (replaceable in tests). */
  resolve?: (host: string) => Promise<string[]>;
}

/** Width WordPress assumes when a theme sets no `$content_width` (`wp_embed_defaults`). */
const DEFAULT_CONTENT_WIDTH = 500;

/**
 * The oEmbed proxy behind `/oembed/1.0/proxy`: finds the provider for a URL (the sanctioned list, else
 * discovery on the page when allowed), fetches the provider's JSON (XML when JSON is not implemented),
 * builds the embed HTML, and caches the result. Every remote request goes through the SSRF-safe fetcher.
 */
export class OEmbedProxy {
  readonly policy: AddressPolicy;
  readonly providers: readonly OEmbedProvider[];
  readonly #cache: OEmbedCache;
  readonly #ttlS: number;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #discoveryMaxBytes: number;
  readonly #local: OEmbedProxyOptions['local'];
  readonly #resolve: OEmbedProxyOptions['resolve'];

  constructor(options: OEmbedProxyOptions = {}) {
    this.policy = options.policy ?? new AddressPolicy();
    this.providers = options.providers ?? defaultProviders();
    this.#cache = options.cache ?? new MemoryOEmbedCache();
    this.#ttlS = options.ttlS ?? 86_400;
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#maxBytes = options.maxBytes ?? 1024 * 1024;
    this.#discoveryMaxBytes = options.discoveryMaxBytes ?? 150 * 1024;
    this.#local = options.local;
    this.#resolve = options.resolve;
  }

  /**
   * The oEmbed data for a URL with its `html` (false when no HTML could be made, as WordPress sends it), or
   * undefined when no provider answered.
   */
  async lookup(request: ProxyRequest): Promise<OEmbedData | undefined> {
    const key = `oembed_${createHash('md5')
      .update(JSON.stringify(cacheKeyParts(request)))
      .digest('hex')}`;
    const cached = await this.#cache.get(key);
    if (cached && typeof cached === 'object') return cached as OEmbedData;

    const width = request.maxwidth ?? 600;
    const height = request.maxheight ?? Math.min(Math.ceil(DEFAULT_CONTENT_WIDTH * 1.5), 1000);

    if (this.#local) {
      const local = await this.#local(request.url, { width, height });
      if (local) return local;
    }

    let endpoint = findProvider(request.url, this.providers);
    const trusted = endpoint !== undefined;
    if (!endpoint && request.discover !== false) endpoint = await this.discover(request.url);
    if (!endpoint) return undefined;

    const data = await this.fetchProvider(endpoint, request.url, width, height);
    if (!data) return undefined;

    let html = dataToHtml(data, request.url);
    if (html !== undefined && !trusted && (data.type === 'rich' || data.type === 'video')) {
      html = filterUntrustedEmbed(html, typeof data.title === 'string' ? data.title : undefined);
    }
    const result: OEmbedData = { ...data, html: html ?? false };
    await this.#cache.set(key, result, this.#ttlS);
    return result;
  }

  /** `WP_oEmbed::discover()`: the provider endpoint advertised by the page, if any. */
  async discover(url: string): Promise<string | undefined> {
    try {
      const page = await safeFetch(url, {
        policy: this.policy,
        maxBytes: this.#discoveryMaxBytes,
        oversize: 'truncate',
        timeoutMs: this.#timeoutMs,
        resolve: this.#resolve,
        headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' },
      });
      if (page.status < 200 || page.status >= 300) return undefined;
      const link = findDiscoveryLink(page.body.toString('utf8'));
      return link ? new URL(link.href, page.url).toString() : undefined;
    } catch (error) {
      if (error instanceof FetchRefusedError) return undefined;
      throw error;
    }
  }

  /** `WP_oEmbed::fetch()`: asks the provider in JSON, in XML when it answers 501 Not Implemented. */
  async fetchProvider(endpoint: string, url: string, width: number, height: number): Promise<OEmbedData | undefined> {
    for (const format of ['json', 'xml'] as const) {
      let target: URL;
      try {
        target = new URL(endpoint);
      } catch {
        return undefined;
      }
      target.searchParams.set('maxwidth', String(Math.trunc(width)));
      target.searchParams.set('maxheight', String(Math.trunc(height)));
      target.searchParams.set('url', url);
      target.searchParams.set('dnt', '1');
      target.searchParams.set('format', format);
      let response: Awaited<ReturnType<typeof safeFetch>>;
      try {
        response = await safeFetch(target.toString(), {
          policy: this.policy,
          maxBytes: this.#maxBytes,
          timeoutMs: this.#timeoutMs,
          resolve: this.#resolve,
        });
      } catch (error) {
        if (error instanceof FetchRefusedError) return undefined;
        throw error;
      }
      if (response.status === 501) continue;
      if (response.status < 200 || response.status >= 300 || response.body.byteLength === 0) return undefined;
      const text = response.body.toString('utf8');
      if (format === 'json') {
        try {
          const parsed: unknown = JSON.parse(text.trim());
          return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as OEmbedData) : undefined;
        } catch {
          return undefined;
        }
      }
      return parseOEmbedXml(text);
    }
    return undefined;
  }
}

/** The request arguments that identify a cached answer (WordPress hashes all of them). */
function cacheKeyParts(request: ProxyRequest): unknown[] {
  return [
    request.url,
    request.maxwidth ?? 600,
    request.maxheight ?? null,
    request.discover !== false,
    request.format ?? 'json',
  ];
}
