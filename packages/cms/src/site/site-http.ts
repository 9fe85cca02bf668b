/**
 * The public site on Fastify: every GET (and HEAD) path that no other route claims, the site root (via
 * the REST mount's `siteRoot`), and the post-password form's POST.
 */
import { DatabaseUnavailableError } from '@svc/platform';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseQueryString } from '../rest/php.ts';
import { withoutNul } from '../rest/request.ts';
import { POSTPASS_COOKIE, postPasswordHash, type SiteService } from './site-service.ts';

/** Cookies of a request (`name=value; ...`), first value of a name wins. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      out[name] = part.slice(eq + 1).trim();
    }
  }
  return out;
}

/** Serves a site request through the service. */
export function siteHandler(service: SiteService) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return reply.code(405).header('Allow', 'GET, HEAD').type('text/plain; charset=UTF-8').send('Method not allowed');
    }
    const q = req.url.indexOf('?');
    const path = q === -1 ? req.url : req.url.slice(0, q);
    // U+0000 is removed from query values, as the REST API removes it from parameters (PostgreSQL cannot compare
    // with it) and as WordPress's query-var filters do for slugs (sanitize_title_for_query); a path segment that
    // holds one names nothing (the router answers not found, as WordPress matches the encoded path).
    const query = q === -1 ? {} : (withoutNul(parseQueryString(req.url.slice(q + 1))) as Record<string, unknown>);
    const result = await service.handle({ method: req.method, path, query, cookies: parseCookies(req.headers.cookie) });
    reply.code(result.status);
    for (const [name, value] of Object.entries(result.headers)) reply.header(name, value);
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(result.body ?? '');
  };
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' })[c]!);

/**
 * What a site page answers when serving it failed: a short HTML page with the status, never the error's
 * message or stack (Fastify's default body would show the message). A client's error found by Fastify
 * (a form body too large, an unsupported media type) keeps its 4xx status; an unreachable database is a
 * 503 the reader may retry, as WordPress's "Error establishing a database connection" page; anything else
 * is a 500, logged with the request id the page quotes.
 */
export function sendSiteError(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const clientError = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500;
  const status = clientError ? err.statusCode! : err instanceof DatabaseUnavailableError ? 503 : 500;
  if (status >= 500) req.log.error({ err }, 'site request failed');
  const text =
    status === 503
      ? 'The site cannot reach its database just now. Please try again in a moment.'
      : status >= 500
        ? `The site could not answer this request. It was logged with request id ${req.id}.`
        : 'The request could not be understood.';
  const title = status === 503 ? 'Service unavailable' : status >= 500 ? 'Server error' : 'Bad request';
  if (status === 503) reply.header('Retry-After', '30');
  return reply
    .code(status)
    .type('text/html; charset=UTF-8')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store')
    .send(
      `<!DOCTYPE html>\n<html><head><meta charset="UTF-8"><title>${title}</title></head><body><h1>${title}</h1><p>${escapeHtml(text)}</p></body></html>\n`,
    );
}

/** Registers the site's routes (in their own scope, with a form-body parser for the password form). */
export async function registerSiteHttp(app: FastifyInstance, service: SiteService): Promise<void> {
  const handle = siteHandler(service);
  await app.register(async (scope) => {
    scope.setErrorHandler(sendSiteError);
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 64 * 1024 },
      (_req, body, done) => done(null, withoutNul(parseQueryString(String(body)))),
    );
    scope.route({ method: 'GET', url: '/*', handler: handle });
    scope.route({
      method: 'POST',
      url: '/cms-postpass',
      handler: async (req, reply) => {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const settings = await service.settings();
        const password = typeof body.post_password === 'string' ? body.post_password : '';
        const target = typeof body.redirect_to === 'string' ? body.redirect_to : '';
        // Only back to a page of this site: the form must not become an open redirect.
        const location = target.startsWith(`${settings.home}/`) ? target : `${settings.home}/`;
        const secure = settings.home.startsWith('https:') ? '; Secure' : '';
        return reply
          .code(303)
          .header(
            'Set-Cookie',
            `${POSTPASS_COOKIE}=${postPasswordHash(password)}; Path=/; Max-Age=864000; HttpOnly; SameSite=Lax${secure}`,
          )
          .header('Location', location)
          .send();
      },
    });
  });
}
