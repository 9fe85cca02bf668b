import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { AddressPolicy } from './address-policy.ts';
import { FetchRefusedError } from './errors.ts';

/** Limits of one {@link safeFetch}. */
export interface SafeFetchOptions {
  policy: AddressPolicy;
  /** Largest body accepted, in bytes (after decompression). */
  maxBytes?: number;
  /** What to do with a larger body: fail (default) or keep its first `maxBytes` bytes. */
  oversize?: 'error' | 'truncate';
  /** Time allowed for the whole exchange, redirects included. */
  timeoutMs?: number;
  /** Redirects followed at most (each one checked like the first URL). */
  maxRedirects?: number;
  headers?: Record<string, string>;
  /** Resolves a host name to addresses; the system resolver by default (replaceable in tests). */
  resolve?: (host: string) => Promise<string[]>;
}

/** A completed response. */
export interface SafeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL finally fetched, after redirects. */
  url: string;
}

async function systemResolve(host: string): Promise<string[]> {
  const results = await dnsLookup(host, { all: true, verbatim: true });
  return results.map((r) => r.address);
}

/**
 * Checks a URL and picks the address to connect to: http or https only, no credentials, an allowed port,
 * and a host whose every resolved address is allowed by the policy (one bad address is enough to refuse:
 * the system might pick it). The returned address is the one the connection is pinned to, so DNS cannot
 * answer differently between check and use.
 */
export async function checkUrl(
  raw: string,
  policy: AddressPolicy,
  resolve: (host: string) => Promise<string[]> = systemResolve,
): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new FetchRefusedError('invalid_url', `Not a URL: ${raw}`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError('scheme', `Only http and https URLs may be fetched (${url.protocol}).`);
  }
  if (url.username || url.password) throw new FetchRefusedError('credentials', 'URLs with credentials are refused.');
  if (url.port !== '' && !policy.isPortAllowed(Number(url.port))) {
    throw new FetchRefusedError('port', `Port ${url.port} is not allowed.`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') throw new FetchRefusedError('invalid_url', 'The URL has no host.');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new FetchRefusedError('dns', `The host ${host} could not be resolved.`, { cause: error });
    }
  }
  if (addresses.length === 0) throw new FetchRefusedError('dns', `The host ${host} has no address.`);
  for (const address of addresses) {
    if (!policy.isAddressAllowed(address)) {
      throw new FetchRefusedError('address', `The host ${host} resolves to a forbidden address (${address}).`);
    }
  }
  const address = addresses[0] as string;
  return { url, address, family: isIP(address) === 6 ? 6 : 4 };
}

/**
 * GET with protection against server-side request forgery: every URL (the first and each redirect target)
 * passes {@link checkUrl}, the socket connects to the checked address only, and the exchange is bounded in
 * time and size. Never throws for an HTTP error status; throws {@link FetchRefusedError} for refusals,
 * timeouts and oversized bodies.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  let current = rawUrl;
  for (let hop = 0; ; hop += 1) {
    const target = await checkUrl(current, options.policy, options.resolve);
    const response = await requestOnce(target, options.headers ?? {}, maxBytes, options.oversize ?? 'error', deadline);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location) {
      if (hop >= maxRedirects) throw new FetchRefusedError('redirects', `Too many redirects fetching ${rawUrl}.`);
      current = new URL(location, target.url).toString();
      continue;
    }
    return { ...response, url: target.url.toString() };
  }
}

function requestOnce(
  target: { url: URL; address: string; family: 4 | 6 },
  headers: Record<string, string>,
  maxBytes: number,
  oversize: 'error' | 'truncate',
  deadline: number,
): Promise<Omit<SafeResponse, 'url'>> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new FetchRefusedError('timeout', `Timed out fetching ${target.url}.`));
  // Pin the connection: whatever name the client library asks about, answer with the checked address.
  const lookup: LookupFunction = (_hostname, opts, callback) => {
    if (typeof opts === 'object' && opts?.all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const request = client.request(
      target.url,
      {
        method: 'GET',
        lookup,
        headers: {
          'user-agent': 'cms-oembed/1.0',
          accept: 'application/json, text/xml;q=0.9, text/html;q=0.8, */*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
          ...headers,
        },
        agent: false,
      },
      (response) => {
        const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
        const declared = Number(response.headers['content-length']);
        if (oversize === 'error' && !encoding && Number.isFinite(declared) && declared > maxBytes) {
          fail(new FetchRefusedError('too_large', `The response from ${target.url} is too large.`));
          return;
        }
        const stream =
          encoding === 'gzip' || encoding === 'x-gzip'
            ? response.pipe(createGunzip())
            : encoding === 'deflate'
              ? response.pipe(createInflate())
              : encoding === 'br'
                ? response.pipe(createBrotliDecompress())
                : response;
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          request.destroy();
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
        };
        stream.on('data', (chunk: Buffer) => {
          if (settled) return;
          if (size + chunk.length > maxBytes) {
            if (oversize === 'truncate') {
              chunks.push(chunk.subarray(0, maxBytes - size));
              size = maxBytes;
              finish();
              return;
            }
            fail(new FetchRefusedError('too_large', `The response from ${target.url} is too large.`));
            return;
          }
          size += chunk.length;
          chunks.push(chunk);
        });
        stream.on('error', (error) => fail(new FetchRefusedError('network', String(error), { cause: error })));
        stream.on('end', finish);
      },
    );
    const timer = setTimeout(
      () => fail(new FetchRefusedError('timeout', `Timed out fetching ${target.url}.`)),
      remaining,
    );
    request.on('error', (error) => fail(new FetchRefusedError('network', error.message, { cause: error })));
    request.end();
  });
}
