/**
 * The kernel over HTTP-like input (RestServer.serve), with small routes registered for the test:
 * method handling, parameter precedence, validation passes, response shaping, CORS and batch.
 */
import { existsSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { absintArg } from '../src/rest/controller.ts';
import { RestError } from '../src/rest/errors.ts';
import { setPaginationHeaders } from '../src/rest/pagination.ts';
import { parseQueryString } from '../src/rest/php.ts';
import type { CurrentUser } from '../src/rest/request.ts';
import { RestResponse } from '../src/rest/response.ts';
import { allowPublic, CREATABLE, EDITABLE, READABLE } from '../src/rest/route.ts';
import { type HttpInput, RestServer } from '../src/rest/server.ts';
import { wpToCms } from './helpers/brand.ts';
import { fixture, fixtureHeaders, fixturesDir, fixturesSkip } from './helpers/oracle-fixtures.ts';

const editor: CurrentUser = { id: 7, login: 'ed', roles: ['editor'] };

function makeServer(): RestServer {
  const server = new RestServer({
    apiRoot: () => 'http://cms.test/cms-json/',
    authenticate: async (req) => {
      const auth = req.header('authorization');
      if (!auth) return null;
      if (auth === 'Bearer good') return { user: editor };
      return new RestError('incorrect_password', 'The provided password is an invalid application password.', {
        status: 401,
      });
    },
    can: async (user, cap) => user.id === editor.id && cap === 'edit_things',
  });
  server.registerRoute(
    'test/v1',
    '/things',
    [
      {
        methods: READABLE,
        permission: allowPublic,
        args: {
          context: { type: 'string', enum: ['view', 'embed', 'edit'], default: 'view', validateCallback: true },
          per_page: {
            type: 'integer',
            default: 10,
            minimum: 1,
            maximum: 100,
            validateCallback: true,
            sanitizeCallback: absintArg,
          },
          page: { type: 'integer', default: 1, minimum: 1, validateCallback: true, sanitizeCallback: absintArg },
          orderby: { type: 'string', enum: ['id', 'title'], default: 'id' },
          include: { type: 'array', items: { type: 'integer' }, default: [] },
        },
        handler: async (req) => {
          const response = new RestResponse([
            {
              id: 1,
              title: { rendered: 'One', raw: 'one' },
              secret: 's',
              _links: { self: [{ href: 'http://cms.test/cms-json/test/v1/things/1' }] },
            },
          ]);
          setPaginationHeaders(response, req, {
            total: 25,
            perPage: Number(req.get('per_page')),
            page: Number(req.get('page')),
            baseUrl: 'http://cms.test/cms-json/test/v1/things',
          });
          response.header('X-Seen', JSON.stringify({ per_page: req.get('per_page'), include: req.get('include') }));
          return response;
        },
      },
      {
        methods: CREATABLE,
        permission: async (req) =>
          (await req.can('edit_things')) ||
          new RestError('rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.', {
            status: req.isLoggedIn ? 403 : 401,
          }),
        args: {
          title: { type: 'string', required: true, validateCallback: true },
          status: {
            type: 'string',
            enum: ['publish', 'future', 'draft', 'pending', 'private'],
            validateCallback: true,
          },
        },
        handler: async (req) =>
          new RestResponse({ id: 2, title: req.get('title'), status: req.get('status') ?? 'draft' }, 201),
      },
    ],
    {
      allowBatch: { v1: true },
      schema: () => ({ title: 'thing', type: 'object', properties: { id: { type: 'integer', context: ['view'] } } }),
    },
  );
  server.registerRoute('test/v1', '/things/(?P<id>[\\d]+)', [
    {
      methods: READABLE,
      permission: allowPublic,
      args: { context: { type: 'string', enum: ['view', 'embed', 'edit'], default: 'view', validateCallback: true } },
      handler: async (req) => {
        const id = Number(req.get('id'));
        if (id > 10) throw new RestError('rest_thing_invalid_id', 'Invalid thing ID.', { status: 404 });
        const response = new RestResponse({ id, context: req.get('context'), seen: req.get('seen') ?? null });
        response.addLink('author', 'http://cms.test/cms-json/test/v1/people/3', { embeddable: true });
        response.addLink('https://api.w.org/term', 'http://cms.test/cms-json/test/v1/people/4', {
          embeddable: true,
          taxonomy: 'category',
        });
        response.addLink('about', 'http://cms.test/cms-json/test/v1/things');
        return response;
      },
    },
    {
      methods: EDITABLE,
      permission: allowPublic,
      args: { seen: { type: 'integer' } },
      handler: async (req) => ({ method: req.method, seen: req.get('seen') }),
    },
  ]);
  server.registerRoute('test/v1', '/people/(?P<id>[\\d]+)', [
    {
      methods: READABLE,
      permission: allowPublic,
      args: { context: { type: 'string', default: 'view' } },
      handler: async (req) => ({ id: Number(req.get('id')), context: req.get('context') }),
    },
  ]);
  server.registerRoute('test/v1', '/boom', [
    {
      methods: READABLE,
      permission: allowPublic,
      handler: () => {
        throw new Error('database exploded: SELECT * FROM secrets');
      },
    },
  ]);
  return server;
}

function input(method: string, url: string, init: Partial<HttpInput> = {}): HttpInput {
  const q = url.indexOf('?');
  return {
    method,
    route: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? {} : parseQueryString(url.slice(q + 1)),
    headers: {},
    body: '',
    ...init,
  };
}

async function call(server: RestServer, method: string, url: string, init: Partial<HttpInput> = {}) {
  const out = await server.serve(input(method, url, init));
  return { ...out, json: out.body === null ? null : JSON.parse(out.body) };
}

describe('RestServer.serve', () => {
  let server: RestServer;
  beforeEach(() => {
    server = makeServer();
  });

  it('sends WordPress fixed headers and the api.w.org Link', async () => {
    const res = await call(server, 'GET', '/test/v1/things/1');
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe('application/json; charset=UTF-8');
    expect(res.headers['X-Robots-Tag']).toBe('noindex');
    expect(res.headers['X-Content-Type-Options']).toBe('nosniff');
    expect(res.headers.Link).toBe('<http://cms.test/cms-json/>; rel="https://api.w.org/"');
    expect(res.headers['Access-Control-Expose-Headers']).toBe('X-CMS-Total, X-CMS-TotalPages, Link');
    expect(res.headers['Access-Control-Allow-Headers']).toBe(
      'Authorization, X-CMS-Nonce, Content-Disposition, Content-MD5, Content-Type',
    );
    expect(res.headers.Vary).toBe('Origin');
    expect(res.headers.Allow).toBe('GET, POST, PUT, PATCH');
  });

  it('answers CORS for an Origin and sends no-cache headers to logged-in users', async () => {
    const res = await call(server, 'GET', '/test/v1/things/1', {
      headers: { origin: 'https://app.example', authorization: 'Bearer good' },
    });
    expect(res.headers['Access-Control-Allow-Origin']).toBe('https://app.example');
    expect(res.headers['Access-Control-Allow-Methods']).toBe('OPTIONS, GET, POST, PUT, PATCH, DELETE');
    expect(res.headers['Access-Control-Allow-Credentials']).toBe('true');
    expect(res.headers.Expires).toBe('Wed, 11 Jan 1984 05:00:00 GMT');
    expect(res.headers['Cache-Control']).toBe('no-cache, must-revalidate, max-age=0');
  });

  it('rejects bad credentials before routing', async () => {
    const res = await call(server, 'GET', '/test/v1/things/1', { headers: { authorization: 'Bearer bad' } });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('incorrect_password');
  });

  it('answers HEAD like GET without a body, and 404 rest_no_route elsewhere', async () => {
    const head = await call(server, 'HEAD', '/test/v1/things');
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers['X-CMS-Total']).toBe('25');
    const none = await call(server, 'DELETE', '/test/v1/things');
    expect(none.status).toBe(404);
    expect(none.json).toEqual({
      code: 'rest_no_route',
      message: 'No route was found matching the URL and request method.',
      data: { status: 404 },
    });
  });

  it('honours _method and X-HTTP-Method-Override', async () => {
    const viaQuery = await call(server, 'POST', '/test/v1/things/3?_method=PUT');
    expect(viaQuery.json).toEqual({ method: 'PUT' });
    const viaHeader = await call(server, 'POST', '/test/v1/things/3', {
      headers: { 'x-http-method-override': 'PATCH' },
    });
    expect(viaHeader.json.method).toBe('PATCH');
  });

  it('merges parameters with WordPress precedence: JSON body > form body > query > URL', async () => {
    const res = await call(server, 'POST', '/test/v1/things/3?seen=1', {
      headers: { 'content-type': 'application/json' },
      body: '{"seen":"2"}',
    });
    expect(res.json.seen).toBe(2);
    const form = await call(server, 'PUT', '/test/v1/things/3?seen=1', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'seen=5',
    });
    expect(form.json.seen).toBe(5);
    // A query parameter named like a path parameter wins over the path (URL params rank below GET).
    const shadow = await call(server, 'GET', '/test/v1/things/3?id=4');
    expect(shadow.json.id).toBe(4);
  });

  it('coerces query strings per the schema: "5" -> 5, "1,2" -> [1, 2]', async () => {
    const res = await call(server, 'GET', '/test/v1/things?per_page=5&include=1,2');
    expect(JSON.parse(String(res.headers['X-Seen']))).toEqual({ per_page: 5, include: [1, 2] });
    expect(res.headers['X-CMS-TotalPages']).toBe('5');
    expect(res.headers.Link).toBe(
      '<http://cms.test/cms-json/test/v1/things?per_page=5&include%5B0%5D=1&include%5B1%5D=2&page=2>; rel="next"',
    );
    const middle = await call(server, 'GET', '/test/v1/things?page=2&per_page=10');
    expect(middle.headers.Link).toBe(
      // add_query_arg() replaces `page` where the request put it, as WordPress's links show.
      '<http://cms.test/cms-json/test/v1/things?page=1&per_page=10>; rel="prev", <http://cms.test/cms-json/test/v1/things?page=3&per_page=10>; rel="next"',
    );
  });

  it('reports validate-callback errors together, and sanitiser errors only when those pass (two passes)', async () => {
    const first = await call(server, 'GET', '/test/v1/things?per_page=0&orderby=bogus&context=nope');
    expect(first.status).toBe(400);
    expect(first.json.message).toBe('Invalid parameter(s): context, per_page');
    const second = await call(server, 'GET', '/test/v1/things?orderby=bogus');
    expect(second.json.message).toBe('Invalid parameter(s): orderby');
    expect(second.json.data.params.orderby).toBe('orderby is not one of id and title.');
  });

  it('reports missing required parameters and invalid JSON', async () => {
    const missing = await call(server, 'POST', '/test/v1/things', { headers: { authorization: 'Bearer good' } });
    expect(missing.json).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): title',
      data: { status: 400, params: ['title'] },
    });
    const broken = await call(server, 'POST', '/test/v1/things', {
      headers: { authorization: 'Bearer good', 'content-type': 'application/json' },
      body: '{"title": "x",',
    });
    expect(broken.status).toBe(400);
    expect(broken.json.code).toBe('rest_invalid_json');
  });

  it('turns a false permission into 401/403 and hides unexpected errors behind a generic 500', async () => {
    const anon = await call(server, 'POST', '/test/v1/things', { bodyParams: { title: 'x' } });
    expect(anon.status).toBe(401);
    expect(anon.json.code).toBe('rest_cannot_create');
    const boom = await call(server, 'GET', '/test/v1/boom');
    expect(boom.status).toBe(500);
    expect(boom.body).not.toContain('secrets');
    expect(boom.json.code).toBe('internal_server_error');
  });

  it('accepts ?rest_route style routes and trailing slashes', async () => {
    const res = await call(server, 'GET', '/test/v1/things/2/');
    expect(res.json.id).toBe(2);
  });

  it('filters _fields, including nested paths and _links', async () => {
    const res = await call(server, 'GET', '/test/v1/things?_fields=id,title.rendered');
    expect(res.json).toEqual([{ id: 1, title: { rendered: 'One' } }]);
    const withLinks = await call(server, 'GET', '/test/v1/things?_fields=id,_links');
    expect(withLinks.json[0]._links.self[0].href).toBe('http://cms.test/cms-json/test/v1/things/1');
  });

  it('embeds embeddable links with context=embed, mapping wp: relations to cms:', async () => {
    const all = await call(server, 'GET', '/test/v1/things/1?_embed');
    expect(all.json._links['cms:term'][0]).toEqual({
      embeddable: true,
      taxonomy: 'category',
      href: 'http://cms.test/cms-json/test/v1/people/4',
    });
    expect(all.json._links.curies).toEqual([{ name: 'cms', href: 'https://api.w.org/{rel}', templated: true }]);
    expect(all.json._embedded.author).toEqual([{ id: 3, context: 'embed' }]);
    expect(all.json._embedded['cms:term']).toEqual([{ id: 4, context: 'embed' }]);
    expect(all.json._embedded.about).toBeUndefined();
    const some = await call(server, 'GET', '/test/v1/things/1?_embed=author');
    expect(Object.keys(some.json._embedded)).toEqual(['author']);
    const wpStyle = await call(server, 'GET', '/test/v1/things/1?_embed=wp:term');
    expect(Object.keys(wpStyle.json._embedded)).toEqual(['cms:term']);
  });

  it('wraps in an envelope on _envelope, with status 200 outside', async () => {
    const res = await call(server, 'GET', '/test/v1/things/99?_envelope');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe(404);
    expect(res.json.body.code).toBe('rest_thing_invalid_id');
    expect(res.json.headers).toEqual({ Allow: 'GET, POST, PUT, PATCH' });
  });

  it('supports JSONP and rejects unsafe callbacks', async () => {
    const ok = await server.serve(input('GET', '/test/v1/people/1?_jsonp=cb'));
    expect(ok.body).toBe('/**/cb({"id":1,"context":"view"})');
    expect(ok.headers['Content-Type']).toBe('application/javascript; charset=UTF-8');
    const bad = await server.serve(input('GET', '/test/v1/people/1?_jsonp=alert(1)'));
    expect(bad.status).toBe(400);
  });

  it('describes a route on OPTIONS with its endpoints and schema', async () => {
    const res = await call(server, 'OPTIONS', '/test/v1/things');
    expect(res.json.namespace).toBe('test/v1');
    expect(res.json.methods).toEqual(['GET', 'POST']);
    expect(res.json.endpoints[1]).toEqual({
      methods: ['POST'],
      allow_batch: { v1: true },
      args: {
        title: { type: 'string', required: true },
        status: { type: 'string', enum: ['publish', 'future', 'draft', 'pending', 'private'], required: false },
      },
    });
    expect(res.json.schema.title).toBe('thing');
  });
});

