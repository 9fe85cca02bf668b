/**
 * Binds a RestServer to Fastify: every method under `/cms-json` (the pretty-permalink form) and the
 * `?rest_route=/...` form on the site root, with bodies taken raw so the kernel can apply WordPress's
 * JSON/form rules itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseQueryString } from './php.ts';
import type { HttpOutput, RestServer } from './server.ts';

export interface MountOptions {
  /** The API prefix, `/cms-json` by default. */
  prefix?: string;
  /** Also answer `/?rest_route=...` and `/index.php?rest_route=...` (default true). */
  restRouteQuery?: boolean;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Registers the REST routes on `app` (in an encapsulated scope with raw-body parsing). */
export async function mountRestApi(
  app: FastifyInstance,
  server: RestServer,
  options: MountOptions = {},
): Promise<void> {
  const prefix = options.prefix ?? '/cms-json';
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const [pathPart = '', queryPart = ''] = splitUrl(req.url);
      const query = parseQueryString(queryPart);
      let route: string;
      if (pathPart === prefix || pathPart.startsWith(`${prefix}/`)) {
        route = safeDecode(pathPart.slice(prefix.length)) || '/';
      } else {
        route = typeof query.rest_route === 'string' && query.rest_route !== '' ? query.rest_route : '/';
        delete query.rest_route;
      }
      const body = typeof req.body === 'string' ? req.body : '';
      const contentType = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      const bodyParams =
        req.method === 'POST' && contentType === 'application/x-www-form-urlencoded'
          ? parseQueryString(body)
          : undefined;
      const out = await server.serve({
        method: req.method,
        route,
        query,
        headers: req.headers,
        body,
        ...(bodyParams ? { bodyParams } : {}),
        remoteAddress: req.ip,
      });
      return send(reply, out);
    };
    scope.route({ method: [...METHODS], url: prefix, handler });
    scope.route({ method: [...METHODS], url: `${prefix}/*`, handler });
    if (options.restRouteQuery !== false) {
      const rootHandler = async (req: FastifyRequest, reply: FastifyReply) => {
        const [, queryPart = ''] = splitUrl(req.url);
        const query = parseQueryString(queryPart);
        if (typeof query.rest_route !== 'string') {
          // The site root without rest_route: advertise the API like WordPress's front end does.
          const root = await server.apiRoot();
          return reply
            .code(200)
            .header('Link', `<${root}>; rel="https://api.w.org/"`)
            .type('text/html; charset=UTF-8')
            .send('<!doctype html><title>CMS</title><p>The REST API is at <a href="/cms-json/">/cms-json/</a>.</p>');
        }
        return handler(req, reply);
      };
      scope.route({ method: [...METHODS], url: '/', handler: rootHandler });
      scope.route({ method: [...METHODS], url: '/index.php', handler: rootHandler });
    }
  });
}

function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  return q === -1 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)];
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function send(reply: FastifyReply, out: HttpOutput): FastifyReply {
  reply.code(out.status);
  for (const [name, value] of Object.entries(out.headers)) reply.header(name, value);
  return reply.send(out.body ?? '');
}
