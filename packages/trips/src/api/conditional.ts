import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Conditional GETs of a stored trip's resources (the trip, its breakdown, its route): a weak entity tag
 * from what the body is made of, `Cache-Control: private, no-cache` (clients keep the body and revalidate
 * it; shared caches keep nothing, the bodies being one token's view), and 304 Not Modified for an
 * `If-None-Match` that matches. A trip's stored result changes only when it is scored again, which
 * writes a new `scored_at_ms`, so the tag is known from the row before any body is built and a
 * revalidation costs a lookup, not a body. Written here rather than with @fastify/etag, which hashes
 * every response body after it is built (a route's GeoJSON is often hundreds of KB).
 */

/**
 * A weak entity tag (RFC 9110 8.8.3) of one representation: its kind, the trip, the trip's scoring time
 * and a digest of `extra` (anything else the body depends on). Unique across trips, not only per URL.
 */
export function tripEntityTag(
  kind: 'trip' | 'breakdown' | 'route',
  tripId: string,
  scoredAtMs: number | string,
  extra = '',
): string {
  const suffix = extra === '' ? '' : `-${createHash('sha256').update(extra).digest('base64url').slice(0, 12)}`;
  return `W/"${kind}-${tripId}-${Number(scoredAtMs).toString(36)}${suffix}"`;
}

/** The opaque part of an entity tag, for the weak comparison If-None-Match uses (`W/` ignored). */
function opaque(tag: string): string {
  const t = tag.trim();
  return t.startsWith('W/') ? t.slice(2) : t;
}

/** Whether the request's If-None-Match (a list of tags, or `*`) matches `etag` by weak comparison. */
export function ifNoneMatch(req: FastifyRequest, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (typeof header !== 'string' || header === '') return false;
  if (header.trim() === '*') return true;
  const wanted = opaque(etag);
  // Tags are quoted strings that cannot hold a comma or quote, so splitting on commas is exact.
  return header.split(',').some((tag) => opaque(tag) === wanted);
}

/**
 * Sets the validator headers; answers 304 without a body and returns true when the client's copy is
 * current, so the handler can stop before building the body.
 */
export function conditional(req: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag);
  reply.header('cache-control', 'private, no-cache');
  if (!ifNoneMatch(req, etag)) return false;
  void reply.code(304).send();
  return true;
}
