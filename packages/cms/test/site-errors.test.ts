import { DatabaseUnavailableError } from '@svc/platform';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerSiteHttp } from '../src/site/site-http.ts';
import type { SiteService } from '../src/site/site-service.ts';

/** A site whose service fails as `fail` says, on a bare Fastify app (no logger output). */
async function failingSite(fail: () => never) {
  const app = Fastify({ logger: false, genReqId: () => 'req-site-test-1' });
  const service = {
    handle: async () => fail(),
    settings: async () => ({ home: 'http://cms.test' }),
  } as unknown as SiteService;
  await registerSiteHttp(app, service);
  return app;
}

describe('public site errors', () => {
  it('answers an unexpected failure with a 500 page quoting the request id, never the error', async () => {
    const app = await failingSite(() => {
      throw new Error('internal detail: SELECT * FROM users WHERE pass = hunter2');
    });
    const res = await app.inject({ url: '/hello-world/' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(res.body).toContain('logged with request id req-site-test-1');
    expect(res.body).not.toMatch(/internal detail|hunter2|SELECT/);
    await app.close();
  });

  it('answers an unreachable database with a 503 page to retry, and a client error with its own status', async () => {
    const app = await failingSite(() => {
      throw new DatabaseUnavailableError(
        'cannot connect to PostgreSQL at postgres://u:[Redacted]@db/cms: ECONNREFUSED',
      );
    });
    const down = await app.inject({ url: '/hello-world/' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('30');
    expect(down.body).toContain('cannot reach its database');
    expect(down.body).not.toContain('ECONNREFUSED');
    // A password form over the form parser's 64 KB: Fastify's 413, as a page.
    const large = await app.inject({
      method: 'POST',
      url: '/cms-postpass',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `post_password=${'x'.repeat(70 * 1024)}`,
    });
    expect(large.statusCode).toBe(413);
    expect(large.headers['content-type']).toBe('text/html; charset=UTF-8');
    await app.close();
  });
});
