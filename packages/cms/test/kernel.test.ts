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
