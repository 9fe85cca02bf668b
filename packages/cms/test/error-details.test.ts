/**
 * `data.details` of `rest_invalid_param` as WordPress sends it: a PHP array keyed by parameter, so `{...}` when a
 * parameter was refused with an error object and `[]` when none was (a validator that answered false, as the
 * `meta` field does for a value that is not an object), also inside a batch. Compared with what the oracle
 * sent for the same requests (WordPress 6.1, recorded 2026-11-22).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

for (const dialect of dialects()) {
  describe.skipIf(dialect.skip)(`rest_invalid_param details (${dialect.name})`, () => {
    let cms: TestCms;
    beforeAll(async () => {
      cms = await createTestCms(dialect);
    });
    afterAll(async () => {
      await cms?.close();
    });

    const post = (url: string, payload: Record<string, unknown>) =>
      cms.call({ method: 'POST', url: `/cms-json${url}`, as: 'admin', payload });

    it('is an empty array when the only invalid parameter was refused without an error', async () => {
      const res = await post('/cms/v2/posts', { title: 'x', status: 'draft', meta: 'not an object' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): meta',
        data: { status: 400, params: { meta: 'Invalid parameter.' }, details: [] },
      });
      expect(res.body).toContain('"details":[]');
    });

    it('is an object holding only the errors when some parameters were refused with one', async () => {
      const res = await post('/cms/v2/posts', { title: 'x', status: 'draft', meta: 'zz', sticky: 'maybe' });
      expect(res.json().data).toEqual({
        status: 400,
        params: { meta: 'Invalid parameter.', sticky: 'sticky is not of type boolean.' },
        details: {
          sticky: { code: 'rest_invalid_type', message: 'sticky is not of type boolean.', data: { param: 'sticky' } },
        },
      });
    });

    it('is the same inside a batch, in both validation modes', async () => {
      for (const validation of ['normal', 'require-all-validate']) {
        const res = await post('/batch/v1', {
          validation,
          requests: [{ path: '/cms/v2/posts', body: { title: 'x', meta: 'zz' } }],
        });
        expect(res.statusCode).toBe(207);
        const [first] = res.json().responses;
        expect(first.status).toBe(400);
        expect(first.body.data).toEqual({ status: 400, params: { meta: 'Invalid parameter.' }, details: [] });
      }
    });
  });
}