describe('POST /batch/v1', () => {
  let server: RestServer;
  beforeEach(() => {
    server = makeServer();
  });
  const auth = { authorization: 'Bearer good', 'content-type': 'application/json' };
  const requests = [
    { method: 'POST', path: '/test/v1/things', body: { title: 'one', status: 'draft' } },
    { method: 'POST', path: '/test/v1/things', body: { title: 'two', status: 'publish' } },
    { method: 'POST', path: '/test/v1/things', body: { title: 'bad', status: 'not-a-status' } },
  ];

  it('runs each request and answers 207 with per-request status, headers and body', async () => {
    const res = await call(server, 'POST', '/batch/v1', { headers: auth, body: JSON.stringify({ requests }) });
    expect(res.status).toBe(207);
    expect(res.json.responses.map((r: { status: number }) => r.status)).toEqual([201, 201, 400]);
    expect(res.json.responses[0].body).toEqual({ id: 2, title: 'one', status: 'draft' });
    expect(res.json.responses[0].headers).toEqual({ Allow: 'GET, POST' });
  });

  it('runs nothing when one request fails validation under require-all-validate', async () => {
    let created = 0;
    server.registerRoute(
      'test/v1',
      '/counted',
      [
        {
          methods: CREATABLE,
          permission: allowPublic,
          args: { n: { type: 'integer', validateCallback: true } },
          handler: () => ({ created: ++created }),
        },
      ],
      { allowBatch: { v1: true } },
    );
    const body = JSON.stringify({
      validation: 'require-all-validate',
      requests: [
        { path: '/test/v1/counted', body: { n: 1 } },
        { path: '/test/v1/counted', body: { n: 'x' } },
      ],
    });
    const res = await call(server, 'POST', '/batch/v1', { headers: auth, body });
    expect(res.status).toBe(207);
    expect(created).toBe(0);
    expect(res.json.failed).toBe('validation');
    expect(res.json.responses[0]).toBeNull();
    expect(res.json.responses[1].status).toBe(400);
  });

  it('refuses routes that are not batch-capable and more than 25 requests', async () => {
    const res = await call(server, 'POST', '/batch/v1', {
      headers: auth,
      body: JSON.stringify({ requests: [{ method: 'PUT', path: '/test/v1/things/1', body: {} }] }),
    });
    expect(res.json.responses[0].body.code).toBe('rest_batch_not_allowed');
    const many = Array.from({ length: 26 }, () => ({ path: '/test/v1/things', body: { title: 'x' } }));
    const tooMany = await call(server, 'POST', '/batch/v1', {
      headers: auth,
      body: JSON.stringify({ requests: many }),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.data.params.requests).toBe('requests must contain at most 25 items.');
  });

  describe.skipIf(fixturesSkip)('matches the oracle fixtures', () => {
    it('has the same shape as batch-v1 and batch-v1-require-all-validate', async () => {
      const normal = await call(server, 'POST', '/batch/v1', { headers: auth, body: JSON.stringify({ requests }) });
      const oracle = fixture('batch-v1');
      expect(normal.status).toBe(fixtureHeaders('batch-v1').status);
      expect(normal.json.responses.map((r: { status: number }) => r.status)).toEqual(
        oracle.responses.map((r: { status: number }) => r.status),
      );
      // The failing request's error is field-by-field WordPress's.
      expect(normal.json.responses[2].body).toEqual(wpToCms(oracle.responses[2].body));
      const strict = await call(server, 'POST', '/batch/v1', {
        headers: auth,
        body: JSON.stringify({ validation: 'require-all-validate', requests }),
      });
      expect(strict.status).toBe(fixtureHeaders('batch-v1-require-all-validate').status);
      expect(strict.json).toEqual(wpToCms(fixture('batch-v1-require-all-validate')));
    });

    it('describes /batch/v1 in the index exactly like WordPress', async () => {
      const index = await call(server, 'GET', '/');
      const oracle = wpToCms(fixture('index.trimmed'), { from: 'http://127.0.0.1:8088', to: 'http://cms.test' }) as {
        routes: Record<string, unknown>;
      };
      expect(index.json.routes['/batch/v1']).toEqual(oracle.routes['/batch/v1']);
      expect(index.json.routes['/']).toEqual(oracle.routes['/']);
      expect(existsSync(fixturesDir)).toBe(true);
    });
  });
});
