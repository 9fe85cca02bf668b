import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, type TestCms } from './helpers/cms-test-app.ts';

describe('REST kernel over HTTP', () => {
  let cms: TestCms;
  beforeAll(async () => {
    cms = await createTestCms();
  });
  afterAll(async () => cms.close());

  it('serves the index with the site fields, namespaces and routes', async () => {
    const res = await cms.call({ method: 'GET', url: '/cms-json/' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.name).toBe('Test Site');
    expect(body.authentication).toEqual([]);
    expect(Object.keys(body.routes)).toContain('/batch/v1');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(res.headers.link).toBe('<http://cms.test/cms-json/>; rel="https://api.w.org/"');
  });

  it('answers rest_no_route for unknown routes', async () => {
    const res = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/no-such-route' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      code: 'rest_no_route',
      message: 'No route was found matching the URL and request method.',
      data: { status: 404 },
    });
  });
});

describe('REST kernel mounted on Fastify', () => {
  let cms: TestCms;
  beforeAll(async () => {
    cms = await createTestCms();
  });
  afterAll(async () => cms.close());

  it('serves ?rest_route= on the site root like /cms-json/', async () => {
    const viaQuery = await cms.call({ method: 'GET', url: '/?rest_route=/cms/v2/types/post' });
    const viaPath = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/types/post' });
    expect(viaQuery.statusCode).toBe(200);
    expect(viaQuery.json()).toEqual(viaPath.json());
    const index = await cms.call({ method: 'GET', url: '/index.php?rest_route=/' });
    expect(index.json().namespaces).toContain('cms/v2');
  });

  it('advertises the API root on the site root for discovery', async () => {
    const res = await cms.call({ method: 'HEAD', url: '/' });
    expect(res.headers.link).toBe('<http://cms.test/cms-json/>; rel="https://api.w.org/"');
  });

  it('answers OPTIONS with the route schema and HEAD without a body', async () => {
    const options = await cms.call({ method: 'OPTIONS', url: '/cms-json/cms/v2/users' });
    expect(options.statusCode).toBe(200);
    expect(options.json().schema.title).toBe('user');
    expect(options.json().endpoints.map((e: { methods: string[] }) => e.methods)).toEqual([['GET'], ['POST']]);
    const head = await cms.call({ method: 'HEAD', url: '/cms-json/cms/v2/categories' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['x-cms-total']).toBe('1');
  });

  it('keeps ops routes outside the API', async () => {
    expect((await cms.call({ method: 'GET', url: '/healthz' })).json()).toEqual({ ok: true, status: 'alive' });
    expect((await cms.call({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
