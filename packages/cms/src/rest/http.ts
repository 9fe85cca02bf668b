/**
 * Binds a RestServer to Fastify: every method under `/cms-json` (the pretty-permalink form) and the
 * `?rest_route=/...` form on the site root, with bodies taken raw so the kernel can apply WordPress's
 * JSON/form rules itself.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RestError } from './errors.ts';
import { parseQueryString } from './php.ts';
import type { UploadedFile } from './request.ts';
import type { HttpOutput, RestServer } from './server.ts';

export interface MountOptions {
  /** The API prefix, `/cms-json` by default. */
  prefix?: string;
  /** Also answer `/?rest_route=...` and `/index.php?rest_route=...` (default true). */
  restRouteQuery?: boolean;
  /** Largest request body (uploads included), in bytes; DEFAULT_MAX_BODY_BYTES by default. */
  maxBodyBytes?: number;
  /** Answers `/` and `/index.php` without `rest_route` (the public site's front page). */
  siteRoot?: (req: FastifyRequest, reply: FastifyReply) => unknown;
}

/** Multipart fields as a query string, so PHP's `name[key]` array syntax applies as in `$_POST`. */
function fieldsToParams(fields: Array<[string, string]>): Record<string, unknown> {
  return parseQueryString(fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The body cap when none is given, and the least one the app sets (a larger upload limit raises it). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * A body Fastify or the multipart reader could not take, as the REST error a client reads: WordPress clients
 * look for `code` and `message`, which Fastify's own error body lacks, and a broken body is the client's error.
 */
function bodyError(err: unknown, maxBodyBytes: number): RestError {
  const { statusCode, code, message } = err as { statusCode?: number; code?: string; message?: string };
  if (statusCode === 413) {
    const tooLarge = code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_REQ_FILE_TOO_LARGE';
    const mb = Math.round((maxBodyBytes / (1024 * 1024)) * 10) / 10;
    return new RestError(
      'rest_request_too_large',
      tooLarge
        ? `The request is larger than the ${mb} MB this site accepts.`
        : 'The request has more files or fields than this site accepts.',
      { status: 413 },
    );
  }
  const reason = (message ?? String(err)).replace(/\.$/, '');
  return new RestError('rest_invalid_body', `The request body could not be read: ${reason}.`, { status: 400 });
}

/** Registers the REST routes on `app` (in an encapsulated scope with raw-body parsing). */
export async function mountRestApi(
  app: FastifyInstance,
  server: RestServer,
  options: MountOptions = {},
): Promise<void> {
  const prefix = options.prefix ?? '/cms-json';
  await app.register(async (scope) => {
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    scope.removeAllContentTypeParsers();
    // Bytes, not text: a raw upload (`Content-Type: image/jpeg`) must reach the handler unaltered.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBodyBytes }, (_req, body, done) =>
      done(null, body),
    );
    await scope.register(multipart, { limits: { fileSize: maxBodyBytes, files: 10, fieldSize: 1024 * 1024 } });
    const handler = async (req: FastifyRequest, reply: FastifyReply, refused?: RestError) => {
      const [pathPart = '', queryPart = ''] = splitUrl(req.url);
      const query = parseQueryString(queryPart);
      let route: string;
      if (pathPart === prefix || pathPart.startsWith(`${prefix}/`)) {
        route = safeDecode(pathPart.slice(prefix.length)) || '/';
      } else {
        route = typeof query.rest_route === 'string' && query.rest_route !== '' ? query.rest_route : '/';
        delete query.rest_route;
      }
      const rawBody = Buffer.isBuffer(req.body) ? req.body : undefined;
      const body = rawBody ? rawBody.toString('utf8') : typeof req.body === 'string' ? req.body : '';
      const contentType = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      let bodyParams =
        req.method === 'POST' && contentType === 'application/x-www-form-urlencoded'
          ? parseQueryString(body)
          : undefined;
      let files: Record<string, UploadedFile> | undefined;
      let unreadable = refused;
      if (!unreadable && req.isMultipart()) {
        // multipart/form-data: fields become `$_POST`, file parts `$_FILES` (kept in memory, size-limited).
        const fields: Array<[string, string]> = [];
        files = {};
        try {
          for await (const part of req.parts()) {
            if (part.type === 'file') {
              files[part.fieldname] = {
                filename: part.filename,
                contentType: part.mimetype,
                data: await part.toBuffer(),
              };
            } else {
              fields.push([part.fieldname, String(part.value ?? '')]);
            }
          }
        } catch (err) {
          unreadable = bodyError(err, maxBodyBytes);
        }
        bodyParams = fieldsToParams(fields);
      }
      const out = await server.serve({
        method: req.method,
        route,
        query,
        headers: req.headers,
        body,
        ...(bodyParams ? { bodyParams } : {}),
        ...(rawBody && rawBody.length > 0 ? { rawBody } : {}),
        ...(files ? { files } : {}),
        ...(unreadable ? { bodyError: unreadable } : {}),
        remoteAddress: req.ip,
      });
      return send(reply, out);
    };
    // A body the content-type parser refused (past the cap, a bad Content-Length) never reaches the handler.
    scope.setErrorHandler(async (err, req, reply) => {
      const [pathPart = '', queryPart = ''] = splitUrl(req.url);
      const rest =
        pathPart === prefix ||
        pathPart.startsWith(`${prefix}/`) ||
        (options.restRouteQuery !== false && typeof parseQueryString(queryPart).rest_route === 'string');
      const status = (err as { statusCode?: number }).statusCode;
      if (!rest || status === undefined || status >= 500) throw err;
      return handler(req, reply, bodyError(err, maxBodyBytes));
    });
    scope.route({ method: [...METHODS], url: prefix, handler });
    scope.route({ method: [...METHODS], url: `${prefix}/*`, handler });
    if (options.restRouteQuery !== false) {
      const rootHandler = async (req: FastifyRequest, reply: FastifyReply) => {
        const [, queryPart = ''] = splitUrl(req.url);
        const query = parseQueryString(queryPart);
        if (typeof query.rest_route !== 'string') {
          if (options.siteRoot) return options.siteRoot(req, reply);
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
